#include "server/output_engine.h"

#include <netcdf.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace foehn::server {

using grid::Box;

namespace {

Box writer_block(const output::ContextPlan& plan, const output::VariableInfo& v, const WriterRole& role) {
  return role.attached ? plan.client_box(v, role.index) : plan.server_block(v, role.index, role.count);
}

output::FilePart file_part(const output::ContextPlan& plan, const output::FileInfo& f, const WriterRole& role) {
  output::FilePart part;
  if (f.one_file) return part;
  part.whole = false;
  part.number = role.index;
  part.total = role.count;
  for (const auto& d : plan.domains) {
    if (role.attached) {
      part.blocks.push_back(d.clients.at(role.index));
      continue;
    }
    const Box band = grid::server_slab({d.nj_glo, d.ni_glo}, 0, role.index, role.count);
    part.blocks.push_back({0, d.ni_glo, band.start[0], band.count[0]});
  }
  return part;
}

}  // namespace

OutputEngine::OutputEngine(output::ContextPlan plan, WriterRole role)
    : plan_(std::move(plan)), role_(role), client_closed_(plan_.client_ranks.size(), 0) {
  const int nclients = static_cast<int>(plan_.client_ranks.size());
  std::size_t largest = 0;
  for (const auto& v : plan_.variables) {
    VarState s;
    s.block = writer_block(plan_, v, role_);
    s.elem = v.prec == 8 ? 8 : 4;
    s.op = static_cast<filters::TemporalOp>(v.op);
    s.reduce_here = v.reduce_on_server && !role_.attached && filters::reduces(s.op);
    s.clients.resize(nclients);
    for (int c = 0; c < nclients; ++c) {
      // In attached mode the only source is this client itself.
      if (role_.attached && c != role_.index) continue;
      const Box region = grid::intersect(plan_.client_box(v, c), s.block);
      ClientPlan& cp = s.clients[c];
      cp.runs = grid::make_runs(region, s.block);
      for (const auto& r : cp.runs) {
        cp.run_first.push_back(cp.total);
        cp.total += r.length;
      }
      s.expected += cp.total;
      if (cp.total > 0) ++s.contributors;
    }
    largest = std::max(largest, static_cast<std::size_t>(s.block.size()) * s.elem);
    vars_.push_back(std::move(s));
  }
  fill_.resize(largest);
  for (std::size_t i = 0; i < plan_.files.size(); ++i) {
    const auto& f = plan_.files[i];
    MPI_Comm comm = f.one_file ? role_.comm : MPI_COMM_SELF;
    files_.push_back(std::make_unique<output::NetcdfFile>(plan_, static_cast<int>(i), comm, file_part(plan_, f, role_)));
  }
}

OutputEngine::~OutputEngine() = default;

OutputEngine::Pending& OutputEngine::pending(int var, std::int64_t record) {
  auto [it, inserted] = pending_.try_emplace({var, record});
  if (inserted) {
    const std::size_t bytes = static_cast<std::size_t>(vars_[var].block.size()) * vars_[var].elem;
    if (!spare_.empty()) {
      it->second.data = std::move(spare_.back());
      spare_.pop_back();
    }
    it->second.data.resize(bytes);
    if (vars_[var].reduce_here)
      it->second.acc = filters::Accumulator(vars_[var].op, static_cast<std::size_t>(vars_[var].block.size()));
  }
  return it->second;
}

bool OutputEngine::ready(int var, std::int64_t record) const {
  const VarState& s = vars_[var];
  if (s.expected == 0) return true;
  auto it = pending_.find({var, record});
  return it != pending_.end() && it->second.complete;
}

void OutputEngine::accumulate(const ClientPlan& cp, Pending& p, const transport::EventHeader& h,
                              const std::byte* payload) {
  // Samples travel as double so that the result does not depend on where
  // the operation runs.
  const double* values = reinterpret_cast<const double*>(payload);
  auto k = static_cast<std::size_t>(std::upper_bound(cp.run_first.begin(), cp.run_first.end(), h.offset) -
                                    cp.run_first.begin() - 1);
  std::int64_t done = 0;
  while (done < h.count) {
    const grid::Run& r = cp.runs[k];
    const std::int64_t into = h.offset + done - cp.run_first[k];
    const std::int64_t n = std::min(r.length - into, h.count - done);
    p.acc.add(static_cast<std::size_t>(r.to + into), values + done, static_cast<std::size_t>(n), h.time);
    done += n;
    ++k;
  }
}

void OutputEngine::finish_reduction(int var, Pending& p) {
  const VarState& s = vars_[var];
  const auto n = static_cast<std::size_t>(s.block.size());
  if (s.elem == 8) p.acc.result(0, reinterpret_cast<double*>(p.data.data()), n);
  else p.acc.result(0, reinterpret_cast<float*>(p.data.data()), n);
  p.complete = true;
}

void OutputEngine::on_data(int client, const transport::EventHeader& h, const std::byte* payload) {
  if (h.item >= vars_.size()) throw std::runtime_error("data for unknown variable index " + std::to_string(h.item));
  VarState& s = vars_[h.item];
  if (client < 0 || client >= static_cast<int>(s.clients.size())) throw std::runtime_error("data from unknown client");
  const ClientPlan& cp = s.clients[client];
  const std::string& name = plan_.variables[h.item].name;
  const bool sample = (h.flags & (transport::kSample | transport::kLastSample)) != 0;
  if (sample != s.reduce_here)
    throw std::runtime_error("variable '" + name + "': " + (sample ? "a sample arrived for an operation done on the clients"
                                                                   : "values arrived for an operation done here"));
  const std::size_t elem = sample ? sizeof(double) : s.elem;
  if (h.elem_size != elem || h.offset < 0 || h.count < 0 || h.offset + h.count > cp.total)
    throw std::runtime_error("fragment of variable '" + name + "' out of its client's range");
  Pending& p = pending(h.item, h.record);
  if (p.complete) throw std::runtime_error("variable '" + name + "' record " + std::to_string(h.record) + ": data after the record was complete (a field written twice in one step?)");
  if (h.flags & transport::kLastSample) {
    if (++p.finished_clients == s.contributors) finish_reduction(h.item, p);
  } else if (sample) {
    accumulate(cp, p, h, payload);
    p.received += h.count;
  } else {
    // Find the run holding the fragment's first value, then copy run by run.
    auto k = static_cast<std::size_t>(std::upper_bound(cp.run_first.begin(), cp.run_first.end(), h.offset) -
                                      cp.run_first.begin() - 1);
    std::int64_t done = 0;
    while (done < h.count) {
      const grid::Run& r = cp.runs[k];
      const std::int64_t into = h.offset + done - cp.run_first[k];
      const std::int64_t n = std::min(r.length - into, h.count - done);
      std::memcpy(p.data.data() + (r.to + into) * s.elem, payload + done * s.elem, n * s.elem);
      done += n;
      ++k;
    }
    p.received += h.count;
    if (p.received > s.expected)
      throw std::runtime_error("variable '" + name + "' record " + std::to_string(h.record) +
                               ": more values than expected (a field written twice in one step?)");
    p.complete = p.received == s.expected;
  }
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
  output::NetcdfFile& file = *files_[v.file];
  // A variable written once has no time dimension: its first record only.
  if (s.op == filters::TemporalOp::once && record > 0) {
    pending_.erase({var, record});
    return;
  }
  if (s.expected == 0) {  // nothing of this variable lives here; take part in the collective write
    file.write(var, record, s.block, nullptr);
    return;
  }
  auto it = pending_.find({var, record});
  const std::size_t n = static_cast<std::size_t>(s.block.size());
  std::byte* data = nullptr;
  if (it != pending_.end() && it->second.complete) {
    data = it->second.data.data();
  } else {
    if (!closing) return;
    const auto got = it == pending_.end() ? 0 : it->second.received;
    warnings_.push_back("field '" + v.field_id + "' record " + std::to_string(record) + ": " +
                        std::to_string(got) + " of " + std::to_string(s.expected) +
                        " values arrived (the model did not write it at that step); written as fill values");
    if (s.elem == 8) std::fill_n(reinterpret_cast<double*>(fill_.data()), n, v.has_fill ? v.fill_value : NC_FILL_DOUBLE);
    else std::fill_n(reinterpret_cast<float*>(fill_.data()), n, v.has_fill ? static_cast<float>(v.fill_value) : NC_FILL_FLOAT);
    data = fill_.data();
  }
  if (v.has_fill && data != fill_.data()) {
    // Missing results (NaN) are written as the fill value.
    if (s.elem == 8) {
      auto* d = reinterpret_cast<double*>(data);
      std::replace_if(d, d + n, [](double x) { return x != x; }, v.fill_value);
    } else {
      auto* f = reinterpret_cast<float*>(data);
      std::replace_if(f, f + n, [](float x) { return x != x; }, static_cast<float>(v.fill_value));
    }
  }
  file.write(var, record, s.block, data);
  if (it != pending_.end()) {
    spare_.push_back(std::move(it->second.data));
    pending_.erase(it);
  }
}

void OutputEngine::advance(bool closing) {
  while (!announced_.empty()) {
    const Announce& a = announced_.front();
    const auto& vars = plan_.files[a.file].variables;
    if (next_in_file_ < 0) {
      files_[a.file]->write_time(a.record, a.time, a.time_start);
      next_in_file_ = 0;
    }
    while (next_in_file_ < static_cast<int>(vars.size())) {
      const int var = vars[next_in_file_];
      const bool skip = vars_[var].op == filters::TemporalOp::once && a.record > 0;
      if (!skip && !closing && !ready(var, a.record)) return;  // wait for more data
      write_record_of(var, a.record, closing);
      ++next_in_file_;
    }
    announced_.pop_front();
    next_in_file_ = -1;
  }
}

void OutputEngine::close() {
  advance(true);
  for (auto& [key, p] : pending_)
    warnings_.push_back("field '" + plan_.variables[key.first].field_id + "' record " + std::to_string(key.second) +
                        ": data arrived for a record that was never announced; dropped");
  pending_.clear();
  for (auto& f : files_) f->close();
}

std::uint64_t OutputEngine::bytes_written() const {
  std::uint64_t n = 0;
  for (const auto& f : files_) n += f->bytes_written();
  return n;
}

}  // namespace foehn::server
