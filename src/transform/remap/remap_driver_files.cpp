#include "transform/remap/remap_driver_files.h"

#include <netcdf.h>

#include <cstdlib>
#include <string_view>

#include "grid/gaussian.h"

namespace foehn::transform::remap::driver {

namespace {

void check(int status, const std::string& path, std::string_view what) {
  if (status != NC_NOERR) throw RemapError(path + ": " + std::string(what) + ": " + nc_strerror(status));
}

struct File {
  std::string path;
  int id = -1;
  File(std::string p, bool create) : path(std::move(p)) {
    check(create ? nc_create(path.c_str(), NC_CLOBBER | NC_NETCDF4, &id) : nc_open(path.c_str(), NC_NOWRITE, &id), path,
          create ? "nc_create" : "nc_open");
  }
  ~File() {
    if (id >= 0) nc_close(id);
  }
  int var(const std::string& name) const {
    int v = -1;
    return nc_inq_varid(id, name.c_str(), &v) == NC_NOERR ? v : -1;
  }
  std::vector<std::size_t> shape(int v) const {
    int nd;
    check(nc_inq_varndims(id, v, &nd), path, "nc_inq_varndims");
    std::vector<int> dims(static_cast<std::size_t>(nd));
    check(nc_inq_vardimid(id, v, dims.data()), path, "nc_inq_vardimid");
    std::vector<std::size_t> s;
    for (int d : dims) {
      std::size_t n;
      check(nc_inq_dimlen(id, d, &n), path, "nc_inq_dimlen");
      s.push_back(n);
    }
    return s;
  }
  std::vector<int> dims(int v) const {
    int nd;
    check(nc_inq_varndims(id, v, &nd), path, "nc_inq_varndims");
    std::vector<int> d(static_cast<std::size_t>(nd));
    check(nc_inq_vardimid(id, v, d.data()), path, "nc_inq_vardimid");
    return d;
  }
  std::vector<double> doubles(int v) const {
    std::size_t n = 1;
    for (std::size_t s : shape(v)) n *= s;
    std::vector<double> out(n);
    check(nc_get_var_double(id, v, out.data()), path, "nc_get_var_double");
    return out;
  }
  std::string text(int v, const char* name) const {
    std::size_t n;
    if (nc_inq_attlen(id, v, name, &n) != NC_NOERR) return {};
    std::string s(n, '\0');
    check(nc_get_att_text(id, v, name, s.data()), path, name);
    return s;
  }
};

int find_coordinate(const File& f, std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (int v = f.var(n); v >= 0) return v;
  return -1;
}

}  // namespace

Grid load_grid(const std::string& spec) {
  Grid g;
  if (spec.starts_with("octahedral:")) {
    const auto rg = grid::ReducedGaussianGrid::octahedral(std::atoi(spec.c_str() + 11));
    g.cells = gaussian_cells(rg);
    for (std::int64_t k = 0; k < rg.size(); ++k) g.lon.push_back(rg.lon(k)), g.lat.push_back(rg.lat(k));
    return g;
  }
  if (spec.starts_with("regular:")) {
    RectilinearSpec s;
    s.ni = std::atoll(spec.c_str() + 8);
    s.nj = std::atoll(spec.c_str() + spec.find('x') + 1);
    RectilinearDomain d = generate_rectilinear_domain(s);
    g.cells = std::move(d.cells);
    for (double la : d.lat)
      for (double lo : d.lon) g.lon.push_back(lo), g.lat.push_back(la);
    return g;
  }
  const File f(spec, false);
  const int lon = find_coordinate(f, {"lon", "longitude", "clon", "nav_lon"});
  const int lat = find_coordinate(f, {"lat", "latitude", "clat", "nav_lat"});
  if (lon < 0 || lat < 0) throw RemapError(spec + ": no lon/lat (or longitude/latitude, clon/clat) variables");
  const std::vector<double> x = f.doubles(lon), y = f.doubles(lat);
  const std::string bounds_lon = f.text(lon, "bounds"), bounds_lat = f.text(lat, "bounds");
  const bool rectilinear = f.dims(lon).size() == 1 && f.dims(lat).size() == 1 && f.dims(lon) != f.dims(lat);
  if (rectilinear) {
    g.cells = rectilinear_cells(x, y);
    for (double la : y)
      for (double lo : x) g.lon.push_back(lo), g.lat.push_back(la);
    return g;
  }
  g.lon = x, g.lat = y;
  if (!bounds_lon.empty() && !bounds_lat.empty()) {
    const int bx = f.var(bounds_lon), by = f.var(bounds_lat);
    if (bx < 0 || by < 0) throw RemapError(spec + ": bounds variables " + bounds_lon + "/" + bounds_lat + " missing");
    g.cells = cells_from_bounds(f.doubles(bx), f.doubles(by), static_cast<int>(f.shape(bx).back()));
    return g;
  }
  const std::vector<std::size_t> s = f.shape(lon);
  if (s.size() != 2) throw RemapError(spec + ": an unstructured grid needs bounds (its lon has no bounds attribute)");
  g.cells = curvilinear_cells(static_cast<std::int64_t>(s[1]), static_cast<std::int64_t>(s[0]), x, y);
  return g;
}

void write_unstructured_grid(const std::string& path, const Grid& g, const std::vector<double>& values) {
  const File f(path, true);
  int nv_max = 0;
  for (std::int64_t k = 0; k < g.cells.size(); ++k) nv_max = std::max(nv_max, g.cells.vertex_count(k));
  const auto n = static_cast<std::size_t>(g.cells.size()), nv = static_cast<std::size_t>(nv_max);
  int dcell, dnv, vlon, vlat, vblon, vblat, vf = -1;
  check(nc_def_dim(f.id, "ncells", n, &dcell), path, "nc_def_dim ncells");
  check(nc_def_dim(f.id, "nv", nv, &dnv), path, "nc_def_dim nv");
  const int d2[2] = {dcell, dnv};
  check(nc_def_var(f.id, "lon", NC_DOUBLE, 1, &dcell, &vlon), path, "nc_def_var lon");
  check(nc_def_var(f.id, "lat", NC_DOUBLE, 1, &dcell, &vlat), path, "nc_def_var lat");
  check(nc_def_var(f.id, "lon_bnds", NC_DOUBLE, 2, d2, &vblon), path, "nc_def_var lon_bnds");
  check(nc_def_var(f.id, "lat_bnds", NC_DOUBLE, 2, d2, &vblat), path, "nc_def_var lat_bnds");
  auto text = [&](int v, const char* name, std::string_view value) {
    check(nc_put_att_text(f.id, v, name, value.size(), value.data()), path, name);
  };
  text(vlon, "standard_name", "longitude"), text(vlon, "units", "degrees_east"), text(vlon, "bounds", "lon_bnds");
  text(vlat, "standard_name", "latitude"), text(vlat, "units", "degrees_north"), text(vlat, "bounds", "lat_bnds");
  if (!values.empty()) {
    check(nc_def_var(f.id, "f", NC_DOUBLE, 1, &dcell, &vf), path, "nc_def_var f");
    text(vf, "coordinates", "lat lon");
  }
  check(nc_enddef(f.id), path, "nc_enddef");
  // A cell with fewer vertices than nv repeats its last one (CF's rule).
  std::vector<double> blon(n * nv), blat(n * nv);
  for (std::size_t k = 0; k < n; ++k) {
    const auto ik = static_cast<std::int64_t>(k);
    for (std::size_t c = 0; c < nv; ++c) {
      const int vc = std::min(static_cast<int>(c), g.cells.vertex_count(ik) - 1);
      const Vec3 p = g.cells.vertices[static_cast<std::size_t>(g.cells.start[ik] + std::max(vc, 0))];
      blon[k * nv + c] = longitude_deg(p), blat[k * nv + c] = latitude_deg(p);
    }
  }
  check(nc_put_var_double(f.id, vlon, g.lon.data()), path, "lon");
  check(nc_put_var_double(f.id, vlat, g.lat.data()), path, "lat");
  check(nc_put_var_double(f.id, vblon, blon.data()), path, "lon_bnds");
  check(nc_put_var_double(f.id, vblat, blat.data()), path, "lat_bnds");
  if (vf >= 0) check(nc_put_var_double(f.id, vf, values.data()), path, "f");
}

Field read_field(const std::string& path, const std::string& var, std::size_t points) {
  const File f(path, false);
  const int v = f.var(var);
  if (v < 0) throw RemapError(path + ": no variable '" + var + "'");
  Field out;
  out.values = f.doubles(v);
  out.points = points;
  if (points == 0 || out.values.size() % points)
    throw RemapError(path + ": " + var + " has " + std::to_string(out.values.size()) +
                     " values, not whole records of the grid's " + std::to_string(points) + " points");
  out.records = out.values.size() / points;
  for (const char* name : {"_FillValue", "missing_value"})
    if (nc_get_att_double(f.id, v, name, &out.missing) == NC_NOERR) {
      out.has_missing = true;
      break;
    }
  return out;
}

void write_field(const std::string& path, const std::string& var, const std::vector<double>& values,
                 std::size_t records, std::size_t points, double fill) {
  const File f(path, true);
  int dims[2], v;
  check(nc_def_dim(f.id, "time", records, &dims[0]), path, "nc_def_dim time");
  check(nc_def_dim(f.id, "ncells", points, &dims[1]), path, "nc_def_dim ncells");
  check(nc_def_var(f.id, var.c_str(), NC_DOUBLE, 2, dims, &v), path, "nc_def_var " + var);
  check(nc_def_var_fill(f.id, v, 0, &fill), path, "nc_def_var_fill");
  check(nc_enddef(f.id), path, "nc_enddef");
  check(nc_put_var_double(f.id, v, values.data()), path, "nc_put_var_double " + var);
}

}  // namespace foehn::transform::remap::driver
