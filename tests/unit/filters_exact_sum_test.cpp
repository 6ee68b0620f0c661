// ExactSum against independent references: integer arithmetic in __int128
// (a sum of scaled integers, rounded once by the compiler's conversion),
// identities that a rounded sum breaks, and IEEE rounding cases.
#include "filters/exact_sum.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace foehn::filters {
namespace {

double exact_sum(const std::vector<double>& values) {
  ExactSum s;
  for (const double v : values) s.add(v);
  return s.value();
}

TEST(ExactSum, CancellationThatARoundedSumLoses) {
  EXPECT_EQ(exact_sum({1e16, 1.0, -1e16}), 1.0);
  EXPECT_EQ(exact_sum({1e300, 1e-300, -1e300}), 1e-300);
  EXPECT_EQ(exact_sum({}), 0.0);
  EXPECT_EQ(exact_sum({-2.5}), -2.5);
}

TEST(ExactSum, EqualsIntegerArithmeticRoundedOnce) {
  // x = m * 2^e with |m| < 2^53 and e in [-40, 20]: the exact sum is an
  // integer multiple of 2^-40 below 2^123, so __int128 holds it exactly.
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<std::int64_t> mantissa(-(std::int64_t{1} << 53) + 1, (std::int64_t{1} << 53) - 1);
  std::uniform_int_distribution<int> exponent(-40, 20);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<double> values;
    __int128 reference = 0;
    for (int k = 0; k < 1000; ++k) {
      const std::int64_t m = mantissa(rng);
      const int e = exponent(rng);
      values.push_back(std::ldexp(static_cast<double>(m), e));
      reference += static_cast<__int128>(m) << (e + 40);
    }
    EXPECT_EQ(exact_sum(values), std::ldexp(static_cast<double>(reference), -40)) << "trial " << trial;
  }
}

TEST(ExactSum, TheSameBitsInAnyOrderAndAnySplit) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::uniform_int_distribution<int> exponent(-300, 300);
  std::vector<double> values(20000);
  for (double& v : values) v = std::ldexp(unit(rng), exponent(rng) / 10);
  const double whole = exact_sum(values);
  for (int trial = 0; trial < 5; ++trial) {
    std::shuffle(values.begin(), values.end(), rng);
    EXPECT_EQ(exact_sum(values), whole);
    // Partial sums over uneven pieces, merged back to front, and their
    // normalised limbs added as int64 (what MPI_SUM does).
    std::vector<ExactSum> parts(7);
    for (std::size_t i = 0; i < values.size(); ++i) parts[(i * i + trial) % parts.size()].add(values[i]);
    ExactSum merged;
    for (auto p = parts.rbegin(); p != parts.rend(); ++p) merged.merge(*p);
    EXPECT_EQ(merged.value(), whole);
    ExactSum::Limbs summed{};
    for (ExactSum& p : parts)
      for (int l = 0; l < ExactSum::kLimbs; ++l) summed[l] += p.normalised()[l];
    EXPECT_EQ(ExactSum::from_limbs(summed).value(), whole);
  }
  // A naive sum of the same values is not order-independent here: the test
  // data is hard enough to tell.
  double forward = 0, backward = 0;
  for (const double v : values) forward += v;
  for (auto v = values.rbegin(); v != values.rend(); ++v) backward += *v;
  EXPECT_NE(forward, backward);
}

TEST(ExactSum, RoundsToNearestEven) {
  const double two53 = std::ldexp(1.0, 53);
  EXPECT_EQ(exact_sum({two53, 1.0}), two53);                             // tie: to even
  EXPECT_EQ(exact_sum({two53, 1.0, std::ldexp(1.0, -100)}), two53 + 2);  // just above the tie
  EXPECT_EQ(exact_sum({two53, 3.0}), two53 + 4);                         // tie: to even, upwards
  EXPECT_EQ(exact_sum({-two53, -1.0, -std::ldexp(1.0, -100)}), -(two53 + 2));
}

TEST(ExactSum, SubnormalsAndOverflow) {
  const double tiny = std::numeric_limits<double>::denorm_min(), big = std::numeric_limits<double>::max();
  EXPECT_EQ(exact_sum({tiny, tiny, tiny}), 3 * tiny);
  EXPECT_EQ(exact_sum({tiny, -tiny}), 0.0);
  EXPECT_EQ(exact_sum({std::numeric_limits<double>::min(), -tiny}), std::numeric_limits<double>::min() - tiny);
  EXPECT_EQ(exact_sum({big, big, -big}), big);  // the intermediate overflow is not an overflow here
  EXPECT_EQ(exact_sum({big, big}), std::numeric_limits<double>::infinity());
  EXPECT_EQ(exact_sum({-big, -big}), -std::numeric_limits<double>::infinity());
  ExactSum zero;
  zero.add(5.0);
  zero.add(-5.0);
  EXPECT_TRUE(zero.is_zero());
}

}  // namespace
}  // namespace foehn::filters
