// foehn's copy of netCDF-C's quantization (formats/quantize.h) against the
// library itself: the same values written by nc_put_var with
// nc_def_var_quantize and read back, for each algorithm, float and double,
// every number of bits or digits foehn accepts, values over the whole range
// of the type (random bits, subnormals, zeros of both signs, the fill
// value). Equal bit for bit but for NaN and infinities, which foehn keeps
// and netCDF-C 4.9.0 alters (granular_bitround makes them zeros).
#include <gtest/gtest.h>
#include <netcdf.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "formats/quantize.h"
#include "formats/writer.h"

namespace foehn::formats {
namespace {

void check(int status, const char* what) { ASSERT_EQ(status, NC_NOERR) << what << ": " << nc_strerror(status); }

// Random values of every magnitude and sign, some special values, and the fill value.
template <class T>
std::vector<T> samples(T fill) {
  using U = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
  std::mt19937_64 random(20261127);
  std::vector<T> v;
  for (int k = 0; k < 20000; ++k) {
    const U bits = static_cast<U>(random());
    T x;
    std::memcpy(&x, &bits, sizeof x);
    v.push_back(x);  // any exponent, NaN and infinities too
  }
  std::uniform_real_distribution<double> mantissa(-1, 1);
  std::uniform_int_distribution<int> exponent(-40, 40);
  for (int k = 0; k < 20000; ++k) v.push_back(static_cast<T>(std::ldexp(mantissa(random), exponent(random))));
  for (T x : {T(0), -T(0), T(1), T(-1), T(0.1), std::numeric_limits<T>::denorm_min(), std::numeric_limits<T>::max(),
              -std::numeric_limits<T>::min(), std::numeric_limits<T>::infinity(), std::numeric_limits<T>::quiet_NaN(),
              fill, fill, T(9.999999e-1)})
    v.push_back(x);
  return v;
}

// What netCDF-C stores for `values` under `mode` and `keep`.
template <class T>
std::vector<T> through_netcdf(const std::vector<T>& values, T fill, int mode, int keep) {
  // One file per test: ctest runs the tests as parallel processes.
  const std::string path =
      (std::filesystem::temp_directory_path() /
       ("foehn_quantize_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + ".nc"))
          .string();
  const nc_type type = sizeof(T) == 4 ? NC_FLOAT : NC_DOUBLE;
  int nc = 0, dim = 0, var = 0;
  std::vector<T> out(values.size());
  check(nc_create(path.c_str(), NC_NETCDF4 | NC_CLOBBER, &nc), "nc_create");
  check(nc_def_dim(nc, "n", values.size(), &dim), "nc_def_dim");
  check(nc_def_var(nc, "v", type, 1, &dim, &var), "nc_def_var");
  check(nc_def_var_fill(nc, var, NC_FILL, &fill), "nc_def_var_fill");
  check(nc_def_var_quantize(nc, var, mode, keep), "nc_def_var_quantize");
  check(nc_enddef(nc), "nc_enddef");
  if constexpr (sizeof(T) == 4) {
    check(nc_put_var_float(nc, var, values.data()), "nc_put_var");
    check(nc_get_var_float(nc, var, out.data()), "nc_get_var");
  } else {
    check(nc_put_var_double(nc, var, values.data()), "nc_put_var");
    check(nc_get_var_double(nc, var, out.data()), "nc_get_var");
  }
  check(nc_close(nc), "nc_close");
  std::filesystem::remove(path);
  return out;
}

template <class T>
void compare_with_netcdf(Quantization algorithm, int mode, int max_keep) {
  const T fill = T(1e20);
  const std::vector<T> values = samples<T>(fill);
  for (int keep = 1; keep <= max_keep; ++keep) {
    std::vector<T> ours = values;
    quantize(ours.data(), ours.size(), fill, algorithm, keep, 0);
    const std::vector<T> theirs = through_netcdf(values, fill, mode, keep);
    std::size_t changed = 0;
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (!std::isfinite(values[i])) {  // kept by foehn
        ASSERT_EQ(std::memcmp(&ours[i], &values[i], sizeof(T)), 0) << "non-finite value " << i << ", keep " << keep;
        continue;
      }
      ASSERT_EQ(std::memcmp(&ours[i], &theirs[i], sizeof(T)), 0)
          << "value " << i << " (" << values[i] << "), keep " << keep << ": foehn " << ours[i] << ", netCDF-C "
          << theirs[i];
      changed += std::memcmp(&ours[i], &values[i], sizeof(T)) != 0;
      if (values[i] == fill) { EXPECT_EQ(ours[i], fill); }
    }
    if (algorithm != Quantization::bitround || keep < max_keep) {  // BitRound at every bit keeps the values
      EXPECT_GT(changed, values.size() / 4) << "keep " << keep;
    }
  }
}

TEST(Quantize, BitRoundFloatEqualsNetcdf) {
  compare_with_netcdf<float>(Quantization::bitround, NC_QUANTIZE_BITROUND, 23);
}
TEST(Quantize, BitRoundDoubleEqualsNetcdf) {
  compare_with_netcdf<double>(Quantization::bitround, NC_QUANTIZE_BITROUND, 52);
}
TEST(Quantize, GranularBitRoundFloatEqualsNetcdf) {
  compare_with_netcdf<float>(Quantization::granular_bitround, NC_QUANTIZE_GRANULARBR, 7);
}
TEST(Quantize, GranularBitRoundDoubleEqualsNetcdf) {
  compare_with_netcdf<double>(Quantization::granular_bitround, NC_QUANTIZE_GRANULARBR, 15);
}
TEST(Quantize, BitGroomFloatEqualsNetcdf) {
  compare_with_netcdf<float>(Quantization::bitgroom, NC_QUANTIZE_BITGROOM, 7);
}
TEST(Quantize, BitGroomDoubleEqualsNetcdf) {
  compare_with_netcdf<double>(Quantization::bitgroom, NC_QUANTIZE_BITGROOM, 15);
}

// BitGroom's parity counts from `first`: a buffer quantized in two pieces
// equals it quantized at once when each piece says where it starts.
TEST(Quantize, BitGroomPiecesKeepTheirPositions) {
  std::vector<float> whole(101), pieces;
  for (std::size_t i = 0; i < whole.size(); ++i) whole[i] = 1.0f + 0.013f * static_cast<float>(i);
  pieces = whole;
  quantize(whole.data(), whole.size(), 1e20f, Quantization::bitgroom, 3, 0);
  quantize(pieces.data(), 37, 1e20f, Quantization::bitgroom, 3, 0);
  quantize(pieces.data() + 37, 64, 1e20f, Quantization::bitgroom, 3, 37);
  EXPECT_EQ(std::memcmp(whole.data(), pieces.data(), whole.size() * sizeof(float)), 0);
}

TEST(Quantize, UnknownAlgorithmIsRefused) {
  EXPECT_EQ(quantization_of(""), Quantization::none);
  EXPECT_EQ(quantization_of("granular_bitround"), Quantization::granular_bitround);
  EXPECT_THROW(quantization_of("zfp"), IoError);
}

}  // namespace
}  // namespace foehn::formats
