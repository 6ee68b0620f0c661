#include "transform/remap/cell_polygons.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace foehn::transform::remap {

Polygon CellPolygons::polygon(std::int64_t k) const {
  Polygon p;
  p.n = vertex_count(k);
  std::copy(vertices.begin() + start[k], vertices.begin() + start[k + 1], p.v.begin());
  return p;
}

void CellPolygons::add_cell(std::span<const double> lon_deg, std::span<const double> lat_deg) {
  if (lon_deg.size() > static_cast<std::size_t>(kMaxCellVertices))
    throw RemapError("cell " + std::to_string(size()) + " has " + std::to_string(lon_deg.size()) +
                     " vertices; at most " + std::to_string(kMaxCellVertices) + " are supported");
  Polygon p;
  p.n = static_cast<int>(lon_deg.size());
  for (int k = 0; k < p.n; ++k) {
    const auto u = static_cast<std::size_t>(k);
    if (!std::isfinite(lon_deg[u]) || !(std::abs(lat_deg[u]) <= 90.0))
      throw RemapError("cell " + std::to_string(size()) + ": corner " + std::to_string(k) + " at longitude " +
                       std::to_string(lon_deg[u]) + ", latitude " + std::to_string(lat_deg[u]) +
                       " is not a point of the sphere (a missing bound?)");
    p.v[u] = unit_vector(lon_deg[u], lat_deg[u]);
  }
  Vec3 centre;
  double a = 0;
  if (make_counterclockwise(p)) {
    a = signed_area(p);
    const Vec3 integral = position_integral(p);
    centre = norm(integral) > 0 ? normalized(integral) : p.v[0];
  } else {
    for (int k = 0; k < p.n; ++k) centre = centre + p.v[static_cast<std::size_t>(k)];
    centre = norm(centre) > 0 ? normalized(centre) : unit_vector(0, 0);
    p.n = 0;
  }
  vertices.insert(vertices.end(), p.v.begin(), p.v.begin() + p.n);
  start.push_back(static_cast<std::int64_t>(vertices.size()));
  area.push_back(a);
  centroid.push_back(centre);
}

CellPolygons cells_from_bounds(std::span<const double> bounds_lon, std::span<const double> bounds_lat, int nvertex) {
  if (nvertex < 3 || bounds_lon.size() != bounds_lat.size() || bounds_lon.size() % static_cast<std::size_t>(nvertex))
    throw RemapError("cell bounds: " + std::to_string(bounds_lon.size()) + " longitudes and " +
                     std::to_string(bounds_lat.size()) + " latitudes are not whole cells of " +
                     std::to_string(nvertex) + " vertices (at least 3)");
  CellPolygons c;
  const std::size_t n = bounds_lon.size() / static_cast<std::size_t>(nvertex);
  c.vertices.reserve(bounds_lon.size());
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t at = k * static_cast<std::size_t>(nvertex);
    c.add_cell(bounds_lon.subspan(at, static_cast<std::size_t>(nvertex)),
               bounds_lat.subspan(at, static_cast<std::size_t>(nvertex)));
  }
  return c;
}

namespace {

// Edges half way between centres; the outer ones mirror the inner ones.
std::vector<double> edges_between(std::span<const double> centre) {
  const std::size_t n = centre.size();
  std::vector<double> e(n + 1);
  if (n == 1) return {centre[0] - 0.5, centre[0] + 0.5};
  for (std::size_t k = 1; k < n; ++k) e[k] = 0.5 * (centre[k - 1] + centre[k]);
  e[0] = centre[0] - (e[1] - centre[0]);
  e[n] = centre[n - 1] + (centre[n - 1] - e[n - 1]);
  return e;
}

}  // namespace

CellPolygons rectilinear_cells(std::span<const double> lon, std::span<const double> lat) {
  if (lon.empty() || lat.empty()) throw RemapError("rectilinear domain: no longitudes or no latitudes");
  const std::vector<double> we = edges_between(lon);
  std::vector<double> sn = edges_between(lat);
  for (double& x : sn) x = std::clamp(x, -90.0, 90.0);
  CellPolygons c;
  for (std::size_t j = 0; j < lat.size(); ++j) {
    for (std::size_t i = 0; i < lon.size(); ++i) {
      const double clon[4] = {we[i], we[i + 1], we[i + 1], we[i]};
      const double clat[4] = {sn[j], sn[j], sn[j + 1], sn[j + 1]};
      c.add_cell(clon, clat);
    }
  }
  return c;
}

CellPolygons curvilinear_cells(std::int64_t ni, std::int64_t nj, std::span<const double> lon,
                               std::span<const double> lat) {
  if (ni < 2 || nj < 2 || lon.size() != static_cast<std::size_t>(ni * nj) || lat.size() != lon.size())
    throw RemapError(
        "curvilinear domain without bounds: need at least 2 x 2 centres and ni*nj = " + std::to_string(ni * nj) +
        " longitudes and latitudes, got " + std::to_string(lon.size()) + " and " + std::to_string(lat.size()));
  // Centres on a (ni + 2) x (nj + 2) frame, the frame extrapolated linearly
  // in 3-D; the corner between four centres is their mean direction.
  const std::int64_t wi = ni + 2, wj = nj + 2;
  std::vector<Vec3> p(static_cast<std::size_t>(wi * wj));
  auto at = [&](std::int64_t i, std::int64_t j) -> Vec3& { return p[static_cast<std::size_t>(j * wi + i)]; };
  for (std::int64_t j = 0; j < nj; ++j)
    for (std::int64_t i = 0; i < ni; ++i)
      at(i + 1, j + 1) =
          unit_vector(lon[static_cast<std::size_t>(j * ni + i)], lat[static_cast<std::size_t>(j * ni + i)]);
  for (std::int64_t j = 1; j <= nj; ++j) {
    at(0, j) = 2.0 * at(1, j) - at(2, j);
    at(ni + 1, j) = 2.0 * at(ni, j) - at(ni - 1, j);
  }
  for (std::int64_t i = 0; i < wi; ++i) {
    at(i, 0) = 2.0 * at(i, 1) - at(i, 2);
    at(i, nj + 1) = 2.0 * at(i, nj) - at(i, nj - 1);
  }
  auto corner = [&](std::int64_t i, std::int64_t j) {  // between centres (i-1..i, j-1..j) of the frame
    return normalized(at(i, j) + at(i + 1, j) + at(i, j + 1) + at(i + 1, j + 1));
  };
  CellPolygons c;
  for (std::int64_t j = 1; j <= nj; ++j) {
    for (std::int64_t i = 1; i <= ni; ++i) {
      const Vec3 v[4] = {corner(i - 1, j - 1), corner(i, j - 1), corner(i, j), corner(i - 1, j)};
      double clon[4], clat[4];
      for (int k = 0; k < 4; ++k) clon[k] = longitude_deg(v[k]), clat[k] = latitude_deg(v[k]);
      c.add_cell(clon, clat);
    }
  }
  return c;
}

namespace {

// The western boundary of the cells of a Gaussian row (degrees) and their width.
struct RowBoundaries {
  double west, step;
};
RowBoundaries row_boundaries(const grid::ReducedGaussianGrid& g, int row) {
  const double step = 360.0 / g.points_per_row()[static_cast<std::size_t>(row)];
  return {g.lon(g.row_start(row)) - 0.5 * step, step};
}

// Appends the boundaries of `other` strictly between west and east, in
// increasing longitude (or decreasing when `descending`).
void add_boundaries_between(double west, double east, RowBoundaries other, bool descending, std::vector<double>& lon) {
  constexpr double kSame = 1e-9;  // degrees: a boundary at a corner is the corner
  const std::size_t first = lon.size();
  double b = other.west + std::floor((west - other.west) / other.step + kSame) * other.step;
  for (b += other.step; b < east - kSame; b += other.step)
    if (b > west + kSame) lon.push_back(b);
  if (descending) std::reverse(lon.begin() + static_cast<std::ptrdiff_t>(first), lon.end());
}

}  // namespace

CellPolygons gaussian_cells(const grid::ReducedGaussianGrid& g) {
  // Rows of different lengths meet along a latitude circle. A cell's
  // latitude edges take the neighbouring row's cell corners as extra
  // vertices, so that both sides of a shared edge are the same chain of
  // great-circle pieces and the cells tile the sphere exactly.
  CellPolygons c;
  c.vertices.reserve(static_cast<std::size_t>(5 * g.size()));
  std::vector<double> lon, lat;
  for (int r = 0; r < g.rows(); ++r) {
    for (std::int64_t k = g.row_start(r); k < g.row_start(r + 1); ++k) {
      double lon4[4], lat4[4];  // south-west, south-east, north-east, north-west
      g.corners(k, lon4, lat4);
      lon.assign({lon4[0]});
      lat.assign({lat4[0]});
      if (r + 1 < g.rows()) add_boundaries_between(lon4[0], lon4[1], row_boundaries(g, r + 1), false, lon);
      lat.resize(lon.size(), lat4[0]);
      lon.insert(lon.end(), {lon4[1], lon4[2]});
      lat.insert(lat.end(), {lat4[1], lat4[2]});
      if (r > 0) add_boundaries_between(lon4[3], lon4[2], row_boundaries(g, r - 1), true, lon);
      lat.resize(lon.size(), lat4[2]);
      lon.push_back(lon4[3]);
      lat.push_back(lat4[3]);
      c.add_cell(lon, lat);
    }
  }
  return c;
}

namespace {

struct AxisCells {
  double first_centre, step, first_bound;
};

// One axis of generate_rectilinear_domain: XIOS's precedence of the given
// centre and bound values, the default range when none is given.
AxisCells regular_axis(std::int64_t n, std::optional<double> start, std::optional<double> end,
                       std::optional<double> bounds_start, std::optional<double> bounds_end, double default_start,
                       double default_end) {
  const double cells = static_cast<double>(n);
  double step = (default_end - default_start) / cells;
  if (start && end && n > 1) step = (*end - *start) / (cells - 1);
  if (bounds_start && bounds_end) step = (*bounds_end - *bounds_start) / cells;
  if (start && bounds_end) step = (*bounds_end - *start) / (cells - 0.5);
  if (bounds_start && end) step = (*end - *bounds_start) / (cells - 0.5);
  double first;
  if (start)
    first = *start;
  else if (bounds_start)
    first = *bounds_start + 0.5 * step;
  else if (end)
    first = *end - (cells - 1) * step;
  else if (bounds_end)
    first = *bounds_end - (cells - 0.5) * step;
  else
    first = default_start + 0.5 * step;
  return {first, step, first - 0.5 * step};
}

}  // namespace

RectilinearDomain generate_rectilinear_domain(const RectilinearSpec& s) {
  if (s.ni < 1 || s.nj < 1)
    throw RemapError("generate_rectilinear_domain: ni_glo and nj_glo must be at least 1, got " + std::to_string(s.ni) +
                     " x " + std::to_string(s.nj));
  const AxisCells x = regular_axis(s.ni, s.lon_start, s.lon_end, s.bounds_lon_start, s.bounds_lon_end, 0, 360);
  const AxisCells y = regular_axis(s.nj, s.lat_start, s.lat_end, s.bounds_lat_start, s.bounds_lat_end, -90, 90);
  RectilinearDomain d;
  for (std::int64_t i = 0; i < s.ni; ++i) d.lon.push_back(x.first_centre + static_cast<double>(i) * x.step);
  for (std::int64_t j = 0; j < s.nj; ++j) d.lat.push_back(y.first_centre + static_cast<double>(j) * y.step);
  for (std::int64_t j = 0; j < s.nj; ++j) {
    const double south = std::clamp(y.first_bound + static_cast<double>(j) * y.step, -90.0, 90.0);
    const double north = std::clamp(y.first_bound + static_cast<double>(j + 1) * y.step, -90.0, 90.0);
    for (std::int64_t i = 0; i < s.ni; ++i) {
      const double west = x.first_bound + static_cast<double>(i) * x.step, east = west + x.step;
      const double clon[4] = {west, east, east, west};
      const double clat[4] = {std::min(south, north), std::min(south, north), std::max(south, north),
                              std::max(south, north)};
      d.bounds_lon.insert(d.bounds_lon.end(), clon, clon + 4);
      d.bounds_lat.insert(d.bounds_lat.end(), clat, clat + 4);
      d.cells.add_cell(clon, clat);
    }
  }
  return d;
}

}  // namespace foehn::transform::remap
