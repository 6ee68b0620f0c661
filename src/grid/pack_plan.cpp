#include "grid/pack_plan.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace foehn::grid {

namespace {

// Staging pays one extra copy of the data and saves reading the data once
// per destination: worth it when the destinations' points are scattered
// (runs shorter than a cache line's worth of values) and there are many
// destinations, or several and more data than the caches hold
// (bench/pack_plan.cpp).
constexpr std::size_t kStageFrom = 8, kStageLargeFrom = 4;
constexpr std::int64_t kShortRun = 16, kLargeValues = std::int64_t{1} << 22;

}  // namespace

PackPlan::PackPlan(const std::vector<std::vector<std::int64_t>>& positions, std::int64_t data_points,
                   std::int64_t outer, std::int64_t inner, Mode mode)
    : data_points_(data_points), outer_(outer), inner_(inner) {
  std::size_t sent = 0;
  std::int64_t runs = 0;  // maximal runs of consecutive data points
  for (const auto& p : positions) {
    maps_.emplace_back(p, data_points, outer, inner);
    sent += p.size();
    for (std::size_t k = 0; k < p.size(); ++k) runs += k == 0 || p[k] != p[k - 1] + 1;
  }
  const bool scattered = static_cast<std::int64_t>(sent) * inner < kShortRun * runs;
  const bool many = positions.size() >= kStageFrom ||
                    (positions.size() >= kStageLargeFrom && outer * data_points * inner >= kLargeValues);
  const bool stage = mode == Mode::staged || (mode == Mode::automatic && scattered && many);
  if (!stage || sent == 0 || outer == 0 || inner == 0) return;
  if (sent > std::numeric_limits<std::uint32_t>::max())
    throw std::invalid_argument("pack plan: too many points to stage");
  // Staging holds, per level, each destination's points one after the
  // other; the stage pass walks the data in order and drops each value at
  // its place.
  sent_ = static_cast<std::int64_t>(sent);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> moves;  // (data point, staging point)
  moves.reserve(sent);
  std::int64_t first = 0;
  maps_.clear();
  for (const auto& p : positions) {
    for (std::size_t r = 0; r < p.size(); ++r)
      moves.emplace_back(static_cast<std::uint32_t>(p[r]),
                         static_cast<std::uint32_t>(first + static_cast<std::int64_t>(r)));
    std::vector<std::int64_t> mine(p.size());
    std::iota(mine.begin(), mine.end(), first);
    maps_.emplace_back(mine, sent_, outer, inner);
    first += static_cast<std::int64_t>(p.size());
  }
  std::sort(moves.begin(), moves.end());
  stage_to_.reserve(sent);
  for (const auto& [from, to] : moves) {
    const auto k = static_cast<std::uint32_t>(stage_to_.size());
    if (stage_runs_.empty() || stage_runs_.back().from + stage_runs_.back().length != from)
      stage_runs_.push_back({from, k, 0});
    ++stage_runs_.back().length;
    stage_to_.push_back(to);
  }
}

}  // namespace foehn::grid
