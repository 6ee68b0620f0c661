// How a record variable is cut into HDF5 chunks, and whether HDF5 fills
// its chunks before they are written (docs/compression.md, "Chunks and fill
// values").
//
// By default a record's chunk is what one writer puts of it in one call:
// the server's band (one_file), its part (multiple_file), an attached
// client's own block (multiple_file). HDF5 then writes whole chunks straight
// from the writer's buffer. Fill values are left out (NOFILL) only where
// every chunk lies inside one writer's block, that writer puts the block
// whole in one call at every record, and the blocks cover the record:
// HDF5 would otherwise first write the fill value over each chunk (and
// gather it through its cache), which costs as much as the data. Elsewhere
// the fill is kept, so that a part of a chunk no one wrote reads as the
// fill value. chunking_blocksize_target (XIOS's) replaces the shape by
// XIOS's own, under the same rule for the fill.
#include <algorithm>
#include <cmath>

#include "formats/netcdf/netcdf_writer.h"

namespace foehn::formats::netcdf {

using output::ContextPlan;
using output::Dim;
using output::VariableInfo;

namespace {

// The dimension of v (time not counted) XIOS splits a record along when it
// exceeds chunking_blocksize_target: the outermost axis, else the domain's
// j, else its i.
std::size_t xios_split_dim(const VariableInfo& v) {
  for (Dim::Kind kind : {Dim::axis, Dim::domain_j, Dim::domain_i})
    for (std::size_t d = 0; d < v.dims.size(); ++d)
      if (v.dims[d].kind == kind) return d;
  return 0;
}

}  // namespace

bool NetcdfWriter::define_chunks(const ContextPlan& plan, int vi, int var, const std::vector<int>& dims) {
  const VariableInfo& v = plan.variables[vi];
  // len: this file's lengths (a multiple_file part's own), time first.
  std::vector<std::size_t> len{1};
  std::size_t record_bytes = v.prec == 8 ? 8 : 4;
  for (std::size_t d = 1; d < dims.size(); ++d) {
    len.push_back(ds_.dim_length(dims[d]));
    record_bytes *= len.back();
  }
  if (record_bytes == 0) return false;
  const bool filtered = v.compression_level > 0 || !v.compression_filter.empty() || !v.quantization.empty();
  std::vector<std::size_t> sizes = len;
  if (v.chunk_target_mib > 0) {
    // XIOS: a record larger than the target is cut along one dimension
    // into ceil(record / target) pieces.
    const double ratio = static_cast<double>(record_bytes) / (v.chunk_target_mib * 1024 * 1024);
    if (ratio > 1) {
      const std::size_t d = xios_split_dim(v) + 1;
      const auto pieces = static_cast<std::size_t>(std::ceil(ratio));
      sizes[d] = (len[d] + pieces - 1) / pieces;
    }
  } else {
    // Small records: a chunk of many records. netCDF's default chunks one
    // record (or one level of one), so every record adds chunks to HDF5's
    // chunk index, whose B-tree nodes fill its metadata cache as the file
    // grows: over the 10^6 steps of bench/soak.py (2.2 * 10^5 records of 128
    // and 256 bytes) a server grew by 26 MiB, 6.5 MiB with these chunks, and
    // the files are 25 % smaller. The chunk stays in the chunk cache as it
    // fills (with fill values: it is written record by record).
    const std::size_t chunk_bytes = std::min(kSmallChunkBytes, kSmallChunkBudget / plan.variables.size());
    if (record_bytes <= chunk_bytes / 2) {
      sizes[0] = chunk_bytes / record_bytes;
      ds_.def_chunking(var, sizes);
      return false;
    }
    // Compressed variables keep netCDF's default chunks (4 MiB at most: a
    // filtered chunk is compressed in memory whole).
    if (filtered || !block_of_) return false;
    // The largest block of any writer, dimension by dimension (the whole
    // record when no writer has any of it).
    std::vector<std::size_t> most(len.size(), 0);
    for (int w = 0; w < writers_; ++w) {
      const grid::Box b = block_of_(vi, w);
      if (b.empty() || b.count.size() + 1 != len.size()) continue;
      for (std::size_t d = 0; d < b.count.size(); ++d)
        most[d + 1] = std::max(most[d + 1], static_cast<std::size_t>(b.count[d]));
    }
    for (std::size_t d = 1; d < len.size(); ++d) sizes[d] = most[d] > 0 ? std::min(most[d], len[d]) : len[d];
    // A block beyond kMaxChunkBytes is cut along its outer dimensions, so
    // that the chunk HDF5 may hold stays bounded.
    std::size_t bytes = v.prec == 8 ? 8 : 4;
    for (std::size_t d = 1; d < sizes.size(); ++d) bytes *= sizes[d];
    for (std::size_t d = 1; d < sizes.size() && bytes > kMaxChunkBytes; ++d) {
      const std::size_t pieces = std::min(sizes[d], (bytes + kMaxChunkBytes - 1) / kMaxChunkBytes);
      const std::size_t cut = (sizes[d] + pieces - 1) / pieces;
      bytes = bytes / sizes[d] * cut;
      sizes[d] = cut;
    }
  }
  ds_.def_chunking(var, sizes);
  return !filtered && whole_chunks(vi, sizes, len);
}

bool NetcdfWriter::whole_chunks(int vi, const std::vector<std::size_t>& sizes,
                                const std::vector<std::size_t>& len) const {
  if (!block_of_ || sizes[0] != 1) return false;
  const auto& offset = offset_[vi];
  std::size_t covered = 0, record = 1;
  for (std::size_t d = 1; d < len.size(); ++d) record *= len[d];
  for (int w = 0; w < writers_; ++w) {
    const grid::Box b = block_of_(vi, w);
    if (b.empty()) continue;
    if (b.count.size() + 1 != len.size()) return false;
    for (std::size_t d = 0; d < b.count.size(); ++d) {
      // Where the block starts and ends in this file (a part starts at offset).
      const std::int64_t first = b.start[d] - offset[d], end = first + b.count[d];
      const auto c = static_cast<std::int64_t>(sizes[d + 1]), n = static_cast<std::int64_t>(len[d + 1]);
      if (first < 0 || end > n || first % c != 0 || (end % c != 0 && end != n)) return false;
    }
    covered += static_cast<std::size_t>(b.size());
  }
  // Blocks do not overlap (bands, or one writer): covering the record's
  // size, they cover every chunk.
  return covered == record;
}

}  // namespace foehn::formats::netcdf
