#include "server/server_loop.h"

#include <chrono>
#include <cstring>
#include <deque>
#include <cstdint>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "formats/registry.h"
#include "report/report.h"
#include "server/credit_ledger.h"
#include "server/direct_receives.h"
#include "server/memory_check.h"
#include "server/output_engine.h"
#include "server/server_order.h"
#include "server/server_report.h"
#include "server/two_level.h"
#include "transport/event.h"
#include "transport/liveness.h"
#include "transport/wire.h"
#include "transport/world.h"

namespace foehn::server {

namespace {

using transport::EventHeader;
using transport::EventType;

constexpr double kPollAfterMessage = 50e-6;  // seconds
// Credit held back is all given back after this long without a message
// (CreditLedger::release): a wait for data, not for the writes to catch up.
constexpr double kReleaseWithheldAfter = 20e-3;  // seconds

struct ContextSlot {
  std::unique_ptr<OutputEngine> engine;
  std::size_t clients = 0, closed = 0;  // context_close events received
  std::vector<int> client_of_rank;      // world rank -> client index, -1 if not a client
  std::string error;                    // first error; later data for this context is dropped
  int root = 0;                         // world rank acknowledgements go to
  std::string id;
  std::uint32_t key = 0;
  // Two-level contexts: level 1 or 2 (0: one level); level 2's pool and
  // its communicator (level 1's: every level-1 rank); each file's pool and
  // each pool's first level-2 index.
  int level = 0;
  MPI_Comm pool_comm = MPI_COMM_NULL;
  std::vector<int> file_pool, pool_starts;
  int level1 = 0;                // level-1 ranks: the first level1 server ranks
  std::int64_t forward_cap = 0;  // level 1: this context's share of the cap on blocks not yet sent
};

int local_rank(const transport::World& w) {
  int rank = 0;
  MPI_Comm_rank(w.local, &rank);
  return rank;
}

void send_ack(MPI_Comm comm, int dest, const std::string& error) {
  transport::WireWriter w;
  w.put<std::int32_t>(error.empty() ? 0 : 1);
  w.put(error);
  MPI_Send(w.bytes().data(), static_cast<int>(w.bytes().size()), MPI_BYTE, dest, transport::kTagAck, comm);
}

class Server {
 public:
  Server(transport::World& w, const ServerOptions& options)
      : w_(w), options_(options), order_(w.comm, w.server_ranks, local_rank(w)), directs_(w.direct) {
    MPI_Comm_rank(w_.local, &index_);
    MPI_Comm_size(w_.local, &count_);
    MPI_Comm node;
    MPI_Comm_split_type(w_.local, MPI_COMM_TYPE_SHARED, index_, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &servers_on_node_);
    MPI_Comm_free(&node);
  }

  int run() {
    const double t0 = MPI_Wtime();
    double last_check = t0;
    auto idle = std::chrono::microseconds(20);
    double last_message = 0;
    std::vector<std::byte> buffer;
    while (finalized_ < w_.client_ranks.size()) {
      if (!directs_.empty()) {
        const double b0 = MPI_Wtime();
        if (complete_directs()) {
          drive();
          credits_.release(false);
          note_memory();
          last_message = MPI_Wtime();
          figures_.busy_seconds += last_message - b0;
          idle = std::chrono::microseconds(20);
        }
      }
      int flag = 0;
      MPI_Message msg;
      MPI_Status st;
      MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, w_.comm, &flag, &msg, &st);
      if (!flag) {
        // Right after a message the next segment is usually on its way:
        // poll for a few tens of microseconds before yielding the core
        // (a sleep on a busy node can cost a whole time slice).
        if (MPI_Wtime() - last_message < kPollAfterMessage) continue;
        credits_.reap();
        credits_.release(MPI_Wtime() - last_message > kReleaseWithheldAfter);
        if (waiting_for_peers()) drive();
        if (define_next()) continue;  // then look for messages again
        std::this_thread::sleep_for(idle);
        // Payloads on their way are checked for at least every 100 us.
        idle = std::min(idle * 2, std::chrono::microseconds(directs_.empty() ? 1000 : 100));
        if (MPI_Wtime() - last_check > 1.0) {
          check_clients();
          last_check = MPI_Wtime();
        }
        continue;
      }
      idle = std::chrono::microseconds(20);
      const double b0 = MPI_Wtime(), waited0 = figures_.forward_wait_seconds;
      int bytes = 0;
      MPI_Get_count(&st, MPI_BYTE, &bytes);
      if (buffer.size() < static_cast<size_t>(bytes)) {
        // Free the old buffer first and grow to the exact size: resize()
        // would copy the old contents (which Mrecv overwrites) into a new
        // buffer of up to twice the size while holding both.
        buffer = std::vector<std::byte>();
        buffer.resize(static_cast<size_t>(bytes));
        receive_bytes_ = buffer.capacity();
      }
      MPI_Mrecv(buffer.data(), bytes, MPI_BYTE, &msg, MPI_STATUS_IGNORE);
      if (!from_servers(st.MPI_TAG)) {  // what the clients sent
        ++figures_.messages_received;
        figures_.bytes_received += bytes;
      }
      dispatch(st.MPI_TAG, st.MPI_SOURCE, buffer.data(), bytes);
      drive();
      reap_sends();
      credits_.reap();
      credits_.release(false);
      note_memory();
      last_message = MPI_Wtime();
      figures_.busy_seconds += last_message - b0 - (figures_.forward_wait_seconds - waited0);
    }
    for (Send& s : in_flight_) MPI_Wait(&s.request, MPI_STATUS_IGNORE);
    in_flight_.clear();
    for (Send& s : errors_in_flight_) MPI_Wait(&s.request, MPI_STATUS_IGNORE);
    errors_in_flight_.clear();
    // Every client has finalized and so is inside MPI: the last credits leave.
    credits_.wait_all();
    figures_.wall_seconds = MPI_Wtime() - t0;
    figures_.cpu_seconds = report::process_cpu_seconds();
    figures_.peak_rss_bytes = report::peak_rss_bytes();
    const auto all = report::gather(figures_, w_.local);
    const report::Details files = report::gather(details_, w_.local);
    if (index_ == 0) {
      report::print_servers(std::cerr, all);
      send_reports(all, files, w_.model_roots, w_.comm);  // each model's first rank writes the whole report
    }
    return failed_ ? 1 : 0;
  }

 private:
  // A client that died will never send what the server waits for: stop
  // the whole job with a message rather than wait forever.
  void check_clients() {
    try {
      transport::check_alive(w_.client_ranks);
    } catch (const transport::PeerLost& e) {
      std::cerr << "foehn-server " << index_ << ": " << e.what() << "; aborting the run" << std::endl;
      MPI_Abort(w_.comm, 1);
    }
  }

  // Buffer memory: the receive buffer, the records being assembled and
  // the blocks forwarded to level 2 that MPI has not yet sent.
  void note_memory() {
    std::size_t bytes = receive_bytes_ + directs_.staging_bytes() + in_flight_bytes_;
    for (const auto& [key, slot] : contexts_)
      if (slot->engine) bytes += slot->engine->buffer_bytes();
    figures_.peak_buffer_bytes = std::max(figures_.peak_buffer_bytes, static_cast<double>(bytes));
  }

  // Messages among the servers (not counted as received from clients).
  static bool from_servers(int tag) {
    return tag == transport::kTagOrder || tag == transport::kTagBlock || tag == transport::kTagLevel2;
  }

  // One message taken in: to its handler by tag. Fixed-size messages of
  // another size, and tags no server receives, end the run.
  void dispatch(int tag, int source, const std::byte* data, int bytes) {
    const auto fixed = [&](std::size_t size) { return static_cast<std::size_t>(bytes) == size; };
    switch (static_cast<transport::Tag>(tag)) {
      case transport::kTagPlan: return on_plan(source, data, bytes);
      case transport::kTagEvents: return on_events(source, data, bytes);
      case transport::kTagReserve:
        if (fixed(sizeof(transport::CreditMessage))) return on_reserve(source, data);
        break;
      case transport::kTagOrder:
        if (order_.receive(data, static_cast<std::size_t>(bytes))) return;
        break;
      case transport::kTagBlock: return on_block(source, data, bytes);
      case transport::kTagLevel2:
        if (fixed(sizeof(Level2Note))) return on_note(data);
        break;
      case transport::kTagAck:
      case transport::kTagReport:
      case transport::kTagCredit:
      case transport::kTagPayload:
      case transport::kTagError:
      case transport::kTagSynced: break;
    }
    fail_run("unexpected message (tag " + std::to_string(tag) + ", " + std::to_string(bytes) + " bytes) from rank " +
             std::to_string(source));
  }

  void on_reserve(int source, const std::byte* data) {
    transport::CreditMessage m;
    std::memcpy(&m, data, sizeof m);
    if (auto error = credits_.reserve(source, m)) return fail_run(*error);
    figures_.credit_bytes = static_cast<double>(credits_.peak_held_bytes());
  }

  void give_back(int source, std::uint16_t channel, std::int64_t bytes, bool closed,
                 std::optional<std::uint32_t> context) {
    if (auto error = credits_.give_back(source, channel, bytes, closed, context)) fail_run(*error);
  }

  // A one-level context whose records wait here beyond its cap holds back
  // the credit of the buffers it takes in (OutputEngine::backlog_full).
  bool backlog_full(std::uint32_t context) const {
    auto it = contexts_.find(context);
    if (it == contexts_.end()) return false;
    const ContextSlot& slot = *it->second;
    return slot.level == 0 && slot.error.empty() && slot.engine && slot.engine->backlog_full();
  }

  // Level 1: a record's assembled block goes to the ranks of the pool that
  // writes its file, each rank the part inside its own block.
  void forward_block(const ContextSlot& slot, std::uint32_t key, int var, std::int64_t record, const grid::Box& block,
                     const std::byte* data) {
    const output::ContextPlan& plan = slot.engine->plan();
    const output::VariableInfo& v = plan.variables[var];
    const int pool = slot.file_pool[v.file];
    const int first = slot.pool_starts[pool], size = slot.pool_starts[pool + 1] - first;
    BlockHeader h;
    h.context = key;
    h.var = var;
    h.record = record;
    h.ndims = static_cast<std::int32_t>(block.start.size());
    h.elem = v.prec == 8 ? 8 : 4;
    for (int r = 0; r < size; ++r) {
      const grid::Box part = grid::intersect(block, plan.server_block(v, r, size));
      if (part.empty()) continue;
      std::vector<std::byte> msg = encode_block(h, part, block, data);
      make_room(msg.size());
      send_level2(std::move(msg), slot.level1 + first + r, transport::kTagBlock);
    }
  }

  void send_level2(std::vector<std::byte> msg, int level2_index, int tag) {
    const bool block = tag == transport::kTagBlock;
    in_flight_bytes_ += msg.size();
    if (block) block_bytes_ += msg.size();
    in_flight_.push_back({MPI_REQUEST_NULL, std::move(msg), block});
    Send& s = in_flight_.back();
    MPI_Isend(s.bytes.data(), static_cast<int>(s.bytes.size()), MPI_BYTE, w_.server_ranks[level2_index], tag, w_.comm,
              &s.request);
    figures_.forward_bytes = std::max(figures_.forward_bytes, static_cast<double>(block_bytes_));
    note_memory();
  }

  // Level 1 keeps at most forward_cap_ bytes of block messages not yet
  // sent: before a block that would pass the cap, it waits for earlier
  // blocks to leave (a block larger than the cap goes once no other block
  // is in flight). Only blocks are waited for: they belong to orders this
  // rank has reached, which every level-2 rank that needs them takes in its
  // loop before it can pass them; a note may be for a later order, whose
  // receiver could be in a collective that waits for this rank. Level 2
  // never waits for level 1 otherwise, so the wait cannot close a cycle
  // (docs/transport.md). Clients wait meanwhile, for credit.
  void make_room(std::size_t bytes) {
    if (block_bytes_ == 0 || block_bytes_ + bytes <= forward_cap_) return;
    const double t0 = MPI_Wtime();
    wait_until([&] {
      reap_sends();
      return block_bytes_ == 0 || block_bytes_ + bytes <= forward_cap_;
    });
    figures_.forward_wait_seconds += MPI_Wtime() - t0;
  }

  // Polls done() with a growing sleep in between (the core is yielded),
  // checking about once a second that the clients live: what it waits for
  // may depend on one that died.
  template <class Done>
  void wait_until(Done&& done) {
    double last_check = MPI_Wtime();
    auto nap = std::chrono::microseconds(5);
    while (!done()) {
      std::this_thread::sleep_for(nap);
      nap = std::min(nap * 2, std::chrono::microseconds(500));
      if (MPI_Wtime() - last_check > 1.0) {
        check_clients();
        last_check = MPI_Wtime();
      }
    }
  }

  // Frees the sends to level 2 that have left, whatever their order.
  void reap_sends() {
    std::erase_if(in_flight_, [this](Send& s) {
      int done = 0;
      MPI_Test(&s.request, &done, MPI_STATUS_IGNORE);
      if (!done) return false;
      in_flight_bytes_ -= s.bytes.size();
      if (s.block) block_bytes_ -= s.bytes.size();
      return true;
    });
  }

  void note_level2(const ContextSlot& slot, const Level2Note& n) {
    std::vector<std::byte> msg(sizeof n);
    std::memcpy(msg.data(), &n, sizeof n);
    for (int r = slot.level1; r < count_; ++r) send_level2(msg, r, transport::kTagLevel2);
  }

  void on_block(int source, const std::byte* data, int bytes) {
    BlockHeader h;
    grid::Box box;
    try {
      const std::byte* values = decode_block(data, static_cast<std::size_t>(bytes), h, box);
      auto it = contexts_.find(h.context);
      if (it == contexts_.end()) throw std::runtime_error("block for unknown context key " + std::to_string(h.context));
      ContextSlot& slot = *it->second;
      if (!slot.error.empty() || !slot.engine) return;
      try {
        slot.engine->on_block(h.var, h.record, box, values);
      } catch (const std::exception& e) { fail_context(slot, e.what()); }
    } catch (const std::exception& e) {
      fail_run("message from server rank " + std::to_string(source) + ": " + e.what());
    }
  }

  void on_note(const std::byte* data) {
    Level2Note n;
    std::memcpy(&n, data, sizeof n);
    auto it = contexts_.find(n.context);
    if (it == contexts_.end()) {
      fail_run("level-1 note for unknown context key " + std::to_string(n.context));
      return;
    }
    ContextSlot& slot = *it->second;
    if (n.kind == Level2Note::done) {
      ++slot.closed;
      return;
    }
    if (!slot.error.empty() || !slot.engine) return;
    try {
      n.kind == Level2Note::sync ? slot.engine->on_sync()
                                 : slot.engine->on_announce(n.file, n.record, n.time, n.time_start);
    } catch (const std::exception& e) { fail_context(slot, e.what()); }
  }

  // Small and sent eagerly; the client's checkpoint waits for one per server.
  void send_synced(int root, std::uint32_t key) {
    MPI_Send(&key, 1, MPI_UINT32_T, root, transport::kTagSynced, w_.comm);
  }

  void fail_run(const std::string& message) {
    std::cerr << "foehn-server " << index_ << ": error: " << message << std::endl;
    failed_ = true;
  }

  // An error in a context (a write error: disk full, ...). The first one is
  // also sent to the context's clients at once, so that the model hears of
  // it at its next call instead of at close, after the whole run; later
  // data of the context is dropped.
  void fail_context(ContextSlot& slot, const std::string& error) {
    fail_run("context '" + slot.id + "': " + error);
    if (!slot.error.empty()) return;
    slot.error = error;
    transport::WireWriter w;
    w.put<std::uint32_t>(slot.key);
    w.put(error.substr(0, 2000));  // small: sent eagerly, whether or not the client ever takes it
    for (std::size_t rank = 0; rank < slot.client_of_rank.size(); ++rank) {
      if (slot.client_of_rank[rank] < 0 || rank == static_cast<std::size_t>(w_.rank)) continue;
      const auto* bytes = reinterpret_cast<const std::byte*>(w.bytes().data());
      Send& m = errors_in_flight_.emplace_back(
          Send{MPI_REQUEST_NULL, std::vector<std::byte>(bytes, bytes + w.bytes().size()), false});
      MPI_Isend(m.bytes.data(), static_cast<int>(m.bytes.size()), MPI_BYTE, static_cast<int>(rank),
                transport::kTagError, w_.comm, &m.request);
    }
  }

  // One file's definition left for idle time (OutputEngine::define_next),
  // counted as busy; a failure reaches the clients at their next call.
  bool define_next() {
    const double t0 = MPI_Wtime();
    bool defined = false;
    for (auto it = contexts_.begin(); it != contexts_.end() && !defined; ++it) {
      if (!it->second->engine || !it->second->error.empty()) continue;
      try {
        defined = it->second->engine->define_next();
      } catch (const std::exception& e) { fail_context(*it->second, e.what()), defined = true; }
    }
    figures_.busy_seconds += MPI_Wtime() - t0;
    return defined;
  }

  bool waiting_for_peers() const {
    for (const auto& [key, slot] : contexts_)
      if (slot->engine && slot->engine->waiting_for_peers()) return true;
    return false;
  }

  // Carries out the orders whose work every server can do now (server_order.h).
  void drive() {
    try {
      order_.drive([this](const Order& o) { return can_carry_out(o); },
                   [this](const Order& o) { return carry_out(o); });
    } catch (const std::exception& e) { fail_run(e.what()); }
  }

  // Whether an order's work can be done here without waiting for data.
  bool can_carry_out(const Order& o) const {
    if (o.kind == Order::open) return plans_.contains(o.key);
    auto it = contexts_.find(o.key);
    if (it == contexts_.end()) return false;
    const ContextSlot& slot = *it->second;
    // Level 2 hears of a record's data and of the close from level 1, which
    // sends them only once the piece is ordered: it waits for them inside.
    if (slot.level == 2) return true;
    const bool closing = slot.closed == slot.clients;
    if (o.kind == Order::close) return closing;
    return !slot.engine || !slot.error.empty() || slot.engine->front_ready(closing);
  }

  // One order's work (server_order.h's Progress).
  Progress carry_out(const Order& o) {
    if (o.kind == Order::open) {
      auto it = plans_.find(o.key);
      if (it == plans_.end()) return Progress::wait;  // the plan is still on its way
      open_context(it->second.first, it->second.second);
      plans_.erase(it);
      return Progress::done;
    }
    auto it = contexts_.find(o.key);
    if (it == contexts_.end()) return Progress::wait;
    ContextSlot& slot = *it->second;
    if (o.kind == Order::close) {
      if (slot.closed < slot.clients) return Progress::wait;
      close_context(it);
      return Progress::done;
    }
    if (!slot.engine || !slot.error.empty()) return Progress::done;
    try {
      // Once every client has closed no more data can come: a record a
      // client did not write is written with fill values (and a warning),
      // as attached mode does, instead of waiting.
      const bool closing = slot.closed == slot.clients;
      // Data still on its way. A two-level record is finished before any
      // later order: level 1 may wait for level 2 to take its blocks, so
      // neither may enter another collective of all servers meanwhile.
      if (!slot.engine->write_front(closing))
        return slot.level == 0 && slot.engine->front_started_alone() ? Progress::detached : Progress::wait;
    } catch (const std::exception& e) { fail_context(slot, e.what()); }
    return Progress::done;
  }

  void on_plan(int source, const std::byte* data, int bytes) {
    std::uint32_t key = 0;
    try {
      key = output::decode_plan(reinterpret_cast<const char*>(data), bytes).key;
    } catch (const std::exception& e) {
      fail_run("a plan from rank " + std::to_string(source) + " is corrupt: " + e.what());
      send_ack(w_.comm, source, e.what());
      return;
    }
    plans_[key] = {source, std::vector<std::byte>(data, data + bytes)};
    if (order_.leader()) order_.issue({Order::open, key});
  }

  void open_context(int source, const std::vector<std::byte>& bytes) {
    auto slot = std::make_unique<ContextSlot>();
    slot->root = source;
    std::uint32_t key = 0;
    try {
      output::ContextPlan plan = output::decode_plan(reinterpret_cast<const char*>(bytes.data()), bytes.size());
      key = plan.key;
      slot->key = key;
      slot->id = plan.context_id;
      slot->clients = plan.client_ranks.size();
      slot->client_of_rank.assign(w_.size, -1);
      for (size_t c = 0; c < plan.client_ranks.size(); ++c)
        slot->client_of_rank.at(plan.client_ranks[c]) = static_cast<int>(c);
      // Another model's context on these servers writing the same file
      // (the model's own contexts are checked on its side).
      for (const auto& [other_key, other] : contexts_)
        if (other->engine)
          if (std::string clash = output::file_clash(plan, other->engine->plan()); !clash.empty())
            throw std::runtime_error(clash);
      WriterRole role;
      role.index = index_;
      role.count = count_;
      role.comm = w_.local;
      role.discard = options_.discard_output;
      if (plan.level2_ranks > 0) two_level_role(*slot, plan, role);  // collective: before anything that may throw here
      check_memory(plan, index_, count_, servers_on_node_);
      slot->engine = std::make_unique<OutputEngine>(std::move(plan), role);
      slot->engine->set_external_order(true);
      // A checkpoint waits for every writer's files: every server of one
      // level; of two, level 2 (level 1 writes none), and level 1 too when
      // it saved the windows it reduces (output_engine_state.cpp).
      const std::uint32_t key = slot->key;
      const int root = source;
      const bool level1 = slot->level == 1;
      slot->engine->when_synced([this, key, root, level1](bool state_saved) {
        if (!level1 || state_saved) send_synced(root, key);
      });
    } catch (const std::exception& e) {
      slot->error = e.what();
      fail_run("context '" + slot->id + "': " + slot->error);
    }
    send_ack(w_.comm, source, slot->error);
    contexts_[key] = std::move(slot);
  }

  // Splits the servers into level 1 and the level-2 pools (collective over
  // every server: contexts open in one order everywhere).
  void two_level_role(ContextSlot& slot, const output::ContextPlan& plan, WriterRole& role) {
    const int l2 = plan.level2_ranks, pools = plan.level2_pools;
    // The clients checked these; every server sees the same plan, so all throw before the split.
    if (l2 >= count_ || pools < 1 || pools > l2)
      throw std::runtime_error("plan: " + std::to_string(l2) + " level-2 ranks in " + std::to_string(pools) +
                               " pools with " + std::to_string(count_) + " servers");
    slot.level1 = count_ - l2;
    const bool level2 = index_ >= slot.level1;
    slot.level = level2 ? 2 : 1;
    slot.file_pool = assign_files_to_pools(plan, pools);
    slot.pool_starts = pool_starts(l2, pools);
    int pool = 0;
    while (level2 && index_ - slot.level1 >= slot.pool_starts[pool + 1]) ++pool;
    // Level 1 gets a communicator of its own too: it saves the servers' state.
    MPI_Comm_split(w_.local, level2 ? pool : pools, index_, &slot.pool_comm);
    if (!level2) {
      role.count = slot.level1;
      role.comm = MPI_COMM_SELF;
      role.state_comm = slot.pool_comm;
      slot.forward_cap = plan.level1_forward_bytes;
      if (slot.forward_cap == 0) {  // default: two records of this rank's blocks, so one can go while the next is made
        for (const auto& v : plan.variables)
          slot.forward_cap += 2 * plan.server_block(v, index_, slot.level1).size() * (v.prec == 8 ? 8 : 4);
      }
      forward_cap_ += static_cast<std::size_t>(slot.forward_cap);
      figures_.forward_cap_bytes = std::max(figures_.forward_cap_bytes, static_cast<double>(forward_cap_));
      const std::uint32_t key = plan.key;
      ContextSlot* s = &slot;
      role.forward = [this, s, key](int var, std::int64_t record, const grid::Box& block, const std::byte* data) {
        forward_block(*s, key, var, record, block, data);
      };
      return;
    }
    slot.clients = static_cast<std::size_t>(slot.level1);  // level 2 waits for every level-1 rank's done
    role.index = index_ - slot.level1 - slot.pool_starts[pool];
    role.count = slot.pool_starts[pool + 1] - slot.pool_starts[pool];
    role.comm = slot.pool_comm;
    role.pool = pool;
    role.file_pool = slot.file_pool;
  }

  // The values of a kDirect data event: the next message from `source` on
  // the direct communicator. Its receive is posted now, into the record
  // when the engine says where, else into a staging buffer (then on_data);
  // posted even when the context failed, so that the next payload from
  // this client is not taken for this one. It completes in complete_directs.
  void on_direct(int source, std::uint16_t channel, ContextSlot& slot, int client, const EventHeader& h) {
    DirectReceives::Receive r;
    r.source = source;
    r.channel = channel;
    r.client = client;
    r.header = h;
    r.usable = slot.error.empty() && slot.engine;
    std::string error;
    if (r.usable) try {
        r.target = slot.engine->direct_target(client, h);
      } catch (const std::exception& e) {
        error = e.what();
        r.usable = false;
      }
    directs_.post(std::move(r));
    if (!error.empty()) throw std::runtime_error(error);
  }

  // Takes in the direct payloads that have arrived; whether any had.
  bool complete_directs() {
    bool any = false;
    directs_.complete([&](DirectReceives::Receive& r) {
      any = true;
      const auto bytes = static_cast<double>(r.bytes());
      figures_.bytes_received += bytes;
      ++figures_.messages_received;
      (r.target ? figures_.direct_bytes : figures_.staged_bytes) += bytes;
      if (r.channel != 0) give_back(r.source, r.channel, static_cast<std::int64_t>(r.bytes()), false, r.header.context);
      auto it = contexts_.find(r.header.context);  // a context closes only after its clients' payloads
      if (!r.usable || it == contexts_.end()) return;
      ContextSlot& slot = *it->second;
      if (!slot.error.empty() || !slot.engine) return;
      try {
        if (r.target)
          slot.engine->direct_done(r.client, r.header);
        else
          slot.engine->on_data(r.client, r.header, r.staged.data());
      } catch (const std::exception& e) { fail_context(slot, e.what()); }
    });
    return any;
  }

  // Before a client's close or finalize is taken in: its payloads first.
  // A closing client makes progress, so they come; a dead one is noticed.
  void wait_directs(int source) {
    wait_until([&] {
      complete_directs();
      return !directs_.pending_from(source);
    });
  }

  void on_events(int source, const std::byte* data, int bytes) {
    bool closed = false;                   // the channel's context closed in this buffer
    std::optional<std::uint32_t> context;  // the channel's (a channel is one context's)
    transport::BufferHeader bh;
    if (static_cast<std::size_t>(bytes) >= sizeof bh) std::memcpy(&bh, data, sizeof bh);
    try {
      transport::decode_buffer(data, static_cast<size_t>(bytes), [&](const EventHeader& h, const std::byte* payload) {
        if (h.type == EventType::finalize || h.type == EventType::context_close) wait_directs(source);
        if (h.type == EventType::finalize) {
          ++finalized_;
          return;
        }
        auto it = contexts_.find(h.context);
        if (it == contexts_.end())
          throw std::runtime_error("event for unknown context key " + std::to_string(h.context));
        context = h.context;
        ContextSlot& slot = *it->second;
        const int client = slot.client_of_rank.at(source);
        if (h.type == EventType::context_close) {
          closed = true;
          if (slot.engine) slot.engine->on_client_closed(client);
          if (++slot.closed == slot.clients && order_.leader()) order_.issue({Order::close, h.context});
          return;
        }
        if (h.type == EventType::data && (h.flags & transport::kDirect)) {
          try {
            on_direct(source, bh.channel, slot, client, h);
          } catch (const std::exception& e) { fail_context(slot, e.what()); }
          return;
        }
        if (!slot.error.empty() || !slot.engine) return;
        try {
          if (h.type == EventType::data) {
            slot.engine->on_data(client, h, payload);
          } else if (h.type == EventType::announce) {
            slot.engine->on_announce(static_cast<int>(h.item), h.record, h.time, h.time_start);
            if (index_ == 0 && slot.level == 1) {  // level 2 learns the records from here, before the order
              Level2Note n;
              n.context = h.context;
              n.file = static_cast<std::int32_t>(h.item);
              n.record = h.record;
              n.time = h.time;
              n.time_start = h.time_start;
              note_level2(slot, n);
            }
            if (order_.leader()) order_.issue({Order::write, h.context});
          } else if (h.type == EventType::sync) {
            slot.engine->on_sync(payload, h.elem_size == sizeof(std::int64_t) ? h.count : 0);  // a checkpoint's windows
            if (index_ == 0 && slot.level == 1)  // in the records' order: level 2 writes the files
              note_level2(slot, Level2Note{.kind = Level2Note::sync, .context = h.context});
            if (order_.leader()) order_.issue({Order::write, h.context});
          } else {
            throw std::runtime_error("unknown event type " + std::to_string(static_cast<unsigned>(h.type)));
          }
        } catch (const std::exception& e) { fail_context(slot, e.what()); }
      });
    } catch (const std::exception& e) {
      fail_run("message from rank " + std::to_string(source) + ": " + e.what());
      return;
    }
    if (bh.channel != 0) give_back(source, bh.channel, bytes, closed, context);  // decode_buffer checked the size
  }

  void close_context(std::map<std::uint32_t, std::unique_ptr<ContextSlot>>::iterator it) {
    ContextSlot& slot = *it->second;
    if (slot.engine) {
      try {
        slot.engine->close();
        for (const auto& w : slot.engine->warnings())
          std::cerr << "foehn-server " << index_ << ": warning: context '" << slot.id << "': " << w << std::endl;
        figures_.bytes_written += static_cast<double>(slot.engine->bytes_written());
        figures_.write_seconds += slot.engine->write_seconds();
        report::merge(details_, {slot.engine->file_bytes(), {}});
      } catch (const std::exception& e) {
        // The error that ended the writing comes again: it was told already.
        if (slot.error != e.what()) fail_context(slot, e.what());
      }
    }
    if (slot.level == 1) {  // after every block of this rank: level 2 may close
      Level2Note n;
      n.kind = Level2Note::done;
      n.context = it->first;
      note_level2(slot, n);
      forward_cap_ -= static_cast<std::size_t>(slot.forward_cap);
    }
    if (slot.pool_comm != MPI_COMM_NULL) MPI_Comm_free(&slot.pool_comm);
    send_ack(w_.comm, slot.root, slot.error);
    contexts_.erase(it);
  }

  transport::World& w_;
  ServerOptions options_;
  CreditLedger credits_{w_.comm, [this](std::uint32_t context) { return backlog_full(context); }};
  int index_ = 0, count_ = 1;
  int servers_on_node_ = 1;  // server ranks sharing this one's node
  std::size_t finalized_ = 0;
  bool failed_ = false;
  std::map<std::uint32_t, std::unique_ptr<ContextSlot>> contexts_;
  std::map<std::uint32_t, std::pair<int, std::vector<std::byte>>> plans_;  // received, not yet opened
  ServerOrder order_;       // collective work, in one order on every server
  DirectReceives directs_;  // payloads on their way (direct_receives.h)
  struct Send {
    MPI_Request request;
    std::vector<std::byte> bytes;
    bool block;  // a block (capped), not a note
  };
  std::deque<Send> in_flight_;         // level 1 -> level 2, until sent
  std::deque<Send> errors_in_flight_;  // fail_context's messages to clients
  std::size_t in_flight_bytes_ = 0;    // the bytes of in_flight_'s messages
  std::size_t block_bytes_ = 0;        // of which blocks (what forward_cap_ bounds)
  std::size_t forward_cap_ = 0;        // the sum of the open level-1 contexts' forward_cap
  std::size_t receive_bytes_ = 0;      // the receive buffer
  report::ServerFigures figures_;
  report::Details details_;  // the files' raw and on-disk bytes, by context
};

}  // namespace

int run_server(MPI_Comm world, const ServerOptions& options) {
  transport::World w = transport::join_world(world, transport::kServerCodeId);
  int code = 0;
  {
    Server server(w, options);
    code = server.run();
  }
  transport::leave_world(w);
  formats::before_mpi_finalize();
  return code;
}

}  // namespace foehn::server
