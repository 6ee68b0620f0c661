// Counting the NaN and infinities a model writes (the report's per-field
// non-finite values, docs/report.md). Called once per write that foehn
// takes, over the array the model handed over: integer tests on the bits,
// which the compiler vectorises (no branch per value); values are told
// apart by kind only in blocks that hold a non-finite one, which is rare.
// bench/non_finite.cpp measures it against the copy a write makes anyway.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace foehn::client {

struct NonFiniteCounts {
  std::uint64_t nan = 0, pos_inf = 0, neg_inf = 0;
  bool any() const { return nan + pos_inf + neg_inf > 0; }
};

template <class T>
void count_non_finite(const T* values, std::size_t n, NonFiniteCounts& counts) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);
  using Bits = std::conditional_t<sizeof(T) == 8, std::uint64_t, std::uint32_t>;
  constexpr int kSignBit = 8 * sizeof(T) - 1;
  constexpr Bits kExponent = static_cast<Bits>(sizeof(T) == 8 ? 0x7FF0000000000000ull : 0x7F800000ull);
  constexpr Bits kMagnitude = ~(Bits{1} << kSignBit);
  constexpr std::size_t kBlock = 4096;  // values per first pass: small enough to be in cache for the second
  for (std::size_t b = 0; b < n; b += kBlock) {
    const std::size_t e = std::min(n, b + kBlock);
    std::size_t found = 0;
    for (std::size_t i = b; i < e; ++i) found += (std::bit_cast<Bits>(values[i]) & kExponent) == kExponent;
    if (found == 0) continue;
    for (std::size_t i = b; i < e; ++i) {
      const Bits u = std::bit_cast<Bits>(values[i]);
      const Bits magnitude = u & kMagnitude;
      if (magnitude > kExponent)
        ++counts.nan;
      else if (magnitude == kExponent)
        ++((u >> kSignBit) ? counts.neg_inf : counts.pos_inf);
    }
  }
}

}  // namespace foehn::client
