#include "grid/box.h"

#include <algorithm>
#include <stdexcept>

namespace foehn::grid {

std::int64_t Box::size() const {
  std::int64_t n = 1;
  for (auto c : count) n *= c;
  return n;
}

Box server_slab(const std::vector<std::int64_t>& global_shape, int split_dim, int server, int nservers) {
  if (split_dim < 0 || split_dim >= static_cast<int>(global_shape.size()) || nservers <= 0)
    throw std::invalid_argument("server_slab: bad split dimension or server count");
  Box box;
  box.start.assign(global_shape.size(), 0);
  box.count = global_shape;
  const std::int64_t n = global_shape[split_dim];
  const std::int64_t base = n / nservers, extra = n % nservers;
  // The first `extra` servers own one more row than the others.
  box.start[split_dim] = server * base + std::min<std::int64_t>(server, extra);
  box.count[split_dim] = base + (server < extra ? 1 : 0);
  return box;
}

Box intersect(const Box& a, const Box& b) {
  if (a.start.size() != b.start.size()) throw std::invalid_argument("intersect: rank mismatch");
  Box r;
  r.start.resize(a.start.size());
  r.count.resize(a.start.size());
  for (size_t d = 0; d < a.start.size(); ++d) {
    const auto lo = std::max(a.start[d], b.start[d]);
    const auto hi = std::min(a.start[d] + a.count[d], b.start[d] + b.count[d]);
    r.start[d] = lo;
    r.count[d] = std::max<std::int64_t>(0, hi - lo);
  }
  return r;
}

namespace {

// Offset of global index `idx` inside a buffer laid out as `box`.
std::int64_t offset_in(const Box& box, const std::vector<std::int64_t>& idx) {
  std::int64_t off = 0;
  for (size_t d = 0; d < idx.size(); ++d) off = off * box.count[d] + (idx[d] - box.start[d]);
  return off;
}

void append_run(std::vector<Run>& runs, Run r) {
  if (!runs.empty()) {
    Run& last = runs.back();
    if (last.from + last.length == r.from && last.to + last.length == r.to) {
      last.length += r.length;
      return;
    }
  }
  runs.push_back(r);
}

// Visits the rows (innermost-dimension segments) of `region` in C order and
// calls emit(from_offset, to_offset, length).
template <class FromOffset, class ToOffset>
std::vector<Run> runs_over(const Box& region, FromOffset from_off, ToOffset to_off) {
  std::vector<Run> runs;
  if (region.empty()) return runs;
  const size_t rank = region.start.size();
  if (rank == 0) {
    runs.push_back({0, 0, 1});
    return runs;
  }
  std::vector<std::int64_t> idx = region.start;
  const std::int64_t row = region.count[rank - 1];
  for (;;) {
    append_run(runs, {from_off(idx), to_off(idx), row});
    // Advance the outer dimensions (all but the last) like an odometer.
    int d = static_cast<int>(rank) - 2;
    for (; d >= 0; --d) {
      if (++idx[d] < region.start[d] + region.count[d]) break;
      idx[d] = region.start[d];
    }
    if (d < 0) break;
  }
  return runs;
}

}  // namespace

std::vector<Run> make_runs(const Box& from_box, const Box& to_box) {
  const Box region = intersect(from_box, to_box);
  return runs_over(
      region, [&](const auto& i) { return offset_in(from_box, i); },
      [&](const auto& i) { return offset_in(to_box, i); });
}

}  // namespace foehn::grid
