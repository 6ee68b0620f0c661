// First- and second-order conservative remapping weights between two sets
// of cell polygons (XIOS's interpolate_domain order 1 and 2, SCRIP's
// conservative remapping), from exact overlap areas of great-circle cells.
//
// Weight of source cell i in target cell j, with a_ij their overlap area:
//   default (XIOS quantity=false):  a_ij / A_j           (SCRIP "destarea")
//   quantity=true (extensive):      a_ij / A_i
//   renormalize=true: each row divided by its sum, so a target partly
//   covered by (unmasked) sources gets their mean (SCRIP "fracarea").
//   use_area (the model's own cell areas, XIOS's area / radius^2): the
//   default weight becomes a_ij G_i / (A_i G_j) with G the given areas,
//   so that sum_j G_j y_j = sum_i G_i x_i on full coverage.
// Order 2 adds to each overlap the source's gradient (least squares over
// the cells that share a vertex with it) times the offset of the overlap's
// barycentre: exact for fields linear on the sphere, and still conservative.
//
// Computed once at close of definition: a kd-tree of the source centres
// finds the candidates of each target cell, which are clipped exactly.
#pragma once

#include <span>
#include <vector>

#include "transform/remap/cell_polygons.h"
#include "transform/remap/remap_weights.h"

namespace foehn::transform::remap {

struct ConservativeOptions {
  int order = 1;  // 1 or 2
  bool renormalize = false;
  bool quantity = false;
  // Given cell areas in steradians (XIOS use_area="true"); empty: computed.
  std::span<const double> src_given_area{}, dst_given_area{};
};

struct ConservativeWeights {
  RemapWeights weights;
  std::vector<double> dst_fraction;  // per target: covered area / area (SCRIP dst_grid_frac)
};

// Masked cells (CellPolygons::mask) take no part: a masked source gives no
// weight, a masked target gets no row terms. Throws RemapError for an order
// other than 1 or 2, or given areas that are not one positive value per cell.
ConservativeWeights conservative_weights(const CellPolygons& src, const CellPolygons& dst,
                                         const ConservativeOptions& options);

}  // namespace foehn::transform::remap
