// A model's context on the client side: what the model defines through the
// API, what close of definition turns it into (output plan, pack plans,
// schedules, the filter graph), and the per-step path: update_calendar and
// write.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "calendar/calendar.h"
#include "client/agree.h"
#include "config/config.h"
#include "filters/expression.h"
#include "filters/temporal.h"
#include "grid/box.h"
#include "grid/domain_layout.h"
#include "grid/pack_plan.h"
#include "output/output_plan.h"
#include "server/output_engine.h"
#include "transport/progress_thread.h"
#include "transport/send_channel.h"
#include "transport/world.h"

namespace foehn::client {

// What the model says about its part of a domain (docs/grids.md): set whole
// by foehn_set_domain_rectilinear (ni_glo, nj_glo, block, lon, lat), or
// piece by piece by the foehn_set_domain_* calls (type first).
struct DomainSetting {
  std::int64_t ni_glo = 0, nj_glo = 0;
  output::LocalBlock block;
  std::vector<double> lon, lat;  // rectilinear block: ni and nj values; otherwise one per local point
  std::string type;              // empty: the XML's (rectilinear by default)
  grid::DomainLayout layout;     // local points, data layout, mask (the block is copied in)
  bool has_block = false, has_index = false;
  int nvertex = 0;               // corners per lon / lat value in the bounds (0: none)
  std::vector<double> bounds_lon, bounds_lat;
  // Derived at close of definition: the global index of each local point,
  // and of each data value (-1: not sent).
  std::vector<std::int64_t> owned, data;
};

// What the model says about an axis (foehn_set_axis*, in any order): its
// values, bounds and metadata, and, when decomposed, its part.
struct AxisSetting {
  std::int64_t n_glo = -1;          // -1: not said (the values' count, or the XML's n_glo)
  bool decomposed = false;          // a part given (foehn_set_axis_decomposition / _index)
  std::vector<std::int64_t> index;  // decomposed: the global index of each local value
  std::vector<double> values;       // one per local value (empty: the XML's)
  std::vector<double> bounds;       // two per local value (lower, upper), or empty
  std::string units, positive;
  std::int64_t local = 0;           // local values, found at close of definition
};

struct ScalarSetting {
  double value = 0;
  std::string units;
};

// The instants of a period (output_freq, freq_op) and whether the current
// step reached one.
struct Sampler {
  std::unique_ptr<calendar::Schedule> schedule;  // null: every step
  std::int64_t next_k = 1;
  bool due = false;
  void advance(std::int64_t now);
};

class Context {
 public:
  Context(const std::string& id, MPI_Comm comm, const config::ContextDef& def, transport::World& world,
          std::uint32_t key, transport::ClientCounters& counters);
  ~Context();

  void set_calendar(const char* type, const char* start, const char* origin, const char* timestep);
  void set_domain(const std::string& id, DomainSetting setting);
  // The foehn_set_domain_* calls (context_define.cpp).
  void set_domain_type(const std::string& id, const char* type, std::int64_t ni_glo, std::int64_t nj_glo);
  void set_domain_block(const std::string& id, std::int64_t ibegin, std::int64_t ni, std::int64_t jbegin, std::int64_t nj);
  void set_domain_index(const std::string& id, std::vector<std::int64_t> i_index, std::vector<std::int64_t> j_index);
  void set_domain_data(const std::string& id, int data_dim, std::int64_t data_ibegin, std::int64_t data_ni,
                       std::int64_t data_jbegin, std::int64_t data_nj);
  void set_domain_data_index(const std::string& id, std::vector<std::int64_t> data_i_index,
                             std::vector<std::int64_t> data_j_index);
  void set_domain_coordinates(const std::string& id, std::vector<double> lon, std::vector<double> lat, int nvertex,
                              std::vector<double> bounds_lon, std::vector<double> bounds_lat);
  void set_domain_mask(const std::string& id, std::vector<std::uint8_t> mask);
  // The foehn_set_axis* and foehn_set_scalar calls (context_define.cpp).
  void set_axis(const std::string& id, std::vector<double> values, const char* units, const char* positive);
  void set_axis_part(const std::string& id, std::int64_t n_glo, std::vector<std::int64_t> index, const char* call);
  void set_axis_bounds(const std::string& id, std::vector<double> bounds);
  void set_scalar(const std::string& id, double value, const char* units);
  void close_definition();
  void update_calendar(std::int64_t step);
  // Dynamic time stepping: the model time, in seconds since the start date.
  void set_model_time(double seconds);
  int handle(const std::string& field_id) const;  // throws for an unknown field
  // The field's local data shape, Fortran order ("40 x 20 x 3"); "" if no output uses it. For the bindings.
  const std::string& shape_text(int handle) const { return fields_.at(static_cast<std::size_t>(handle)).shape_text; }
  bool is_active(int handle) const;
  template <class T>
  void write(int handle, const T* data, std::size_t n);
  void close();
  // Sends everything buffered for the servers and waits until it has left.
  // Another context calls this before it waits for the servers (its close
  // or close of definition): the servers work through the contexts' records
  // in one order, so data held here could keep them from that context.
  void drain_sends();
  // Whether other contexts of this process are open (set by the API). A
  // context alone announces each record when its step begins, so that the
  // servers write each variable as soon as its values are in; beside others
  // it announces at the step's end (announces_ below).
  void set_shared(bool shared) { shared_ = shared; }
  // Attributes and variables at run time (context_attributes.cpp): the
  // resolved value of an attribute as text (null when not defined), setting
  // a field or file attribute before close of definition, a variable's text.
  const std::string* attribute(const std::string& kind, const std::string& id, const std::string& name);
  void set_attribute(const std::string& kind, const std::string& id, const std::string& name, const std::string& value);
  const std::string* variable(const std::string& id) const;
  // Whether any enabled output or expression ever needs the field's data.
  bool is_used(int handle) const;

 private:
  struct Destination {  // one server (or this client itself, attached)
    std::int64_t total = 0;  // values of this client's stream for it (out.pack packs them)
  };
  struct OutputVar {
    int plan_index = 0;
    int file = 0;
    std::size_t elem = 4;
    std::vector<Destination> dest;  // by server (one entry when attached)
    grid::PackPlan pack;            // the same streams, by gathers or one staging pass (see prepare_outputs)
    std::int64_t local_size = 0;    // values per step from this rank (the grid's local size)
    filters::TemporalOp op = filters::TemporalOp::instant;
    bool on_server = false;         // samples go to the servers, which reduce them
    int stream = -1;                // fed by this filter stream; -1: by its field's writes
    double missing = std::numeric_limits<double>::quiet_NaN();  // detect_missing_value
    Sampler sampling;               // freq_op
    filters::Accumulator acc;       // reducing on the client
    std::int64_t last_record = -1;  // to refuse a second write in one step
    std::int64_t last_sample_step = -1;
    std::int64_t last_sample_time = 0;  // for the weights of irregular steps
    bool once_done = false;
  };
  struct Field {
    std::string id;
    std::int64_t local_size = -1;  // -1: not used by any enabled file
    std::string shape_text;        // e.g. "40 x 20 x 3", for messages
    std::vector<int> outputs;      // output vars fed directly by its writes
    int stream = -1;               // its cached copy, when expressions use it
    double missing = std::numeric_limits<double>::quiet_NaN();
  };
  // A node of the filter graph in the local layout: a cached source, an
  // expression, or a chained temporal operation (@id).
  struct Stream {
    enum class Kind { source, expression, chain } kind = Kind::source;
    int field = -1;                                  // source
    std::shared_ptr<const filters::Expression> expr; // expression
    std::vector<int> inputs;                         // expression: one stream per expression input; chain: one
    filters::Accumulator acc;                        // chain
    Sampler period;                                  // chain: emits at its period's ends
    std::int64_t last_sample_time = 0;
    std::vector<double> data;
    std::int64_t step = -1;  // the step `data` belongs to
  };
  struct FileSchedule {
    Sampler sampler;
    std::int64_t records = 0;
    std::int64_t record = -1;  // the record due now
    std::int64_t record_start = 0;  // start of the record's interval (instant, microseconds)
  };
  struct GridShape {
    std::vector<output::Dim> dims;
    std::vector<std::int32_t> scalars;  // plan scalars: coordinates without a dimension
    std::int64_t local = 1;
    std::string text;
  };

  void resolve_definitions();  // local checks; builds plan_ without the exchanged parts
  void exchange_domains();     // collective: every rank's part, its points and coordinates
  void exchange_axes();        // collective: the parts, values and bounds of decomposed axes
  void prepare_outputs();      // local: schedules, pack plans, buffers, channels
  // For each server, this rank's data positions in its range (cached per domain).
  const std::vector<std::vector<std::int64_t>>& destinations_of(
      int domain, int nservers, std::map<int, std::vector<std::vector<std::int64_t>>>& found) const;
  // file_compression: the file's compression_level, for fields without one.
  void resolve_field(int file_index, const config::FieldDef& f, int file_compression);
  std::string data_source(const config::FieldDef& f) const;
  GridShape resolve_grid(const config::FieldDef& f, const std::string& id);
  int register_field(const config::FieldDef& def, const GridShape& shape);
  int stream_for_field(const std::string& id, const config::Location& where, std::vector<std::string>& path);
  int stream_for_expression(const std::string& owner, const std::string& text, const std::string& self,
                            const config::FieldDef& user, const GridShape& shape, std::vector<std::string>& path);
  // Instants start + offset + k·period (empty period: every step); null
  // when that is every step from the start.
  std::unique_ptr<calendar::Schedule> make_schedule(const std::string& period, const config::Location& where,
                                                    const std::string& what, const std::string& offset = "") const;
  void file_periods(const config::FileDef& file, const std::string& file_id, output::FileInfo& info) const;
  std::string cell_methods(filters::TemporalOp op, const std::string& freq_op) const;
  int plan_domain(const std::string& id, const config::Location& where);
  DomainSetting& domain_setting(const std::string& id, const char* call);  // after foehn_set_domain_type
  void resolve_domain(const std::string& id, const config::DomainDef& def, DomainSetting& s);
  int plan_axis(const std::string& id, const config::Location& where);
  int plan_scalar(const std::string& id, const config::Location& where);
  AxisSetting& axis_setting(const std::string& id, const char* call);

  // Sizes the send buffers from the bytes each server gets per output step
  // and checks the transport variables (context_transport.cpp); the
  // channels open later, while the servers create the files.
  void size_channels(const std::vector<std::size_t>& bytes_per_server);
  void open_channels();
  void send_plan_and_wait();
  void collect_acks(const char* what, LocalFailure mine = {});
  void advance_time(std::int64_t now);
  void end_step();
  template <class T>
  void feed(OutputVar& out, const T* data);
  template <class T>
  void send_values(OutputVar& out, const T* data, std::int64_t record);
  template <class T>
  void send_sample(OutputVar& out, const T* data, std::int64_t record, double weight);
  void finish_record(OutputVar& out);
  std::int64_t current_record(const OutputVar& out) const;
  template <class T, class U>
  void pack(OutputVar& out, int server, const T* data, std::int64_t record, std::uint16_t flags, double weight,
            double missing);
  template <class T, class U>
  void pack_attached(OutputVar& out, const T* data, std::int64_t record);
  void send_event_to_all(transport::EventType type, std::uint32_t item, std::int64_t record, double time,
                         double time_start);
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
  std::string domain_error_;  // found by exchange_domains (which must not throw); raised by prepare_outputs
  std::unordered_map<std::string, AxisSetting> axes_;
  std::unordered_map<std::string, ScalarSetting> scalars_;
  bool closed_definition_ = false, closed_ = false;

  // Resolved at close of definition.
  std::unique_ptr<calendar::Calendar> calendar_;
  std::int64_t start_ = 0, origin_ = 0, timestep_us_ = 0;
  bool reduce_on_server_ = false;
  output::ContextPlan plan_;
  std::vector<Field> fields_;
  std::unordered_map<std::string, int> field_index_;
  std::vector<std::string> plan_domain_ids_, plan_axis_ids_, plan_scalar_ids_;
  std::vector<OutputVar> outputs_;
  std::vector<Stream> streams_;  // inputs before the streams that use them
  std::vector<FileSchedule> files_;
  // Records due this step, announced to the servers at its end, after the
  // step's data and results, when other contexts are open: an announced
  // record is one the servers can write, so they never wait for data this
  // client would send only later (while it waits for them in another
  // context's close).
  bool shared_ = false;
  struct Announce {
    std::uint32_t file;
    std::int64_t record;
    double time, time_start;
  };
  std::vector<Announce> announces_;
  std::vector<transport::SendChannel> channels_;  // by server
  struct ChannelPlan {  // what size_channels decided, for open_channels
    std::vector<std::size_t> capacity;  // by server
    std::size_t message_size = 0, direct_min = 0;
    bool progress_thread = false;
    std::int64_t progress_interval_us = 200;
  } channel_plan_;
  std::unique_ptr<transport::ProgressThread> progress_;  // variable progress_thread
  std::unique_ptr<server::OutputEngine> attached_;  // attached mode only
  std::vector<std::byte> scratch_;                  // attached packing
  std::vector<double> result_;                      // client-side temporal results
  std::unordered_map<std::string, int> expression_stream_;  // field id -> its expression's stream
  std::string attribute_text_;  // the value attribute() last returned

  // Time.
  std::int64_t step_ = -1;
  std::int64_t now_ = 0;        // model time (instant, microseconds)
  bool dynamic_steps_ = false;  // the model tells its time: averages weight by time
  double now_seconds_ = 0;
};

}  // namespace foehn::client
