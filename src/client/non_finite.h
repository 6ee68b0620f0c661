// Counting the NaN and infinities a model writes (the report's per-field
// non-finite values, docs/report.md). Called once per write that foehn
// takes, over the array the model handed over: integer tests on the bits,
// which the compiler vectorises (no branch per value), by blocks; values
// are told apart by kind only in blocks that hold a non-finite one, which
// is rare (and in the last, partial block).
// bench/non_finite.cpp measures it against the copy a write makes anyway.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace foehn::client {

struct NonFiniteCounts {
  std::uint64_t nan = 0, pos_inf = 0, neg_inf = 0;
  bool any() const { return nan + pos_inf + neg_inf > 0; }
};

namespace detail {
// The word that holds the exponent (a double's upper half), as 32 bits:
// baseline x86-64 (SSE2) compares 32-bit lanes, not 64-bit ones.
template <class T>
inline std::uint32_t exponent_word(T x) {
  if constexpr (sizeof(T) == 8)
    return static_cast<std::uint32_t>(std::bit_cast<std::uint64_t>(x) >> 32);
  else
    return std::bit_cast<std::uint32_t>(x);
}

template <class T>
inline constexpr std::uint32_t kExponentWord = sizeof(T) == 8 ? 0x7FF00000u : 0x7F800000u;

// Values whose exponent is all ones in [b, b + count): with count a
// constant, gcc's -O2 (its very-cheap cost model) vectorises the loop.
template <class T, std::size_t kCount>
inline std::uint32_t non_finite_in(const T* __restrict values) {
  std::uint32_t found = 0;
  for (std::size_t i = 0; i < kCount; ++i)
    found += (exponent_word(values[i]) & kExponentWord<T>) == kExponentWord<T>;
  return found;
}

template <class T>
void split_by_kind(const T* values, std::size_t n, NonFiniteCounts& counts) {
  using Bits = std::conditional_t<sizeof(T) == 8, std::uint64_t, std::uint32_t>;
  constexpr int kSignBit = 8 * sizeof(T) - 1;
  constexpr Bits kExponent = static_cast<Bits>(sizeof(T) == 8 ? 0x7FF0000000000000ull : 0x7F800000ull);
  constexpr Bits kMagnitude = static_cast<Bits>(~(Bits{1} << kSignBit));
  std::uint64_t nan = 0, pos_inf = 0, neg_inf = 0;  // sums of 0 and 1: no branch to mispredict
  for (std::size_t i = 0; i < n; ++i) {
    const Bits u = std::bit_cast<Bits>(values[i]);
    const Bits magnitude = u & kMagnitude;
    const std::uint64_t negative = u >> kSignBit, inf = magnitude == kExponent;
    nan += magnitude > kExponent;
    pos_inf += inf & (negative ^ 1);
    neg_inf += inf & negative;
  }
  counts.nan += nan, counts.pos_inf += pos_inf, counts.neg_inf += neg_inf;
}
}  // namespace detail

template <class T>
void count_non_finite(const T* values, std::size_t n, NonFiniteCounts& counts) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);
  constexpr std::size_t kBlock = 4096;  // values per first pass: still in cache for the second
  std::size_t b = 0;
  for (; b + kBlock <= n; b += kBlock)
    if (detail::non_finite_in<T, kBlock>(values + b) != 0) detail::split_by_kind(values + b, kBlock, counts);
  if (b < n) detail::split_by_kind(values + b, n - b, counts);  // the tail: fewer than kBlock values
}

}  // namespace foehn::client
