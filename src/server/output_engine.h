// Assembles the fragments of each output variable that the clients send,
// and writes complete records in one canonical order.
//
// The same engine runs on a server rank (its block is a balanced band of
// each domain, the data arrives from all clients) and inside a client in
// attached mode (its block is the client's own part). Writes follow the
// order of the announced records and, within a record, the file's variable
// order, so the collective writes of all writers of a file always match,
// whatever order the fragments arrive in.
#pragma once

#include <mpi.h>

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "calendar/calendar.h"
#include "filters/temporal.h"
#include "filters/temporal_stage.h"
#include "grid/box.h"
#include "grid/stream_map.h"
#include "formats/writer.h"
#include "output/output_plan.h"
#include "report/details.h"
#include "server/write_agreement.h"
#include "transport/event.h"

namespace foehn::server {

struct WriterRole {
  // true: this rank is client `index` writing its own block. Attached, a
  // variable's record is ready only once this rank's step driver has handed
  // its part over (on_data, possibly empty), never merely because the part
  // is empty: the collective writes then happen at the same model call on
  // every rank, and a rank whose part is empty cannot enter a record's write
  // while another still has to take part in a collective of the step before
  // it (a transformation's exchange between model ranks, which crossed such a
  // write and hung: docs/transformations.md, "Attached mode").
  bool attached = false;
  int index = 0;  // server index among `count` servers, or client index
  int count = 1;
  MPI_Comm comm = MPI_COMM_SELF;  // the writers of one_file files
  // The servers that reduce and so write the servers' state together
  // (output_engine_state.cpp): null means `comm`; level 1 of two levels
  // has its own, its `comm` being SELF (it writes no file).
  MPI_Comm state_comm = MPI_COMM_NULL;
  bool discard = false;  // benchmarks: assemble records, write no data
  // Two-level servers. Level 1 (forward set): each assembled block goes to
  // `forward` instead of a file. Level 2 (pool >= 0): blocks arrive whole
  // from level 1 (on_block); only the files with file_pool[f] == pool are
  // opened and written, the records of the others are passed over.
  std::function<void(int var, std::int64_t record, const grid::Box& block, const std::byte* data)> forward;
  int pool = -1;
  std::vector<int> file_pool;
};

class OutputEngine {
 public:
  OutputEngine(output::ContextPlan plan, WriterRole role);
  ~OutputEngine();

  const output::ContextPlan& plan() const { return plan_; }
  // The block of variable v this writer holds (global indices).
  const grid::Box& block(int v) const { return vars_.at(v).block; }

  // A fragment from `client`: values [offset, offset+count) of its packed
  // stream for this writer. Throws std::runtime_error on values that do not
  // belong (a protocol error).
  void on_data(int client, const transport::EventHeader& h, const std::byte* payload);
  // Direct payloads (event.h, kDirect): where in its record the values of
  // a data fragment go when they lie there one after the other, so the
  // server can receive them straight into place (then direct_done), or
  // nullptr (then on_data with the values received elsewhere). Throws as
  // on_data does.
  std::byte* direct_target(int client, const transport::EventHeader& h);
  void direct_done(int client, const transport::EventHeader& h);
  // Level 2: values of `box` (C order) of variable var's record from a
  // level-1 server; the part inside this writer's block is copied.
  void on_block(int var, std::int64_t record, const grid::Box& box, const std::byte* data);
  void on_announce(int file, std::int64_t record, double time, double time_start);
  // A checkpoint: once the records announced so far are written, the files
  // are synced (a marker in the announced order), then `synced` is called
  // (the server tells the model, whose checkpoint waits for it).
  // With a checkpoint of reductions done here (output_engine_state.cpp),
  // `payload` (`words` int64) names the records of open windows, the
  // samples each holds, and the servers' state file: the marker waits until
  // those samples are all here, then the state is saved (collectively over
  // role.state_comm) before `synced(true)`.
  void on_sync(const std::byte* payload = nullptr, std::int64_t words = 0);
  void when_synced(std::function<void(bool state_saved)> synced) { synced_ = std::move(synced); }
  void on_client_closed(int client);
  // A checkpoint (attached mode): what is written reaches the disk, so that
  // a run stopped later keeps the records before it.
  void sync_files();
  // Several contexts on one pool: every server must make its collective
  // writes in one order across contexts, so the server loop drives the
  // writes (write_front) in the order its leader gives.
  void set_external_order(bool on) { external_order_ = on; }
  // Writes the oldest announced record if all its data is here (or, when
  // closing, with fill values for what is missing). True if it was written.
  // A file that cannot be written (formats::IoError: disk full, ...) ends
  // the engine's writing: every file is closed at once, so that the records
  // written before stay readable, and the IoError goes on, saying so; later
  // records are dropped, and close() throws it again.
  bool write_front(bool closing);
  // Whether write_front can be called for the oldest announced record
  // without waiting for data: all of it is here (or closing), or its
  // writes involve no other writer (they wait here, alone).
  bool front_ready(bool closing) const;
  // The oldest announced record is started and the rest of its writes
  // involve no other writer: it can finish after later orders.
  bool front_started_alone() const;
  // Finishes the definition of one file that this writer writes alone
  // (formats::Writer::finish_definition), left from the constructor so that
  // a server acknowledges the plan sooner; the server loop calls it when
  // idle. False when none is left. A failure ends the writing as in
  // write_front (and throws).
  bool define_next();
  // The records waiting here (their values and bookkeeping) take more than
  // twice one record of this writer's blocks (at least kBacklogFloorBytes):
  // the server holds back its clients' credit until they are written, so
  // that servers slower than the model slow it instead of growing
  // (server_loop.cpp, docs/transport.md).
  bool backlog_full() const;
  static constexpr std::size_t kBacklogFloorBytes = 4 << 20;
  bool failed() const { return !failure_.empty(); }
  // The front record waits for the other writers of its file (peers_ready):
  // the caller must call write_front again without a new message.
  bool waiting_for_peers() const { return peers_ != MPI_REQUEST_NULL; }
  bool has_announced() const { return !announced_.empty(); }
  bool all_clients_closed() const { return closed_clients_ == plan_.client_ranks.size(); }
  // Writes the remaining records (incomplete ones as fill values, with a
  // warning) and closes the files.
  void close();

  std::uint64_t bytes_written() const;
  // Memory held for records being assembled (and recycled), for the report.
  std::size_t buffer_bytes() const;
  double write_seconds() const;  // inside the files' data writes and closes
  // Per file this writer wrote: its values' bytes and its bytes on disk
  // (every period's file; complete after close()), for the report.
  std::vector<report::FileBytes> file_bytes() const;
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  struct ClientPlan {
    grid::StreamMap map;  // packed stream -> block (runs and scattered points)
    std::int64_t total = 0;
  };
  struct VarState {
    grid::Box block;
    std::vector<ClientPlan> clients;
    grid::StreamMap fill;  // points of the block no client sends: written as the fill value
    // Attached one_file writers whose points are not their block write
    // pieces (boxes of their own points), as many calls as the writer with
    // the most, so that the collective writes match.
    std::vector<grid::Box> pieces;
    std::vector<std::vector<grid::Run>> piece_runs;  // block -> piece
    int write_calls = 1;
    std::int64_t expected = 0;  // values this writer receives per record
    int contributors = 0;       // clients that send this writer any values
    std::size_t elem = 4;
    filters::TemporalOp op = filters::TemporalOp::instant;
    bool reduce_here = false;  // samples arrive and are accumulated here
  };
  struct Pending {
    std::vector<std::byte> data;   // the record's values in the block, in the file's precision
    std::int64_t received = 0;     // values received (or, when reducing, samples' values)
    int finished_clients = 0;      // clients that sent their last sample (when reducing)
    filters::TemporalStage stage;  // when reducing: the samples' weights come with them
    bool complete = false;
    std::int64_t missing = 0;  // values of the clients that said kNoValue (> 0: written as fill values)
    bool unwritten = false;    // one of them because the model did not write the field
  };
  static constexpr int kSyncMarker = -1;  // an Announce's file: on_sync
  // A checkpoint's open windows reduced here: the samples each record
  // holds by then, and where the servers' state goes (empty: none).
  struct WindowAtCheckpoint {
    int var;
    std::int64_t record, samples;
  };
  struct Checkpoint {
    std::vector<WindowAtCheckpoint> windows;
    std::string path;
  };
  std::deque<Checkpoint> checkpoints_;  // one per sync marker, in order
  // The windows the last checkpoint saved and their values received then:
  // unchanged at close, they are the next run's, not lost.
  std::map<std::pair<int, std::int64_t>, std::int64_t> kept_windows_;
  bool checkpoint_ready() const;  // the front marker's samples are all here
  void save_state(const Checkpoint& c);
  MPI_Comm state_comm() const;                               // the servers that save and restore together
  void restore_state();                                      // from plan_.server_state, at construction
  std::vector<std::int64_t> global_of_block(int var) const;  // C order over the variable's shape
  std::int64_t record_base(int var) const;                   // records of its file before this run (an exact restart)
  struct Announce {
    int file;
    std::int64_t record;
    double time, time_start;
  };

  Pending& pending(int var, std::int64_t record);
  void drop_pending(int var, std::int64_t record);  // erases it, keeping pending_bytes_
  // Checks a data fragment against the plan; its variable's pending record.
  Pending& checked_fragment(int client, const transport::EventHeader& h);
  void values_arrived(int var, std::int64_t record, Pending& p, std::int64_t count);
  void accumulate(const ClientPlan& cp, Pending& p, const transport::EventHeader& h, const std::byte* payload);
  void finish_reduction(int var, Pending& p);
  bool ready(int var, std::int64_t record) const;
  void advance(bool closing);
  void write_record_of(int var, std::int64_t record, bool closing);
  struct WriterPoints {  // of one domain, found once: where each client's values go in this writer's part
    bool found = false;
    std::int64_t positions = 0;                      // points in the part
    std::vector<std::vector<std::int64_t>> clients;  // by client, in the order it sends them
    std::vector<std::int64_t> uncovered;             // points no client sends
  };
  const WriterPoints& writer_points(int domain, std::vector<WriterPoints>& found) const;
  void build_plans(int var, VarState& s, std::vector<WriterPoints>& found);  // scatter plans, fill, pieces
  void build_axis_plans(int var, VarState& s);                               // the same for grids of decomposed axes
  void write_block(int var, std::int64_t record, const std::byte* data);
  void store_uniform_weights_once(const std::vector<const filters::Accumulator*>& held, std::vector<int>& per_point,
                                  std::vector<double>& weight_all) const;
  // split_freq and sync_freq of one file.
  struct FilePeriods {
    std::optional<calendar::SplitPeriods> split;
    std::optional<calendar::Schedule> sync;
    std::int64_t period = 0;                          // split period of the open file
    std::int64_t first_record = 0;                    // the file's record 0 as a record of the whole output
    std::int64_t next_sync = 1;                       // index of the next sync instant
    std::chrono::steady_clock::time_point last_sync;  // without sync_freq: the file's last flush (or open)
  };
  bool writes(int file) const { return files_[file] != nullptr; }
  // The file's writers make every write together: one_file, or a format
  // whose part files hold whole fields (GRIB2's multiple_file).
  static bool writes_together(const output::FileInfo& f);
  bool write_front_unguarded(bool closing);
  void start_and_agree(const Announce& a);
  bool peers_ready(const Announce& a, bool closing);  // the file's writers all enter the record
  bool needs_peers(const Announce& a) const;          // its writes are collective across writers
  void pop_front_announce();
  bool front_complete() const;                          // every value of the front record is here
  bool written_once(int var, const Announce& a) const;  // a once field after its record: nothing to write
  [[noreturn]] void fail_writing(const formats::IoError& e);
  void init_periods();
  void open_file(int file);
  void start_record(int file, std::int64_t record, double time);  // splits if the record is in a new period
  void sync_by_clock(int file);
  void after_record(int file, double time);       // syncs at sync instants, or by the clock
  std::int64_t instant_of(double seconds) const;  // seconds since the time origin -> instant

  output::ContextPlan plan_;
  WriterRole role_;
  std::vector<VarState> vars_;
  std::vector<std::unique_ptr<formats::Writer>> files_;  // by file; null: not written here
  std::vector<int> to_define_;                           // files whose definition define_next may finish
  std::unique_ptr<calendar::Calendar> calendar_;         // for file periods; null when no file has any
  std::int64_t origin_ = 0;
  std::vector<FilePeriods> periods_;  // by file
  std::function<void(bool state_saved)> synced_;
  // By file: the figures of its periods already closed (split_freq), close
  // included; a removed empty period adds no disk bytes.
  std::vector<formats::WriterFigures> closed_;
  formats::WriterFigures figures_of(int file) const;  // closed_ and the open period's
  std::map<std::pair<int, std::int64_t>, Pending> pending_;
  std::vector<std::vector<std::byte>> spare_;        // recycled record buffers
  std::size_t pending_bytes_ = 0, spare_bytes_ = 0;  // capacities of pending_'s and spare_'s buffers
  std::size_t backlog_cap_ = 0;                      // backlog_full
  std::deque<Announce> announced_;
  int next_in_file_ = -1;
  mutable std::size_t front_vars_ready_ = 0;  // leading variables of the front record found complete
  bool external_order_ = false;               // position in the front announce: -1 time not yet written
  std::vector<char> client_closed_;
  // Files shared by several writers: a write error of one writer alone is
  // kept (defer) while it goes on taking part in the shared files' collective
  // calls; at the next record's start or at close every writer hears of it
  // and all close their files together (write_agreement.h).
  WriteAgreement agreement_;
  void defer(int file, const formats::IoError& e);  // or throws (inside a handler) when not agreeing
  // Shared files first, then own ones; the files closed, if asked; the errors, if any.
  std::string close_files(std::vector<WriteAgreement::ClosedFile>* closed);
  bool constructing_ = true;              // open_file called by the constructor (on every writer at once)
  int writers_ = 1;                       // ranks of role_.comm: the writers of each shared file
  int files_on_disk_ = 0;                 // the context's files filling the disk at once (WriterTarget::sharers)
  MPI_Request peers_ = MPI_REQUEST_NULL;  // the barrier before the front record of a shared file
  std::size_t closed_clients_ = 0;
  std::vector<std::string> warnings_;
  std::string failure_;  // the write error that ended writing (write_front)
  std::vector<std::byte> fill_;
  std::vector<std::byte> piece_scratch_;
};

}  // namespace foehn::server
