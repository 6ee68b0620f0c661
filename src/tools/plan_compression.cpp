// `foehn plan`'s estimate of compressed sizes. foehn cannot know the
// model's values before the run, so each compressed field gets a sample:
// a smooth synthetic field (a large-scale pattern plus a small wave, as
// temperature or pressure look) of its precision, quantized as the field
// asks (BitRound at the kept bits; digits as the bits that hold them),
// byte-shuffled and deflated at its level with zlib, the library netCDF's
// deflate filter uses. The fraction compressed / raw of the sample is the
// field's; docs/compression.md states how far it is from a real run's.
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "tools/plan.h"

namespace foehn::tools {

namespace {

constexpr std::int64_t kSamplePoints = 1 << 16;

// Round to nearest at `bits` explicit mantissa bits (ties away from zero),
// as netCDF-C's BitRound does; `mantissa` bits in the type.
template <typename U>
U bitround(U bits, int keep, int mantissa) {
  if (keep >= mantissa) return bits;
  const int drop = mantissa - keep;
  const U half = U(1) << (drop - 1);
  return (bits + half) & ~((U(1) << drop) - 1);
}

}  // namespace

double compressed_fraction(int prec, int level, const std::string& quantization, int keep, std::int64_t points) {
  if (level <= 0) return 1.0;  // quantization alone leaves the size as it is
  const std::int64_t n = std::max<std::int64_t>(1, std::min(points, kSamplePoints));
  const std::int64_t ni = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::sqrt(static_cast<double>(n))));
  // Bits that hold `keep` decimal digits, for the digit algorithms.
  const int bits = quantization == "bitround" ? keep : static_cast<int>(std::ceil(keep * std::log2(10.0)));
  std::vector<unsigned char> raw(static_cast<std::size_t>(n * prec));
  for (std::int64_t k = 0; k < n; ++k) {
    const double x = 2 * M_PI * static_cast<double>(k % ni) / static_cast<double>(ni);
    const double y = M_PI * static_cast<double>(k / ni) / static_cast<double>((n + ni - 1) / ni);
    const double v =
        280.0 + 30.0 * std::sin(y) + 5.0 * std::cos(3 * x) * std::sin(2 * y) + 0.5 * std::sin(17 * x + 5 * y);
    if (prec == 8) {
      std::uint64_t u;
      std::memcpy(&u, &v, 8);
      if (!quantization.empty()) u = bitround<std::uint64_t>(u, bits, 52);
      std::memcpy(raw.data() + 8 * k, &u, 8);
    } else {
      const float f = static_cast<float>(v);
      std::uint32_t u;
      std::memcpy(&u, &f, 4);
      if (!quantization.empty()) u = bitround<std::uint32_t>(u, bits, 23);
      std::memcpy(raw.data() + 4 * k, &u, 4);
    }
  }
  // HDF5's shuffle: byte b of every value together.
  std::vector<unsigned char> shuffled(raw.size());
  for (std::int64_t k = 0; k < n; ++k)
    for (int b = 0; b < prec; ++b)
      shuffled[static_cast<std::size_t>(b * n + k)] = raw[static_cast<std::size_t>(k * prec + b)];
  uLongf out_size = compressBound(static_cast<uLong>(shuffled.size()));
  std::vector<unsigned char> out(out_size);
  if (compress2(out.data(), &out_size, shuffled.data(), static_cast<uLong>(shuffled.size()), std::min(level, 9)) !=
      Z_OK)
    return 1.0;
  return std::min(1.0, static_cast<double>(out_size) / static_cast<double>(shuffled.size()));
}

}  // namespace foehn::tools
