// netCDF-C 4.9.0's quantization (libsrc4/nc4var.c), reimplemented from its
// description: the same masks from the same formulas, so the stored bits are
// the same. Where netCDF-C's code relies on undefined behaviour (a negative
// shift count, a double out of int's range converted to int) this follows
// what x86-64 does, the machine its results were checked on
// (tests/unit/formats_quantize_test.cpp compares with the library itself).
#include "formats/quantize.h"

#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "formats/writer.h"

namespace foehn::formats {

Quantization quantization_of(const std::string& name) {
  if (name.empty()) return Quantization::none;
  if (name == "bitround") return Quantization::bitround;
  if (name == "granular_bitround") return Quantization::granular_bitround;
  if (name == "bitgroom") return Quantization::bitgroom;
  throw IoError("unknown quantization algorithm '" + name + "'");
}

namespace {

template <class T>
struct Bits;
template <>
struct Bits<float> {
  using U = std::uint32_t;
  static constexpr int mantissa = 23;
  static constexpr U exponent = 0x7f800000u;
};
template <>
struct Bits<double> {
  using U = std::uint64_t;
  static constexpr int mantissa = 52;
  static constexpr U exponent = 0x7ff0000000000000ull;
};

// x86-64's shl: the count taken modulo the width (netCDF-C shifts by a
// negative count when more bits are asked than the type has).
template <class U>
U ones_shifted(int count) {
  return ~U{0} << (static_cast<unsigned>(count) & (sizeof(U) * 8 - 1));
}

// x86-64's cvttsd2si: NaN and out-of-range values give INT_MIN.
int to_int(double x) { return x >= -2147483648.0 && x < 2147483648.0 ? static_cast<int>(x) : INT_MIN; }

int wrapping_sub(int a, int b) { return static_cast<int>(static_cast<unsigned>(a) - static_cast<unsigned>(b)); }

// BitRound: round to nearest (ties away from zero) at the kept bits by
// adding half of the last kept bit and clearing the others. Branch-free:
// vectorised (omp simd, -fopenmp-simd -fno-trapping-math in CMakeLists.txt).
template <class T>
void bitround(T* values, std::size_t n, T fill, int keep) {
  using U = typename Bits<T>::U;
  const U clear = ones_shifted<U>(Bits<T>::mantissa - keep);
  const U half = ~clear & (clear >> 1);
#pragma omp simd
  for (std::size_t i = 0; i < n; ++i) {
    U u;
    std::memcpy(&u, values + i, sizeof u);
    const bool kept = values[i] == fill || (u & Bits<T>::exponent) == Bits<T>::exponent;
    const U rounded = (u + half) & clear;
    u = kept ? u : rounded;
    std::memcpy(values + i, &u, sizeof u);
  }
}

// BitGroom: alternately shave (clear) and set the dropped bits; zeros are
// never set (but -0.0, whose bits are not zero, is, as in netCDF-C).
template <class T>
void bitgroom(T* values, std::size_t n, T fill, int digits, std::size_t first) {
  using U = typename Bits<T>::U;
  const double bits_per_digit = M_LN10 / M_LN2;
  const int required = static_cast<unsigned short>(std::ceil(digits * bits_per_digit) + 1);
  const U clear = ones_shifted<U>(Bits<T>::mantissa - required);
  const U set = ~clear;
#pragma omp simd
  for (std::size_t i = 0; i < n; ++i) {
    U u;
    std::memcpy(&u, values + i, sizeof u);
    const bool kept = values[i] == fill || (u & Bits<T>::exponent) == Bits<T>::exponent;
    const U odd = U{0} - static_cast<U>((first + i) & 1);  // all ones at odd positions
    const U set_bits = set & (U{0} - static_cast<U>(u != 0));
    const U groomed = (u & (clear | odd)) | (set_bits & odd);  // even: shaved; odd: set unless zero
    u = kept ? u : groomed;
    std::memcpy(values + i, &u, sizeof u);
  }
}

// Granular BitRound: BitRound at the bits that hold `digits` significant
// digits of each value (its decimal exponent decides), computed as
// netCDF-C does, in double with the C library's frexp and log10.
template <class T>
void granular_bitround(T* values, std::size_t n, T fill, int digits) {
  using U = typename Bits<T>::U;
  const double bits_per_digit = M_LN10 / M_LN2;
  const double digits_per_bit = M_LN2 / M_LN10;
  for (std::size_t i = 0; i < n; ++i) {
    U u;
    std::memcpy(&u, values + i, sizeof u);
    if (values[i] == fill || u == 0 || (u & Bits<T>::exponent) == Bits<T>::exponent) continue;
    const double value = values[i];
    int exponent2 = 0;
    const double mantissa = std::fabs(std::frexp(value, &exponent2));
    const double log_mantissa = std::log10(mantissa);
    const int digits_before = to_int(std::floor(exponent2 * digits_per_bit + log_mantissa)) + 1;
    const int power = to_int(std::floor(bits_per_digit * wrapping_sub(digits_before, digits)));
    const int gap = wrapping_sub(to_int(std::floor(exponent2 - bits_per_digit * log_mantissa)), power);
    auto required = static_cast<unsigned short>(mantissa == 0.0 ? 0 : gap < 0 ? wrapping_sub(0, gap) : gap);
    --required;  // netCDF-C keeps one bit fewer than the formula (more compression, its tests pass)
    const U clear = ones_shifted<U>(Bits<T>::mantissa - static_cast<int>(required));
    const U half = ~clear & (clear >> 1);
    u = (u + half) & clear;
    std::memcpy(values + i, &u, sizeof u);
  }
}

template <class T>
void quantize_values(T* values, std::size_t n, T fill, Quantization algorithm, int keep, std::size_t first) {
  switch (algorithm) {
    case Quantization::none: return;
    case Quantization::bitround: return bitround(values, n, fill, keep);
    case Quantization::granular_bitround: return granular_bitround(values, n, fill, keep);
    case Quantization::bitgroom: return bitgroom(values, n, fill, keep, first);
  }
}

}  // namespace

void quantize(float* values, std::size_t n, float fill, Quantization algorithm, int keep, std::size_t first) {
  quantize_values(values, n, fill, algorithm, keep, first);
}

void quantize(double* values, std::size_t n, double fill, Quantization algorithm, int keep, std::size_t first) {
  quantize_values(values, n, fill, algorithm, keep, first);
}

}  // namespace foehn::formats
