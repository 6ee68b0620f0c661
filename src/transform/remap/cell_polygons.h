// The cells of a domain as polygons on the sphere, built once at close of
// definition from what the domain gives: bounds (any domain), or centres
// alone (rectilinear and curvilinear: bounds computed half way between
// neighbouring centres; reduced Gaussian: src/grid/gaussian.h's corners).
// Cell k is the domain's global point k (j * ni_glo + i).
//
// Each builder throws RemapError naming the domain's problem (sizes that do
// not match, an unstructured domain without bounds, too many vertices).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <vector>

#include "grid/gaussian.h"
#include "transform/remap/sphere_geometry.h"

namespace foehn::transform::remap {

struct RemapError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct CellPolygons {
  // Vertices of cell k: vertices[start[k] .. start[k+1]), counterclockwise,
  // without repeats; fewer than 3: a degenerate cell (area 0, never overlaps).
  std::vector<Vec3> vertices;
  std::vector<std::int64_t> start{0};
  std::vector<double> area;        // steradians
  std::vector<Vec3> centroid;      // unit barycentre (integral of the position / its length)
  std::vector<std::uint8_t> mask;  // 1: the cell takes part; empty: all do

  std::int64_t size() const { return static_cast<std::int64_t>(start.size()) - 1; }
  int vertex_count(std::int64_t k) const { return static_cast<int>(start[k + 1] - start[k]); }
  bool active(std::int64_t k) const { return mask.empty() || mask[static_cast<std::size_t>(k)] != 0; }
  Polygon polygon(std::int64_t k) const;
  // Appends one cell given by its corners in degrees (repeats dropped,
  // orientation fixed); the area and centroid are computed here. Throws
  // RemapError for a corner that is not finite or beyond the poles.
  void add_cell(std::span<const double> lon_deg, std::span<const double> lat_deg);
};

// Cells from bounds: nvertex corners per cell, cell k's at k * nvertex
// (XIOS's bounds_lon_1d/2d and CF's lon_bnds flattened). A corner may repeat
// (triangles among quadrilaterals) .
CellPolygons cells_from_bounds(std::span<const double> bounds_lon, std::span<const double> bounds_lat, int nvertex);

// A rectilinear domain: lon (ni) by lat (nj), cell (i, j) = j * ni + i. Without
// bounds, each edge is half way between neighbouring centres and the outer
// edges as far out as the inner ones (latitudes clamped to +-90).
CellPolygons rectilinear_cells(std::span<const double> lon, std::span<const double> lat);

// A curvilinear domain: ni x nj centres (i fastest). Without bounds, each
// corner is the mean direction of the (up to) four surrounding centres, the
// outer corners extrapolated from the inner ones.
CellPolygons curvilinear_cells(std::int64_t ni, std::int64_t nj, std::span<const double> lon,
                               std::span<const double> lat);

// A reduced Gaussian (octahedral or classic) grid, points row by row.
CellPolygons gaussian_cells(const grid::ReducedGaussianGrid& g);

// XIOS's generate_rectilinear_domain: ni x nj regular cells. Each axis is
// given by any of its centre start/end and bounds start/end (degrees); what
// is not given follows XIOS's rules (default bounds 0..360 and -90..90).
struct RectilinearSpec {
  std::int64_t ni = 0, nj = 0;
  std::optional<double> lon_start, lon_end, bounds_lon_start, bounds_lon_end;
  std::optional<double> lat_start, lat_end, bounds_lat_start, bounds_lat_end;
};
struct RectilinearDomain {
  std::vector<double> lon, lat;                // centres, ni and nj
  std::vector<double> bounds_lon, bounds_lat;  // 4 corners per cell (i fastest), counterclockwise from south-west
  CellPolygons cells;
};
RectilinearDomain generate_rectilinear_domain(const RectilinearSpec& spec);

}  // namespace foehn::transform::remap
