// The accumulator's two ways of keeping weights (one for all points while
// every sample covers every point; one per point from the first skipped
// value or partial sample on) give the same bits as a plain per-point
// reference loop, whenever in the window the switch happens.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

#include "filters/temporal.h"

namespace {
using foehn::filters::Accumulator;
using foehn::filters::reduces;
using foehn::filters::TemporalOp;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
const TemporalOp kOps[] = {TemporalOp::instant,    TemporalOp::once,    TemporalOp::average,
                           TemporalOp::accumulate, TemporalOp::minimum, TemporalOp::maximum};

// The per-point definition, written independently: a running value and a
// weight per point, samples that are NaN or `missing` skipped.
struct Reference {
  TemporalOp op;
  std::vector<double> value, weight;
  Reference(TemporalOp o, std::size_t n) : op(o), value(n, 0.0), weight(n, 0.0) {
    if (o == TemporalOp::minimum) value.assign(n, INFINITY);
    if (o == TemporalOp::maximum) value.assign(n, -INFINITY);
  }
  template <class T>
  void add(std::size_t at, const T* in, std::size_t n, double w, double missing) {
    const double m = static_cast<double>(static_cast<T>(missing));
    for (std::size_t i = 0; i < n; ++i) {
      const double x = static_cast<double>(in[i]);
      const bool skip = std::isnan(x) || x == m;
      double& v = value[at + i];
      double& wt = weight[at + i];
      if (!reduces(op)) {
        v = skip ? kNaN : x;
        wt = skip ? 0 : 1;
        continue;
      }
      if (skip) continue;
      if (op == TemporalOp::average) v += w * x, wt += w;
      if (op == TemporalOp::accumulate) v += x, wt += 1;
      if (op == TemporalOp::minimum) v = std::min(v, x), wt += 1;
      if (op == TemporalOp::maximum) v = std::max(v, x), wt += 1;
    }
  }
  double result(std::size_t i) const {
    if (!(weight[i] > 0)) return kNaN;
    return op == TemporalOp::average ? value[i] / weight[i] : value[i];
  }
};

// Same bits (NaN equal to NaN).
bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0 || (std::isnan(a) && std::isnan(b)); }

template <class T>
std::vector<T> sample(std::size_t n, std::mt19937_64& gen, int missing_every) {
  std::uniform_real_distribution<double> d(-50, 50);
  std::vector<T> s(n);
  for (std::size_t i = 0; i < n; ++i) {
    s[i] = static_cast<T>(d(gen));
    if (missing_every > 0 && i % static_cast<std::size_t>(missing_every) == 3) s[i] = static_cast<T>(-999);
    if (missing_every > 0 && i % static_cast<std::size_t>(missing_every) == 5)
      s[i] = std::numeric_limits<T>::quiet_NaN();
  }
  return s;
}

template <class T>
void expect_same(const Accumulator& acc, const Reference& ref, std::size_t n) {
  std::vector<double> out(n);
  acc.result(0, out.data(), n);
  for (std::size_t i = 0; i < n; ++i)
    ASSERT_TRUE(same_bits(out[i], ref.result(i))) << "point " << i << ": " << out[i] << " vs " << ref.result(i);
}

template <class T>
class AccumulatorWeights : public ::testing::Test {};
using Types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(AccumulatorWeights, Types);

// Missing values first appear at sample `first_missing` (never: -1), in
// windows of 6 samples with irregular weights, over three windows (reset
// in between, so the memory of the per-point weights is reused).
TYPED_TEST(AccumulatorWeights, SwitchAnywhereInTheWindowGivesTheSameBits) {
  using T = TypeParam;
  const std::size_t n = 1037;  // not a multiple of any vector width
  const double weights[] = {1.0, 0.5, 3600.0, 1.0 / 3.0, 7.25, 900.0};
  for (TemporalOp op : kOps) {
    for (int first_missing : {-1, 0, 2, 5}) {
      SCOPED_TRACE(std::string(foehn::filters::temporal_op_name(op)) + ", missing from sample " +
                   std::to_string(first_missing));
      std::mt19937_64 gen(17);
      Accumulator acc(op, n);
      for (int window = 0; window < 3; ++window) {
        Reference ref(op, n);
        for (int k = 0; k < 6; ++k) {
          const auto s = sample<T>(n, gen, first_missing >= 0 && k >= first_missing ? 11 : 0);
          acc.add(0, s.data(), n, weights[k], -999.0);
          ref.add(0, s.data(), n, weights[k], -999.0);
        }
        expect_same<T>(acc, ref, n);
        // Weights per point only once a point was skipped, and never for instant values.
        EXPECT_EQ(acc.per_point_weights(), reduces(op) && first_missing >= 0);
        acc.reset();
        EXPECT_FALSE(acc.per_point_weights());
      }
    }
  }
}

// A server adds a sample fragment by fragment (each client's part); a
// fragment that arrives or not must give the same as the reference.
TYPED_TEST(AccumulatorWeights, FragmentsAndMissingFragments) {
  using T = TypeParam;
  const std::size_t n = 300;
  for (TemporalOp op : kOps) {
    SCOPED_TRACE(std::string(foehn::filters::temporal_op_name(op)));
    std::mt19937_64 gen(5);
    Accumulator acc(op, n);
    Reference ref(op, n);
    // A whole clean sample first (one weight for all), then fragments.
    const auto s0 = sample<T>(n, gen, 0);
    acc.add(0, s0.data(), n, 2.0);
    ref.add(0, s0.data(), n, 2.0, kNaN);
    EXPECT_FALSE(acc.per_point_weights());
    for (int k = 1; k < 4; ++k) {
      const auto s = sample<T>(n, gen, 0);
      acc.add(0, s.data(), 100, 1.5, kNaN);  // points [100, 200) miss this sample in sample 2
      ref.add(0, s.data(), 100, 1.5, kNaN);
      if (k != 2) {
        acc.add(100, s.data() + 100, 100, 1.5, kNaN);
        ref.add(100, s.data() + 100, 100, 1.5, kNaN);
      }
      acc.add(200, s.data() + 200, 100, 1.5, kNaN);
      ref.add(200, s.data() + 200, 100, 1.5, kNaN);
    }
    expect_same<T>(acc, ref, n);
  }
}

// docs/operations.md: NaN is missing whether or not a missing value is
// given; infinities are data.
TEST(AccumulatorWeights, NaNIsSkippedInfinitiesAreData) {
  const double inf = INFINITY;
  auto run = [](TemporalOp op, std::vector<double> samples) {
    Accumulator acc(op, 1);
    for (double x : samples) acc.add(0, &x, 1, 1.0);
    double out = 0;
    acc.result(0, &out, 1);
    return out;
  };
  EXPECT_EQ(run(TemporalOp::average, {1, kNaN, 3}), 2.0);
  EXPECT_EQ(run(TemporalOp::accumulate, {1, kNaN, 3}), 4.0);
  EXPECT_EQ(run(TemporalOp::average, {1, inf}), inf);
  EXPECT_TRUE(std::isnan(run(TemporalOp::average, {inf, -inf})));
  EXPECT_EQ(run(TemporalOp::maximum, {-inf, 2}), 2.0);
  EXPECT_EQ(run(TemporalOp::minimum, {-inf, 2}), -inf);
  EXPECT_TRUE(std::isnan(run(TemporalOp::instant, {1, kNaN})));
}

// A reset writes nothing: the next window's first sample sets the running
// values. Stale values must never show, and -0.0 samples sum to +0.0 as from
// the start value; a window that starts with fragments (the server) writes
// the start values first.
TYPED_TEST(AccumulatorWeights, DeferredResetGivesTheSameBits) {
  using T = TypeParam;
  const std::size_t n = 67;
  for (TemporalOp op : kOps) {
    SCOPED_TRACE(std::string(foehn::filters::temporal_op_name(op)));
    std::mt19937_64 gen(23);
    Accumulator acc(op, n);
    for (int window = 0; window < 4; ++window) {
      Reference ref(op, n);
      for (int k = 0; k < 3; ++k) {
        auto s = sample<T>(n, gen, window == 3 ? 7 : 0);
        for (std::size_t i = 0; i < n; i += 5) s[i] = static_cast<T>(-0.0);
        if (window == 2 && k == 0) {  // fragments first: [0, 30) and [40, n); [30, 40) missed
          acc.add(0, s.data(), 30, 2.0, -999.0);
          ref.add(0, s.data(), 30, 2.0, -999.0);
          acc.add(40, s.data() + 40, n - 40, 2.0, -999.0);
          ref.add(40, s.data() + 40, n - 40, 2.0, -999.0);
          continue;
        }
        acc.add(0, s.data(), n, 0.5 + k, -999.0);
        ref.add(0, s.data(), n, 0.5 + k, -999.0);
      }
      expect_same<T>(acc, ref, n);
      acc.reset();
    }
  }
}

// uniform_result() applied to the running values is result(), bit for bit,
// in float and double: what a client packs at a period's end.
TEST(AccumulatorWeights, UniformResultIsTheResult) {
  const std::size_t n = 41;
  for (TemporalOp op : kOps) {
    SCOPED_TRACE(std::string(foehn::filters::temporal_op_name(op)));
    std::mt19937_64 gen(29);
    Accumulator acc(op, n);
    for (int samples : {0, 1, 6}) {
      acc.reset();
      for (int k = 0; k < samples; ++k) {
        const auto s = sample<double>(n, gen, 0);
        acc.add(0, s.data(), n, 1.0 / 3.0 + k);
      }
      ASSERT_FALSE(acc.per_point_weights());
      std::vector<double> out64(n);
      std::vector<float> out32(n);
      acc.result(0, out64.data(), n);
      acc.result(0, out32.data(), n);
      const Accumulator::UniformResult r = acc.uniform_result();
      for (std::size_t i = 0; i < n; ++i) {
        ASSERT_TRUE(same_bits(r(acc.values()[i]), out64[i])) << samples << " samples, point " << i;
        const float f = static_cast<float>(r(acc.values()[i]));
        ASSERT_TRUE(std::memcmp(&f, &out32[i], sizeof f) == 0 || (std::isnan(f) && std::isnan(out32[i])));
      }
    }
  }
  // With per-point weights the running values alone do not give the result.
  Accumulator acc(TemporalOp::average, 2);
  const double s[2] = {1.0, kNaN};
  acc.add(0, s, 2, 1.0);
  EXPECT_THROW(acc.uniform_result(), std::logic_error);
}

// A checkpoint taken right after a reset holds the start values (the
// deferred reset is written when they are read), so a restored window
// continues as the reference does.
TEST(AccumulatorWeights, ValuesAfterResetAreTheStartValues) {
  const std::size_t n = 9;
  for (TemporalOp op : {TemporalOp::average, TemporalOp::minimum, TemporalOp::maximum}) {
    Accumulator acc(op, n);
    std::vector<double> s(n);
    for (std::size_t i = 0; i < n; ++i) s[i] = 3.0 * static_cast<double>(i) - 7.0;
    acc.add(0, s.data(), n, 1.0);
    acc.reset();
    std::vector<double> saved(acc.values(), acc.values() + n);
    Accumulator restored(op, n);
    restored.restore(saved.data(), nullptr, acc.weight_all());
    Reference ref(op, n);
    for (std::size_t i = 0; i < n; ++i) s[i] = 1.5 - static_cast<double>(i);
    restored.add(0, s.data(), n, 1.0);
    ref.add(0, s.data(), n, 1.0, kNaN);
    expect_same<double>(restored, ref, n);
  }
}

TEST(AccumulatorWeights, NoSampleGivesNaNEverywhere) {
  for (TemporalOp op : kOps) {
    Accumulator acc(op, 4);
    std::vector<double> out(4, 1.0);
    acc.result(0, out.data(), 4);
    for (double x : out) EXPECT_TRUE(std::isnan(x)) << foehn::filters::temporal_op_name(op);
  }
}
}  // namespace
