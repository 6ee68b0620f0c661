#include "grid/pack_plan.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace foehn::grid {

namespace {

// Staging pays one extra copy of the data and saves reading the data once
// per destination: worth it from this many destinations whose points are
// scattered, i.e. whose runs are shorter than a cache line's worth of
// values (bench/pack_plan.cpp).
constexpr std::size_t kStageFrom = 8;
constexpr std::int64_t kShortRun = 16;

}  // namespace

PackPlan::PackPlan(const std::vector<std::vector<std::int64_t>>& positions, std::int64_t data_points, std::int64_t outer,
                   std::int64_t inner, Mode mode)
    : data_points_(data_points), outer_(outer), inner_(inner) {
  std::size_t sent = 0;
  std::int64_t runs = 0;  // maximal runs of consecutive data points
  for (const auto& p : positions) {
    maps_.emplace_back(p, data_points, outer, inner);
    sent += p.size();
    for (std::size_t k = 0; k < p.size(); ++k) runs += k == 0 || p[k] != p[k - 1] + 1;
  }
  const bool stage = mode == Mode::staged ||
                     (mode == Mode::automatic && positions.size() >= kStageFrom &&
                      static_cast<std::int64_t>(sent) * inner < kShortRun * runs);
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
      moves.emplace_back(static_cast<std::uint32_t>(p[r]), static_cast<std::uint32_t>(first + static_cast<std::int64_t>(r)));
    std::vector<std::int64_t> mine(p.size());
    std::iota(mine.begin(), mine.end(), first);
    maps_.emplace_back(mine, sent_, outer, inner);
    first += static_cast<std::int64_t>(p.size());
  }
  std::sort(moves.begin(), moves.end());
  stage_from_.reserve(sent);
  stage_to_.reserve(sent);
  for (const auto& [from, to] : moves) {
    stage_from_.push_back(from);
    stage_to_.push_back(to);
  }
}

}  // namespace foehn::grid
