// The GRIB2 file of the `grib` scheme (the thesis' critical-path baseline:
// IFS writes GRIB sequentially, a post-processing step converts it to
// NetCDF with CDO). One message per field and level, on the octahedral
// reduced Gaussian grid (GRIB's reduced_gg with the `pl` array), simple
// packing with `bits` bits per value, written by one process.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "grid/gaussian.h"

struct grib_handle;

namespace miniapp {

class GribFile {
 public:
  // fields: indices into kFields3d, or -1 for surface pressure.
  GribFile(const std::string& path, const foehn::grid::ReducedGaussianGrid& grid, int levels,
           const std::vector<int>& fields, int bits);
  ~GribFile();
  GribFile(const GribFile&) = delete;
  GribFile& operator=(const GribFile&) = delete;

  // Field i of `fields` at `seconds` after the start: levels x points values
  // (points for surface pressure), points fastest in global order.
  void write_field(int i, double seconds, const float* data);
  void close();
  std::int64_t bytes() const { return bytes_; }

 private:
  std::string path_;
  std::FILE* out_ = nullptr;
  int levels_;
  std::int64_t points_, bytes_ = 0;
  std::vector<int> fields_;
  std::vector<grib_handle*> handles_;  // one per field: grid, parameter, level type set once
  std::vector<double> values_;         // one level, widened for ecCodes
};

}  // namespace miniapp
