// Exact, order-independent sums of doubles, for reductions whose inputs are
// split between ranks (a zonal mean over a decomposed row, a global sum):
// partial sums made on each rank and merged in any order give the same
// bits as one sum over all points, whatever the decomposition.
//
// Every finite double is an integer multiple of 2^-1074 below 2^1024, so
// the exact sum of up to 2^62 of them is a fixed-point number of about
// 2160 bits. ExactSum keeps it in 64-bit limbs of 32 bits each: the spare
// high bits absorb carries, so adding a value is three integer additions,
// and merging two sums (here or through MPI_SUM of the limbs as int64) adds
// limb by limb. value() rounds the exact sum once, to nearest even.
#pragma once

#include <array>
#include <bit>
#include <cstdint>

namespace foehn::filters {

class ExactSum {
 public:
  static constexpr int kLimbBits = 32;
  // 2098 bits from 2^-1074 to 2^1024, 64 of headroom for the count.
  static constexpr int kLimbs = (1074 + 1024 + 64) / kLimbBits + 1;
  using Limbs = std::array<std::int64_t, kLimbs>;

  // x finite (NaN and infinities are the caller's: a reduction skips NaN as
  // missing and keeps infinities apart).
  void add(double x) {
    const auto bits = std::bit_cast<std::uint64_t>(x);
    const auto biased = static_cast<int>((bits >> 52) & 0x7ff);
    std::uint64_t mantissa = bits & ((std::uint64_t{1} << 52) - 1);
    if (biased != 0) mantissa |= std::uint64_t{1} << 52;
    // x = mantissa * 2^(position - 1074): position is the bit of 2^-1074 units.
    const int position = biased == 0 ? 0 : biased - 1;
    const int limb = position / kLimbBits, shift = position % kLimbBits;
    const unsigned __int128 wide = static_cast<unsigned __int128>(mantissa) << shift;  // < 2^85
    const std::int64_t sign = static_cast<std::int64_t>(bits >> 63) ? -1 : 1;
    limbs_[limb] += sign * static_cast<std::int64_t>(static_cast<std::uint64_t>(wide) & kLow);
    limbs_[limb + 1] += sign * static_cast<std::int64_t>(static_cast<std::uint64_t>(wide >> kLimbBits) & kLow);
    limbs_[limb + 2] += sign * static_cast<std::int64_t>(static_cast<std::uint64_t>(wide >> (2 * kLimbBits)));
    if (++pending_ == kCarryEvery) normalise();
  }
  void merge(const ExactSum& other);
  // The exact sum rounded to the nearest double (ties to even); beyond the
  // largest double, an infinity of its sign.
  double value() const;
  bool is_zero() const;

  // The limbs with carries propagated (each in [0, 2^32) but the top one,
  // which carries the sign): what crosses MPI, summed as int64.
  const Limbs& normalised() {
    normalise();
    return limbs_;
  }
  static ExactSum from_limbs(const Limbs& limbs);

 private:
  static constexpr std::uint64_t kLow = (std::uint64_t{1} << kLimbBits) - 1;
  // Each add puts less than 2^32 into a limb: 2^30 of them leave room.
  static constexpr std::int64_t kCarryEvery = std::int64_t{1} << 30;
  void normalise();

  Limbs limbs_{};
  std::int64_t pending_ = 0;  // adds since the last normalise
};

}  // namespace foehn::filters
