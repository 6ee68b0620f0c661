// The per-step path of a client context (step_driver.h): the model's time
// (update_calendar or set_model_time), write (sample, or pack into the send
// buffers by precomputed runs), the end of a step (filter graph, records
// that end now), and close; before the first step, the pack plans and
// buffers (prepare).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <iostream>
#include <limits>
#include <map>
#include <tuple>

#include "client/agree.h"
#include "client/errors.h"
#include "client/step_driver.h"
#include "transport/event.h"

namespace foehn::client {

using transport::EventHeader;
using transport::EventType;

namespace {

// A fragment smaller than this is not worth an event of its own: the
// current buffer is sent and the fragment goes into a fresh one.
constexpr std::size_t kMinFragmentBytes = 4096;

}  // namespace

StepDriver::StepDriver(const std::string& id, MPI_Comm comm, const config::ContextDef& def, transport::World& world,
                       std::uint32_t key, transport::ClientCounters& counters, BuiltPlan built)
    : id_(id),
      comm_(comm),
      def_(def),
      world_(&world),
      key_(key),
      counters_(&counters),
      calendar_(std::move(built.calendar)),
      start_(built.start),
      origin_(built.origin),
      timestep_us_(built.timestep_us),
      plan_(std::move(built.plan)),
      fields_(std::move(built.fields)),
      field_index_(std::move(built.field_index)),
      graph_(std::move(built.graph)),
      files_(std::move(built.files)),
      chain_dims_(std::move(built.chain_dims)),
      restart_dir_(config::variable_string(def, "restart_dir", "")),
      file_base_(files_.size(), 0),
      segment_start_(built.start) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  non_finite_.resize(fields_.size());
  split_.resize(files_.size());
  for (std::size_t f = 0; f < files_.size(); ++f)
    if (!plan_.files[f].split_freq.empty())
      split_[f].emplace(*calendar_, start_, calendar::parse_duration(plan_.files[f].split_freq), timestep_us_,
                        plan_.files[f].split_format);
  for (const OutputDef& d : built.outputs) {
    OutputVar out;
    static_cast<OutputDef&>(out) = d;
    outputs_.push_back(std::move(out));
  }
}

StepDriver::~StepDriver() = default;

const std::vector<std::vector<std::int64_t>>& StepDriver::destinations_of(
    const ModelSettings& settings, int domain, int nservers,
    std::map<int, std::vector<std::vector<std::int64_t>>>& found) const {
  auto [it, fresh] = found.try_emplace(domain);
  if (fresh) it->second = plan_.split_by_server(domain, settings.domains.at(plan_.domains[domain].id).data, nservers);
  return it->second;
}

void StepDriver::prepare(const ModelSettings& settings) {
  // Points no client sends (masks, compressed data) are written as the fill
  // value, so their variables need one.
  for (auto& v : plan_.variables) {
    const auto l = plan_.layout(v);
    if (l.domain < 0 || !plan_.domains[l.domain].needs_fill || v.has_fill) continue;
    v.has_fill = true;
    v.fill_value = v.prec == 8 ? 9.9692099683868690e+36 : 9.96921e+36;
  }
  const bool attached = world_->attached();
  // Clients send to level-1 servers only (all servers with one level).
  const int nservers = attached ? 1 : static_cast<int>(world_->server_ranks.size()) - plan_.level2_ranks;
  std::vector<std::size_t> bytes_per_server(nservers, sizeof(transport::BufferHeader));
  std::size_t largest_local = 0;
  std::map<int, std::vector<std::vector<std::int64_t>>> by_domain;  // found once per domain
  // (domain, outer, inner, data points, first destination's points): what a plan depends on.
  using PackKey = std::tuple<int, std::int64_t, std::int64_t, std::int64_t, std::size_t>;
  std::map<PackKey, std::shared_ptr<const grid::PackPlan>> pack_plans;
  for (OutputVar& out : outputs_) {
    const auto& v = plan_.variables[out.plan_index];
    const auto layout = plan_.layout(v);
    // For each destination, the data positions whose points it owns, in
    // data order: the packed stream walks the local data forward.
    // Axes only (and scalars): server 0 gets the whole field from client 0,
    // or, when the axes are decomposed, every client's part.
    std::vector<std::vector<std::int64_t>> axis_only(nservers);
    if (layout.domain < 0 && (rank_ == 0 || plan_.decomposed_axes(v)) && out.local_size > 0) axis_only[0].push_back(0);
    const auto& positions =
        layout.domain < 0 ? axis_only : destinations_of(settings, layout.domain, nservers, by_domain);
    const std::int64_t data_points =
        layout.domain < 0 ? 1
                          : static_cast<std::int64_t>(settings.domains.at(plan_.domains[layout.domain].id).data.size());
    // The plan packs by memcpy runs and gathers, or stages the data once per
    // write when many servers' points are interleaved.
    // The data hold this rank's parts of the axes around the domain.
    std::int64_t outer = 1, inner = 1;
    bool after = false;
    for (const output::Dim& d : v.dims) {
      if (d.kind != output::Dim::axis)
        after = true;
      else
        (after ? inner : outer) *= settings.axes.at(plan_.axes[d.index].id).local;
    }
    // Fields on the same grid share one plan: thousands of fields on one
    // domain cost one plan, not one each (a 9e6-point domain took ~0.1 s per field).
    const std::int64_t plan_outer = layout.domain < 0 ? 1 : outer;
    const std::int64_t plan_inner = layout.domain < 0 ? out.local_size : inner;
    const PackKey key{layout.domain, plan_outer, plan_inner, data_points, positions.empty() ? 0 : positions[0].size()};
    auto [shared, fresh] = pack_plans.try_emplace(key);
    if (fresh) shared->second = std::make_shared<const grid::PackPlan>(positions, data_points, plan_outer, plan_inner);
    out.pack = shared->second;
    out.dest.resize(nservers);
    for (int s = 0; s < nservers; ++s) {
      Destination& d = out.dest[s];
      d.total = out.pack->size(static_cast<std::size_t>(s));
      if (d.total) bytes_per_server[s] += transport::event_bytes(d.total * out.elem);
    }
    // Staging and attached packing hold a field's local values, in double at most.
    if (attached || out.pack->staged())
      largest_local = std::max(largest_local, static_cast<std::size_t>(out.local_size) * sizeof(double));
  }
  scratch_.resize(largest_local);
  std::size_t largest_masked = 0;
  for (const Field& f : fields_)
    if (!f.masked.empty())
      largest_masked = std::max(largest_masked, static_cast<std::size_t>(f.local_size) * sizeof(double));
  masked_copy_.resize(largest_masked);
  if (attached) return;
  size_channels(bytes_per_server);
}

void StepDriver::attach() {
  server::WriterRole role;
  role.attached = true;
  role.index = rank_;
  role.count = size_;
  role.comm = comm_;
  attached_ = std::make_unique<server::OutputEngine>(plan_, role);
}

void StepDriver::update_calendar(std::int64_t step) {
  if (dynamic_steps_)
    fail(FOEHN_ERR_STATE,
         "foehn_update_calendar: context '" + id_ + "' is driven by foehn_set_model_time; use one or the other");
  if (step == 0 && step_ == 0) return;  // already there (a write at the start date), as XIOS
  if (step < 0 || step <= step_)
    fail(FOEHN_ERR_ARGUMENT, "foehn_update_calendar: context '" + id_ + "': step " + std::to_string(step) +
                                 " does not follow the current step " + std::to_string(step_));
  end_step();
  step_ = step;
  advance_time(segment_start_ + step * timestep_us_);
}

void StepDriver::set_model_time(double seconds) {
  if (step_ > 0 && !dynamic_steps_)
    fail(FOEHN_ERR_STATE,
         "foehn_set_model_time: context '" + id_ + "' is driven by foehn_update_calendar; use one or the other");
  const double us = std::round(seconds * static_cast<double>(calendar::kMicrosPerSecond));
  const std::int64_t now = segment_start_ + static_cast<std::int64_t>(us);
  if (!std::isfinite(seconds) || seconds <= 0 || (step_ >= 0 && now <= now_))
    fail(FOEHN_ERR_ARGUMENT, "foehn_set_model_time: context '" + id_ + "': time " + std::to_string(seconds) +
                                 " s must be positive and after the current time");
  dynamic_steps_ = true;
  end_step();
  ++step_;
  advance_time(now);
}

void StepDriver::advance_time(std::int64_t now) {
  now_ = now;
  now_seconds_ = static_cast<double>(now - origin_) / static_cast<double>(calendar::kMicrosPerSecond);
  for (size_t f = 0; f < files_.size(); ++f) {
    FileSchedule& fs = files_[f];
    fs.sampler.advance(now);
    if (!fs.sampler.due) continue;
    // All output instants reached by this step make one record stamped now,
    // standing for the interval since the previous record.
    fs.record = fs.records++;
    const double start =
        static_cast<double>(fs.record_start - origin_) / static_cast<double>(calendar::kMicrosPerSecond);
    fs.record_start = now;
    if (split_[f]) {  // as the writers split (OutputEngine::start_record)
      const std::int64_t period = split_[f]->period_of(now);
      if (period != fs.period) fs.period = period, fs.period_records = 0;
      ++fs.period_records;
    }
    if (attached_)
      attached_->on_announce(static_cast<int>(f), fs.record, now_seconds_, start);
    else if (rank_ == 0 && shared_)
      announces_.push_back({static_cast<std::uint32_t>(f), fs.record, now_seconds_, start});
    else if (rank_ == 0)
      send_event_to_all(EventType::announce, static_cast<std::uint32_t>(f), fs.record, now_seconds_, start);
  }
  if (pending_initial_ > 0)
    for (OutputVar& out : outputs_)
      if (!out.initial.empty() && files_[out.file].sampler.due) send_initial(out);
  graph_.advance(now);
  // What the previous step wrote leaves now, while the model computes.
  for (auto& ch : channels_) {
    ch.send_current();
    ch.progress();
  }
}

int StepDriver::handle(const std::string& field_id) const {
  auto it = field_index_.find(field_id);
  if (it == field_index_.end()) fail(FOEHN_ERR_ARGUMENT, "unknown field '" + field_id + "' in context '" + id_ + "'");
  return it->second;
}

bool StepDriver::is_active(int handle) const {
  if (step_ < 0 || handle < 0 || handle >= static_cast<int>(fields_.size())) return false;
  const Field& field = fields_[handle];
  if (field.source >= 0) return true;  // expressions and chains read it every step
  for (int o : field.outputs)
    if (takes_value_now(outputs_[o])) return true;
  return false;
}

bool StepDriver::takes_value_now(const OutputVar& out) const {
  const filters::Node& node = graph_.node(out.node);
  return node.stage.wants(files_[out.file].sampler.due, node.sampler.due);
}

bool StepDriver::checked_is_active(int handle) const {
  if (handle < 0 || handle >= static_cast<int>(fields_.size()))
    fail(FOEHN_ERR_ARGUMENT,
         "foehn_field_is_active_h: invalid field handle " + std::to_string(handle) + " in context '" + id_ + "'");
  return is_active(handle);
}

std::int64_t StepDriver::current_record(const OutputVar& out) const {
  const FileSchedule& fs = files_[out.file];
  return fs.sampler.due ? fs.record : fs.records;
}

void StepDriver::make_room(int server) {
  transport::SendChannel& ch = channels_[server];
  if (ch.ready()) return;
  // Before blocking on one server, let everything pending to the others
  // leave: a server waiting in a collective write for another server's data
  // must never wait on data held back here.
  for (auto& other : channels_) other.send_current();
  ch.acquire();
}

template <class T, class U, class Convert>
void StepDriver::pack(OutputVar& out, int server, const T* data, std::int64_t record, std::uint16_t flags,
                      double weight, Convert convert) {
  const Destination& d = out.dest[server];
  transport::SendChannel& ch = channels_[server];
  std::int64_t offset = 0;
  while (offset < d.total) {
    const std::size_t rest = static_cast<std::size_t>(d.total - offset) * sizeof(U);
    // Large fragments travel as direct payloads, which the server can
    // receive straight into the record (event.h, kDirect).
    const bool direct = ch.wants_direct(rest);
    const bool fits = direct ? ch.make_direct_space(std::min(rest, ch.direct_min_bytes()))
                             : ch.make_space(std::min(std::min(rest, ch.max_payload()), kMinFragmentBytes));
    if (!fits) {
      ch.send_current();
      make_room(server);
      if (direct) ch.make_direct_space(ch.direct_min_bytes());  // holds in an empty buffer
    }
    std::int64_t count = std::min<std::int64_t>(d.total - offset, (direct ? ch.direct_room() : ch.room()) / sizeof(U));
    // A direct fragment stops at the end of a level when levels are large:
    // a level of this client's points is usually one run in the server's
    // block, so the server can receive it in place; across levels it cannot.
    const grid::StreamMap& map = out.pack->map(static_cast<std::size_t>(server));
    const std::int64_t level = map.values_per_outer();
    if (direct && map.outer() > 1 && static_cast<std::size_t>(level) * sizeof(U) >= ch.direct_min_bytes())
      count = std::min(count, level - offset % level);
    EventHeader h{EventType::data,
                  key_,
                  static_cast<std::uint32_t>(out.plan_index),
                  sizeof(U),
                  static_cast<std::uint16_t>(direct ? flags | transport::kDirect : flags),
                  record,
                  offset,
                  count,
                  weight,
                  0};
    U* payload = reinterpret_cast<U*>(direct ? ch.begin_direct(h) : ch.append(h, count * sizeof(U)));
    // The pack plan gathers from the data, or copies from the staging
    // buffer send_values/send_sample filled (scratch_, unused otherwise
    // when servers run).
    const T* staged = reinterpret_cast<const T*>(scratch_.data());
    out.pack->pack(static_cast<std::size_t>(server), data, staged, offset, count, payload, convert);
    if (direct) ch.end_direct(count * sizeof(U));
    offset += count;
  }
}

template <class T, class U, class Convert>
void StepDriver::pack_attached(OutputVar& out, const T* data, std::int64_t record, Convert convert) {
  const Destination& d = out.dest[0];
  // An empty part is handed over too: the writer's record is ready at this
  // call on every rank, so every rank makes its collective writes and the
  // transformations' exchanges in one order (server::WriterRole::attached).
  U* packed = reinterpret_cast<U*>(scratch_.data());
  if (d.total > 0) out.pack->pack(0, data, static_cast<const T*>(nullptr), 0, d.total, packed, convert);
  EventHeader h{
      EventType::data, key_, static_cast<std::uint32_t>(out.plan_index), sizeof(U), 0, record, 0, d.total, 0, 0};
  attached_->on_data(rank_, h, reinterpret_cast<const std::byte*>(packed));
}

template <class T, class Convert>
void StepDriver::send_values(OutputVar& out, const T* data, std::int64_t record, Convert convert) {
  if (attached_) {
    if (out.elem == 8)
      pack_attached<T, double>(out, data, record, convert);
    else
      pack_attached<T, float>(out, data, record, convert);
    return;
  }
  if (out.pack->staged()) out.pack->stage(data, reinterpret_cast<T*>(scratch_.data()));
  for (size_t s = 0; s < out.dest.size(); ++s) {
    if (!out.dest[s].total) continue;
    if (out.elem == 8)
      pack<T, double>(out, static_cast<int>(s), data, record, 0, 0, convert);
    else
      pack<T, float>(out, static_cast<int>(s), data, record, 0, 0, convert);
  }
}

template <class T>
void StepDriver::send_sample(OutputVar& out, const T* data, std::int64_t record, double weight) {
  // Samples travel as double so that the server's result equals the client's.
  if (out.pack->staged()) out.pack->stage(data, reinterpret_cast<T*>(scratch_.data()));
  const double missing = graph_.node(out.node).stage.missing();
  for (size_t s = 0; s < out.dest.size(); ++s) {
    if (!out.dest[s].total) continue;
    if (std::isnan(missing))
      pack<T, double>(out, static_cast<int>(s), data, record, transport::kSample, weight, grid::StreamMap::Cast{});
    else  // values equal to `missing` become NaN, compared in the data's own type
      pack<T, double>(out, static_cast<int>(s), data, record, transport::kSample, weight,
                      [m = static_cast<T>(missing)](T x) { return x == m ? std::nan("") : static_cast<double>(x); });
  }
}

template <class T>
bool StepDriver::feed(OutputVar& out, const T* data, bool& all_finite) {
  const FileSchedule& fs = files_[out.file];
  const std::string& field = plan_.variables[out.plan_index].field_id;
  filters::Node& node = graph_.node(out.node);
  filters::TemporalStage& stage = node.stage;
  if (!stage.reduces()) {  // instant, once
    if (at_start() && stage.op() == filters::TemporalOp::once && !stage.once_done() && !fs.sampler.due) {
      if (out.initial.empty()) ++pending_initial_;
      out.initial.assign(data, data + out.local_size);  // to its first record (advance_time)
      return true;
    }
    if (!stage.wants(fs.sampler.due, false)) return false;
    if (out.last_record == fs.record)
      fail(FOEHN_ERR_ARGUMENT,
           "field '" + field + "' in context '" + id_ + "' was already written at step " + std::to_string(step_));
    out.last_record = fs.record;
    stage.took_value();
    send_values(out, data, fs.record);
    return true;
  }
  // XIOS samples from one step after the start date (its sampling offsets
  // are never negative here): step 0's values are in no window.
  if (at_start() || !stage.wants(false, node.sampler.due)) return false;
  if (out.last_sample_step == step_)
    fail(FOEHN_ERR_ARGUMENT,
         "field '" + field + "' in context '" + id_ + "' was already written at step " + std::to_string(step_));
  out.last_sample_step = step_;
  if (out.window_samples++ == 0) out.window_first_step = step_;
  const double weight = stage.sample_weight(now_, dynamic_steps_);
  if (out.on_server)
    send_sample(out, data, current_record(out), weight);
  else if (stage.add(0, data, static_cast<std::size_t>(out.local_size), weight))
    all_finite = true;
  return true;
}

template <class T>
void StepDriver::write(int handle, const T* model_data, std::size_t n) {
  if (handle < 0 || handle >= static_cast<int>(fields_.size()))
    fail(FOEHN_ERR_ARGUMENT,
         "foehn_write: invalid field handle " + std::to_string(handle) + " in context '" + id_ + "'");
  // As in XIOS, the context is at step 0 (the start date) from close of
  // definition until the first update: a model writes its initial state there.
  if (step_ < 0) {
    step_ = 0;
    advance_time(segment_start_);
  }
  Field& field = fields_[handle];
  if (field.local_size < 0) return;  // no enabled file uses this field
  const bool unused_step0 = at_start() && !warned_step0_ && !is_active(handle);
  if (static_cast<std::int64_t>(n) != field.local_size)
    fail(FOEHN_ERR_ARGUMENT, "field '" + field.id + "' in context '" + id_ + "': expected " +
                                 std::to_string(field.local_size) + " values (local grid " + field.shape_text +
                                 "), given " + std::to_string(n));
  if (n > 0 && model_data == nullptr) fail(FOEHN_ERR_ARGUMENT, "field '" + field.id + "': data is NULL");
  const T* data = model_data;
  if (!field.masked.empty()) {  // grid and scalar masks (plan_masks.cpp): a copy with the hidden points NaN
    T* copy = reinterpret_cast<T*>(masked_copy_.data());
    std::copy(model_data, model_data + n, copy);
    for (const std::int64_t k : field.masked) copy[k] = std::numeric_limits<T>::quiet_NaN();
    data = copy;
  }
  bool taken = false, kept = false, all_finite = false;
  for (int o : field.outputs) {
    bool finite = false;
    taken = feed(outputs_[o], data, finite) || taken;
    all_finite = all_finite || (finite && outputs_[o].local_size == static_cast<std::int64_t>(n));
    kept = kept || !outputs_[o].initial.empty();
  }
  if (unused_step0 && !kept) warn_step0(field.id);
  // A copy for the expressions and chains evaluated at the end of the step.
  if (field.source >= 0) {
    if (!graph_.set_source(field.source, step_, data, n, field.missing))
      fail(FOEHN_ERR_ARGUMENT,
           "field '" + field.id + "' in context '" + id_ + "' was already written at step " + std::to_string(step_));
    taken = true;
  }
  // The report's count, over what foehn took (the data are still in cache
  // from the copies above, for fields up to the cache's size); an
  // accumulation that found every value finite has counted them already.
  // Masked copies hold NaN, so all_finite is false for them: the model's own values are counted.
  if (taken && !all_finite) count_non_finite(model_data, n, non_finite_[static_cast<std::size_t>(handle)]);
}

template void StepDriver::write<float>(int, const float*, std::size_t);
template void StepDriver::write<double>(int, const double*, std::size_t);

bool StepDriver::is_used(int handle) const {
  if (handle < 0 || handle >= static_cast<int>(fields_.size())) return false;
  return fields_[handle].source >= 0 || !fields_[handle].outputs.empty();
}

void StepDriver::finish_record(OutputVar& out) {
  const FileSchedule& fs = files_[out.file];
  out.window_samples = 0;
  if (out.on_server) {
    send_header_only(out, sizeof(double), transport::kLastSample, 0);
    return;
  }
  filters::TemporalStage& stage = graph_.node(out.node).stage;
  const filters::Accumulator& acc = stage.accumulator();
  const auto n = static_cast<std::size_t>(out.local_size);
  if (!acc.per_point_weights()) {
    // One pass: each running value becomes its result in the send buffer,
    // in the output's type; the reset writes nothing (temporal.h).
    send_values(out, acc.values(), fs.record, acc.uniform_result());
  } else {
    if (result_.size() < n) result_.resize(n);  // once: the largest field with missing values
    stage.result(0, result_.data(), n);
    send_values(out, result_.data(), fs.record);
  }
  stage.reset();
}

void StepDriver::end_step() {
  if (step_ < 0 || ended_step_ == step_) return;  // a checkpoint ended this step already
  ended_step_ = step_;
  if (!at_start()) {  // expressions and chains sample nothing at the start date (see feed)
    // Transformations and expressions run only for outputs that take this step.
    for (const OutputVar& out : outputs_) graph_.node(out.node).demanded = takes_value_now(out);
    graph_.evaluate(step_, now_, dynamic_steps_);
    for (OutputVar& out : outputs_) {
      const std::vector<int>& in = graph_.node(out.node).inputs;
      bool all_finite = false;  // no count of the model's values here
      if (!in.empty() && graph_.has_values(in[0], step_))
        feed(out, graph_.values(in[0]), all_finite);
      else
        send_no_value(out, in.empty());
    }
  }
  for (OutputVar& out : outputs_)
    if (graph_.node(out.node).stage.reduces() && files_[out.file].sampler.due) finish_record(out);
  for (const Announce& a : announces_) send_event_to_all(EventType::announce, a.file, a.record, a.time, a.time_start);
  announces_.clear();
}

// An instant output due now that got no value (a temporal_splitting
// inside its cycle, or a field the model did not write: `unwritten`): the
// servers are told, so that the record does not wait for values until the
// end of the run, holding back every record and checkpoint behind it.
// Attached: a split field's record likewise; an unwritten field's is filled
// at the record's end with the attached path's warning.
void StepDriver::send_no_value(OutputVar& out, bool unwritten) {
  const FileSchedule& fs = files_[out.file];
  filters::TemporalStage& stage = graph_.node(out.node).stage;
  if (out.on_server || stage.op() != filters::TemporalOp::instant) return;
  if (!stage.wants(fs.sampler.due, false) || out.last_record == fs.record) return;
  if (attached_) {
    // A split field inside its cycle is written as fill at once; a field the
    // model did not write keeps the attached path's warning at the record's end.
    if (unwritten) return;
    out.last_record = fs.record;
    EventHeader h{EventType::data, key_, static_cast<std::uint32_t>(out.plan_index),
                  static_cast<std::uint16_t>(out.elem), transport::kNoValue, fs.record, 0, 0, 0, 0};
    attached_->on_data(rank_, h, nullptr);
    return;
  }
  out.last_record = fs.record;
  send_header_only(out, static_cast<std::uint16_t>(out.elem), transport::kNoValue, unwritten ? 1 : 0);  // 1: the server warns
}

// A data event without values (kLastSample, kNoValue) to each server that
// holds points of the output; `offset` carries the flag's detail.
void StepDriver::send_header_only(OutputVar& out, std::uint16_t elem, std::uint16_t flags, std::int64_t offset) {
  const std::int64_t record = files_[out.file].record;
  for (size_t s = 0; s < channels_.size(); ++s) {
    if (!out.dest[s].total) continue;
    if (!channels_[s].make_space(0)) {
      channels_[s].send_current();
      make_room(static_cast<int>(s));
    }
    EventHeader h{EventType::data, key_, static_cast<std::uint32_t>(out.plan_index), elem, flags, record, offset, 0, 0,
                  0};
    channels_[s].append(h, 0);
  }
}

void StepDriver::send_event_to_all(EventType type, std::uint32_t item, std::int64_t record, double time,
                                   double time_start) {
  for (size_t s = 0; s < channels_.size(); ++s) {
    if (!channels_[s].make_space(0)) {
      channels_[s].send_current();
      make_room(static_cast<int>(s));
    }
    EventHeader h{type, key_, item, 0, 0, record, 0, 0, time, time_start};
    channels_[s].append(h, 0);
  }
}

void StepDriver::send_initial(OutputVar& out) {
  filters::TemporalStage& stage = graph_.node(out.node).stage;
  const FileSchedule& fs = files_[out.file];
  if (!stage.once_done()) {
    out.last_record = fs.record;
    stage.took_value();
    send_values(out, out.initial.data(), fs.record);
  }
  std::vector<double>().swap(out.initial);
  --pending_initial_;
}

// XIOS samples the start date only for a negative freq_offset, which foehn
// refuses at its line: a write there is dropped, as XIOS drops it, with a
// word (once per context) instead of XIOS's silence.
void StepDriver::warn_step0(const std::string& field) {
  warned_step0_ = true;
  if (rank_ != 0) return;
  std::cerr << "foehn: warning: context '" << id_ << "': field '" << field
            << "' is written at step 0 (the start date, before the first update_calendar with a step > 0), which "
               "no output samples: the values are not written, as in XIOS, whose outputs sample from one time step "
               "after the start date (docs/xios-compatibility.md)"
            << std::endl;
}

void StepDriver::warn_open_windows() const {
  if (rank_ != 0) return;
  for (const OutputVar& out : outputs_) {
    if (out.window_samples == 0) continue;
    const output::VariableInfo& v = plan_.variables[out.plan_index];
    const FileSchedule& fs = files_[out.file];
    const auto date = [&](std::int64_t t) { return calendar::format_date(calendar_->to_date(t)); };
    std::cerr << "foehn: warning: context '" << id_ << "': field '" << v.field_id << "' ("
              << filters::temporal_op_name(graph_.node(out.node).stage.op()) << ") closes with " << out.window_samples
              << " sample(s) since step " << out.window_first_step << " in a window that has not ended: file '"
              << plan_.files[out.file].id << "' variable '" << v.name << "', window [" << date(fs.record_start) << ", "
              << date(fs.sampler.schedule->instant(fs.sampler.next_k))
              << "): no record holds them, and a run continued from here (append=\"true\") writes that window's "
                 "record from its own samples only (set the context variable restart_dir to carry it over: "
                 "docs/restart.md)"
              << std::endl;
  }
}

void StepDriver::close() {
  // An open window is kept for the next run when there is a restart_dir
  // (on the servers too: temporal_placement=server, one or two levels).
  if (!restart_dir_.empty() && windows_open()) {
    if (checkpointed_step_ != step_) checkpoint();
  } else {
    warn_open_windows();
  }
  if (attached_) {
    collectively(comm_, [&] {
      attached_->close();
      for (const auto& w : attached_->warnings())
        std::cerr << "foehn: warning: context '" << id_ << "' rank " << rank_ << ": " << w << std::endl;
    });
    return;
  }
  send_event_to_all(EventType::context_close, 0, 0, 0, 0);
  for (auto& ch : channels_) ch.drain();
  progress_.reset();
  collect_acks("writing the files");
}

report::Details StepDriver::report_details() const {
  report::Details d;
  if (attached_) d.files = attached_->file_bytes();
  for (std::size_t h = 0; h < fields_.size(); ++h)
    if (non_finite_[h].any())
      d.fields.push_back({id_, fields_[h].id, static_cast<double>(non_finite_[h].nan),
                          static_cast<double>(non_finite_[h].pos_inf), static_cast<double>(non_finite_[h].neg_inf)});
  return d;
}

void StepDriver::drain_sends() {
  if (attached_) return;
  for (auto& ch : channels_) ch.drain();
}

}  // namespace foehn::client
