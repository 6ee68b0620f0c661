// The report's count of NaN and infinities per write
// (client/non_finite.h), against std::isnan and std::isinf over the same
// values: every kind of NaN (quiet, signalling, negative, any payload),
// both infinities, the largest finite values and subnormals, in float and
// double, across blocks of the kernel's first pass.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "client/non_finite.h"

namespace foehn::client {
namespace {

template <class T>
NonFiniteCounts reference(const std::vector<T>& v) {
  NonFiniteCounts c;
  for (T x : v) {
    if (std::isnan(x)) ++c.nan;
    if (std::isinf(x)) ++(x > 0 ? c.pos_inf : c.neg_inf);
  }
  return c;
}

template <class T>
void check_mixture(std::size_t n, unsigned seed) {
  using L = std::numeric_limits<T>;
  const T specials[] = {L::quiet_NaN(), -L::quiet_NaN(), L::signaling_NaN(), L::infinity(), -L::infinity(),
                        L::max(),       L::lowest(),     L::denorm_min(),    T(0),          -T(0)};
  std::mt19937 random(seed);
  std::vector<T> v(n);
  for (auto& x : v) {
    const unsigned r = random() % 1000;
    x = r < 10 ? specials[r] : static_cast<T>(r) - T(500);
  }
  if (n > 7) {  // a NaN whose payload is only the lowest mantissa bit
    auto bits = sizeof(T) == 8 ? std::uint64_t{0x7FF0000000000001} : std::uint64_t{0x7F800001};
    std::memcpy(&v[7], &bits, sizeof(T));
  }
  NonFiniteCounts got;
  count_non_finite(v.data(), v.size(), got);
  const NonFiniteCounts want = reference(v);
  EXPECT_EQ(got.nan, want.nan) << n;
  EXPECT_EQ(got.pos_inf, want.pos_inf) << n;
  EXPECT_EQ(got.neg_inf, want.neg_inf) << n;
}

TEST(NonFinite, CountsEachKindAsTheStandardLibraryDoes) {
  for (std::size_t n : {0, 1, 9, 4095, 4096, 4097, 20000}) {
    check_mixture<float>(n, static_cast<unsigned>(n));
    check_mixture<double>(n, static_cast<unsigned>(n) + 1);
  }
}

TEST(NonFinite, AddsUpOverWrites) {
  std::vector<double> v(10000, 1.5);
  v[4095] = std::numeric_limits<double>::quiet_NaN();  // the last of a block, the first of the next
  v[4096] = -std::numeric_limits<double>::infinity();
  NonFiniteCounts c;
  count_non_finite(v.data(), v.size(), c);
  count_non_finite(v.data(), v.size(), c);
  EXPECT_EQ(c.nan, 2u);
  EXPECT_EQ(c.neg_inf, 2u);
  EXPECT_EQ(c.pos_inf, 0u);
  EXPECT_TRUE(c.any());
  NonFiniteCounts none;
  count_non_finite(v.data(), 4095, none);
  EXPECT_FALSE(none.any());
}

}  // namespace
}  // namespace foehn::client
