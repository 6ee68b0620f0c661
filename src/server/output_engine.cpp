#include "server/output_engine.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <stdexcept>

#include "formats/file_naming.h"
#include "formats/registry.h"
#include "server/repartition.h"

namespace foehn::server {

using grid::Box;

namespace {

Box writer_block(const output::ContextPlan& plan, const output::VariableInfo& v, const WriterRole& role) {
  return role.attached ? plan.client_box(v, role.index) : plan.server_block(v, role.index, role.count);
}

formats::FilePart file_part(const output::ContextPlan& plan, const output::FileInfo& f, const WriterRole& role) {
  formats::FilePart part;
  if (f.one_file) return part;
  part.whole = false;
  part.number = role.index;
  part.total = role.count;
  for (std::size_t d = 0; d < plan.domains.size(); ++d)
    part.blocks.push_back(role.attached ? plan.domains[d].clients.at(role.index)
                                        : plan.server_extent(static_cast<int>(d), role.index, role.count));
  return part;
}

}  // namespace

OutputEngine::OutputEngine(output::ContextPlan plan, WriterRole role)
    : plan_(std::move(plan)), role_(role), client_closed_(plan_.client_ranks.size(), 0) {
  std::vector<int> calls;
  std::vector<WriterPoints> found(plan_.domains.size());
  for (std::size_t v = 0; v < plan_.variables.size(); ++v) {
    VarState s;
    s.block = writer_block(plan_, plan_.variables[v], role_);
    s.elem = plan_.variables[v].prec == 8 ? 8 : 4;
    s.op = static_cast<filters::TemporalOp>(plan_.variables[v].op);
    s.reduce_here = plan_.variables[v].reduce_on_server && !role_.attached && filters::reduces(s.op);
    build_plans(static_cast<int>(v), s, found);
    for (const ClientPlan& cp : s.clients) {
      s.expected += cp.total;
      if (cp.total > 0) ++s.contributors;
    }
    if (role_.pool >= 0) {  // level 2: whole blocks of reduced records from level 1
      s.reduce_here = false;
      s.expected = role_.file_pool.at(plan_.variables[v].file) == role_.pool ? s.block.size() : 0;
    }
    calls.push_back(std::max<int>(1, static_cast<int>(s.pieces.size())));
    vars_.push_back(std::move(s));
  }
  if (role_.attached && !calls.empty()) {
    // Every writer of a one_file file makes as many writes as the one with most pieces.
    MPI_Allreduce(MPI_IN_PLACE, calls.data(), static_cast<int>(calls.size()), MPI_INT, MPI_MAX, role_.comm);
    for (std::size_t v = 0; v < vars_.size(); ++v) vars_[v].write_calls = calls[v];
  }
  std::size_t record_bytes = 0;  // one record of every variable's block here
  for (const VarState& v : vars_) record_bytes += static_cast<std::size_t>(v.block.size()) * v.elem;
  backlog_cap_ = std::max(kBacklogFloorBytes, 2 * record_bytes);
  // fill_ and piece_scratch_ grow when first needed: most writers never
  // use them, and a block-sized buffer each would double a server's memory.
  init_periods();
  MPI_Comm_size(role_.comm, &writers_);
  if (!plan_.server_state.empty() && role_.pool < 0) restore_state();  // level 2 reduces nothing
  for (const auto& f : plan_.files)
    files_on_disk_ += writes_together(f) ? 1 : writers_;  // a shared file once, an own file per writer
  std::vector<char> together(plan_.files.size());
  for (std::size_t i = 0; i < together.size(); ++i) together[i] = writes_together(plan_.files[i]) && writers_ > 1;
  agreement_ = WriteAgreement(role_.comm, std::move(together), !role_.forward);
  files_.resize(plan_.files.size());
  closed_.resize(plan_.files.size());
  for (std::size_t i = 0; i < plan_.files.size(); ++i)
    if (!role_.forward && (role_.pool < 0 || role_.file_pool.at(i) == role_.pool)) open_file(static_cast<int>(i));
  constructing_ = false;
}

void OutputEngine::init_periods() {
  periods_.resize(plan_.files.size());
  bool any = false;
  for (const auto& f : plan_.files) any = any || !f.split_freq.empty() || !f.sync_freq.empty();
  if (!any) return;
  // The clients checked these values; a failure here is a protocol error.
  calendar_ = std::make_unique<calendar::Calendar>(plan_.make_calendar());
  origin_ = calendar_->to_instant(calendar::parse_date(plan_.time_origin));
  const std::int64_t start = calendar_->to_instant(calendar::parse_date(plan_.start_date));
  for (std::size_t i = 0; i < plan_.files.size(); ++i) {
    const auto& f = plan_.files[i];
    FilePeriods& p = periods_[i];
    if (!f.split_freq.empty())
      p.split.emplace(*calendar_, start, calendar::parse_duration(f.split_freq), plan_.timestep_us, f.split_format);
    // An exact restart opens the period of the checkpoint's last record;
    // this run's record 0 follows that file's records.
    if (p.split && f.resume_period >= 0) p.period = f.resume_period;
    if (!f.sync_freq.empty())
      p.sync.emplace(*calendar_, start, calendar::parse_duration(f.sync_freq), calendar::Duration{}, plan_.timestep_us);
  }
}

// Opens file `file` for its current period: collective over the file's
// writers, who all open and close periods in the same record order.
void OutputEngine::open_file(int file) {
  const output::FileInfo& f = plan_.files[file];
  const FilePeriods& p = periods_[file];
  const formats::WriterTraits& traits = formats::traits_of(f.format);
  formats::WriterTarget target;
  target.comm = writes_together(f) ? role_.comm : MPI_COMM_SELF;
  target.part = file_part(plan_, f, role_);
  target.alone = role_.count == 1;
  target.sharers = files_on_disk_;
  int writers = 1, rank = 0;
  MPI_Comm_size(target.comm, &writers);
  MPI_Comm_rank(target.comm, &rank);
  // Writers put their block whole (write_block) but for attached one_file
  // writers, which put pieces; a shared file's writers are the role's.
  if (!role_.attached && (writers == 1 || (writers == role_.count && rank == role_.index)))
    target.block_of = [&plan = plan_, count = role_.count, index = role_.index, writers](int v, int w) {
      return plan.server_block(plan.variables[v], writers == 1 ? index : w, count);
    };
  else if (role_.attached && writers == 1)
    target.block_of = [&plan = plan_, index = role_.index](int v, int) {
      return plan.client_box(plan.variables[v], index);
    };
  if (writers > 1 && !traits.collective)
    throw formats::IoError("file '" + f.id + "': format " + f.format + " cannot be written by " +
                           std::to_string(writers) +
                           " writers into one file (type=\"multiple_file\" writes one file each)");
  formats::FileName name{f.base_path, p.split ? p.split->name_part(p.period) : "", -1, 1, f.min_digits};
  if (!target.part.whole) name.part = target.part.number, name.parts = target.part.total;
  target.path = formats::file_name(name, traits.extension);
  // Parts written by another number of writers are rewritten for these first.
  // Collective: only while every writer constructs the engine.
  if (!target.part.whole && traits.extension == ".nc" && constructing_ && (f.resume_file_records >= 0 || f.append))
    repartition_parts(plan_, file, name, target, role_.comm, role_.pool < 0,
                      [this](const output::VariableInfo& v) { return writer_block(plan_, v, role_); });
  else if (!target.part.whole && traits.extension == ".grib2" && constructing_ &&
           (f.resume_file_records >= 0 || f.resume_records >= 0 || f.append))
    repartition_grib_parts(plan_, file, name, target, role_.comm, role_.pool < 0);
  else if (!target.part.whole && traits.extension == ".nc" && f.resume_records >= 0 && role_.pool < 0 &&
           role_.index == 0)
    remove_stale_parts(name, traits.extension, target.part.total);
  else if (!target.part.whole && traits.extension == ".zarr" && constructing_ && f.append && f.resume_records < 0)
    refuse_other_zarr_count(f, name, traits.extension, target.part.total, role_.comm);
  else if (!target.part.whole && traits.extension == ".grib2" && f.resume_records >= 0 && f.resume_file_records < 0 &&
           role_.pool < 0 && role_.index == 0)
    remove_stale_grib_parts(name, traits.extension, target.part.total);
  files_[file] = formats::open_writer(plan_, file, std::move(target));
  periods_[file].last_sync = std::chrono::steady_clock::now();
  // Attached, the model pays for the definition either way: at once, so
  // that its errors come at close of definition. A server acknowledges the
  // plan first and finishes files while idle (define_next) or before their
  // first write; a shared file only then, at the same point on every writer.
  if (role_.attached)
    files_[file]->finish_definition();
  else if (writers == 1)
    to_define_.push_back(file);
}

bool OutputEngine::define_next() {
  while (!to_define_.empty() && !failed()) {
    const int file = to_define_.back();
    to_define_.pop_back();
    if (!files_[file]) continue;
    try {
      files_[file]->finish_definition();
    } catch (const formats::IoError& e) {
      if (!agreement_.on()) fail_writing(e);
      defer(file, e);  // an own file: the shared ones learn of it at the next record
    }
    return true;
  }
  return false;
}

bool OutputEngine::writes_together(const output::FileInfo& f) {
  return f.one_file || formats::traits_of(f.format).whole_fields;
}

std::int64_t OutputEngine::instant_of(double seconds) const {
  // The inverse of the clients' (instant - origin) / 1e6: exact while the
  // time is within about 280 years of the origin at microsecond resolution.
  return origin_ + static_cast<std::int64_t>(std::llround(seconds * static_cast<double>(calendar::kMicrosPerSecond)));
}

void OutputEngine::start_record(int file, std::int64_t record, double time) {
  FilePeriods& p = periods_[file];
  if (!p.split) return;
  const std::int64_t period = p.split->period_of(instant_of(time));
  if (period == p.period) return;
  // A period without records leaves no file (the first one, when records
  // start later, or output_freq is longer than split_freq).
  const bool empty = record == p.first_record;
  files_[file]->close();
  if (empty && !files_[file]->appended() && files_[file]->is_root()) std::remove(files_[file]->path().c_str());
  const formats::WriterFigures figures = files_[file]->figures();  // close included
  closed_[file].bytes += figures.bytes;
  closed_[file].write_seconds += figures.write_seconds;
  if (!empty) closed_[file].disk_bytes += figures.disk_bytes;  // a removed file takes no room
  p.period = period;
  p.first_record = record;
  plan_.files[file].resume_file_records = -1;  // the periods after the checkpoint's begin new files
  open_file(file);
}

void OutputEngine::sync_files() {
  for (std::size_t i = 0; i < files_.size(); ++i) {
    if (!files_[i] || agreement_.dropped(static_cast<int>(i))) continue;
    try {
      files_[i]->sync();
    } catch (const formats::IoError& e) { defer(static_cast<int>(i), e); }
  }
}

void OutputEngine::after_record(int file, double time) {
  FilePeriods& p = periods_[file];
  if (!p.sync) {
    sync_by_clock(file);
    return;
  }
  const std::int64_t t = instant_of(time);
  if (p.sync->instant(p.next_sync) > t) return;
  files_[file]->sync();
  p.next_sync = p.sync->first_at_or_after(t + 1);
}

// Without sync_freq, a file is flushed once sync_seconds of wall-clock time
// have passed since its last flush. The writers of a shared file flush
// together (nc_sync is collective), so they agree on the clock of the
// slowest: each reaches this point after the same record, as they do the
// record's collective writes.
void OutputEngine::sync_by_clock(int file) {
  if (plan_.sync_seconds < 0) return;
  FilePeriods& p = periods_[file];
  const auto now = std::chrono::steady_clock::now();
  int due = std::chrono::duration<double>(now - p.last_sync).count() >= plan_.sync_seconds;
  if (writes_together(plan_.files[file]) && writers_ > 1)
    MPI_Allreduce(MPI_IN_PLACE, &due, 1, MPI_INT, MPI_MAX, role_.comm);
  if (!due) return;
  files_[file]->sync();
  p.last_sync = now;
}

OutputEngine::~OutputEngine() = default;

OutputEngine::Pending& OutputEngine::pending(int var, std::int64_t record) {
  auto [it, inserted] = pending_.try_emplace({var, record});
  if (inserted) {
    const std::size_t bytes = static_cast<std::size_t>(vars_[var].block.size()) * vars_[var].elem;
    if (!spare_.empty()) {
      it->second.data = std::move(spare_.back());
      spare_.pop_back();
      spare_bytes_ -= it->second.data.capacity();
    }
    it->second.data.resize(bytes);
    pending_bytes_ += it->second.data.capacity();
    if (vars_[var].reduce_here)
      it->second.stage = filters::TemporalStage(vars_[var].op, static_cast<std::size_t>(vars_[var].block.size()));
  }
  return it->second;
}

bool OutputEngine::ready(int var, std::int64_t record) const {
  const VarState& s = vars_[var];
  if (s.expected == 0 && !role_.attached) return true;  // attached: once handed over (WriterRole::attached)
  auto it = pending_.find({var, record});
  return it != pending_.end() && it->second.complete;
}

void OutputEngine::accumulate(const ClientPlan& cp, Pending& p, const transport::EventHeader& h,
                              const std::byte* payload) {
  // Samples travel as double so that the result does not depend on where
  // the operation runs.
  const double* values = reinterpret_cast<const double*>(payload);
  cp.map.for_each_run(h.offset, h.count, [&](std::int64_t s, std::int64_t b, std::int64_t n) {
    p.stage.add(static_cast<std::size_t>(b), values + (s - h.offset), static_cast<std::size_t>(n), h.time);
  });
}

void OutputEngine::finish_reduction(int var, Pending& p) {
  const VarState& s = vars_[var];
  const auto n = static_cast<std::size_t>(s.block.size());
  if (s.elem == 8)
    p.stage.result(0, reinterpret_cast<double*>(p.data.data()), n);
  else
    p.stage.result(0, reinterpret_cast<float*>(p.data.data()), n);
  p.complete = true;
}

OutputEngine::Pending& OutputEngine::checked_fragment(int client, const transport::EventHeader& h) {
  if (h.item >= vars_.size()) throw std::runtime_error("data for unknown variable index " + std::to_string(h.item));
  VarState& s = vars_[h.item];
  if (client < 0 || client >= static_cast<int>(s.clients.size())) throw std::runtime_error("data from unknown client");
  const ClientPlan& cp = s.clients[client];
  const std::string& name = plan_.variables[h.item].name;
  const bool sample = (h.flags & (transport::kSample | transport::kLastSample)) != 0;
  if (sample != s.reduce_here)
    throw std::runtime_error("variable '" + name + "': " +
                             (sample ? "a sample arrived for an operation done on the clients"
                                     : "values arrived for an operation done here"));
  const std::size_t elem = sample ? sizeof(double) : s.elem;
  if (h.elem_size != elem || h.offset < 0 || h.count < 0 || h.offset + h.count > cp.total)
    throw std::runtime_error("fragment of variable '" + name + "' out of its client's range");
  Pending& p = pending(h.item, h.record);
  if (p.complete)
    throw std::runtime_error("variable '" + name + "' record " + std::to_string(h.record) +
                             ": data after the record was complete (a field written twice in one step?)");
  return p;
}

void OutputEngine::values_arrived(int var, std::int64_t record, Pending& p, std::int64_t count) {
  const VarState& s = vars_[var];
  p.received += count;
  if (p.received + p.missing > s.expected)
    throw std::runtime_error("variable '" + plan_.variables[var].name + "' record " + std::to_string(record) +
                             ": more values than expected (a field written twice in one step?)");
  p.complete = p.received + p.missing == s.expected;
  if (p.complete && p.unwritten)
    warnings_.push_back("field '" + plan_.variables[var].field_id + "' record " + std::to_string(record) + ": " +
                        std::to_string(p.received) + " of " + std::to_string(s.expected) +
                        " values arrived (the model did not write it at that step); written as fill values");
  if (p.complete) advance(false);
}

void OutputEngine::on_data(int client, const transport::EventHeader& h, const std::byte* payload) {
  Pending& p = checked_fragment(client, h);
  const VarState& s = vars_[h.item];
  const ClientPlan& cp = s.clients[client];
  if (h.flags & transport::kNoValue) {
    p.unwritten = p.unwritten || h.offset == 1;
    p.missing += cp.total;
    values_arrived(static_cast<int>(h.item), h.record, p, 0);
  } else if (h.flags & transport::kLastSample) {
    if (++p.finished_clients == s.contributors) finish_reduction(h.item, p);
    if (p.complete) advance(false);
  } else if (s.reduce_here) {
    accumulate(cp, p, h, payload);
    p.received += h.count;
  } else {
    // Bit copies: the values land exactly as sent.
    if (s.elem == 8)
      cp.map.scatter(reinterpret_cast<const std::uint64_t*>(payload), h.offset, h.count,
                     reinterpret_cast<std::uint64_t*>(p.data.data()));
    else
      cp.map.scatter(reinterpret_cast<const std::uint32_t*>(payload), h.offset, h.count,
                     reinterpret_cast<std::uint32_t*>(p.data.data()));
    values_arrived(static_cast<int>(h.item), h.record, p, h.count);
  }
}

std::byte* OutputEngine::direct_target(int client, const transport::EventHeader& h) {
  Pending& p = checked_fragment(client, h);
  const VarState& s = vars_[h.item];
  if (s.reduce_here) return nullptr;  // samples are accumulated, not placed
  const std::int64_t at = s.clients[client].map.contiguous(h.offset, h.count);
  return at < 0 ? nullptr : p.data.data() + static_cast<std::size_t>(at) * s.elem;
}

void OutputEngine::direct_done(int client, const transport::EventHeader& h) {
  Pending& p = checked_fragment(client, h);
  values_arrived(static_cast<int>(h.item), h.record, p, h.count);
}

void OutputEngine::on_block(int var, std::int64_t record, const grid::Box& box, const std::byte* data) {
  if (role_.pool < 0 || var < 0 || var >= static_cast<int>(vars_.size()))
    throw std::runtime_error("a level-1 block for variable index " + std::to_string(var) + " that is not written here");
  const VarState& s = vars_[var];
  if (box.start.size() != s.block.start.size())
    throw std::runtime_error("variable '" + plan_.variables[var].name + "': a level-1 block of the wrong rank");
  const std::int64_t n = grid::intersect(box, s.block).size();
  Pending& p = pending(var, record);
  if (p.complete || p.received + n > s.expected)
    throw std::runtime_error("variable '" + plan_.variables[var].name + "' record " + std::to_string(record) +
                             ": more values from level 1 than the block holds");
  for (const grid::Run& r : grid::make_runs(box, s.block))
    std::memcpy(p.data.data() + r.to * s.elem, data + r.from * s.elem, static_cast<std::size_t>(r.length) * s.elem);
  p.received += n;
  p.complete = p.received == s.expected;
  if (p.complete) advance(false);
}

void OutputEngine::on_announce(int file, std::int64_t record, double time, double time_start) {
  if (file < 0 || file >= static_cast<int>(files_.size())) throw std::runtime_error("announce for unknown file");
  announced_.push_back({file, record, time, time_start});
  advance(false);
}

void OutputEngine::on_client_closed(int client) {
  if (client >= 0 && client < static_cast<int>(client_closed_.size()) && !client_closed_[client]) {
    client_closed_[client] = 1;
    ++closed_clients_;
  }
}

void OutputEngine::write_record_of(int var, std::int64_t record, bool closing) {
  const VarState& s = vars_[var];
  const output::VariableInfo& v = plan_.variables[var];
  // A variable written once has no time dimension: its first record only
  // (a resumed file has it already when it holds records).
  if (s.op == filters::TemporalOp::once && (record > 0 || plan_.files[v.file].resume_records > 0)) {
    drop_pending(var, record);
    return;
  }
  const std::size_t n = static_cast<std::size_t>(s.block.size());
  if (n == 0) {                 // nothing of this variable lives here; take part in the collective write
    drop_pending(var, record);  // attached: the empty part handed over
    write_block(var, record, nullptr);
    return;
  }
  const double fill = v.has_fill    ? v.fill_value
                      : s.elem == 8 ? formats::kDefaultFillDouble
                                    : formats::kDefaultFillFloat;
  auto fill_all = [&] {
    if (fill_.size() < n * s.elem) fill_.resize(n * s.elem);
    if (s.elem == 8)
      std::fill_n(reinterpret_cast<double*>(fill_.data()), n, fill);
    else
      std::fill_n(reinterpret_cast<float*>(fill_.data()), n, static_cast<float>(fill));
    return fill_.data();
  };
  auto it = pending_.find({var, record});
  std::byte* data = nullptr;
  if (s.expected == 0) {
    data = fill_all();  // every point of this part is masked
  } else if (it != pending_.end() && it->second.complete && it->second.missing > 0) {
    data = fill_all();  // the transformed field has no value at this record
  } else if (it != pending_.end() && it->second.complete) {
    data = it->second.data.data();
  } else {
    if (!closing) return;
    const auto got = it == pending_.end() ? 0 : it->second.received;
    warnings_.push_back("field '" + v.field_id + "' record " + std::to_string(record) + ": " + std::to_string(got) +
                        " of " + std::to_string(s.expected) +
                        " values arrived (the model did not write it at that step); written as fill values");
    data = fill_all();
  }
  if (data != fill_.data()) {
    if (s.elem == 8) {
      auto* d = reinterpret_cast<double*>(data);
      if (v.has_fill)
        std::replace_if(
            d, d + n, [](double x) { return x != x; }, fill);  // missing results
      s.fill.for_each_run(0, s.fill.size(),
                          [&](std::int64_t, std::int64_t b, std::int64_t k) { std::fill_n(d + b, k, fill); });
    } else {
      auto* f = reinterpret_cast<float*>(data);
      const auto ff = static_cast<float>(fill);
      if (v.has_fill)
        std::replace_if(
            f, f + n, [](float x) { return x != x; }, ff);
      s.fill.for_each_run(0, s.fill.size(),
                          [&](std::int64_t, std::int64_t b, std::int64_t k) { std::fill_n(f + b, k, ff); });
    }
  }
  write_block(var, record, data);
  if (it != pending_.end()) {
    pending_bytes_ -= it->second.data.capacity();
    spare_bytes_ += it->second.data.capacity();
    spare_.push_back(std::move(it->second.data));
    pending_.erase(it);
  }
}

void OutputEngine::drop_pending(int var, std::int64_t record) {
  auto it = pending_.find({var, record});
  if (it == pending_.end()) return;
  pending_bytes_ -= it->second.data.capacity();
  pending_.erase(it);
}

void OutputEngine::write_block(int var, std::int64_t record, const std::byte* data) {
  if (role_.discard) return;
  const VarState& s = vars_[var];
  if (role_.forward) {
    if (data) role_.forward(var, record, s.block, data);
    return;
  }
  const output::VariableInfo& v = plan_.variables[var];
  if (agreement_.dropped(v.file)) return;  // its write failed here: dropped until all agree
  formats::Writer& writer = *files_[v.file];
  // A failed put of a shared file is kept (defer): the others go on with
  // the file's collective calls, and so must this writer.
  const auto put = [&](const grid::Box& box, const void* values) {
    try {
      writer.put(var, record, box, values);
    } catch (const formats::IoError& e) { defer(v.file, e); }
  };
  record -= periods_[v.file].first_record;  // the record in the open file
  if (s.write_calls == 1 || !writes_together(plan_.files[v.file])) {
    put(s.block, data);
    return;
  }
  // Pieces of an attached writer, then empty writes up to the common count.
  int calls = 0;
  if (s.pieces.empty() && data) {
    put(s.block, data);
    ++calls;
  }
  if (!s.pieces.empty() && piece_scratch_.size() < static_cast<std::size_t>(s.block.size()) * s.elem)
    piece_scratch_.resize(static_cast<std::size_t>(s.block.size()) * s.elem);
  for (std::size_t k = 0; k < s.pieces.size() && data; ++k, ++calls) {
    for (const grid::Run& r : s.piece_runs[k])
      std::memcpy(piece_scratch_.data() + r.to * s.elem, data + r.from * s.elem,
                  static_cast<std::size_t>(r.length) * s.elem);
    put(s.pieces[k], piece_scratch_.data());
  }
  grid::Box none = s.block;
  std::fill(none.count.begin(), none.count.end(), 0);
  for (; calls < s.write_calls; ++calls) put(none, nullptr);
}

bool OutputEngine::write_front(bool closing) {
  if (failed()) return false;
  try {
    return write_front_unguarded(closing);
  } catch (const formats::IoError& e) { fail_writing(e); }
}

void OutputEngine::fail_writing(const formats::IoError& e) {
  // With shared files every writer comes here together (the error agreed
  // at a record's start or at close), so all close them together; files
  // whose last record failed are named apart (a shared one: on any writer).
  agreement_.spread_broken();
  std::vector<WriteAgreement::ClosedFile> closed;
  const std::string errors = close_files(&closed);
  failure_ = agreement_.ended(e.what(), closed, errors);
  announced_.clear();
  front_vars_ready_ = 0;
  pending_.clear();
  pending_bytes_ = 0;
  throw formats::IoError(failure_);
}

void OutputEngine::defer(int file, const formats::IoError& e) {
  if (!agreement_.on()) throw;  // called inside the handler: the error goes on
  agreement_.defer(file, e.what());
}

// A record's start (a new split file, the time, the space check: where a
// full disk is found). With shared files every writer meets this point at
// every record in one order, and agrees whether any failed, here or in an
// earlier write (deferred): one that closed the shared files alone would
// leave the others waiting in their next collective call.
void OutputEngine::start_and_agree(const Announce& a) {
  std::string error;
  if (!agreement_.dropped(a.file)) {
    try {
      start_record(a.file, a.record, a.time);
      files_[a.file]->write_time(a.record - periods_[a.file].first_record, a.time, a.time_start);
    } catch (const formats::IoError& e) {
      if (!agreement_.on()) throw;  // (not deferred: no value of the record was written)
      error = e.what();
    }
  }
  if (!agreement_.on()) return;
  if (std::string e = agreement_.agree(error); !e.empty()) throw formats::IoError(e);
}

// Shared files first (every writer in one order, each freeing its file's
// reserve just before: NetcdfWriter::release_room), then this writer's own
// ones, whose caches may fill what room is left. Every file is closed
// whatever the others do; the errors are returned, joined.
std::string OutputEngine::close_files(std::vector<WriteAgreement::ClosedFile>* closed) {
  std::string errors;
  for (const bool first_pass : {true, false})
    for (std::size_t i = 0; i < files_.size(); ++i) {
      if (!files_[i] || agreement_.shared(static_cast<int>(i)) != first_pass) continue;
      try {
        files_[i]->close();
        if (closed) closed->push_back({static_cast<int>(i), files_[i]->path()});
      } catch (const std::exception& c) { errors += (errors.empty() ? "" : "; ") + std::string(c.what()); }
    }
  return errors;
}

bool OutputEngine::write_front_unguarded(bool closing) {
  if (announced_.empty()) return false;
  const Announce& a = announced_.front();
  if (a.file == kSyncMarker) {                          // every record announced before the checkpoint is written
    if (!closing && !checkpoint_ready()) return false;  // samples of the open windows still coming
    if (!role_.forward) sync_files();
    const bool keeps = !checkpoints_.front().path.empty();
    if (!closing && keeps) save_state(checkpoints_.front());
    checkpoints_.pop_front();
    pop_front_announce();
    if (synced_) synced_(keeps);
    return true;
  }
  const auto& vars = plan_.files[a.file].variables;
  if (role_.pool >= 0 && !writes(a.file)) {  // level 2: another pool's file
    pop_front_announce();
    return true;
  }
  if (next_in_file_ < 0 && role_.forward) {
    next_in_file_ = 0;  // level 1: no file, no time
  } else if (next_in_file_ < 0) {
    if (!peers_ready(a, closing)) return false;
    start_and_agree(a);
    next_in_file_ = 0;
  }
  while (next_in_file_ < static_cast<int>(vars.size())) {
    const int var = vars[next_in_file_];
    if (!written_once(var, a) && !closing && !ready(var, a.record)) return false;  // wait for more data
    write_record_of(var, a.record, closing);
    ++next_in_file_;
  }
  if (!role_.forward && !agreement_.dropped(a.file)) {
    try {
      after_record(a.file, a.time);
    } catch (const formats::IoError& e) { defer(a.file, e); }
  }
  pop_front_announce();
  next_in_file_ = -1;
  return true;
}

bool OutputEngine::front_ready(bool closing) const {
  if (failed()) return true;  // write_front drops what comes
  if (announced_.empty()) return false;
  const Announce& a = announced_.front();
  if (a.file == kSyncMarker) return closing || checkpoint_ready();
  if (closing || !needs_peers(a)) return true;
  return front_complete();
}

bool OutputEngine::front_complete() const {
  const Announce& a = announced_.front();
  // The variables found complete are remembered: asked at every message,
  // a record of 20,000 variables would be scanned 20,000 times.
  const auto& vars = plan_.files[a.file].variables;
  front_vars_ready_ = std::max(front_vars_ready_, static_cast<std::size_t>(std::max(next_in_file_, 0)));
  while (front_vars_ready_ < vars.size() &&
         (written_once(vars[front_vars_ready_], a) || ready(vars[front_vars_ready_], a.record)))
    ++front_vars_ready_;
  return front_vars_ready_ == vars.size();
}

void OutputEngine::pop_front_announce() {
  announced_.pop_front();
  front_vars_ready_ = 0;
}

bool OutputEngine::front_started_alone() const {
  return !announced_.empty() && next_in_file_ >= 0 && !needs_peers(announced_.front());
}

bool OutputEngine::needs_peers(const Announce& a) const {
  return a.file != kSyncMarker && !role_.attached && writes_together(plan_.files[a.file]) && writers_ > 1;
}

bool OutputEngine::written_once(int var, const Announce& a) const {
  return vars_[var].op == filters::TemporalOp::once && (a.record > 0 || plan_.files[a.file].resume_records > 0);
}

// A writer inside a record's collective writes receives nothing; if another
// writer of the file still waits for data of that record, the data may sit
// behind messages to the first, and both wait for ever (it happened with 2
// servers in one run of 3 of tests/python/transform_model.py). So the
// writers of a shared file enter a record together: once every variable of
// it is complete here, a non-blocking barrier, and the writes when all have
// arrived, receiving meanwhile. Closing, nothing more can come: wait.
// Attached writers hold their data already and need no transport.
bool OutputEngine::peers_ready(const Announce& a, bool closing) {
  if (!needs_peers(a)) return true;
  if (peers_ == MPI_REQUEST_NULL) {
    if (!closing && !front_complete()) return false;
    MPI_Ibarrier(role_.comm, &peers_);
  }
  int done = 1;
  if (closing)
    MPI_Wait(&peers_, MPI_STATUS_IGNORE);
  else
    MPI_Test(&peers_, &done, MPI_STATUS_IGNORE);
  return done != 0;
}

void OutputEngine::advance(bool closing) {
  // With an external order (several contexts in a pool) the server loop
  // decides when the front record is written.
  if (external_order_ && !closing) return;
  while (write_front(closing)) {}
}

void OutputEngine::close() {
  if (failed()) throw formats::IoError(failure_);  // the files were closed then
  advance(true);
  if (agreement_.on())  // the last agreement point: an error kept since the last record's start
    if (std::string e = agreement_.agree(); !e.empty()) fail_writing(formats::IoError(e));
  for (auto& [key, p] : pending_) {
    // An open window kept by the last checkpoint: the next run continues it.
    if (auto kept = kept_windows_.find(key); kept != kept_windows_.end() && kept->second == p.received) continue;
    warnings_.push_back("field '" + plan_.variables[key.first].field_id + "' record " + std::to_string(key.second) +
                        ": data arrived for a record that was never announced; dropped");
  }
  pending_.clear();
  pending_bytes_ = 0;
  if (const std::string errors = close_files(nullptr); !errors.empty()) throw formats::IoError(errors);
}

// A map node of pending_ beside its values: with records of a few hundred
// bytes (bench/soak.py) the nodes are most of the backlog.
bool OutputEngine::backlog_full() const {
  return pending_bytes_ + pending_.size() * (sizeof(Pending) + 64) > backlog_cap_;
}

std::size_t OutputEngine::buffer_bytes() const {
  // Kept as running sums: asked after every message, a sum over the
  // pending records grew with the backlog (bench/soak.py, two servers).
  return fill_.capacity() + piece_scratch_.capacity() + pending_bytes_ + spare_bytes_;
}

formats::WriterFigures OutputEngine::figures_of(int file) const {
  formats::WriterFigures f = closed_[static_cast<std::size_t>(file)];
  if (const auto& open = files_[static_cast<std::size_t>(file)]) {
    const formats::WriterFigures now = open->figures();
    f.bytes += now.bytes, f.write_seconds += now.write_seconds, f.disk_bytes += now.disk_bytes;
  }
  return f;
}

double OutputEngine::write_seconds() const {
  double t = 0;
  for (std::size_t i = 0; i < files_.size(); ++i) t += figures_of(static_cast<int>(i)).write_seconds;
  return t;
}

std::vector<report::FileBytes> OutputEngine::file_bytes() const {
  std::vector<report::FileBytes> out;
  for (std::size_t i = 0; i < files_.size(); ++i) {
    if (!files_[i]) continue;
    const formats::WriterFigures f = figures_of(static_cast<int>(i));
    out.push_back({plan_.context_id, plan_.files[i].id, static_cast<int>(plan_.key >> 16), static_cast<double>(f.bytes),
                   static_cast<double>(f.disk_bytes)});
  }
  return out;
}

std::uint64_t OutputEngine::bytes_written() const {
  std::uint64_t n = 0;
  for (std::size_t i = 0; i < files_.size(); ++i) n += figures_of(static_cast<int>(i)).bytes;
  return n;
}

}  // namespace foehn::server
