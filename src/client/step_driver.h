// The per-step path of a client context, from the end of close of
// definition to its close: the model's time (update_calendar or
// set_model_time) drives the file schedules and the filter graph; write
// feeds the graph or packs the data into each server's send buffer by its
// precomputed pack plan; the end of a step evaluates the graph and ends the
// records due. Its transport part (step_driver_transport.cpp) sizes and
// opens the send channels and talks to the servers.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "client/agree.h"
#include "client/non_finite.h"
#include "calendar/calendar.h"
#include "client/plan_builder.h"
#include "config/config.h"
#include "filters/graph.h"
#include "grid/pack_plan.h"
#include "output/output_plan.h"
#include "report/details.h"
#include "server/output_engine.h"
#include "transport/event.h"
#include "transport/progress_thread.h"
#include "transport/send_channel.h"
#include "transport/world.h"

namespace foehn::restart {
class ByGlobalIndex;
class StateFile;
}

namespace foehn::client {

class StepDriver {
 public:
  // `built`: the plan builder's result, completed by the exchanges. `def`
  // (its variables: buffer sizes, progress thread) must outlive the driver.
  StepDriver(const std::string& id, MPI_Comm comm, const config::ContextDef& def, transport::World& world,
             std::uint32_t key, transport::ClientCounters& counters, BuiltPlan built);
  ~StepDriver();

  output::ContextPlan& plan() { return plan_; }
  // Local: pack plans, buffers and the channels' sizes, from the model's
  // settings (each domain's data points, each axis's local size).
  void prepare(const ModelSettings& settings);
  // Attached mode: the output engine this client writes its block with.
  void attach();
  // With servers: sends them the plan and waits until they created the
  // files, opening the channels meanwhile.
  void send_plan_and_wait();
  // Whether other contexts of this process are open (Context::set_shared).
  void set_shared(bool shared) { shared_ = shared; }

  void update_calendar(std::int64_t step);
  void set_model_time(double seconds);
  int handle(const std::string& field_id) const;  // throws for an unknown field
  // The field's local data shape ("40 x 20 x 3"); std::out_of_range for a bad handle.
  const std::string& shape_text(int handle) const { return fields_.at(static_cast<std::size_t>(handle)).shape_text; }
  bool is_active(int handle) const;
  // foehn_field_is_active_h: as is_active; a handle that is no field's is an error.
  bool checked_is_active(int handle) const;
  bool is_used(int handle) const;
  // The model's time (instant): the start date until the first step.
  std::int64_t model_time() const { return step_ < 0 ? segment_start_ : now_; }
  const calendar::Calendar& calendar() const { return *calendar_; }
  template <class T>
  void write(int handle, const T* data, std::size_t n);
  // The last step's records, then the servers' close (or the attached
  // engine's) and their answers.
  void end_last_step() { end_step(); }
  void close();

  // Exact restarts (step_driver_checkpoint.cpp, docs/restart.md). The state
  // after the current step (every window, schedule and file's record
  // count) into <restart_dir>/<date>/<context>.nc, by global index.
  // Collective over the context's model ranks.
  void checkpoint();
  // A run that continues from `state_path`: its steps count from
  // `segment_start` (the run's own start date, the checkpoint's date); its
  // schedules from the first run's start, which the plan was built with.
  // Restores the state before the files open (after prepare).
  void resume(const ModelSettings& settings, const std::string& state_path, std::int64_t segment_start);
  // Keeps what a checkpoint needs of the model's settings (global indices).
  void keep_for_checkpoints(const ModelSettings& settings);
  // append="true" without a restart state (step_driver_append.cpp): each
  // continued file's schedule counts from its first record's window (or
  // time_origin when it has none), as in the unbroken run; a window open at
  // this run's start is said to hold only this run's samples. Collective;
  // before the files open.
  void align_appended_files();
  void drain_sends();
  // For the report: the non-finite values written into each field (those
  // with any) and, attached, the files this rank wrote (complete after close).
  report::Details report_details() const;

 private:
  LocalFailure wait_for_servers_synced(bool servers_keep);  // a checkpoint in server mode, rank 0
  struct Destination {                                      // one server (or this client itself, attached)
    std::int64_t total = 0;  // values of this client's stream for it (out.pack packs them)
  };
  struct OutputVar : OutputDef {
    std::vector<Destination> dest;               // by server (one entry when attached)
    std::shared_ptr<const grid::PackPlan> pack;  // the same streams, by gathers or one staging pass (see prepare)
    std::int64_t last_record = -1;               // to refuse a second write in one step
    std::int64_t last_sample_step = -1;
    // Samples taken since the last record of a reduction, and the step of
    // the first: at close, an open window is lost (and said so).
    std::int64_t window_samples = 0, window_first_step = -1;
    // A once field written at step 0 (XIOS takes its first value, even at
    // the start date): the values, sent with the file's first record.
    std::vector<double> initial;
  };
  // Checkpoints: the global index of each local value of a node's grid
  // (-1: not this rank's to give) and the grid's global size.
  struct GlobalMap {
    std::vector<std::int64_t> give, take;  // writing (one copy of each point), reading (every local value)
    std::int64_t size = 0;
    // The exchanges for `give` and `take`, made once per grid: every
    // variable of the grid moves through the same.
    std::shared_ptr<const restart::ByGlobalIndex> giving, taking;
  };
  GlobalMap& global_map(const std::vector<output::Dim>& dims);
  const std::vector<output::Dim>& node_dims(int node) const;
  bool windows_open() const;
  static std::string servers_state_path(const std::string& state);  // <context>.servers.nc beside it
  void restore_cycle(const restart::StateFile& st, int node, std::int64_t slot, const std::string& where);
  void send_sync(const std::string& servers);
  std::string configuration_text() const;

  // At close: a warning for each reduction whose window holds samples that
  // no record will (rank 0 speaks for all: every rank has the same schedule).
  void warn_open_windows() const;
  std::int64_t appended_anchor(int file) const;  // rank 0
  void align_file(int file, std::int64_t anchor);
  void warn_step0(const std::string& field);
  // Step 0 of this run, the start date (writes before the first update).
  bool at_start() const { return step_ == 0 && now_ == segment_start_; }
  void send_initial(OutputVar& out);  // a once field's step-0 values, with its first record

  // For each server, this rank's data positions in its range (cached per domain).
  const std::vector<std::vector<std::int64_t>>& destinations_of(
      const ModelSettings& settings, int domain, int nservers,
      std::map<int, std::vector<std::vector<std::int64_t>>>& found) const;
  // Sizes the send buffers from the bytes each server gets per output step
  // and checks the transport variables (step_driver_transport.cpp); the
  // channels open later, while the servers create the files.
  void size_channels(const std::vector<std::size_t>& bytes_per_server);
  void open_channels();
  void collect_acks(const char* what, LocalFailure mine = {});
  void advance_time(std::int64_t now);
  void end_step();
  template <class T>
  // True when the output took the values; sets `all_finite` when its
  // accumulation saw all of them and none was NaN or infinite.
  bool feed(OutputVar& out, const T* data, bool& all_finite);
  // convert(x) is what a value x of the data sends (a static_cast by
  // default; a period's end: the mean of a running sum).
  template <class T, class Convert = grid::StreamMap::Cast>
  void send_values(OutputVar& out, const T* data, std::int64_t record, Convert convert = {});
  template <class T>
  void send_sample(OutputVar& out, const T* data, std::int64_t record, double weight);
  void finish_record(OutputVar& out);
  std::int64_t current_record(const OutputVar& out) const;
  // Whether the output's stage takes this step's value (after the start date).
  bool takes_value_now(const OutputVar& out) const;
  template <class T, class U, class Convert>
  void pack(OutputVar& out, int server, const T* data, std::int64_t record, std::uint16_t flags, double weight,
            Convert convert);
  template <class T, class U, class Convert>
  void pack_attached(OutputVar& out, const T* data, std::int64_t record, Convert convert);
  void send_no_value(OutputVar& out, bool unwritten);
  void send_header_only(OutputVar& out, std::uint16_t elem, std::uint16_t flags, std::int64_t offset);
  void send_event_to_all(transport::EventType type, std::uint32_t item, std::int64_t record, double time,
                         double time_start);
  void make_room(int server);

  std::string id_;
  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
  const config::ContextDef& def_;
  transport::World* world_;
  std::uint32_t key_;
  transport::ClientCounters* counters_;

  std::unique_ptr<calendar::Calendar> calendar_;  // the schedules point to it
  std::int64_t start_ = 0, origin_ = 0, timestep_us_ = 0;
  output::ContextPlan plan_;
  std::vector<Field> fields_;
  std::vector<NonFiniteCounts> non_finite_;  // by field: in the writes foehn took
  std::unordered_map<std::string, int> field_index_;
  std::vector<OutputVar> outputs_;
  filters::Graph graph_;  // sources, expressions, chains and the outputs' temporal stages, in the local layout
  std::vector<FileSchedule> files_;
  std::map<int, std::vector<output::Dim>> chain_dims_;  // and temporal_splitting nodes' (plan_builder.h)
  // Restarts: the model's settings for global indices (null: no
  // restart_dir), each file's records before this run, the maps by grid.
  std::string restart_dir_;
  const ModelSettings* settings_ = nullptr;
  std::vector<std::int64_t> file_base_;
  std::vector<std::optional<calendar::SplitPeriods>> split_;  // by file: the periods of split_freq
  std::map<std::string, GlobalMap> global_maps_;
  // Records due this step, announced to the servers at its end, after the
  // step's data and results, when other contexts are open: an announced
  // record is one the servers can write, so they never wait for data this
  // client would send only later (while it waits for them in another
  // context's close). A context alone announces each record when its step
  // begins, so that the servers write each variable as soon as its values
  // are in.
  bool shared_ = false;
  struct Announce {
    std::uint32_t file;
    std::int64_t record;
    double time, time_start;
  };
  std::vector<Announce> announces_;
  std::vector<transport::SendChannel> channels_;  // by server
  struct ChannelPlan {                            // what size_channels decided, for open_channels
    std::vector<std::size_t> capacity;            // by server
    std::size_t message_size = 0, direct_min = 0;
    bool progress_thread = false;
    std::int64_t progress_interval_us = 200;
  } channel_plan_;
  std::unique_ptr<transport::ProgressThread> progress_;  // variable progress_thread
  std::unique_ptr<server::OutputEngine> attached_;       // attached mode only
  std::vector<std::byte> scratch_;                       // attached packing, staged pack plans
  std::vector<std::byte> masked_copy_;  // a write of a field with a grid or scalar mask, masked points NaN
  std::vector<double> result_;  // client-side temporal results with per-point weights (sized when first needed)

  // Time.
  std::int64_t step_ = -1;
  std::int64_t ended_step_ = -1;
  std::int64_t checkpointed_step_ = -1;  // the last step whose records were ended (a checkpoint ends its step)
  std::int64_t segment_start_ = 0;       // this run's start: step 0 (a resumed run: the checkpoint's date)
  std::int64_t now_ = 0;                 // model time (instant, microseconds)
  bool dynamic_steps_ = false;           // the model tells its time: averages weight by time
  bool warned_step0_ = false;            // warn_step0 has spoken
  int pending_initial_ = 0;              // outputs holding step-0 values of a once field
  double now_seconds_ = 0;
};

}  // namespace foehn::client
