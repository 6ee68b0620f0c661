#include "grib_file.h"

#include <eccodes.h>

#include <algorithm>
#include <stdexcept>

#include "fields.h"

namespace miniapp {

namespace {

// ECMWF parameter ids of the thesis' fields (kFields3d order), then sp.
constexpr long kParamIds[] = {131, 132, 130, 155, 138, 133, 248, 203, 75, 76, 246, 247};
constexpr long kSurfacePressureParam = 134;

void check(int status, const std::string& what) {
  if (status != 0) throw std::runtime_error("ecCodes: " + what + ": " + codes_get_error_message(status));
}

}  // namespace

GribFile::GribFile(const std::string& path, const foehn::grid::ReducedGaussianGrid& grid, int levels,
                   const std::vector<int>& fields, int bits)
    : path_(path), levels_(levels), points_(grid.size()), fields_(fields) {
  if (bits < 1 || bits > 32) throw std::invalid_argument("GRIB bits per value must be in 1..32");
  // The sample of a model-level field on a reduced Gaussian grid; its grid
  // is replaced by O<N>: N, the rows' point counts, the first and last points.
  codes_handle* base = codes_grib_handle_new_from_samples(nullptr, "reduced_gg_ml_grib2");
  if (!base) throw std::runtime_error("ecCodes: no sample reduced_gg_ml_grib2 (is libeccodes-data installed?)");
  const std::vector<int>& pl = grid.points_per_row();
  std::vector<long> pl_long(pl.begin(), pl.end());
  long widest = 0;
  for (const long p : pl_long) widest = std::max(widest, p);
  check(codes_set_long(base, "N", grid.n()), "N");
  check(codes_set_long(base, "Nj", grid.rows()), "Nj");
  check(codes_set_long_array(base, "pl", pl_long.data(), pl_long.size()), "pl");
  check(codes_set_double(base, "latitudeOfFirstGridPointInDegrees", grid.latitudes().front()), "first latitude");
  check(codes_set_double(base, "latitudeOfLastGridPointInDegrees", grid.latitudes().back()), "last latitude");
  check(codes_set_double(base, "longitudeOfFirstGridPointInDegrees", 0.0), "first longitude");
  check(codes_set_double(base, "longitudeOfLastGridPointInDegrees", 360.0 - 360.0 / static_cast<double>(widest)),
        "last longitude");
  check(codes_set_long(base, "dataDate", 20000101), "dataDate");  // ifs_context.xml's start date
  check(codes_set_long(base, "dataTime", 0), "dataTime");
  // Forecast time in seconds (code 13), so that any time step is exact.
  check(codes_set_long(base, "indicatorOfUnitOfTimeRange", 13), "indicatorOfUnitOfTimeRange");
  check(codes_set_long(base, "bitsPerValue", bits), "bitsPerValue");
  for (const int f : fields) {
    codes_handle* h = codes_handle_clone(base);
    if (!h) throw std::runtime_error("ecCodes: cannot clone a GRIB handle");
    handles_.push_back(h);
    if (f < 0) {
      check(codes_set_string(h, "typeOfLevel", "surface", nullptr), "typeOfLevel");
      check(codes_set_long(h, "paramId", kSurfacePressureParam), "paramId");
    } else {
      check(codes_set_string(h, "typeOfLevel", "hybrid", nullptr), "typeOfLevel");
      // The sample's hybrid coefficients belong to another model: none here.
      check(codes_set_long(h, "NV", 0), "NV");
      check(codes_set_long(h, "paramId", kParamIds[f]), "paramId");
    }
  }
  codes_handle_delete(base);
  values_.resize(static_cast<std::size_t>(points_));
  out_ = std::fopen(path.c_str(), "wb");
  if (!out_) throw std::runtime_error("cannot create " + path);
}

GribFile::~GribFile() {
  for (codes_handle* h : handles_) codes_handle_delete(h);
  if (out_) std::fclose(out_);
}

void GribFile::write_field(int i, double seconds, const float* data) {
  codes_handle* h = handles_.at(static_cast<std::size_t>(i));
  const int depth = fields_[static_cast<std::size_t>(i)] < 0 ? 1 : levels_;
  check(codes_set_long(h, "forecastTime", static_cast<long>(seconds)), "forecastTime");
  for (int k = 0; k < depth; ++k) {
    if (depth > 1) check(codes_set_long(h, "level", k + 1), "level");
    const float* level = data + static_cast<std::int64_t>(k) * points_;
    for (std::int64_t p = 0; p < points_; ++p) values_[static_cast<std::size_t>(p)] = level[p];
    check(codes_set_double_array(h, "values", values_.data(), values_.size()), "values");
    const void* message = nullptr;
    std::size_t size = 0;
    check(codes_get_message(h, &message, &size), "get message");
    if (std::fwrite(message, 1, size, out_) != size) throw std::runtime_error("writing " + path_ + " failed");
    bytes_ += static_cast<std::int64_t>(size);
  }
}

void GribFile::close() {
  if (out_ && std::fclose(out_) != 0) {
    out_ = nullptr;
    throw std::runtime_error("closing " + path_ + " failed");
  }
  out_ = nullptr;
}

}  // namespace miniapp
