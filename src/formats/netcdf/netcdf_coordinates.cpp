// The values of a new file's coordinate variables (axes and their bounds,
// the UGRID mesh, scalars, domains with their bounds and CDI rows), written
// once after definition. In a parallel file the root writes them and the
// other writers take part in each collective call with an empty count.
#include <netcdf.h>

#include <algorithm>
#include <string>
#include <vector>

#include "formats/netcdf/netcdf_writer.h"

namespace foehn::formats::netcdf {

using output::AxisInfo;
using output::ContextPlan;
using output::DomainInfo;
using output::LocalBlock;

namespace {

// The values of the part `b` of a global array laid out [nj_glo][ni_glo]
// with `per` values per point, row by row.
std::vector<double> part_values(const std::vector<double>& global, std::int64_t ni_glo, const LocalBlock& b,
                                std::int64_t per) {
  std::vector<double> out;
  out.reserve(static_cast<std::size_t>(b.ni * b.nj * per));
  for (std::int64_t j = b.jbegin; j < b.jbegin + b.nj; ++j) {
    const auto first = global.begin() + (j * ni_glo + b.ibegin) * per;
    out.insert(out.end(), first, first + b.ni * per);
  }
  return out;
}

}  // namespace

void NetcdfWriter::put_coordinate(const std::string& name, const std::vector<double>& values,
                                  std::vector<std::size_t> count) const {
  const std::optional<int> var = ds_.find_var(name);
  if (!var) return;
  const std::vector<std::size_t> start(count.size(), 0);
  if (!is_root_) std::fill(count.begin(), count.end(), 0);
  ds_.put(*var, start.data(), count.data(), values.data());
}

void NetcdfWriter::write_coordinates(const ContextPlan& plan) const {
  for (const AxisInfo& a : plan.axes) put_coordinate(a.name.empty() ? a.id : a.name, a.values, {a.values.size()});
  for (const auto& [index, m] : meshes_) {
    put_coordinate(m.node_lon, m.lon, {m.lon.size()});
    put_coordinate(m.node_lat, m.lat, {m.lat.size()});
    const std::size_t start[2] = {0, 0}, count[2] = {is_root_ ? m.cells : 0, m.nvertex};
    ds_.put(ds_.var_id(m.face_nodes), start, count, m.faces.data());
  }
  for (const auto& [index, name] : axis_bounds_)
    put_coordinate(name, plan.axes[index].bounds, {plan.axes[index].values.size(), 2});
  for (const auto& [index, name] : scalar_names_) {
    // Every writer writes the one value (a collective call in a shared file).
    ds_.put_scalar(ds_.var_id(name), plan.scalars[index].value);
  }
  for (std::size_t d = 0; d < plan.domains.size(); ++d)
    if (domain_vars_[d].used) write_domain_coordinates(plan, d);
}

void NetcdfWriter::write_domain_coordinates(const ContextPlan& plan, std::size_t d) const {
  const DomainInfo& dom = plan.domains[d];
  const DomainVars& names = domain_vars_[d];
  const LocalBlock b = domain_extent(part_, dom, d);
  const auto ni = static_cast<std::size_t>(b.ni), nj = static_cast<std::size_t>(b.nj);
  const auto nv = static_cast<std::size_t>(dom.nvertex);
  const bool rect = dom.type == "rectilinear", one_d = dom.one_dimensional();
  // Rectilinear: a row of ni_glo longitudes and a column of nj_glo latitudes.
  const LocalBlock lon_part = rect ? LocalBlock{b.ibegin, b.ni, 0, 1} : b;
  const LocalBlock lat_part = rect ? LocalBlock{0, 1, b.jbegin, b.nj} : b;
  const std::int64_t lon_width = dom.ni_glo, lat_width = rect ? 1 : dom.ni_glo;
  const std::vector<std::size_t> lon_count =
      rect || one_d ? std::vector<std::size_t>{ni} : std::vector<std::size_t>{nj, ni};
  const std::vector<std::size_t> lat_count = rect ? std::vector<std::size_t>{nj} : lon_count;
  auto with_nv = [&](std::vector<std::size_t> c) {
    c.push_back(nv);
    return c;
  };
  const bool root = is_root_;
  put_coordinate(names.lon, root ? part_values(dom.lon, lon_width, lon_part, 1) : std::vector<double>{}, lon_count);
  put_coordinate(names.lat, root ? part_values(dom.lat, lat_width, lat_part, 1) : std::vector<double>{}, lat_count);
  if (!names.rows_lat.empty()) {
    put_coordinate(names.rows_lat, names.rows.lat, {names.rows.lat.size()});
    const std::size_t start = 0, count = is_root_ ? names.rows.points.size() : 0;
    ds_.put(ds_.var_id(names.rows_points), &start, &count, names.rows.points.data());
  }
  if (!names.cell_index.empty()) {  // healpix: the index of each cell of the part
    std::vector<long long> cells(root ? ni : 0);
    for (std::size_t k = 0; k < cells.size(); ++k) cells[k] = b.ibegin + static_cast<long long>(k);
    const std::size_t start = 0, count = cells.size();
    ds_.put(ds_.var_id(names.cell_index), &start, &count, cells.data());
  }
  if (nv == 0) return;
  put_coordinate(names.lon_bounds,
                 root ? part_values(dom.bounds_lon, lon_width, lon_part, dom.nvertex) : std::vector<double>{},
                 with_nv(lon_count));
  put_coordinate(names.lat_bounds,
                 root ? part_values(dom.bounds_lat, lat_width, lat_part, dom.nvertex) : std::vector<double>{},
                 with_nv(lat_count));
}

}  // namespace foehn::formats::netcdf
