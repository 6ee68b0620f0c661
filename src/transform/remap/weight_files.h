// Remapping weights on disk: reading the files that SCRIP-style tools
// (cdo gencon/genbil/..., SCRIP itself), ESMF_RegridWeightGen and XIOS
// write, and writing XIOS's layout (interpolate_domain write_weight), so
// that weights users already have can be reused and ours read back.
//
//   SCRIP: dims src_grid_size, dst_grid_size, num_links, num_wgts;
//          src_address, dst_address (1-based), remap_matrix(num_links, num_wgts)
//   ESMF:  dims n_a (source), n_b (target), n_s; col (source), row (target)
//          (1-based), S
//   XIOS:  dims n_src, n_dst, n_weight; src_idx, dst_idx, weight; 1-based
//          (read_write_convention="fortran", the default) or 0-based ("c")
//
// Read at close of definition; every netCDF call is checked and a failure
// throws RemapError naming the file, the variable and netCDF's message.
#pragma once

#include <string>

#include "transform/remap/remap_weights.h"

namespace foehn::transform::remap {

enum class WeightFileFormat { scrip, esmf, xios };

// Which layout a weight file has, from its dimension names; throws if none.
WeightFileFormat detect_weight_file_format(const std::string& path);

// SCRIP files with num_wgts > 1 (second-order SCRIP weights, which need the
// source gradients at apply time) are refused; cdo's have num_wgts = 1.
RemapWeights read_scrip_weights(const std::string& path);
RemapWeights read_esmf_weights(const std::string& path);
RemapWeights read_xios_weights(const std::string& path, bool one_based = true);
RemapWeights read_weights(const std::string& path);  // any of the three, by detect_weight_file_format

void write_xios_weights(const std::string& path, const RemapWeights& w, bool one_based = true);

}  // namespace foehn::transform::remap
