#include "formats/registry.h"

#include <string>

#include "formats/grib/grib_writer.h"
#include "formats/netcdf/netcdf_writer.h"
#include "formats/zarr/zarr_writer.h"

namespace foehn::formats {

namespace {

// NetCDF-4 files over HDF5: parallel writers share a file, the time
// dimension is unlimited, deflate and BitRound are available (also in the
// classic model).
constexpr WriterTraits kNetcdf4{
    .collective = true, .growable_time = true, .compression = true, .quantization = true, .extension = ".nc"};

// GRIB2 through ecCodes: every writer of a file takes part (levels go to
// the writer that encodes them, the first writes), one message per field,
// level and record (multiple_file: each writer's messages in its own
// file); packing is per field (its <variable>s), so no compression or
// quantization attribute.
constexpr WriterTraits kGrib2{.collective = true,
                              .growable_time = true,
                              .compression = false,
                              .quantization = false,
                              .whole_fields = true,
                              .extension = ".grib2"};

// Zarr v2 stores written by foehn (zarr/zarr_writer.h): every writer of a
// store writes its own chunk files, time grows by rewriting the metadata,
// chunks are zlib-compressed after foehn's copy of netCDF-C's quantization
// (quantize.h).
constexpr WriterTraits kZarr{
    .collective = true, .growable_time = true, .compression = true, .quantization = true, .extension = ".zarr"};

const FormatEntry kFormats[] = {
    {"netcdf4", open_netcdf4, kNetcdf4},
    {"netcdf4_classic", open_netcdf4_classic, kNetcdf4},
    {"grib2", open_grib2, kGrib2},
    {"zarr", open_zarr, kZarr},
};

}  // namespace

std::span<const FormatEntry> known_formats() { return kFormats; }

const FormatEntry& format_entry(std::string_view name) {
  for (const FormatEntry& e : kFormats)
    if (e.name == name) return e;
  std::string known;
  for (const FormatEntry& e : kFormats) known += (known.empty() ? "" : ", ") + std::string(e.name);
  throw IoError("unknown output format '" + std::string(name) + "' (known: " + known + ")");
}

std::unique_ptr<Writer> open_writer(const output::ContextPlan& plan, int file, WriterTarget target) {
  return format_entry(plan.files.at(file).format).open(plan, file, std::move(target));
}

void before_mpi_finalize() { netcdf::NcDataset::before_mpi_finalize(); }

}  // namespace foehn::formats
