// How a variable's values are stored: lossless filters (deflate with
// shuffle, szip) and netCDF-C's lossy quantization, recorded as CF-1.12
// says (section 8.4): the variable names a container variable that holds
// the algorithm and the library that applied it, and carries the number of
// significant bits (BitRound) or digits kept.
#include <netcdf_meta.h>

#include "formats/netcdf/netcdf_writer.h"

namespace foehn::formats::netcdf {

namespace {

int quantize_mode(const std::string& algorithm) {
  if (algorithm == "bitround") return NC_QUANTIZE_BITROUND;
  if (algorithm == "granular_bitround") return NC_QUANTIZE_GRANULARBR;
  if (algorithm == "bitgroom") return NC_QUANTIZE_BITGROOM;
  throw IoError("unknown quantization algorithm '" + algorithm + "'");
}

}  // namespace

void NetcdfWriter::define_compression(const output::VariableInfo& v, int var) {
  // Parallel writers filter too: their writes are collective (set_access).
  if (v.compression_filter == "szip")
    ds_.def_szip(var);
  else if (v.compression_level > 0)
    ds_.def_deflate(var, v.compression_level);  // after byte shuffling, as XIOS
  if (v.quantization.empty()) return;
  ds_.def_quantize(var, quantize_mode(v.quantization), v.quantization_keep);
  auto [it, added] = quantization_containers_.try_emplace(v.quantization, "quantization_" + v.quantization);
  if (added) {
    const int container = ds_.def_var(it->second, NC_INT, {});
    ds_.put_text(container, "algorithm", v.quantization);
    ds_.put_text(container, "implementation", "libnetcdf version " NC_VERSION);
  }
  ds_.put_text(var, "quantization", it->second);
  ds_.put_ints(var, v.quantization == "bitround" ? "quantization_nsb" : "quantization_nsd", {v.quantization_keep});
}

}  // namespace foehn::formats::netcdf
