// Exact restarts of reductions done on the servers (temporal_placement=
// server, docs/restart.md): at a checkpoint, the open windows' accumulators
// of every server go into one state file beside the clients' one, each
// value at its global index in its variable's shape, written collectively
// over the servers; a resumed run's servers read back the points of their
// own blocks, whatever their number then.
//
// The checkpoint's sync event comes from model rank 0 after its own
// samples; the other ranks' samples of the open windows may come after it,
// so the event says how many samples each open record holds by then, and
// the state is saved once they are all here (the sync marker waits as a
// record waits for its data, the server loop going on meanwhile).
//
// With two levels of servers, level 1 reduces: its ranks save and restore
// the state among themselves (role.state_comm) and each answers the model
// once saved, beside level 2's answers that the files are synced; level 2
// holds no window.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <stdexcept>

#include "restart/by_global_index.h"
#include "restart/state_file.h"
#include "server/output_engine.h"

namespace foehn::server {

namespace {

constexpr int kRecordColumns = 4;  // variable, record, samples, per-point weights

std::string var_points(int var, const char* what) { return "var" + std::to_string(var) + "_" + what; }

}  // namespace

MPI_Comm OutputEngine::state_comm() const {
  return role_.state_comm != MPI_COMM_NULL ? role_.state_comm : role_.comm;
}

// Payload (int64 words): n, then n times (variable, record, samples), then
// the length of the state's path and its bytes.
void OutputEngine::on_sync(const std::byte* payload, std::int64_t words) {
  Checkpoint c;
  if (words > 0) {
    std::vector<std::int64_t> w(static_cast<std::size_t>(words));
    std::memcpy(w.data(), payload, w.size() * sizeof(std::int64_t));
    const std::int64_t n = w[0];
    if (n < 0 || 2 + 3 * n > words) throw std::runtime_error("checkpoint event: malformed list of open windows");
    for (std::int64_t i = 0; i < n; ++i) {
      const auto* t = &w[static_cast<std::size_t>(1 + 3 * i)];
      if (t[0] < 0 || t[0] >= static_cast<std::int64_t>(vars_.size()) || !vars_[t[0]].reduce_here || t[2] < 0)
        throw std::runtime_error("checkpoint event: open window of variable index " + std::to_string(t[0]) +
                                 ", which is not reduced here");
      c.windows.push_back({static_cast<int>(t[0]), t[1], t[2]});
    }
    const std::int64_t length = w[static_cast<std::size_t>(1 + 3 * n)];
    const std::int64_t room = (words - 2 - 3 * n) * static_cast<std::int64_t>(sizeof(std::int64_t));
    if (length <= 0 || length > room) throw std::runtime_error("checkpoint event: malformed state path");
    c.path.assign(reinterpret_cast<const char*>(&w[static_cast<std::size_t>(2 + 3 * n)]),
                  static_cast<std::size_t>(length));
  }
  checkpoints_.push_back(std::move(c));
  announced_.push_back({kSyncMarker, 0, 0, 0});
  advance(false);
}

bool OutputEngine::checkpoint_ready() const {
  if (checkpoints_.empty()) return true;
  for (const WindowAtCheckpoint& w : checkpoints_.front().windows) {
    const std::int64_t want = w.samples * vars_[w.var].expected;
    if (want == 0) continue;
    auto it = pending_.find({w.var, w.record});
    if (it == pending_.end() || it->second.received < want) return false;
  }
  return true;
}

std::vector<std::int64_t> OutputEngine::global_of_block(int var) const {
  const grid::Box& b = vars_[var].block;
  const std::vector<std::int64_t> shape = plan_.shape(plan_.variables[var]);
  if (shape.size() != b.start.size())
    throw std::runtime_error("variable '" + plan_.variables[var].name + "': block of rank " +
                             std::to_string(b.start.size()) + ", shape of rank " + std::to_string(shape.size()));
  std::vector<std::int64_t> global(static_cast<std::size_t>(b.size()));
  std::vector<std::int64_t> at(b.start.size(), 0);  // position in the block, C order
  for (std::int64_t& g : global) {
    std::int64_t index = 0;
    for (std::size_t d = 0; d < shape.size(); ++d) index = index * shape[d] + b.start[d] + at[d];
    g = index;
    for (std::size_t d = at.size(); d-- > 0;) {
      if (++at[d] < b.count[d]) break;
      at[d] = 0;
    }
  }
  return global;
}

std::int64_t OutputEngine::record_base(int var) const {
  return std::max<std::int64_t>(plan_.files[plan_.variables[var].file].resume_records, 0);
}

namespace {

std::int64_t points_of(const output::ContextPlan& plan, int var) {
  std::int64_t n = 1;
  for (std::int64_t s : plan.shape(plan.variables[var])) n *= s;
  return n;
}

}  // namespace

// The servers add each sample's pieces as they arrive, so their windows
// keep a weight per point even when every point has the same (no missing
// value): stored as it is, the state would be twice the values. A window
// whose held weights are all one number on every server is stored as that
// number (restore takes it back the same way).
void OutputEngine::store_uniform_weights_once(const std::vector<const filters::Accumulator*>& held,
                                              std::vector<int>& per_point, std::vector<double>& weight_all) const {
  const std::size_t n = held.size();
  // Per window: the smallest and the largest weight held here, negated for
  // the largest so that one MPI_MIN reduction gives both.
  std::vector<double> bounds(2 * n, std::numeric_limits<double>::infinity());
  for (std::size_t i = 0; i < n; ++i) {
    if (!per_point[i] || !held[i]) continue;
    const filters::Accumulator& acc = *held[i];
    const std::size_t points = acc.per_point_weights() ? acc.size() : 1;
    for (std::size_t k = 0; k < points; ++k) {
      const double w = acc.per_point_weights() ? acc.weight_of(k) : acc.weight_all();
      bounds[2 * i] = std::min(bounds[2 * i], w);
      bounds[2 * i + 1] = std::min(bounds[2 * i + 1], -w);
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, bounds.data(), static_cast<int>(2 * n), MPI_DOUBLE, MPI_MIN, state_comm());
  for (std::size_t i = 0; i < n; ++i)
    if (per_point[i] && std::isfinite(bounds[2 * i]) && bounds[2 * i] == -bounds[2 * i + 1])
      per_point[i] = 0, weight_all[i] = bounds[2 * i];
}

void OutputEngine::save_state(const Checkpoint& c) {
  const std::size_t n = c.windows.size();
  std::vector<std::int64_t> table(n * kRecordColumns);
  std::vector<double> weight_all(n, 0);
  std::vector<int> per_point(n, 0);
  std::vector<const filters::Accumulator*> held(n, nullptr);  // null: no values of it here
  for (std::size_t i = 0; i < n; ++i) {
    const WindowAtCheckpoint& w = c.windows[i];
    auto it = pending_.find({w.var, w.record});
    if (it != pending_.end() && vars_[w.var].expected > 0) held[i] = &it->second.stage.accumulator();
    if (held[i]) {
      weight_all[i] = held[i]->weight_all();
      per_point[i] = held[i]->per_point_weights();
    }
    table[i * kRecordColumns] = w.var;
    table[i * kRecordColumns + 1] = w.record + record_base(w.var);  // of the whole output: runs count from 0
    table[i * kRecordColumns + 2] = w.samples;
  }
  // A server without points of a window has no weight: the others' is the one.
  MPI_Allreduce(MPI_IN_PLACE, weight_all.data(), static_cast<int>(n), MPI_DOUBLE, MPI_MAX, state_comm());
  MPI_Allreduce(MPI_IN_PLACE, per_point.data(), static_cast<int>(n), MPI_INT, MPI_MAX, state_comm());
  store_uniform_weights_once(held, per_point, weight_all);
  for (std::size_t i = 0; i < n; ++i) table[i * kRecordColumns + 3] = per_point[i];
  const std::string where = "checkpoint of context '" + plan_.context_id + "', servers' state " + c.path + ": ";
  try {
    restart::StateFile st = restart::StateFile::create(c.path, state_comm());
    st.put_text("foehn_servers_state", "1");
    st.put_text("context", plan_.context_id);
    st.put_text("servers", std::to_string(role_.count));
    st.put_text("windows", std::to_string(n));
    st.define_table("windows", n, kRecordColumns, true);
    st.define_table("window_weights", n, 1, false);
    for (std::size_t i = 0; i < n; ++i) {
      const int var = c.windows[i].var;
      st.define_points(var_points(var, "value"), points_of(plan_, var));
      if (per_point[i]) st.define_points(var_points(var, "weight"), points_of(plan_, var));
    }
    st.end_define();
    st.put_table("windows", table);
    st.put_table("window_weights", weight_all);
    // Windows on one grid (the usual case: many fields of one grid) share
    // one exchange plan, built once: what a variable's global indices are
    // depends on its block and shape alone. The plan is collective, so the
    // servers agree to reuse it.
    std::vector<double> slab, weights;
    std::optional<restart::ByGlobalIndex> by;
    std::vector<std::int64_t> key, last_key;
    for (std::size_t i = 0; i < n; ++i) {
      const int var = c.windows[i].var;
      const grid::Box& b = vars_[var].block;
      key = plan_.shape(plan_.variables[var]);
      key.insert(key.end(), b.start.begin(), b.start.end());
      key.insert(key.end(), b.count.begin(), b.count.end());
      key.push_back(held[i] ? 1 : 0);
      int same = by && key == last_key;
      MPI_Allreduce(MPI_IN_PLACE, &same, 1, MPI_INT, MPI_LAND, state_comm());
      if (!same)
        by.emplace(state_comm(), held[i] ? global_of_block(var) : std::vector<std::int64_t>{}, points_of(plan_, var));
      std::swap(key, last_key);
      auto put = [&](const char* what, const double* values) {
        // One server holding every point in order: the values are the slab
        // (a server without values then has an empty slab).
        const double* out = by->in_place() ? (values ? by->slab_in_place(values) : values) : nullptr;
        if (!by->in_place()) {
          if (by->fills_slab())
            slab.resize(static_cast<std::size_t>(by->slab_count()));
          else
            slab.assign(static_cast<std::size_t>(by->slab_count()), std::nan(""));  // points no server holds
          by->to_slab(values, slab.data());
          out = slab.data();
        }
        st.put_slab(var_points(var, what), by->slab_begin(), by->slab_count(), out);
      };
      put("value", held[i] ? held[i]->values() : nullptr);
      if (!per_point[i]) continue;
      weights.clear();
      if (held[i])
        for (std::size_t k = 0; k < held[i]->size(); ++k) weights.push_back(held[i]->weight_of(k));
      put("weight", weights.data());
    }
    st.close();
  } catch (const restart::StateError& e) { throw formats::IoError(where + e.what()); }
  kept_windows_.clear();
  for (const WindowAtCheckpoint& w : c.windows)
    if (auto it = pending_.find({w.var, w.record}); it != pending_.end()) kept_windows_[it->first] = it->second.received;
}

void OutputEngine::restore_state() {
  const std::string where = "context '" + plan_.context_id + "': resuming from the servers' state " +
                            plan_.server_state + ": ";
  try {
    const restart::StateFile st = restart::StateFile::open(plan_.server_state, state_comm());
    const std::size_t n = static_cast<std::size_t>(std::stoll(st.text("windows")));
    const auto table = st.int_table("windows", n, kRecordColumns);
    const auto weight_all = st.double_table("window_weights", n, 1);
    std::vector<double> slab, values, weights;
    for (std::size_t i = 0; i < n; ++i) {
      const std::int64_t* row = &table[i * kRecordColumns];
      if (row[0] < 0 || row[0] >= static_cast<std::int64_t>(vars_.size()) || !vars_[row[0]].reduce_here)
        throw std::runtime_error(where + "variable index " + std::to_string(row[0]) + " is not reduced on the servers");
      const int var = static_cast<int>(row[0]);
      const VarState& s = vars_[var];
      if (st.points(var_points(var, "value")) != points_of(plan_, var))
        throw std::runtime_error(where + "variable '" + plan_.variables[var].name + "' has another shape");
      const std::vector<std::int64_t> global = global_of_block(var);
      const restart::ByGlobalIndex by(state_comm(), global, points_of(plan_, var));
      slab.resize(static_cast<std::size_t>(by.slab_count()));
      values.assign(global.size(), std::nan(""));
      st.get_slab(var_points(var, "value"), by.slab_begin(), by.slab_count(), slab.data());
      by.from_slab(slab.data(), values.data());
      const bool per_point = row[3] != 0;
      if (per_point) {
        weights.assign(global.size(), std::nan(""));
        st.get_slab(var_points(var, "weight"), by.slab_begin(), by.slab_count(), slab.data());
        by.from_slab(slab.data(), weights.data());
      }
      if (s.expected == 0) continue;  // no client sends this server values of it: nothing to continue
      Pending& p = pending(var, row[1] - record_base(var));
      p.stage.accumulator().restore(values.data(), per_point ? weights.data() : nullptr, weight_all[i]);
      p.received = row[2] * s.expected;  // the samples before the checkpoint, as this run counts them
    }
  } catch (const restart::StateError& e) { throw std::runtime_error(where + e.what()); }
}

}  // namespace foehn::server
