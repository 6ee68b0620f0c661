// Lossy quantization of float and double values in memory: netCDF-C 4.9's
// three algorithms (BitRound, Granular BitRound, BitGroom; nc4var.c's
// nc4_convert_type), bit for bit, for writers whose library has none (Zarr:
// netCDF-C quantizes only inside nc_put_var*). Values equal to the fill
// value are left as they are, as netCDF-C does; NaN and infinities too,
// where netCDF-C 4.9.0 alters them (docs/compression.md).
#pragma once

#include <cstddef>
#include <string>

namespace foehn::formats {

enum class Quantization { none, bitround, granular_bitround, bitgroom };

// The XML's name ("", "bitround", "granular_bitround", "bitgroom");
// anything else throws IoError.
Quantization quantization_of(const std::string& name);

// Quantizes `n` values in place, keeping `keep` mantissa bits (bitround)
// or significant digits (the others). `first`: the position of values[0]
// in the array written at once (BitGroom shaves even positions and sets
// odd ones, counted from the start of each nc_put_var* call in netCDF-C).
void quantize(float* values, std::size_t n, float fill, Quantization algorithm, int keep, std::size_t first);
void quantize(double* values, std::size_t n, double fill, Quantization algorithm, int keep, std::size_t first);

}  // namespace foehn::formats
