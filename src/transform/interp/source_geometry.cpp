#include "transform/interp/source_geometry.h"

#include <algorithm>

#include "config/values.h"
#include "grid/healpix.h"

namespace foehn::transform::interp {

namespace {

[[noreturn]] void bad(const config::TransformationDef& t, const std::string& message) {
  throw config::ConfigError(t.where, "<" + t.kind + "> in <" + t.target + ">: " + message);
}

// This rank's part, then everyone's in rank order.
template <class T>
std::vector<T> all_gather(const std::vector<T>& mine, MPI_Comm comm, MPI_Datatype type) {
  if (comm == MPI_COMM_NULL) return mine;
  int size = 1;
  MPI_Comm_size(comm, &size);
  int count = static_cast<int>(mine.size());
  std::vector<int> counts(static_cast<std::size_t>(size)), displs(static_cast<std::size_t>(size));
  MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, comm);
  int total = 0;
  for (int q = 0; q < size; ++q)
    displs[static_cast<std::size_t>(q)] = total, total += counts[static_cast<std::size_t>(q)];
  std::vector<T> out(static_cast<std::size_t>(total));
  MPI_Allgatherv(mine.data(), count, type, out.data(), counts.data(), displs.data(), type, comm);
  return out;
}

// A reduced Gaussian grid from its points' latitudes (rows north to south).
grid::ReducedGaussianGrid gaussian_from_points(const config::TransformationDef& t, const std::vector<double>& lat) {
  std::vector<int> pl;
  for (std::size_t k = 0; k < lat.size(); ++k) {
    if (k == 0 || lat[k] != lat[k - 1])
      pl.push_back(1);
    else
      ++pl.back();
  }
  if (pl.size() % 2 != 0) bad(t, "the gaussian source domain's points do not make an even number of latitude rows");
  return grid::ReducedGaussianGrid(static_cast<int>(pl.size() / 2), pl);
}

}  // namespace

SourceGeometry gather_source(const config::TransformationDef& t, const Component& source, MPI_Comm comm) {
  int rank = 0;
  if (comm != MPI_COMM_NULL) MPI_Comm_rank(comm, &rank);
  int nv = source.owned.empty() ? 0 : source.nvertex;
  if (comm != MPI_COMM_NULL) MPI_Allreduce(MPI_IN_PLACE, &nv, 1, MPI_INT, MPI_MAX, comm);
  if (!source.owned.empty() && source.nvertex != nv)
    bad(t, "the model ranks give the source domain's cell bounds with different numbers of vertices (" +
               std::to_string(source.nvertex) + " here, " + std::to_string(nv) + " elsewhere)");
  std::vector<std::int64_t> data(source.owned.size(), -1);
  for (std::size_t p = 0; p < source.data_owner.size(); ++p)
    if (source.data_owner[p] >= 0) data[static_cast<std::size_t>(source.data_owner[p])] = static_cast<std::int64_t>(p);
  const auto nvs = static_cast<std::size_t>(nv);
  const std::size_t per_point = 2 + 2 * nvs;
  std::vector<std::int64_t> ids;
  std::vector<double> coords;
  for (std::size_t k = 0; k < source.owned.size(); ++k) {
    ids.insert(ids.end(), {source.owned[k], data[k], rank});
    coords.push_back(source.lon[k]);
    coords.push_back(source.lat[k]);
    for (std::size_t v = 0; v < nvs; ++v) coords.push_back(source.bounds_lon[k * nvs + v]);
    for (std::size_t v = 0; v < nvs; ++v) coords.push_back(source.bounds_lat[k * nvs + v]);
  }
  const std::vector<std::int64_t> all_ids = all_gather(ids, comm, MPI_INT64_T);
  const std::vector<double> all_coords = all_gather(coords, comm, MPI_DOUBLE);
  const auto n = static_cast<std::size_t>(source.size());
  SourceGeometry g;
  g.owner_rank.assign(n, -1);
  g.owner_position.assign(n, -1);
  g.lon.assign(n, 0.0);
  g.lat.assign(n, 0.0);
  std::vector<double> blon(n * nvs), blat(n * nvs);
  for (std::size_t e = 0; e < all_ids.size() / 3; ++e) {
    const auto at = static_cast<std::size_t>(all_ids[3 * e]);
    if (g.owner_rank[at] >= 0) continue;  // held twice: the lower rank's
    g.owner_rank[at] = static_cast<int>(all_ids[3 * e + 2]);
    g.owner_position[at] = all_ids[3 * e + 1];
    const double* c = all_coords.data() + e * per_point;
    g.lon[at] = c[0];
    g.lat[at] = c[1];
    std::copy(c + 2, c + 2 + nvs, blon.begin() + static_cast<std::ptrdiff_t>(at * nvs));
    std::copy(c + 2 + nvs, c + 2 + 2 * nvs, blat.begin() + static_cast<std::ptrdiff_t>(at * nvs));
  }
  for (std::size_t k = 0; k < n; ++k)
    if (g.owner_rank[k] < 0)
      bad(t, "point " + std::to_string(k) + " of the source domain (" + std::to_string(source.ni_glo) + " x " +
                 std::to_string(source.nj_glo) + ") is held by no model rank");
  try {
    const auto ni = static_cast<std::size_t>(source.ni_glo), nj = static_cast<std::size_t>(source.nj_glo);
    if (nv == 2 && source.type == "rectilinear") {  // (west, east) and (south, north) per point: 4 corners
      std::vector<double> clon, clat;
      for (std::size_t k = 0; k < n; ++k) {
        clon.insert(clon.end(), {blon[2 * k], blon[2 * k + 1], blon[2 * k + 1], blon[2 * k]});
        clat.insert(clat.end(), {blat[2 * k], blat[2 * k], blat[2 * k + 1], blat[2 * k + 1]});
      }
      g.cells = remap::cells_from_bounds(clon, clat, 4);
    } else if (nv > 2) {
      g.cells = remap::cells_from_bounds(blon, blat, nv);
    } else if (source.type == "rectilinear") {
      std::vector<double> lon(g.lon.begin(), g.lon.begin() + static_cast<std::ptrdiff_t>(ni)), lat(nj);
      for (std::size_t j = 0; j < nj; ++j) lat[j] = g.lat[j * ni];
      g.cells = remap::rectilinear_cells(lon, lat);
    } else if (source.type == "curvilinear") {
      g.cells = remap::curvilinear_cells(source.ni_glo, source.nj_glo, g.lon, g.lat);
    } else if (source.type == "gaussian") {
      g.cells = remap::gaussian_cells(gaussian_from_points(t, g.lat));
    } else {
      bad(t, "the " + source.type + " source domain has no cell bounds: give them (foehn_set_domain_coordinates)");
    }
  } catch (const remap::RemapError& e) {
    bad(t, std::string("the source domain's cells: ") + e.what());
  } catch (const std::invalid_argument& e) { bad(t, std::string("the source domain's cells: ") + e.what()); }
  g.cells.mask.resize(n);
  for (std::size_t k = 0; k < n; ++k) g.cells.mask[k] = g.owner_position[k] >= 0 ? 1 : 0;
  return g;
}

TargetGeometry target_geometry(const config::TransformationDef& t, const config::DomainDef& target) {
  TargetGeometry g;
  g.shape = interpolation_target(t, target);
  if (g.shape.type == "healpix") {  // every cell's centre and 4 corners, in index order of its scheme
    const auto n = static_cast<std::size_t>(g.shape.ni_glo);
    g.lon.resize(n), g.lat.resize(n), g.bounds_lon.resize(4 * n), g.bounds_lat.resize(4 * n);
    for (std::size_t k = 0; k < n; ++k)
      grid::healpix_cell(g.shape.healpix_level, g.shape.healpix_nested, static_cast<std::int64_t>(k), g.lon[k],
                         g.lat[k], &g.bounds_lon[4 * k], &g.bounds_lat[4 * k]);
    return g;
  }
  remap::RectilinearSpec spec;
  spec.ni = g.shape.ni_glo;
  spec.nj = g.shape.nj_glo;
  for (const config::TransformationDef& u : target.transformations) {
    if (u.kind != "generate_rectilinear_domain") continue;
    const auto number = [&](std::string_view name) -> std::optional<double> {
      const std::string* v = u.attr(name);
      return v ? config::detail::parse_double(*v) : std::nullopt;
    };
    spec.lon_start = number("lon_start"), spec.lon_end = number("lon_end");
    spec.lat_start = number("lat_start"), spec.lat_end = number("lat_end");
    spec.bounds_lon_start = number("bounds_lon_start"), spec.bounds_lon_end = number("bounds_lon_end");
    spec.bounds_lat_start = number("bounds_lat_start"), spec.bounds_lat_end = number("bounds_lat_end");
  }
  remap::RectilinearDomain d;
  try {
    d = remap::generate_rectilinear_domain(spec);
  } catch (const remap::RemapError& e) { bad(t, e.what()); }
  const auto ni = static_cast<std::size_t>(spec.ni), nj = static_cast<std::size_t>(spec.nj);
  g.axis_lon = d.lon;
  g.axis_lat = d.lat;
  for (std::size_t j = 0; j < nj; ++j)
    for (std::size_t i = 0; i < ni; ++i) g.lon.push_back(d.lon[i]), g.lat.push_back(d.lat[j]);
  g.nvertex = 4;
  g.bounds_lon = std::move(d.bounds_lon);
  g.bounds_lat = std::move(d.bounds_lat);
  return g;
}

}  // namespace foehn::transform::interp
