// Tests of StreamMap, the pack and scatter plans for arbitrary index lists:
// every fragment of every stream lands where the positions say, with outer
// and inner dimensions, through runs and gathers alike.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <stdexcept>
#include <vector>

#include "grid/pack_plan.h"
#include "grid/stream_map.h"

namespace foehn::grid {
namespace {

using Positions = std::vector<std::int64_t>;

// The buffer offset of stream value v, computed the slow way.
std::int64_t expected_offset(const Positions& pos, std::int64_t buffer_points, std::int64_t inner, std::int64_t v) {
  const auto points = static_cast<std::int64_t>(pos.size());
  const std::int64_t o = v / (points * inner), r = v % (points * inner);
  return (o * buffer_points + pos[static_cast<std::size_t>(r / inner)]) * inner + r % inner;
}

// Packs and unpacks the whole stream in fragments of `step` values and
// compares with the slow computation.
void check_round_trip(const Positions& pos, std::int64_t buffer_points, std::int64_t outer, std::int64_t inner,
                      std::int64_t step) {
  const StreamMap map(pos, buffer_points, outer, inner);
  const std::int64_t n = map.size();
  ASSERT_EQ(n, outer * static_cast<std::int64_t>(pos.size()) * inner);
  std::vector<double> buffer(static_cast<std::size_t>(outer * buffer_points * inner));
  std::iota(buffer.begin(), buffer.end(), 0.0);
  std::vector<double> stream(static_cast<std::size_t>(n), -1.0);
  for (std::int64_t off = 0; off < n; off += step)
    map.gather(buffer.data(), off, std::min(step, n - off), stream.data() + off);
  for (std::int64_t v = 0; v < n; ++v)
    ASSERT_EQ(stream[static_cast<std::size_t>(v)], static_cast<double>(expected_offset(pos, buffer_points, inner, v)))
        << "stream value " << v << " (fragments of " << step << ")";
  // A fragment said to be contiguous is, value by value.
  for (std::int64_t off = 0; off < n; off += step) {
    const std::int64_t count = std::min(step, n - off), at = map.contiguous(off, count);
    for (std::int64_t k = 0; at >= 0 && k < count; ++k)
      ASSERT_EQ(at + k, expected_offset(pos, buffer_points, inner, off + k)) << "fragment at " << off;
  }
  std::vector<double> back(buffer.size(), -1.0);
  for (std::int64_t off = 0; off < n; off += step)
    map.scatter(stream.data() + off, off, std::min(step, n - off), back.data());
  for (std::int64_t v = 0; v < n; ++v) {
    const auto b = static_cast<std::size_t>(expected_offset(pos, buffer_points, inner, v));
    ASSERT_EQ(back[b], buffer[b]) << "buffer offset " << b;
  }
  // The expanded runs say the same.
  std::vector<double> via_runs(static_cast<std::size_t>(n), -1.0);
  for (const Run& r : map.runs())
    for (std::int64_t k = 0; k < r.length; ++k)
      via_runs[static_cast<std::size_t>(r.to + k)] = buffer[static_cast<std::size_t>(r.from + k)];
  EXPECT_EQ(via_runs, stream);
}

TEST(StreamMap, ContiguousPositionsAreOneRun) {
  Positions pos(100);
  std::iota(pos.begin(), pos.end(), 7);
  const StreamMap map(pos, 200);
  EXPECT_EQ(map.run_count(), 1u);
  EXPECT_EQ(map.gather_points(), 0u);
  const auto runs = map.runs();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].from, 7);
  EXPECT_EQ(runs[0].to, 0);
  EXPECT_EQ(runs[0].length, 100);
  check_round_trip(pos, 200, 1, 1, 13);
}

TEST(StreamMap, ShuffledPositionsAreGathered) {
  Positions pos(500);
  std::iota(pos.begin(), pos.end(), 0);
  std::shuffle(pos.begin(), pos.end(), std::mt19937(1));
  const StreamMap map(pos, 500);
  EXPECT_EQ(map.gather_points(), 500u);
  for (std::int64_t step : {1, 7, 64, 500}) check_round_trip(pos, 500, 1, 1, step);
}

TEST(StreamMap, MixedRunsAndGathersWithOuterAndInnerDimensions) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 40; ++trial) {
    // Long runs, short runs and single points, in random order.
    const std::int64_t buffer_points = 300;
    Positions all(buffer_points);
    std::iota(all.begin(), all.end(), 0);
    Positions pos;
    std::int64_t k = 0;
    while (k < buffer_points) {
      const std::int64_t len = std::uniform_int_distribution<std::int64_t>(1, 40)(rng);
      if (std::uniform_int_distribution<int>(0, 2)(rng))
        for (std::int64_t m = k; m < std::min(buffer_points, k + len); ++m) pos.push_back(m);
      k += len;
    }
    if (trial % 2) std::shuffle(pos.begin(), pos.end(), rng);
    if (pos.empty()) continue;
    const std::int64_t outer = std::uniform_int_distribution<std::int64_t>(1, 3)(rng);
    const std::int64_t inner = std::uniform_int_distribution<std::int64_t>(1, 4)(rng);
    const std::int64_t step = std::uniform_int_distribution<std::int64_t>(1, 97)(rng);
    SCOPED_TRACE(::testing::Message() << "trial " << trial << " outer " << outer << " inner " << inner << " step "
                                      << step);
    check_round_trip(pos, buffer_points, outer, inner, step);
    if (HasFatalFailure()) return;
  }
}

TEST(StreamMap, FindsContiguousFragments) {
  // The whole buffer in order, with levels: every fragment, across levels too.
  Positions all(50);
  std::iota(all.begin(), all.end(), 0);
  const StreamMap whole(all, 50, 3);
  EXPECT_EQ(whole.contiguous(0, 150), 0);
  EXPECT_EQ(whole.contiguous(40, 30), 40);
  EXPECT_EQ(whole.contiguous(140, 11), -1);  // past the end
  // The second half of the points: contiguous within a level, not across.
  const Positions half(all.begin() + 25, all.end());
  const StreamMap upper(half, 50, 3);
  EXPECT_EQ(upper.contiguous(0, 25), 25);
  EXPECT_EQ(upper.contiguous(30, 10), 50 + 30);
  EXPECT_EQ(upper.contiguous(20, 10), -1);
  // Two runs back to back in the stream but apart in the buffer.
  Positions swapped(all.begin() + 30, all.end());
  swapped.insert(swapped.end(), all.begin(), all.begin() + 20);
  const StreamMap split(swapped, 50);
  EXPECT_EQ(split.contiguous(2, 6), 32);
  EXPECT_EQ(split.contiguous(25, 10), 5);
  EXPECT_EQ(split.contiguous(15, 10), -1);
  // Scattered points never are.
  const StreamMap shuffled({3, 1, 2, 0}, 4);
  EXPECT_EQ(shuffled.contiguous(0, 1), -1);
}

TEST(StreamMap, ConvertsAndMapsValues) {
  const Positions pos{3, 1, 2, 0};
  const StreamMap map(pos, 4);
  const float src[4] = {10.f, 11.f, -1.f, 13.f};
  double out[4];
  map.gather(src, 0, 4, out, [](float x) { return x == -1.f ? std::nan("") : static_cast<double>(x); });
  EXPECT_EQ(out[0], 13.0);
  EXPECT_EQ(out[1], 11.0);
  EXPECT_TRUE(std::isnan(out[2]));
  EXPECT_EQ(out[3], 10.0);
  float narrowed[4];
  const double wide[4] = {0.5, 1.5, 2.5, 3.5};
  map.gather(wide, 1, 3, narrowed);
  EXPECT_EQ(narrowed[0], 1.5f);
  EXPECT_EQ(narrowed[1], 2.5f);
  EXPECT_EQ(narrowed[2], 0.5f);
}

TEST(StreamMap, ForEachRunCoversTheFragment) {
  Positions pos{5, 6, 7, 0, 9, 2};
  const StreamMap map(pos, 10, 2, 3);
  std::vector<int> hit(60, 0);
  std::int64_t next = 4;
  map.for_each_run(4, 25, [&](std::int64_t s, std::int64_t b, std::int64_t n) {
    EXPECT_EQ(s, next);
    next += n;
    for (std::int64_t i = 0; i < n; ++i) {
      EXPECT_EQ(b + i, expected_offset(pos, 10, 3, s + i));
      ++hit[static_cast<std::size_t>(b + i)];
    }
  });
  EXPECT_EQ(next, 29);
}

TEST(StreamMap, EmptyAndBadInput) {
  const StreamMap empty({}, 10);
  EXPECT_EQ(empty.size(), 0);
  EXPECT_TRUE(empty.runs().empty());
  EXPECT_EQ(StreamMap({1, 2}, 10, 0, 5).size(), 0);
  EXPECT_THROW(StreamMap({1, 10}, 10), std::invalid_argument);
  EXPECT_THROW(StreamMap({-1}, 10), std::invalid_argument);
  EXPECT_THROW(StreamMap({0}, std::int64_t{1} << 33), std::invalid_argument);
}

}  // namespace
}  // namespace foehn::grid

namespace foehn::grid {
namespace {

// PackPlan: direct and staged plans pack the same streams.
TEST(PackPlan, DirectAndStagedPackTheSameStreams) {
  std::mt19937 rng(3);
  for (const std::int64_t inner : {1, 3}) {
    const std::int64_t points = 400, outer = 2;
    std::vector<std::vector<std::int64_t>> positions(9);
    for (std::int64_t p = 0; p < points; ++p)
      if (p % 13 != 5)
        positions[std::uniform_int_distribution<std::size_t>(0, 8)(rng)].push_back(p);  // some points unsent
    const PackPlan direct(positions, points, outer, inner, PackPlan::Mode::direct);
    const PackPlan staged(positions, points, outer, inner, PackPlan::Mode::staged);
    const PackPlan automatic(positions, points, outer, inner);
    EXPECT_FALSE(direct.staged());
    EXPECT_TRUE(staged.staged());
    EXPECT_TRUE(automatic.staged()) << "nine destinations of scattered points are staged";
    std::vector<double> data(static_cast<std::size_t>(outer * points * inner));
    std::iota(data.begin(), data.end(), 0.0);
    std::vector<double> staging(static_cast<std::size_t>(staged.staging_size()));
    staged.stage(data.data(), staging.data());
    for (std::size_t d = 0; d < positions.size(); ++d) {
      ASSERT_EQ(direct.size(d), staged.size(d));
      const std::int64_t n = direct.size(d);
      std::vector<double> a(static_cast<std::size_t>(n)), b(a.size(), -1.0);
      direct.pack(d, data.data(), static_cast<const double*>(nullptr), 0, n, a.data());
      for (std::int64_t off = 0; off < n; off += 7)
        staged.pack(d, data.data(), staging.data(), off, std::min<std::int64_t>(7, n - off), b.data() + off);
      EXPECT_EQ(a, b) << "destination " << d << " inner " << inner;
      // The stream is the destination's points in data order, level by level.
      for (std::int64_t v = 0; v < n; ++v) {
        const auto& pos = positions[d];
        const auto np = static_cast<std::int64_t>(pos.size());
        const std::int64_t o = v / (np * inner), q = (v / inner) % np, ii = v % inner;
        ASSERT_EQ(a[static_cast<std::size_t>(v)],
                  static_cast<double>((o * points + pos[static_cast<std::size_t>(q)]) * inner + ii));
      }
    }
  }
}

TEST(PackPlan, FewDestinationsOrRunsStayDirect) {
  std::vector<std::vector<std::int64_t>> runs(10);
  for (std::int64_t p = 0; p < 1000; ++p) runs[static_cast<std::size_t>(p / 100)].push_back(p);
  EXPECT_FALSE(PackPlan(runs, 1000).staged());
  std::vector<std::vector<std::int64_t>> two(2);
  for (std::int64_t p = 0; p < 1000; ++p) two[static_cast<std::size_t>(p % 2)].push_back(p);
  EXPECT_FALSE(PackPlan(two, 1000).staged());
}

}  // namespace
}  // namespace foehn::grid
