// Accumulator::restore (exact restarts): a window saved after some samples
// (values and per-point weights, as a checkpoint keeps them) and restored
// into a fresh accumulator gives, after the remaining samples, the same
// bits as the window never cut; with and without skipped values.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "filters/temporal.h"

namespace {

using foehn::filters::Accumulator;
using foehn::filters::TemporalOp;

constexpr std::size_t kPoints = 37;
constexpr double kMissing = -999;

// Sample s at point i: irregular values, missing where (i + s) % 5 == 0 when asked.
std::vector<double> sample(int s, bool with_missing) {
  std::vector<double> v(kPoints);
  for (std::size_t i = 0; i < kPoints; ++i)
    v[i] = with_missing && (i + s) % 5 == 0 ? kMissing : std::sin(0.7 * i + 1.3 * s) * 100 + s / 3.0;
  return v;
}

std::vector<double> result(const Accumulator& a) {
  std::vector<double> out(kPoints);
  a.result(0, out.data(), kPoints);
  return out;
}

void check_cut(TemporalOp op, bool with_missing) {
  const std::vector<double> weights = {3600, 1800, 5400, 3600, 1800, 3600};
  Accumulator whole(op, kPoints), first(op, kPoints);
  for (int s = 0; s < 6; ++s) {
    const auto v = sample(s, with_missing);
    whole.add(0, v.data(), kPoints, weights[s], kMissing);
    if (s < 3) first.add(0, v.data(), kPoints, weights[s], kMissing);
  }
  // The checkpoint: values and, when some point was skipped, each weight.
  std::vector<double> saved_weights(kPoints);
  for (std::size_t i = 0; i < kPoints; ++i) saved_weights[i] = first.weight_of(i);
  Accumulator resumed(op, kPoints);
  resumed.restore(first.values(), first.per_point_weights() ? saved_weights.data() : nullptr, first.weight_all());
  EXPECT_EQ(resumed.per_point_weights(), first.per_point_weights());
  for (int s = 3; s < 6; ++s) {
    const auto v = sample(s, with_missing);
    resumed.add(0, v.data(), kPoints, weights[s], kMissing);
  }
  const auto want = result(whole), got = result(resumed);
  EXPECT_EQ(std::memcmp(want.data(), got.data(), kPoints * sizeof(double)), 0);
  // And against an independent reference: numpy-like sums in time order.
  for (std::size_t i = 0; i < kPoints; ++i) {
    double sum = 0, w = 0, lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (int s = 0; s < 6; ++s) {
      const double x = sample(s, with_missing)[i];
      if (x == kMissing) continue;
      sum += op == TemporalOp::average ? weights[s] * x : x;
      w += op == TemporalOp::average ? weights[s] : 1;
      lo = std::min(lo, x);
      hi = std::max(hi, x);
    }
    const double ref = op == TemporalOp::average      ? sum / w
                       : op == TemporalOp::accumulate ? sum
                       : op == TemporalOp::minimum    ? lo
                                                      : hi;
    EXPECT_EQ(got[i], ref) << "point " << i;
  }
}

TEST(AccumulatorRestore, CutWindowGivesTheSameBits) {
  for (TemporalOp op : {TemporalOp::average, TemporalOp::accumulate, TemporalOp::minimum, TemporalOp::maximum}) {
    check_cut(op, false);
    check_cut(op, true);
  }
}

TEST(AccumulatorRestore, UnheldPointsDoNotForcePerPointWeights) {
  // NaN weights mark points no checkpoint holds (halos): the others share one.
  Accumulator a(TemporalOp::average, 4);
  const double values[4] = {1, 2, 3, 4}, weights[4] = {2, std::nan(""), 2, 2};
  a.restore(values, weights, 0);
  EXPECT_FALSE(a.per_point_weights());
  EXPECT_EQ(a.weight_all(), 2);
}

}  // namespace
