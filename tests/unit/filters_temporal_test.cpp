// Tests of the per-point temporal accumulator (filters/temporal.h),
// compared bit for bit with a straightforward reference loop that sums in
// the same order.
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "filters/temporal.h"
#include "filters_test_support.h"

namespace foehn::filters {
namespace {

// ===========================================================================
// Temporal operations

const std::vector<TemporalOp> kAllOps = {TemporalOp::instant,    TemporalOp::once,    TemporalOp::average,
                                         TemporalOp::accumulate, TemporalOp::minimum, TemporalOp::maximum};

TEST(TemporalOpNames, ParseAndName) {
  const std::vector<std::pair<std::string, TemporalOp>> names = {
      {"instant", TemporalOp::instant},       {"once", TemporalOp::once},       {"average", TemporalOp::average},
      {"accumulate", TemporalOp::accumulate}, {"minimum", TemporalOp::minimum}, {"maximum", TemporalOp::maximum}};
  for (const auto& [name, op] : names) {
    EXPECT_EQ(parse_temporal_op(name), op) << name;
    EXPECT_EQ(temporal_op_name(op), name);
    EXPECT_EQ(parse_temporal_op(temporal_op_name(op)), op);
  }
}

TEST(TemporalOpNames, UnknownNamesThrow) {
  for (const char* bad : {"mean", "Average", "sum", "min", "instant ", "avg"}) {
    SCOPED_TRACE(bad);
    try {
      parse_temporal_op(bad);
      ADD_FAILURE() << "no exception";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("unknown temporal operation '" + std::string(bad) + "'"), std::string::npos)
          << e.what();
    }
  }
}

TEST(TemporalOpNames, CfMethodAndReduces) {
  EXPECT_EQ(cf_method(TemporalOp::instant), "point");
  EXPECT_EQ(cf_method(TemporalOp::once), "point");
  EXPECT_EQ(cf_method(TemporalOp::average), "mean");
  EXPECT_EQ(cf_method(TemporalOp::accumulate), "sum");
  EXPECT_EQ(cf_method(TemporalOp::minimum), "minimum");
  EXPECT_EQ(cf_method(TemporalOp::maximum), "maximum");
  EXPECT_FALSE(reduces(TemporalOp::instant));
  EXPECT_FALSE(reduces(TemporalOp::once));
  EXPECT_TRUE(reduces(TemporalOp::average));
  EXPECT_TRUE(reduces(TemporalOp::accumulate));
  EXPECT_TRUE(reduces(TemporalOp::minimum));
  EXPECT_TRUE(reduces(TemporalOp::maximum));
}

// ---------------------------------------------------------------------------
// Reference: one point's samples (value as double, weight) in time order.

struct Event {
  double x;
  double w;
};

double reference(TemporalOp op, const std::vector<Event>& events, double missing) {
  auto valid = [&](double x) { return !std::isnan(x) && x != missing; };
  switch (op) {
    case TemporalOp::instant:
    case TemporalOp::once:
      // The latest sample; NaN if it is missing.
      if (events.empty() || !valid(events.back().x)) return kNaN;
      return events.back().x;
    case TemporalOp::average: {
      double sum = 0, weights = 0;
      for (const auto& e : events)
        if (valid(e.x)) {
          sum += e.w * e.x;
          weights += e.w;
        }
      return weights > 0 ? sum / weights : kNaN;
    }
    case TemporalOp::accumulate: {
      double sum = 0;
      int count = 0;
      for (const auto& e : events)
        if (valid(e.x)) {
          sum += e.x;
          ++count;
        }
      return count > 0 ? sum : kNaN;
    }
    case TemporalOp::minimum:
    case TemporalOp::maximum: {
      double m = kNaN;
      for (const auto& e : events) {
        if (!valid(e.x)) continue;
        if (std::isnan(m) || (op == TemporalOp::minimum ? e.x < m : e.x > m)) m = e.x;
      }
      return m;
    }
  }
  return -1;
}

template <class U>
std::vector<U> results(const Accumulator& acc, std::size_t at, std::size_t n) {
  std::vector<U> out(n + 1, static_cast<U>(-4242));
  acc.result(at, out.data(), n);
  EXPECT_EQ(out[n], static_cast<U>(-4242)) << "result() wrote past the end";
  out.resize(n);
  return out;
}

template <class U>
std::vector<U> expected_results(TemporalOp op, const std::vector<std::vector<Event>>& events, double missing) {
  std::vector<U> out;
  for (const auto& e : events) out.push_back(static_cast<U>(reference(op, e, missing)));
  return out;
}

// A sequence of samples over n points with NaN and `missing` in them: point 0
// is always NaN, point 1 always `missing`, point 2 a mix of both, point 3 has
// a single valid sample; elsewhere a pattern of NaN and missing values.
template <class T>
std::vector<std::vector<T>> make_samples(std::size_t n, std::size_t steps, T missing, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> d(-100, 100);
  std::vector<std::vector<T>> s(steps, std::vector<T>(n));
  const T nan = std::numeric_limits<T>::quiet_NaN();
  for (std::size_t t = 0; t < steps; ++t)
    for (std::size_t p = 0; p < n; ++p) {
      T x = static_cast<T>(d(gen));
      if (p == 0)
        x = nan;
      else if (p == 1)
        x = missing;
      else if (p == 2)
        x = t % 2 ? nan : missing;
      else if (p == 3)
        x = t == 3 ? static_cast<T>(12.375) : nan;
      else if ((p * 7 + t * 3) % 11 == 0)
        x = nan;
      else if ((p + 2 * t) % 13 == 0)
        x = missing;
      s[t][p] = x;
    }
  return s;
}

// Irregular steps: the time each sample stands for.
const std::vector<double> kWeights = {1.0, 0.5, 2.0, 3600.0, 0.25, 1.0 / 3.0, 7.5, 900.0};

template <class T>
class AccumulatorTyped : public ::testing::Test {};
using SampleTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(AccumulatorTyped, SampleTypes);

TYPED_TEST(AccumulatorTyped, EveryOpMatchesReferenceLoop) {
  using T = TypeParam;
  const std::size_t n = 1500;
  const T missing = static_cast<T>(-999);
  const auto samples = make_samples<T>(n, kWeights.size(), missing, 31);
  std::vector<std::vector<Event>> events(n);
  for (std::size_t t = 0; t < samples.size(); ++t)
    for (std::size_t p = 0; p < n; ++p) events[p].push_back({static_cast<double>(samples[t][p]), kWeights[t]});
  for (TemporalOp op : kAllOps) {
    SCOPED_TRACE(std::string(temporal_op_name(op)));
    Accumulator acc(op, n);
    EXPECT_EQ(acc.op(), op);
    EXPECT_EQ(acc.size(), n);
    for (std::size_t t = 0; t < samples.size(); ++t) acc.add(0, samples[t].data(), n, kWeights[t], missing);
    const auto rd = results<double>(acc, 0, n);
    const auto rf = results<float>(acc, 0, n);
    EXPECT_TRUE(SameValues(rd, expected_results<double>(op, events, missing)));
    EXPECT_TRUE(SameValues(rf, expected_results<float>(op, events, missing)));
    // The fixed points: no valid sample gives NaN; one valid sample gives it.
    for (std::size_t p : {0, 1, 2}) EXPECT_TRUE(std::isnan(rd[p])) << "point " << p;
    if (reduces(op))
      EXPECT_EQ(rd[3], 12.375);
    else
      EXPECT_TRUE(std::isnan(rd[3]));  // the latest sample (t = 7) is NaN
    // The pattern leaves most points with several valid samples, some not.
    int with_value = 0;
    for (double x : rd) with_value += !std::isnan(x);
    EXPECT_GT(with_value, static_cast<int>(n) / 2);
  }
}

TYPED_TEST(AccumulatorTyped, HandComputedValues) {
  using T = TypeParam;
  // One point; samples 1 (w 1), NaN (w 5), -9 = missing (w 7), 3 (w 3), 2 (w 0.5).
  const T nan = std::numeric_limits<T>::quiet_NaN();
  const std::vector<std::pair<T, double>> samples = {{1, 1}, {nan, 5}, {-9, 7}, {3, 3}, {2, 0.5}};
  auto run_op = [&](TemporalOp op) {
    Accumulator acc(op, 1);
    for (const auto& [x, w] : samples) acc.add(0, &x, 1, w, -9.0);
    double out = -1;
    acc.result(0, &out, 1);
    return out;
  };
  EXPECT_EQ(run_op(TemporalOp::instant), 2.0);
  EXPECT_EQ(run_op(TemporalOp::once), 2.0);
  EXPECT_EQ(run_op(TemporalOp::average), (1.0 + 9.0 + 1.0) / 4.5);  // weighted, missing ones skipped
  EXPECT_EQ(run_op(TemporalOp::accumulate), 6.0);                   // weights ignored
  EXPECT_EQ(run_op(TemporalOp::minimum), 1.0);                      // not -9 (missing)
  EXPECT_EQ(run_op(TemporalOp::maximum), 3.0);
}

TEST(Accumulator, InstantTakesTheLatestSampleEvenIfMissing) {
  for (TemporalOp op : {TemporalOp::instant, TemporalOp::once}) {
    SCOPED_TRACE(std::string(temporal_op_name(op)));
    Accumulator acc(op, 3);
    const std::vector<double> s1 = {1, 2, 3}, s2 = {4, kNaN, -1};
    acc.add(0, s1.data(), 3, 1.0, -1.0);
    EXPECT_TRUE(SameValues(results<double>(acc, 0, 3), {1, 2, 3}));
    acc.add(0, s2.data(), 3, 1.0, -1.0);
    EXPECT_TRUE(SameValues(results<double>(acc, 0, 3), {4, kNaN, kNaN}));
  }
}

TEST(Accumulator, AverageUsesWeightsAccumulateDoesNot) {
  // Irregular steps: 10 for 60 s, 20 for 3600 s.
  const std::vector<double> x1 = {10}, x2 = {20};
  Accumulator avg(TemporalOp::average, 1), sum(TemporalOp::accumulate, 1);
  for (Accumulator* acc : {&avg, &sum}) {
    acc->add(0, x1.data(), 1, 60.0);
    acc->add(0, x2.data(), 1, 3600.0);
  }
  EXPECT_EQ(results<double>(avg, 0, 1)[0], (60.0 * 10 + 3600.0 * 20) / 3660.0);
  EXPECT_EQ(results<double>(sum, 0, 1)[0], 30.0);
}

TEST(Accumulator, MinimumAndMaximumKeepInfiniteSamples) {
  // A valid +inf minimum (or -inf maximum) is a value, not "no sample".
  const std::vector<double> hi = {kInf}, lo = {-kInf};
  Accumulator mn(TemporalOp::minimum, 1), mx(TemporalOp::maximum, 1);
  mn.add(0, hi.data(), 1, 1.0);
  mx.add(0, lo.data(), 1, 1.0);
  EXPECT_EQ(results<double>(mn, 0, 1)[0], kInf);
  EXPECT_EQ(results<double>(mx, 0, 1)[0], -kInf);
  mn.add(0, lo.data(), 1, 1.0);
  mx.add(0, hi.data(), 1, 1.0);
  EXPECT_EQ(results<double>(mn, 0, 1)[0], -kInf);
  EXPECT_EQ(results<double>(mx, 0, 1)[0], kInf);
}

TEST(Accumulator, NoSampleGivesNaN) {
  for (TemporalOp op : kAllOps) {
    SCOPED_TRACE(std::string(temporal_op_name(op)));
    Accumulator acc(op, 4);
    EXPECT_TRUE(SameValues(results<double>(acc, 0, 4), std::vector<double>(4, kNaN)));
    EXPECT_TRUE(SameValues(results<float>(acc, 0, 4), std::vector<float>(4, std::nanf(""))));
  }
}

TEST(Accumulator, MissingValueZeroSkipsBothZeros) {
  const std::vector<double> x = {0.0, -0.0, 5.0};
  Accumulator acc(TemporalOp::accumulate, 3);
  acc.add(0, x.data(), 3, 1.0, 0.0);
  EXPECT_TRUE(SameValues(results<double>(acc, 0, 3), {kNaN, kNaN, 5.0}));
}

TEST(Accumulator, SubRangesTouchOnlyTheirPoints) {
  const std::size_t n = 10;
  const double missing = -999;
  for (TemporalOp op : kAllOps) {
    SCOPED_TRACE(std::string(temporal_op_name(op)));
    Accumulator acc(op, n);
    std::vector<std::vector<Event>> events(n);
    auto add = [&](std::size_t at, const std::vector<double>& x, double w) {
      acc.add(at, x.data(), x.size(), w, missing);
      for (std::size_t i = 0; i < x.size(); ++i) events[at + i].push_back({x[i], w});
    };
    add(3, {1.5, -2.25, missing, 4}, 2.0);
    auto r = results<double>(acc, 0, n);
    EXPECT_TRUE(SameValues(r, {kNaN, kNaN, kNaN, 1.5, -2.25, kNaN, 4, kNaN, kNaN, kNaN}));
    EXPECT_TRUE(SameValues(r, expected_results<double>(op, events, missing)));
    add(0, {7, 8, kNaN, 9.5, 10, 11, 12, 13, 14, 15}, 0.5);
    EXPECT_TRUE(SameValues(results<double>(acc, 0, n), expected_results<double>(op, events, missing)));
    add(8, {-3, 100}, 4.0);
    add(0, {6}, 1.0);
    const auto full = results<double>(acc, 0, n);
    EXPECT_TRUE(SameValues(full, expected_results<double>(op, events, missing)));
    // result() on a sub-range reads only those points.
    EXPECT_TRUE(SameValues(results<double>(acc, 2, 5), std::vector<double>(full.begin() + 2, full.begin() + 7)));
    EXPECT_TRUE(SameValues(results<double>(acc, 9, 1), {full[9]}));
  }
}

TEST(Accumulator, AddInPiecesEqualsAddWhole) {
  const std::size_t n = 3000;
  const auto samples = make_samples<double>(n, kWeights.size(), -999.0, 5);
  for (TemporalOp op : kAllOps) {
    SCOPED_TRACE(std::string(temporal_op_name(op)));
    Accumulator whole(op, n), pieces(op, n);
    for (std::size_t t = 0; t < samples.size(); ++t) {
      whole.add(0, samples[t].data(), n, kWeights[t], -999.0);
      // Uneven pieces, in a different order each step.
      const std::size_t cut1 = 1 + 97 * t, cut2 = 1024 + 13 * t;
      pieces.add(cut2, samples[t].data() + cut2, n - cut2, kWeights[t], -999.0);
      pieces.add(0, samples[t].data(), cut1, kWeights[t], -999.0);
      pieces.add(cut1, samples[t].data() + cut1, cut2 - cut1, kWeights[t], -999.0);
    }
    EXPECT_TRUE(SameValues(results<double>(pieces, 0, n), results<double>(whole, 0, n)));
  }
}

TEST(Accumulator, ResetRestoresTheInitialState) {
  const std::size_t n = 6;
  const std::vector<double> first = {-50, 50, 1e6, -1e6, 3, kNaN};
  const std::vector<double> second = {5, -5, 2, 7, kNaN, 8};
  for (TemporalOp op : kAllOps) {
    SCOPED_TRACE(std::string(temporal_op_name(op)));
    Accumulator acc(op, n);
    acc.add(0, first.data(), n, 3.0);
    acc.add(0, first.data(), n, 1.0);
    acc.reset();
    EXPECT_EQ(acc.size(), n);
    EXPECT_EQ(acc.op(), op);
    EXPECT_TRUE(SameValues(results<double>(acc, 0, n), std::vector<double>(n, kNaN)));
    acc.add(0, second.data(), n, 2.0);
    Accumulator fresh(op, n);
    fresh.add(0, second.data(), n, 2.0);
    const auto r = results<double>(acc, 0, n);
    EXPECT_TRUE(SameValues(r, results<double>(fresh, 0, n)));
    // After reset only the second sample counts, whatever the operation.
    EXPECT_TRUE(SameValues(r, {5, -5, 2, 7, kNaN, 8}));
  }
}

TEST(Accumulator, DefaultConstructed) {
  Accumulator acc;
  EXPECT_EQ(acc.size(), 0u);
  EXPECT_EQ(acc.op(), TemporalOp::instant);
}

TEST(Accumulator, FloatSamplesAndAFloatMissingValue) {
  // The missing value as the model holds it in a float field, given exactly.
  const float fill = 1e20f;
  const std::vector<float> x1 = {fill, 2.5f}, x2 = {4.0f, fill};
  Accumulator acc(TemporalOp::average, 2);
  acc.add(0, x1.data(), 2, 1.0, static_cast<double>(fill));
  acc.add(0, x2.data(), 2, 1.0, static_cast<double>(fill));
  EXPECT_TRUE(SameValues(results<float>(acc, 0, 2), {4.0f, 2.5f}));
}

TEST(Accumulator, FloatSamplesWithMissingValueGivenInDouble) {
  // A float field whose missing value is configured as the double 1e20
  // (detect_missing_value with default_value="1e20", the usual XIOS setting),
  // written by the model as the float 1e20f. The client passes the double
  // (step_driver.cpp: the output's TemporalStage adds with its missing value).
  //
  // Regression: samples are compared with the missing value in their own
  // precision; 1e20f widened is 100000002004087734272, not 1e20, and used to
  // enter the average (point 0 gave 5.0000001002043867e19 instead of 4).
  const std::vector<float> x1 = {1e20f, 2.5f}, x2 = {4.0f, 1e20f};
  Accumulator acc(TemporalOp::average, 2);
  acc.add(0, x1.data(), 2, 1.0, 1e20);
  acc.add(0, x2.data(), 2, 1.0, 1e20);
  EXPECT_TRUE(SameValues(results<double>(acc, 0, 2), {4.0, 2.5}));
}

}  // namespace
}  // namespace foehn::filters

namespace foehn::filters {
namespace {

// add() tells whether every double it saw was finite, in every path (the
// write's report then skips its own count): each of NaN, +inf and -inf,
// placed anywhere in a vector long enough for the vector loop, is seen.
// Floats are never said to be finite (not checked).
template <class T>
void check_finite_tally(TemporalOp op) {
  constexpr std::size_t n = 37;
  const T specials[] = {std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::infinity(),
                        -std::numeric_limits<T>::infinity()};
  for (T special : specials)
    for (std::size_t at = 0; at < n; at += 5) {
      std::vector<T> in(n, T(1.5));
      Accumulator whole(op, n), parts(op, n), weighted(op, n);
      EXPECT_TRUE(whole.add(0, in.data(), n, 1.0));
      in[at] = special;
      EXPECT_FALSE(whole.add(0, in.data(), n, 1.0)) << temporal_op_name(op) << " at " << at;
      // Fragments (the servers' path): the one holding the special says so.
      const std::size_t half = n / 2;
      EXPECT_EQ(parts.add(0, in.data(), half, 1.0), at >= half);
      EXPECT_EQ(parts.add(half, in.data() + half, n - half, 1.0), at < half);
      // A missing value (1.5 here) is skipped, not non-finite.
      std::vector<T> finite(n, T(2));
      finite[at] = T(1.5);
      EXPECT_TRUE(weighted.add(0, finite.data(), n, 1.0, 1.5));
      EXPECT_TRUE(weighted.per_point_weights() || !reduces(op));
      EXPECT_FALSE(weighted.add(0, in.data(), n, 1.0, 1.5));
    }
}

TEST(Accumulator, AddTellsWhetherEveryValueWasFinite) {
  for (TemporalOp op : kAllOps) {
    check_finite_tally<double>(op);
    Accumulator floats(op, 3);
    const float finite[] = {1, 2, 3};
    EXPECT_FALSE(floats.add(0, finite, 3, 1.0));
  }
}

}  // namespace
}  // namespace foehn::filters
