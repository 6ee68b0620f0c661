#include "filters/exact_sum.h"

#include <cmath>

namespace foehn::filters {

void ExactSum::normalise() {
  // Arithmetic shifts floor: each limb but the top ends in [0, 2^32).
  for (int i = 0; i + 1 < kLimbs; ++i) {
    const std::int64_t carry = limbs_[i] >> kLimbBits;
    limbs_[i] -= carry * (std::int64_t{1} << kLimbBits);
    limbs_[i + 1] += carry;
  }
  pending_ = 0;
}

void ExactSum::merge(const ExactSum& other) {
  ExactSum theirs = other;
  theirs.normalise();
  normalise();
  for (int i = 0; i < kLimbs; ++i) limbs_[i] += theirs.limbs_[i];
  normalise();
}

ExactSum ExactSum::from_limbs(const Limbs& limbs) {
  ExactSum s;
  s.limbs_ = limbs;
  s.normalise();
  return s;
}

bool ExactSum::is_zero() const {
  ExactSum s = *this;
  s.normalise();
  for (const std::int64_t l : s.limbs_)
    if (l != 0) return false;
  return true;
}

double ExactSum::value() const {
  ExactSum s = *this;
  s.normalise();
  const bool negative = s.limbs_[kLimbs - 1] < 0;
  if (negative) {  // the magnitude: negate, and carry again
    for (std::int64_t& l : s.limbs_) l = -l;
    s.normalise();
  }
  int top = kLimbs - 1;
  while (top >= 0 && s.limbs_[top] == 0) --top;
  if (top < 0) return 0.0;
  // The four limbs from the top hold at least 97 significant bits: enough
  // to round to 53, with the limbs below only saying whether anything is
  // left (sticky).
  const int low = top >= 3 ? top - 3 : 0;
  unsigned __int128 v = 0;
  for (int i = top; i >= low; --i) v = (v << kLimbBits) | static_cast<std::uint64_t>(s.limbs_[i]);
  bool sticky = false;
  for (int i = 0; i < low; ++i) sticky = sticky || s.limbs_[i] != 0;
  const int base = low * kLimbBits - 1074;  // v's unit is 2^base
  const auto high64 = static_cast<std::uint64_t>(v >> 64);
  const int lead = high64 ? 127 - std::countl_zero(high64) : 63 - std::countl_zero(static_cast<std::uint64_t>(v));
  double magnitude;
  if (lead <= 52) {
    // Exact: 53 bits or fewer (subnormal results are always here or exact
    // below, since every bit is a multiple of 2^-1074).
    magnitude = std::ldexp(static_cast<double>(static_cast<std::uint64_t>(v)), base);
  } else {
    int shift = lead - 52;
    auto mantissa = static_cast<std::uint64_t>(v >> shift);
    const unsigned __int128 rest = v & ((static_cast<unsigned __int128>(1) << shift) - 1);
    const unsigned __int128 half = static_cast<unsigned __int128>(1) << (shift - 1);
    if (rest > half || (rest == half && (sticky || (mantissa & 1)))) ++mantissa;
    if (mantissa == std::uint64_t{1} << 53) mantissa >>= 1, ++shift;
    magnitude = std::ldexp(static_cast<double>(mantissa), base + shift);  // inf beyond the largest double
  }
  return negative ? -magnitude : magnitude;
}

}  // namespace foehn::filters
