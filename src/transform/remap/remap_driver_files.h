// netCDF input and output of foehn_remap_driver (a test and benchmark tool,
// not part of the server): grids as CF files or named specs, fields as one
// variable whose trailing dimensions are the grid's points.
#pragma once

#include <string>
#include <vector>

#include "transform/remap/cell_polygons.h"

namespace foehn::transform::remap::driver {

// A grid from a spec: "octahedral:N" (O<N>), "regular:NIxNJ"
// (generate_rectilinear_domain defaults), or a netCDF file: 1-D lon and lat
// on different dimensions (rectilinear), else lon/lat whose "bounds"
// attribute names the corners (any shape, corners last), else 2-D lon/lat
// (curvilinear, bounds computed).
struct Grid {
  CellPolygons cells;
  std::vector<double> lon, lat;  // centre of each cell (degrees)
};
Grid load_grid(const std::string& spec);

// Writes the grid as an unstructured CF file (ncells, nv; lon/lat with
// bounds), and a field "f" on it given per point by `values` (empty: none).
void write_unstructured_grid(const std::string& path, const Grid& g, const std::vector<double>& values);

struct Field {
  std::vector<double> values;  // records x points
  std::size_t records = 0, points = 0;
  bool has_missing = false;
  double missing = 0;  // _FillValue or missing_value
};
Field read_field(const std::string& path, const std::string& var, std::size_t points);
void write_field(const std::string& path, const std::string& var, const std::vector<double>& values,
                 std::size_t records, std::size_t points, double fill);

}  // namespace foehn::transform::remap::driver
