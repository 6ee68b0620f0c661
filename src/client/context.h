// A model's context on the client side: what the model defines through the
// API, what close of definition turns it into (output plan, pack plans,
// schedules), and the per-step path: update_calendar and write.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "calendar/calendar.h"
#include "config/config.h"
#include "grid/box.h"
#include "output/output_plan.h"
#include "server/output_engine.h"
#include "transport/send_channel.h"
#include "transport/world.h"

namespace foehn::client {

struct DomainSetting {
  std::int64_t ni_glo = 0, nj_glo = 0;
  output::LocalBlock block;
  std::vector<double> lon, lat;  // local values
};

struct AxisSetting {
  std::vector<double> values;
  std::string units, positive;
};

class Context {
 public:
  Context(const std::string& id, MPI_Comm comm, const config::ContextDef& def, transport::World& world,
          std::uint32_t key, transport::ClientCounters& counters);
  ~Context();

  void set_calendar(const char* type, const char* start, const char* origin, const char* timestep);
  void set_domain(const std::string& id, DomainSetting setting);
  void set_axis(const std::string& id, AxisSetting setting);
  void close_definition();
  void update_calendar(std::int64_t step);
  int handle(const std::string& field_id) const;  // throws for an unknown field
  bool is_active(int handle) const;
  template <class T>
  void write(int handle, const T* data, std::size_t n);
  void close();

 private:
  struct Destination {  // one server (or this client itself, attached)
    std::vector<grid::Run> runs;          // local data -> packed stream
    std::vector<std::int64_t> run_first;  // packed offset of each run
    std::int64_t total = 0;
  };
  struct OutputVar {
    int plan_index = 0;
    int file = 0;
    std::size_t elem = 4;
    std::vector<Destination> dest;  // by server (one entry when attached)
    std::int64_t last_record = -1;  // to refuse a second write in one step
  };
  struct Field {
    std::string id;
    std::int64_t local_size = -1;  // -1: not used by any enabled file
    std::string shape_text;        // e.g. "40 x 20 x 3", for messages
    std::vector<int> outputs;      // indices into outputs_
  };
  struct FileSchedule {
    std::unique_ptr<calendar::Schedule> schedule;
    std::int64_t next_k = 1;
    std::int64_t records = 0;
    bool due = false;
    std::int64_t record = -1;
  };

  void resolve_definitions();  // local checks; builds plan_ without the exchanged parts
  void exchange_domains();     // collective: every rank's blocks, global lon/lat
  void prepare_outputs();      // local: schedules, pack plans, buffers, channels
  void resolve_field(int file_index, const config::FieldDef& f);
  int plan_domain(const std::string& id, const config::Location& where);
  int plan_axis(const std::string& id, const config::Location& where);
  void send_plan_and_wait();
  void collect_acks(const char* what);
  template <class T, class U>
  void pack(OutputVar& out, int server, const T* data, std::int64_t record);
  template <class T, class U>
  void pack_attached(OutputVar& out, const T* data, std::int64_t record);
  void send_event_to_all(transport::EventType type, std::uint32_t item, std::int64_t record, double time);
  void make_room(int server);
  void check_open(const char* call) const;

  std::string id_;
  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
  config::ContextDef def_;
  transport::World* world_;
  std::uint32_t key_;
  transport::ClientCounters* counters_;

  // Definitions.
  config::CalendarDef calendar_def_;
  std::unordered_map<std::string, DomainSetting> domains_;
  std::unordered_map<std::string, AxisSetting> axes_;
  bool closed_definition_ = false, closed_ = false;

  // Resolved at close of definition.
  std::unique_ptr<calendar::Calendar> calendar_;
  std::int64_t start_ = 0, origin_ = 0, timestep_us_ = 0;
  output::ContextPlan plan_;
  std::vector<Field> fields_;
  std::unordered_map<std::string, int> field_index_;
  std::vector<std::string> plan_domain_ids_, plan_axis_ids_;
  std::vector<OutputVar> outputs_;
  std::vector<FileSchedule> files_;
  std::vector<transport::SendChannel> channels_;  // by server
  std::unique_ptr<server::OutputEngine> attached_;  // attached mode only
  std::vector<std::byte> scratch_;                  // attached packing
  std::int64_t step_ = -1;
  double now_seconds_ = 0;
};

}  // namespace foehn::client
