// What the filters tests share: exact comparison of values and arrays, NaN
// equal to NaN and the sign of zero kept.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <iomanip>
#include <limits>
#include <vector>

namespace foehn::filters {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// Exact equality of two values, NaN equal to NaN, and the sign of zero kept.
template <class T>
bool same(T actual, T expected) {
  if (std::isnan(expected)) return std::isnan(actual);
  return actual == expected && std::signbit(actual) == std::signbit(expected);
}

template <class T>
::testing::AssertionResult SameValues(const std::vector<T>& actual, const std::vector<T>& expected) {
  if (actual.size() != expected.size())
    return ::testing::AssertionFailure() << "size " << actual.size() << ", expected " << expected.size();
  for (std::size_t i = 0; i < actual.size(); ++i)
    if (!same(actual[i], expected[i]))
      return ::testing::AssertionFailure() << "first difference at index " << i << ": actual " << std::setprecision(17)
                                           << actual[i] << ", expected " << expected[i];
  return ::testing::AssertionSuccess();
}

}  // namespace foehn::filters
