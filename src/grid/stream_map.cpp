#include "grid/stream_map.h"

#include <limits>
#include <stdexcept>
#include <string>

namespace foehn::grid {

namespace {

// Runs shorter than this are cheaper to gather by index than to memcpy
// (the call and the bookkeeping of a run cost about as much as a dozen
// indexed loads).
constexpr std::int64_t kMinRun = 16;

}  // namespace

StreamMap::StreamMap(const std::vector<std::int64_t>& positions, std::int64_t buffer_points, std::int64_t outer,
                     std::int64_t inner)
    : points_(static_cast<std::int64_t>(positions.size())),
      buffer_points_(buffer_points),
      outer_(outer),
      inner_(inner) {
  if (buffer_points < 0 || buffer_points > std::numeric_limits<std::uint32_t>::max() || outer < 0 || inner < 0)
    throw std::invalid_argument("stream map: bad buffer size " + std::to_string(buffer_points));
  if (outer == 0 || inner == 0) points_ = 0;
  if (points_ == 0) return;
  for (const std::int64_t pos : positions)
    if (pos < 0 || pos >= buffer_points)
      throw std::invalid_argument("stream map: position " + std::to_string(pos) + " outside a buffer of " +
                                  std::to_string(buffer_points) + " points");
  // With several values per point every point is a memcpy anyway, so any
  // run of points is worth keeping.
  const std::int64_t min_run = inner > 1 ? 1 : kMinRun;
  const std::int64_t n = points_;
  std::int64_t k = 0;
  while (k < n) {
    const std::int64_t pos = positions[static_cast<std::size_t>(k)];
    std::int64_t end = k + 1;
    while (end < n && positions[static_cast<std::size_t>(end)] == pos + (end - k)) ++end;
    if (end - k >= min_run) {
      pieces_.push_back({k, end - k, pos, false});
    } else {
      // Short run: gathered; joins the previous piece if that one gathers too.
      if (pieces_.empty() || !pieces_.back().gather)
        pieces_.push_back({k, 0, static_cast<std::int64_t>(index_.size()), true});
      for (std::int64_t m = k; m < end; ++m) index_.push_back(static_cast<std::uint32_t>(pos + (m - k)));
      pieces_.back().length += end - k;
    }
    k = end;
  }
}

std::int64_t StreamMap::contiguous(std::int64_t offset, std::int64_t count) const {
  if (count <= 0 || points_ == 0 || offset < 0 || offset + count > size()) return -1;
  // Every point in order over the whole buffer: value s is at s.
  if (pieces_.size() == 1 && !pieces_[0].gather && pieces_[0].start == 0 && pieces_[0].length == buffer_points_)
    return offset;
  const Place at = locate(offset);
  const Piece& p = pieces_[at.piece];
  if (p.gather || count > (p.length - at.point) * inner_ - at.value) return -1;
  return (at.outer * buffer_points_ + p.start + at.point) * inner_ + at.value;
}

StreamMap::Place StreamMap::locate(std::int64_t offset) const {
  const std::int64_t per_outer = points_ * inner_;
  const std::int64_t o = offset / per_outer;
  const std::int64_t r = offset - o * per_outer;
  const std::int64_t q = r / inner_;
  // The piece holding point q: the last piece whose first point is <= q.
  auto it =
      std::upper_bound(pieces_.begin(), pieces_.end(), q, [](std::int64_t x, const Piece& p) { return x < p.first; });
  const auto k = static_cast<std::size_t>(it - pieces_.begin()) - 1;
  return {o, q - pieces_[k].first, r - q * inner_, k};
}

std::size_t StreamMap::run_count() const {
  std::size_t n = 0;
  for (const Piece& p : pieces_) n += p.gather ? 0 : 1;
  return n;
}

std::vector<Run> StreamMap::runs() const {
  std::vector<Run> out;
  auto add = [&](std::int64_t from, std::int64_t to, std::int64_t length) {
    if (!out.empty()) {
      Run& last = out.back();
      if (last.from + last.length == from && last.to + last.length == to) {
        last.length += length;
        return;
      }
    }
    out.push_back({from, to, length});
  };
  if (size() > 0) for_each_run(0, size(), [&](std::int64_t s, std::int64_t b, std::int64_t n) { add(b, s, n); });
  return out;
}

}  // namespace foehn::grid
