// Exact restarts of a client context (step_driver.h, docs/restart.md): the
// state after a step, into one netCDF-4 file written in parallel by the
// context's model ranks, each value at its global index so that the next
// run may have other numbers of model ranks and servers; and the same
// state read back before the next run opens its files.
//
// What is kept: for each chain (@id) and output stage, its sampling
// schedule's next instant, the time of its last sample, whether a `once`
// was written, and, for reductions done here, the running values and the
// weights (per point when some samples skipped points, else one for all);
// for each file, its schedule, the records written and the start of the
// next record's interval; for each output, the samples of its open window;
// for each temporal_splitting node, its place in its cycle and the values
// of the cycle's steps so far.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <thread>

#include "client/errors.h"
#include "client/restart_state.h"
#include "client/step_driver.h"
#include "formats/registry.h"
#include "restart/by_global_index.h"
#include "restart/state_file.h"
#include "transport/liveness.h"

namespace foehn::client {

using restart::ByGlobalIndex;
using restart::StateFile;

namespace {

constexpr int kNodeColumns = 5;    // kind, sampler's next instant, last sample time, once done, per-point weights
// schedule's next instant, records written, start of the next record; split_freq: the last record's period and
// the records in it
constexpr int kFileColumns = 5;
constexpr int kOutputColumns = 2;  // samples in the open window, step of the first

std::string node_var(int node, const char* what) { return "node" + std::to_string(node) + "_" + what; }

bool splits(const filters::Node& n) {
  return n.kind == filters::NodeKind::transform && n.transform->op == transform::Operation::split;
}

std::uint64_t fnv1a(const std::string& text) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  return h;
}

// The first line where two configurations differ, for the refusal.
std::string first_difference(const std::string& was, const std::string& now) {
  std::istringstream a(was), b(now);
  std::string la, lb;
  while (true) {
    const bool ha = static_cast<bool>(std::getline(a, la)), hb = static_cast<bool>(std::getline(b, lb));
    if (!ha && !hb) return "";
    if (!ha) return "this run has more: '" + lb + "'";
    if (!hb) return "this run lacks: '" + la + "'";
    if (la != lb) return "was '" + la + "', is now '" + lb + "'";
  }
}

}  // namespace

void StepDriver::keep_for_checkpoints(const ModelSettings& settings) { settings_ = &settings; }

const std::vector<output::Dim>& StepDriver::node_dims(int node) const {
  auto it = chain_dims_.find(node);
  if (it != chain_dims_.end()) return it->second;
  for (const OutputVar& out : outputs_)
    if (out.node == node) return plan_.variables[out.plan_index].dims;
  static const std::vector<output::Dim> none;
  return none;
}

// The grid's local values in data order: the dimensions slowest first, the
// domain's two as one (its data points), each axis this rank's part.
StepDriver::GlobalMap& StepDriver::global_map(const std::vector<output::Dim>& dims) {
  std::string key;
  for (const output::Dim& d : dims) key += std::to_string(d.kind) + ":" + std::to_string(d.index) + " ";
  auto [it, fresh] = global_maps_.try_emplace(key);
  GlobalMap& m = it->second;
  if (!fresh) return m;
  struct Part {
    std::vector<std::int64_t> global;  // of each local value
    std::int64_t size = 1;             // global
  };
  std::vector<Part> parts;
  bool domain = false, decomposed = false;
  for (const output::Dim& d : dims) {
    if (d.kind == output::Dim::axis) {
      const output::AxisInfo& a = plan_.axes[d.index];
      const AxisSetting& s = settings_->axes.at(a.id);
      Part p;
      p.size = a.size();
      if (s.decomposed) {
        p.global = s.index;
        decomposed = true;
      } else {
        for (std::int64_t i = 0; i < s.local; ++i) p.global.push_back(i);
      }
      parts.push_back(std::move(p));
    } else if (!domain) {  // the domain's one or two dimensions: its data points
      domain = true;
      const output::DomainInfo& dom = plan_.domains[d.index];
      parts.push_back({settings_->domains.at(dom.id).data, dom.size()});
    }
  }
  std::int64_t local = 1;
  m.size = 1;
  for (const Part& p : parts) {
    local *= static_cast<std::int64_t>(p.global.size());
    m.size *= p.size;
  }
  m.take.assign(static_cast<std::size_t>(local), 0);
  // C order: the last part fastest.
  std::int64_t stride_local = 1;
  for (auto p = parts.rbegin(); p != parts.rend(); ++p) {
    std::int64_t stride_global = 1;
    for (auto q = parts.rbegin(); q != p; ++q) stride_global *= q->size;
    const auto n = static_cast<std::int64_t>(p->global.size());
    for (std::int64_t i = 0; i < local; ++i) {
      std::int64_t& g = m.take[static_cast<std::size_t>(i)];
      const std::int64_t own = p->global[static_cast<std::size_t>((i / stride_local) % n)];
      g = (g < 0 || own < 0) ? -1 : g + own * stride_global;
    }
    stride_local *= n;
  }
  // A grid of whole axes is on every rank: rank 0 gives it.
  m.give = m.take;
  if (!domain && !decomposed && rank_ != 0) m.give.assign(m.give.size(), -1);
  return m;
}

bool StepDriver::windows_open() const {
  for (const OutputVar& out : outputs_)
    if (out.window_samples > 0) return true;
  for (std::size_t k = 0; k < graph_.size(); ++k) {
    const filters::Node& n = graph_.node(static_cast<int>(k));
    if (n.kind == filters::NodeKind::chain && n.stage.reduces() && n.stage.accumulator().weight_all() > 0) return true;
  }
  return false;
}

std::string StepDriver::configuration_text() const {
  std::ostringstream t;
  t << "calendar " << plan_.calendar << ", " << plan_.time_units << ", time step " << timestep_us_ << " us";
  for (auto v : plan_.user_calendar) t << " " << v;
  t << "\nfirst start date " << plan_.start_date << "\n";
  for (const auto& d : plan_.domains)
    t << "domain " << d.id << ": " << d.type << " " << d.ni_glo << " x " << d.nj_glo << "\n";
  for (const auto& a : plan_.axes) t << "axis " << a.id << ": " << a.size() << " values\n";
  for (const auto& f : plan_.files) {
    t << "file " << f.id << ": " << f.base_path << ", output_freq " << f.output_freq << ", split_freq '" << f.split_freq
      << "', " << f.format << ", ";
    // One part per writer: netCDF and GRIB2 parts are re-partitioned on
    // resume (server/repartition*.cpp); Zarr's continue with as many.
    if (f.one_file)
      t << "one_file\n";
    else if (formats::traits_of(f.format).extension != ".zarr")
      t << "multiple_file\n";
    else if (world_->attached())
      t << "multiple_file in " << size_ << " parts (attached: one per model rank)\n";
    else
      t << "multiple_file in parts of " << world_->server_ranks.size() << " servers (level 2: " << plan_.level2_ranks
        << " ranks in " << plan_.level2_pools << " pools)\n";
  }
  for (const auto& v : plan_.variables) {
    t << "variable " << plan_.files[v.file].id << "/" << v.name << ": field " << v.field_id << ", operation "
      << v.operation << ", " << v.cell_methods << ", prec " << v.prec << ", placement "
      << (v.reduce_on_server ? "server" : "client") << ", shape";
    for (auto n : plan_.shape(v)) t << " " << n;
    t << "\n";
  }
  for (std::size_t k = 0; k < graph_.size(); ++k) {
    const filters::Node& n = graph_.node(static_cast<int>(k));
    t << "node " << k << ": kind " << static_cast<int>(n.kind) << ", " << filters::temporal_op_name(n.stage.op())
      << "\n";
  }
  return t.str();
}

void StepDriver::checkpoint() {
  if (restart_dir_.empty())
    fail(FOEHN_ERR_CONFIG,
         "foehn_checkpoint: context '" + id_ +
             "' has no restart_dir (<variable id=\"restart_dir\" type=\"string\">restart</variable>)");
  if (step_ < 0) fail(FOEHN_ERR_STATE, "foehn_checkpoint: context '" + id_ + "': no step yet");
  end_step();  // this step's records end now, not at the next update_calendar
  const calendar::Date date = calendar_->to_date(now_);
  const std::string path = state_path(restart_dir_, date, id_);
  // Reductions on the servers: their state goes beside this one, written
  // by the servers before they answer the sync (output_engine_state.cpp).
  bool servers_keep = false;
  for (const OutputVar& out : outputs_)
    servers_keep = servers_keep || (!attached_ && out.on_server && graph_.node(out.node).stage.reduces() &&
                                    out.window_samples > 0);
  LocalFailure made;
  if (rank_ == 0) {
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
    if (ec) made = {true, FOEHN_ERR_IO, path + ": cannot create the checkpoint's directory: " + ec.message()};
  }
  agree(comm_, made);
  // The records before the checkpoint reach the disk before the state says
  // they did, so that a run killed after the call keeps them.
  if (attached_) {
    attached_->sync_files();
  } else {
    if (rank_ == 0) send_sync(servers_keep ? servers_state_path(path) : std::string());  // after its announces
    for (auto& ch : channels_) ch.drain();  // every rank's data for those records
    if (rank_ == 0) made = wait_for_servers_synced(servers_keep);
  }
  agree(comm_, made);
  const std::size_t nodes = graph_.size();
  std::vector<std::int64_t> node_table(nodes * kNodeColumns, 0);
  std::vector<double> weight_table(nodes, 0);
  std::vector<int> per_point(nodes, 0);
  for (std::size_t k = 0; k < nodes; ++k) {
    const filters::Node& n = graph_.node(static_cast<int>(k));
    std::int64_t* row = &node_table[k * kNodeColumns];
    row[0] = static_cast<std::int64_t>(n.kind);
    row[1] = n.sampler.next_k;
    row[2] = n.stage.last_sample_time();
    row[3] = n.stage.once_done();
    per_point[k] = n.stage.accumulator().per_point_weights();
    weight_table[k] = n.stage.accumulator().weight_all();
  }
  MPI_Allreduce(MPI_IN_PLACE, per_point.data(), static_cast<int>(nodes), MPI_INT, MPI_MAX, comm_);
  for (std::size_t k = 0; k < nodes; ++k) node_table[k * kNodeColumns + 4] = per_point[k];
  // temporal_splitting: the next slot of each cycle (every rank takes the
  // same steps); a cycle begun is saved with its values by global index.
  std::vector<std::int64_t> slots(nodes, 0);
  std::vector<int> cycles;
  for (std::size_t k = 0; k < nodes; ++k) {
    const filters::Node& n = graph_.node(static_cast<int>(k));
    if (!splits(n) || n.slot == 0) continue;
    slots[k] = static_cast<std::int64_t>(n.slot);
    cycles.push_back(static_cast<int>(k));
    if (chain_dims_.count(static_cast<int>(k)) == 0)
      fail(FOEHN_ERR_STATE, "foehn_checkpoint: context '" + id_ + "': a temporal_splitting axis of " +
                                std::to_string(n.transform->n_target) + " steps holds " + std::to_string(n.slot) +
                                " of its cycle and another transformation follows it, whose grid the state "
                                "cannot place by global index; checkpoint at the end of a cycle (every " +
                                std::to_string(n.transform->n_target) + " steps of its field), no state written");
  }
  std::vector<std::int64_t> file_table(files_.size() * kFileColumns);
  for (std::size_t f = 0; f < files_.size(); ++f) {
    file_table[f * kFileColumns] = files_[f].sampler.next_k;
    file_table[f * kFileColumns + 1] = file_base_[f] + files_[f].records;
    file_table[f * kFileColumns + 2] = files_[f].record_start;
    file_table[f * kFileColumns + 3] = files_[f].period;
    file_table[f * kFileColumns + 4] = files_[f].period_records;
  }
  std::vector<std::int64_t> output_table(outputs_.size() * kOutputColumns);
  for (std::size_t o = 0; o < outputs_.size(); ++o) {
    output_table[o * kOutputColumns] = outputs_[o].window_samples;
    output_table[o * kOutputColumns + 1] = outputs_[o].window_first_step;
  }
  try {
    StateFile st = StateFile::create(path, comm_);
    const std::string config = configuration_text();
    std::ostringstream hash;
    hash << std::hex << fnv1a(config);
    st.put_text("foehn_state", "1");
    st.put_text("context", id_);
    st.put_text("date", calendar::format_date(date));
    st.put_text("first_start_date", plan_.start_date);
    st.put_text("time_origin", plan_.time_origin);
    st.put_text("model_ranks", std::to_string(size_));
    st.put_text("configuration", config);
    st.put_text("configuration_hash", hash.str());
    // The servers' state beside this one, or "-": the servers hold no open window.
    st.put_text("servers_state", servers_keep ? std::filesystem::path(servers_state_path(path)).filename().string() : "-");
    st.define_table("nodes", nodes, kNodeColumns, true);
    st.define_table("node_weights", nodes, 1, false);
    st.define_table("files", files_.size(), kFileColumns, true);
    st.define_table("outputs", outputs_.size(), kOutputColumns, true);
    st.define_table("split_slots", nodes, 1, true);
    std::vector<int> kept;  // nodes whose accumulators are kept
    for (std::size_t k = 0; k < nodes; ++k) {
      const filters::Node& n = graph_.node(static_cast<int>(k));
      if (!n.stage.reduces() || n.stage.size() == 0) continue;
      kept.push_back(static_cast<int>(k));
      const GlobalMap& m = global_map(node_dims(static_cast<int>(k)));
      st.define_points(node_var(static_cast<int>(k), "value"), m.size);
      if (per_point[k]) st.define_points(node_var(static_cast<int>(k), "weight"), m.size);
    }
    for (int k : cycles) st.define_points(node_var(k, "cycle"), global_map(node_dims(k)).size);
    st.end_define();
    st.put_table("nodes", node_table);
    st.put_table("node_weights", weight_table);
    st.put_table("files", file_table);
    st.put_table("outputs", output_table);
    st.put_table("split_slots", slots);
    std::vector<double> slab, local;
    // Node k's `values` (`what`), of `count` local values on its grid: the
    // slab as the node holds it when the decomposition is the slabs' (one
    // rank), else gathered by global index.
    auto put = [&](int k, const char* what, const double* values, std::size_t count) {
      GlobalMap& m = global_map(node_dims(k));
      if (m.take.size() != count)
        throw restart::StateError("node " + std::to_string(k) + ": " + std::to_string(count) +
                                  " values, its grid has " + std::to_string(m.take.size()) + " here");
      if (!m.giving) m.giving = std::make_shared<const ByGlobalIndex>(comm_, m.give, m.size);
      const ByGlobalIndex& by = *m.giving;
      const double* in_place = by.slab_in_place(values);
      if (!in_place) {
        slab.resize(static_cast<std::size_t>(by.slab_count()));
        if (!by.fills_slab()) std::fill(slab.begin(), slab.end(), std::nan(""));  // points no rank has
        by.to_slab(values, slab.data());
      }
      st.put_slab(node_var(k, what), by.slab_begin(), by.slab_count(), in_place ? in_place : slab.data());
    };
    for (int k : kept) {
      const filters::Accumulator& acc = graph_.node(k).stage.accumulator();
      put(k, "value", acc.values(), acc.size());
      if (!per_point[static_cast<std::size_t>(k)]) continue;
      local.resize(acc.size());
      for (std::size_t i = 0; i < local.size(); ++i) local[i] = acc.weight_of(i);
      put(k, "weight", local.data(), local.size());
    }
    // The whole axis: its slots past the cycle's are the previous cycle's,
    // overwritten before the cycle completes.
    for (int k : cycles) put(k, "cycle", graph_.node(k).values.data(), graph_.node(k).values.size());
    st.close();
  } catch (const restart::StateError& e) { fail(FOEHN_ERR_IO, "foehn_checkpoint: context '" + id_ + "': " + e.what()); }
  checkpointed_step_ = step_;
  if (rank_ == 0)
    std::cerr << "foehn: context '" << id_ << "': checkpoint of " << calendar::format_date(date) << " in " << path
              << std::endl;
}

// A temporal_splitting node's cycle begun before the checkpoint: its next
// slot and the values of the steps it holds.
void StepDriver::restore_cycle(const restart::StateFile& st, int node, std::int64_t slot, const std::string& where) {
  filters::Node& n = graph_.node(node);
  if (!splits(n) || slot >= static_cast<std::int64_t>(n.transform->n_target) || chain_dims_.count(node) == 0 ||
      !st.has(node_var(node, "cycle")))
    fail(FOEHN_ERR_CONFIG, where + "node " + std::to_string(node) + ": the state holds a temporal_splitting cycle at "
                               "slot " + std::to_string(slot) + " that this run's graph cannot take");
  GlobalMap& m = global_map(node_dims(node));
  if (st.points(node_var(node, "cycle")) != m.size || m.take.size() != n.values.size())
    fail(FOEHN_ERR_CONFIG, where + "node " + std::to_string(node) + " (temporal_splitting) has another grid size");
  if (!m.taking) m.taking = std::make_shared<const ByGlobalIndex>(comm_, m.take, m.size);
  const ByGlobalIndex& by = *m.taking;
  std::vector<double> slab(static_cast<std::size_t>(by.slab_count()));
  st.get_slab(node_var(node, "cycle"), by.slab_begin(), by.slab_count(), slab.data());
  by.from_slab(slab.data(), n.values.data());
  n.slot = static_cast<std::size_t>(slot);
}

std::string StepDriver::servers_state_path(const std::string& state) {
  std::filesystem::path p(state);
  return (p.parent_path() / (p.stem().string() + ".servers.nc")).string();
}

// Rank 0: the checkpoint's sync to every server; with the servers' state
// `servers` (non-empty), the open windows reduced there and the samples
// each holds (every rank sent as many), which the servers wait for before
// saving (server::OutputEngine::on_sync).
void StepDriver::send_sync(const std::string& servers) {
  std::vector<std::int64_t> words;
  if (!servers.empty()) {
    words.push_back(0);
    for (const OutputVar& out : outputs_) {
      if (!out.on_server || !graph_.node(out.node).stage.reduces() || out.window_samples == 0) continue;
      // An open window's record is the file's next one (finish_record ended any that was due).
      words.insert(words.end(), {static_cast<std::int64_t>(out.plan_index), files_[out.file].records,
                                 static_cast<std::int64_t>(out.window_samples)});
      ++words[0];
    }
    words.push_back(static_cast<std::int64_t>(servers.size()));
    const std::size_t at = words.size();
    words.resize(at + (servers.size() + 7) / 8, 0);
    std::memcpy(&words[at], servers.data(), servers.size());
  }
  const std::size_t bytes = words.size() * sizeof(std::int64_t);
  for (size_t s = 0; s < channels_.size(); ++s) {
    if (!channels_[s].make_space(bytes)) {
      channels_[s].send_current();
      make_room(static_cast<int>(s));
    }
    const auto elem = static_cast<std::uint16_t>(bytes ? sizeof(std::int64_t) : 0);
    transport::EventHeader h{
        transport::EventType::sync, key_, 0, elem, 0, 0, 0, static_cast<std::int64_t>(words.size()), 0, 0};
    std::byte* payload = channels_[s].append(h, bytes);
    if (bytes) std::memcpy(payload, words.data(), bytes);
  }
}

// Rank 0, server mode: every writer has written and synced the records
// announced before the checkpoint (one kTagSynced each): every server, or
// with two levels the level-2 ranks (level 1 writes no file) and, when the
// servers keep windows, the level-1 ranks that saved them.
LocalFailure StepDriver::wait_for_servers_synced(bool servers_keep) {
  const std::size_t servers = world_->server_ranks.size();
  const std::size_t writers = plan_.level2_ranks > 0 && !servers_keep ? static_cast<std::size_t>(plan_.level2_ranks)
                                                                      : servers;
  std::size_t answers = 0;
  auto last_check = std::chrono::steady_clock::now();
  auto pause = std::chrono::microseconds(20);
  while (answers < writers) {
    int flag = 0;
    MPI_Status st;
    MPI_Iprobe(MPI_ANY_SOURCE, transport::kTagSynced, world_->comm, &flag, &st);
    if (flag) {
      std::uint32_t key = 0;
      MPI_Recv(&key, 1, MPI_UINT32_T, st.MPI_SOURCE, transport::kTagSynced, world_->comm, MPI_STATUS_IGNORE);
      if (key != key_)
        return {true, FOEHN_ERR_INTERNAL, "foehn_checkpoint: context '" + id_ + "': a server's answer for another context"};
      ++answers;
      pause = std::chrono::microseconds(20);
      continue;
    }
    // A server that failed (its error comes at the next call) or died never answers.
    MPI_Iprobe(MPI_ANY_SOURCE, transport::kTagError, world_->comm, &flag, &st);
    if (flag)
      return {true, FOEHN_ERR_IO, "foehn_checkpoint: context '" + id_ + "': a server failed before the records "
                                  "before the checkpoint were on disk; no state written"};
    const auto now = std::chrono::steady_clock::now();
    if (now - last_check > std::chrono::seconds(1)) {
      last_check = now;
      try {
        transport::check_alive(world_->server_ranks);
      } catch (const transport::PeerLost& e) {
        return {true, FOEHN_ERR_IO, "foehn_checkpoint: context '" + id_ + "': " + e.what() + "; no state written"};
      }
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(1000));
  }
  return {};
}

void StepDriver::resume(const ModelSettings& settings, const std::string& state_path_text, std::int64_t segment_start) {
  settings_ = &settings;
  segment_start_ = segment_start;
  const std::string where = "context '" + id_ + "': resuming from " + state_path_text + ": ";
  try {
    const StateFile st = StateFile::open(state_path_text, comm_);
    const std::string was = st.text("configuration");
    const std::string now = configuration_text();
    if (was != now) {
      const std::string changed = first_difference(was, now);
      fail(FOEHN_ERR_CONFIG, where + "the configuration changed since the checkpoint (" + changed +
                                 "); an exact restart needs the same files, fields, operations and calendar" +
                                 (changed.find("multiple_file") != std::string::npos
                                      ? ", and a Zarr multiple_file store the same number of parts: run with as "
                                        "many servers (model ranks when attached) as the checkpoint's run, or make "
                                        "the file one_file (netCDF and GRIB2 parts are re-partitioned)"
                                      : ""));
    }
    const std::size_t nodes = graph_.size();
    const auto node_table = st.int_table("nodes", nodes, kNodeColumns);
    const auto weight_table = st.double_table("node_weights", nodes, 1);
    const auto file_table = st.int_table("files", files_.size(), kFileColumns);
    const auto output_table = st.int_table("outputs", outputs_.size(), kOutputColumns);
    // The servers continue their open windows from their own state.
    const std::string servers = st.text("servers_state");
    if (servers != "-") {
      plan_.server_state = (std::filesystem::path(state_path_text).parent_path() / servers).string();
      if (!std::filesystem::exists(plan_.server_state))
        fail(FOEHN_ERR_IO, where + "the servers' state " + plan_.server_state + " is missing");
    }
    std::vector<double> slab, values, weights;
    // A state from before temporal_splitting's cycles were saved has none:
    // its cycles begin anew.
    const auto slots = st.has("split_slots") ? st.int_table("split_slots", nodes, 1)
                                             : std::vector<std::int64_t>(nodes, 0);
    for (std::size_t k = 0; k < nodes; ++k) {
      filters::Node& n = graph_.node(static_cast<int>(k));
      const std::int64_t* row = &node_table[k * kNodeColumns];
      n.sampler.next_k = row[1];
      n.stage.restore_sampling(row[2], row[3] != 0);
      const int node = static_cast<int>(k);
      if (slots[k] > 0) restore_cycle(st, node, slots[k], where);
      if (!n.stage.reduces() || n.stage.size() == 0) continue;
      GlobalMap& m = global_map(node_dims(node));
      if (st.points(node_var(node, "value")) != m.size)
        fail(FOEHN_ERR_CONFIG, where + "node " + std::to_string(k) + " has another grid size");
      if (!m.taking) m.taking = std::make_shared<const ByGlobalIndex>(comm_, m.take, m.size);
      const ByGlobalIndex& by = *m.taking;
      slab.resize(static_cast<std::size_t>(by.slab_count()));
      values.assign(n.stage.size(), std::nan(""));
      st.get_slab(node_var(node, "value"), by.slab_begin(), by.slab_count(), slab.data());
      by.from_slab(slab.data(), values.data());
      const bool per_point = row[4] != 0;
      if (per_point) {
        weights.assign(n.stage.size(), std::nan(""));
        st.get_slab(node_var(node, "weight"), by.slab_begin(), by.slab_count(), slab.data());
        by.from_slab(slab.data(), weights.data());
      }
      n.stage.accumulator().restore(values.data(), per_point ? weights.data() : nullptr, weight_table[k]);
    }
    for (std::size_t f = 0; f < files_.size(); ++f) {
      FileSchedule& fs = files_[f];
      output::FileInfo& info = plan_.files[f];
      fs.sampler.next_k = file_table[f * kFileColumns];
      file_base_[f] = file_table[f * kFileColumns + 1];
      fs.record_start = file_table[f * kFileColumns + 2];
      fs.period = file_table[f * kFileColumns + 3];
      fs.period_records = file_table[f * kFileColumns + 4];
      info.resume_records = file_base_[f];
      // The file continued: split_freq, that of the last record's period.
      info.resume_period = split_[f] ? fs.period : -1;
      info.resume_file_records = split_[f] ? (fs.period < 0 ? 0 : fs.period_records) : file_base_[f];
    }
    for (std::size_t o = 0; o < outputs_.size(); ++o) {
      outputs_[o].window_samples = output_table[o * kOutputColumns];
      outputs_[o].window_first_step = output_table[o * kOutputColumns + 1];
    }
    if (rank_ == 0)
      std::cerr << "foehn: context '" << id_ << "' resumes from the state of " << st.text("date") << " ("
                << state_path_text << ")" << std::endl;
  } catch (const restart::StateError& e) { fail(FOEHN_ERR_IO, where + e.what()); }
}

}  // namespace foehn::client
