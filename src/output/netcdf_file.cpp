#include "output/netcdf_file.h"

#include <netcdf.h>
#include <netcdf_par.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>

#include "filters/temporal.h"
#include "foehn_version.h"

namespace foehn::output {

namespace {

constexpr std::size_t kChunkCacheBytes = 1 << 20;  // per variable

void put_text(int ncid, int varid, const char* name, const std::string& value) {
  if (!value.empty()) nc_put_att_text(ncid, varid, name, value.size(), value.c_str());
}

// An attribute of the XML (output_plan.h's Attribute) on `varid`, typed;
// "data" takes the variable's type (nctype). Values were checked against
// their type when the XML was read. Returns the netCDF status.
int put_attribute(int ncid, int varid, const Attribute& a, nc_type nctype) {
  int status = NC_NOERR;
  if (a.type == "int") {
    const long long v = std::stoll(a.value);
    if (v >= INT32_MIN && v <= INT32_MAX) {
      const int i = static_cast<int>(v);
      status = nc_put_att_int(ncid, varid, a.name.c_str(), NC_INT, 1, &i);
    } else {
      status = nc_put_att_longlong(ncid, varid, a.name.c_str(), NC_INT64, 1, &v);
    }
  } else if (a.type == "double" || a.type == "data") {
    const double v = std::stod(a.value);
    status = nc_put_att_double(ncid, varid, a.name.c_str(), a.type == "data" ? nctype : NC_DOUBLE, 1, &v);
  } else {
    status = nc_put_att_text(ncid, varid, a.name.c_str(), a.value.size(), a.value.c_str());
  }
  return status;
}

// A user_defined calendar described as CF 4.4.1 asks: month_lengths, and
// leap_year (and leap_month) when leap years come every 4 years. Other leap
// rules (XIOS' drift) CF cannot state: a comment gives them.
void put_user_calendar(int ncid, int varid, const ContextPlan& plan) {
  const calendar::Calendar cal = plan.make_calendar();
  const calendar::UserCalendar& u = cal.user();
  nc_put_att_int(ncid, varid, "month_lengths", NC_INT, u.month_lengths.size(), u.month_lengths.data());
  if (const auto leap_year = cal.cf_leap_year()) {
    const int year = static_cast<int>(*leap_year);
    nc_put_att_int(ncid, varid, "leap_year", NC_INT, 1, &year);
    // CF assumes February without leap_month (and cfchecker 4.1.0 fails on a
    // scalar leap_month): written only for another month.
    if (u.leap_year_month != 2) nc_put_att_int(ncid, varid, "leap_month", NC_INT, 1, &u.leap_year_month);
  } else if (u.leap_year_month != 0) {
    std::ostringstream rule;
    rule << "leap years (not stated by leap_year): month " << u.leap_year_month << " gains a day whenever a drift of "
         << u.leap_year_drift / 1e6 << " days a year, from " << u.leap_year_drift_offset / 1e6
         << ", adds up to a whole day";
    put_text(ncid, varid, "comment", rule.str());
  }
}

}  // namespace

void NetcdfFile::check(int status, const char* what) const {
  if (status != NC_NOERR) throw IoError(path_ + ": " + what + ": " + nc_strerror(status));
}

NetcdfFile::NetcdfFile(const ContextPlan& plan, int file_index, MPI_Comm comm, FilePart part)
    : part_(std::move(part)) {
  const FileInfo& f = plan.files.at(file_index);
  path_ = f.path;
  if (!part_.whole) {
    const auto dot = path_.rfind(".nc");
    // As XIOS: the part number zero-padded to the width of the largest one,
    // or to min_digits.
    const int width = std::max<int>(static_cast<int>(std::to_string(std::max(part_.total - 1, 0)).size()), f.min_digits);
    std::string number = std::to_string(part_.number);
    number.insert(0, static_cast<std::size_t>(std::max(0, width - static_cast<int>(number.size()))), '0');
    const std::string suffix = "_" + number;
    path_ = dot == std::string::npos ? path_ + suffix : path_.substr(0, dot) + suffix + ".nc";
  }
  int size = 1, rank = 0;
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, &rank);
  parallel_ = size > 1;
  is_root_ = rank == 0;
  if (f.append && std::filesystem::exists(path_)) {
    if (parallel_) check(nc_open_par(path_.c_str(), NC_WRITE, comm, MPI_INFO_NULL, &ncid_), "cannot open file to append");
    else check(nc_open(path_.c_str(), NC_WRITE, &ncid_), "cannot open file to append");
    attach(plan, file_index);
    return;
  }
  const int mode = NC_CLOBBER | NC_NETCDF4 | (f.classic ? NC_CLASSIC_MODEL : 0);
  if (parallel_) check(nc_create_par(path_.c_str(), mode, comm, MPI_INFO_NULL, &ncid_), "cannot create file");
  else check(nc_create(path_.c_str(), mode, &ncid_), "cannot create file");
  define(plan, file_index);
  write_coordinates(plan);
}

bool NetcdfFile::lay_out(const ContextPlan& plan, const FileInfo& f) {
  const std::size_t n = plan.variables.size();
  varids_.assign(n, -1);
  timeless_.assign(n, 0);
  offset_.assign(n, {});
  prec_.assign(n, 4);
  bool any_instant = false;
  for (int vi : f.variables) {
    const VariableInfo& v = plan.variables[vi];
    const auto op = static_cast<filters::TemporalOp>(v.op);
    if (filters::reduces(op)) centered_ = true;
    else if (op == filters::TemporalOp::instant) any_instant = true;
    timeless_[vi] = op == filters::TemporalOp::once;
    prec_[vi] = v.prec;
    for (const Dim& d : v.dims) {  // where the part starts in each dimension
      const LocalBlock ext = d.kind == Dim::axis ? LocalBlock{} : domain_extent(part_, plan.domains[d.index], d.index);
      offset_[vi].push_back(d.kind == Dim::axis ? 0 : d.kind == Dim::domain_j ? ext.jbegin : ext.ibegin);
    }
  }
  return any_instant;
}

void NetcdfFile::set_access(const ContextPlan& plan, const FileInfo& f) {
  if (!parallel_) return;
  int nvars = 0;
  check(nc_inq_nvars(ncid_, &nvars), "nc_inq_nvars");
  for (int v = 0; v < nvars; ++v) check(nc_var_par_access(ncid_, v, NC_COLLECTIVE), "nc_var_par_access");
  // A variable of no dimension at all (a scalar field written once) is
  // written by its one holder alone: a collective put would have every
  // rank write the value.
  for (int vi : f.variables)
    if (timeless_[vi] && plan.variables[vi].dims.empty())
      check(nc_var_par_access(ncid_, varids_[vi], NC_INDEPENDENT), "nc_var_par_access");
}

NetcdfFile::~NetcdfFile() {
  if (ncid_ >= 0) nc_close(ncid_);
}

void NetcdfFile::define(const ContextPlan& plan, int file_index) {
  const FileInfo& f = plan.files[file_index];
  ugrid_ = f.ugrid;
  cdi_ = f.cdi;
  const bool any_instant = lay_out(plan, f);
  const std::string origin = plan.time_units.substr(plan.time_units.find("since ") + 6);
  auto time_attributes = [&](int var, const char* long_name) {
    put_text(ncid_, var, "standard_name", "time");
    put_text(ncid_, var, "long_name", long_name);
    put_text(ncid_, var, "units", plan.time_units);
    put_text(ncid_, var, "calendar", plan.calendar);
    put_text(ncid_, var, "time_origin", origin);
    if (plan.calendar == "user_defined") put_user_calendar(ncid_, var, plan);
  };
  int dim_time = -1;
  check(nc_def_dim(ncid_, "time_counter", NC_UNLIMITED, &dim_time), "nc_def_dim time_counter");
  check(nc_def_var(ncid_, "time_counter", NC_DOUBLE, 1, &dim_time, &time_var_), "nc_def_var time_counter");
  time_attributes(time_var_, centered_ ? "Time axis (centre of each interval)" : "Time axis");
  put_text(ncid_, time_var_, "axis", "T");
  if (centered_) {
    // Reduced values stand for an interval: CF bounds say which.
    int dim_nb = -1;
    check(nc_def_dim(ncid_, "axis_nbounds", 2, &dim_nb), "nc_def_dim axis_nbounds");
    const int dims[2] = {dim_time, dim_nb};
    check(nc_def_var(ncid_, "time_counter_bounds", NC_DOUBLE, 2, dims, &time_bounds_var_), "nc_def_var time bounds");
    put_text(ncid_, time_var_, "bounds", "time_counter_bounds");
    if (any_instant) {
      check(nc_def_var(ncid_, "time_instant", NC_DOUBLE, 1, &dim_time, &time_instant_var_), "nc_def_var time_instant");
      time_attributes(time_instant_var_, "Time of the instant values");
    }
  }

  // Dimensions and coordinate variables of the domains and axes this file uses.
  std::map<std::pair<int, int>, int> dimid;  // (kind, index) -> netCDF dim id
  bool first_domain = true;
  domain_vars_.assign(plan.domains.size(), {});
  for (int vi : f.variables) {
    for (const Dim& d : plan.variables[vi].dims) {
      const auto key = std::make_pair(d.kind == Dim::axis ? 2 : 0, d.index);
      if (dimid.count(key)) continue;
      if (d.kind == Dim::axis) {
        const AxisInfo& a = plan.axes[d.index];
        const std::string name = a.name.empty() ? a.id : a.name;
        int id = -1, var = -1;
        check(nc_def_dim(ncid_, name.c_str(), a.values.size(), &id), "nc_def_dim (axis)");
        check(nc_def_var(ncid_, name.c_str(), NC_DOUBLE, 1, &id, &var), "nc_def_var (axis)");
        put_text(ncid_, var, "axis", a.axis_type.empty() ? "Z" : a.axis_type);
        put_text(ncid_, var, "standard_name", a.standard_name);
        put_text(ncid_, var, "long_name", a.long_name);
        put_text(ncid_, var, "units", a.units.empty() ? "1" : a.units);
        put_text(ncid_, var, "positive", a.positive);
        if (!a.bounds.empty()) {  // CF bounds: (axis, 2), lower then upper
          const std::string bounds = a.bounds_name.empty() ? name + "_bnds" : a.bounds_name;
          int nb = -1, bvar = -1;
          if (nc_inq_dimid(ncid_, "axis_nbounds", &nb) != NC_NOERR)
            check(nc_def_dim(ncid_, "axis_nbounds", 2, &nb), "nc_def_dim axis_nbounds");
          const int bdims[2] = {id, nb};
          check(nc_def_var(ncid_, bounds.c_str(), NC_DOUBLE, 2, bdims, &bvar), "nc_def_var (axis bounds)");
          put_text(ncid_, var, "bounds", bounds);
          axis_bounds_[d.index] = bounds;
        }
        dimid[key] = id;
      } else {
        define_domain(plan, d.index, first_domain ? "" : "_" + plan.domains[d.index].id, dimid);
        first_domain = false;
      }
    }
  }

  // Scalars with a value: 0-d coordinate variables, named by `coordinates`.
  for (int vi : f.variables)
    for (const std::int32_t c : plan.variables[vi].scalars) {
      const ScalarInfo& sc = plan.scalars[c];
      if (!sc.has_value || scalar_names_.count(c)) continue;
      const std::string name = sc.name.empty() ? sc.id : sc.name;
      int var = -1;
      check(nc_def_var(ncid_, name.c_str(), NC_DOUBLE, 0, nullptr, &var), ("nc_def_var scalar " + name).c_str());
      put_text(ncid_, var, "standard_name", sc.standard_name);
      put_text(ncid_, var, "long_name", sc.long_name);
      put_text(ncid_, var, "units", sc.units);
      put_text(ncid_, var, "positive", sc.positive);
      put_text(ncid_, var, "axis", sc.axis_type);
      scalar_names_[c] = name;
    }

  for (int vi : f.variables) {
    const VariableInfo& v = plan.variables[vi];
    const auto op = static_cast<filters::TemporalOp>(v.op);
    std::vector<int> dims;
    if (!timeless_[vi]) dims.push_back(dim_time);
    for (const Dim& d : v.dims) dims.push_back(dimid.at(std::make_pair(static_cast<int>(d.kind), d.index)));
    int var = -1;
    check(nc_def_var(ncid_, v.name.c_str(), v.prec == 8 ? NC_DOUBLE : NC_FLOAT, static_cast<int>(dims.size()),
                     dims.data(), &var),
          ("nc_def_var " + v.name).c_str());
    // A writer puts whole blocks of a record at once, so HDF5's chunk cache
    // (16 MiB per variable by default) only copies the data and keeps it:
    // 12 variables of a 311 MB record held 192 MiB of a server
    // (bench/output_heavy.py). Chunks larger than this small cache go to
    // the file directly.
    check(nc_set_var_chunk_cache(ncid_, var, kChunkCacheBytes, 101, 0.75f), "nc_set_var_chunk_cache");
    // compression_level: deflate after byte shuffling (as XIOS). Parallel
    // writers compress too: their writes are collective (below).
    if (v.compression_level > 0 && !dims.empty())
      check(nc_def_var_deflate(ncid_, var, NC_SHUFFLE, 1, v.compression_level), ("nc_def_var_deflate " + v.name).c_str());
    put_text(ncid_, var, "standard_name", v.standard_name);
    put_text(ncid_, var, "long_name", v.long_name);
    put_text(ncid_, var, "units", v.units);
    put_text(ncid_, var, "online_operation", v.operation);
    put_text(ncid_, var, "comment", v.comment);
    if (!timeless_[vi]) put_text(ncid_, var, "cell_methods", v.cell_methods);
    std::string coordinates = op == filters::TemporalOp::instant && time_instant_var_ >= 0 ? "time_instant" : "";
    for (const Dim& d : v.dims) {
      if (d.kind != Dim::domain_i) continue;
      const DomainVars& dv = domain_vars_[d.index];
      if (dv.rows_lat.empty()) {
        if (!dv.coordinates.empty()) coordinates += (coordinates.empty() ? "" : " ") + dv.coordinates;
        continue;
      }
      // CDI's reduced Gaussian grid. CDI takes the last latitude that
      // `coordinates` names as the row latitudes, so the cells (still in
      // the file) are not named (docs/grids.md).
      put_text(ncid_, var, "CDI_grid_type", "gaussian_reduced");
      const int n = static_cast<int>(dv.rows.lat.size() / 2);
      nc_put_att_int(ncid_, var, "CDI_grid_num_LPE", NC_INT, 1, &n);
      put_text(ncid_, var, "CDI_grid_latitudes", dv.rows_lat);
      put_text(ncid_, var, "CDI_grid_reduced_points", dv.rows_points);
    }
    for (const std::int32_t c : v.scalars)
      if (auto name = scalar_names_.find(c); name != scalar_names_.end())
        coordinates += (coordinates.empty() ? "" : " ") + name->second;
    put_text(ncid_, var, "coordinates", coordinates);
    for (const Dim& d : v.dims)
      if (auto m = meshes_.find(d.index); d.kind == Dim::domain_i && m != meshes_.end()) {
        put_text(ncid_, var, "mesh", m->second.name);
        put_text(ncid_, var, "location", "face");
      }
    if (v.has_fill) {
      // _FillValue must have the variable's type.
      if (v.prec == 8) {
        check(nc_def_var_fill(ncid_, var, 0, &v.fill_value), "nc_def_var_fill");
        nc_put_att_double(ncid_, var, "missing_value", NC_DOUBLE, 1, &v.fill_value);
      } else {
        const float fill = static_cast<float>(v.fill_value);
        check(nc_def_var_fill(ncid_, var, 0, &fill), "nc_def_var_fill");
        nc_put_att_float(ncid_, var, "missing_value", NC_FLOAT, 1, &fill);
      }
    }
    // The XML's own attributes last: they may replace the ones above.
    for (const auto& a : v.attributes)
      check(put_attribute(ncid_, var, a, v.prec == 8 ? NC_DOUBLE : NC_FLOAT), (v.name + " attribute " + a.name).c_str());
    varids_[vi] = var;
  }

  put_text(ncid_, NC_GLOBAL, "Conventions", meshes_.empty() ? "CF-1.10" : "CF-1.10 UGRID-1.0");
  put_text(ncid_, NC_GLOBAL, "title", f.title);
  put_text(ncid_, NC_GLOBAL, "source", std::string("foehn ") + FOEHN_VERSION);
  put_text(ncid_, NC_GLOBAL, "name", f.id);
  put_text(ncid_, NC_GLOBAL, "output_frequency", f.output_freq);
  for (const auto& a : f.attributes)
    check(put_attribute(ncid_, NC_GLOBAL, a, NC_DOUBLE), ("global attribute " + a.name).c_str());
  if (!part_.whole) {
    // What a tool needs to stitch the parts back into one global field.
    const int number = part_.number, total = part_.total;
    nc_put_att_int(ncid_, NC_GLOBAL, "DOMAIN_number_total", NC_INT, 1, &total);
    nc_put_att_int(ncid_, NC_GLOBAL, "DOMAIN_number", NC_INT, 1, &number);
    for (size_t d = 0; d < plan.domains.size(); ++d) {
      // Positions are 1-based, i then j (only i for a 1-D domain).
      const DomainInfo& dom = plan.domains[d];
      const LocalBlock b = domain_extent(part_, dom, d);
      const int glo[2] = {static_cast<int>(dom.ni_glo), static_cast<int>(dom.nj_glo)};
      const int first[2] = {static_cast<int>(b.ibegin + 1), static_cast<int>(b.jbegin + 1)};
      const int last[2] = {static_cast<int>(b.ibegin + b.ni), static_cast<int>(b.jbegin + b.nj)};
      const std::string p = "DOMAIN_" + dom.id + "_";
      const size_t n = dom.one_dimensional() ? 1 : 2;
      nc_put_att_int(ncid_, NC_GLOBAL, (p + "size_global").c_str(), NC_INT, n, glo);
      nc_put_att_int(ncid_, NC_GLOBAL, (p + "position_first").c_str(), NC_INT, n, first);
      nc_put_att_int(ncid_, NC_GLOBAL, (p + "position_last").c_str(), NC_INT, n, last);
    }
  }
  check(nc_enddef(ncid_), "nc_enddef");
  set_access(plan, f);
}

void NetcdfFile::define_domain(const ContextPlan& plan, int index, const std::string& suffix,
                               std::map<std::pair<int, int>, int>& dimid) {
  const DomainInfo& dom = plan.domains[index];
  const LocalBlock ext = domain_extent(part_, dom, index);
  const bool rect = dom.type == "rectilinear", one_d = dom.one_dimensional();
  DomainVars& names = domain_vars_[index];
  names.used = true;
  names.lat = "lat" + suffix;
  names.lon = "lon" + suffix;
  // Dimensions: lat/lon (rectilinear), y/x (curvilinear), cell (1-D).
  int jd = -1, id = -1;
  const std::string jname = rect ? names.lat : "y" + suffix, iname = rect ? names.lon : one_d ? "cell" + suffix : "x" + suffix;
  if (!one_d) check(nc_def_dim(ncid_, jname.c_str(), ext.nj, &jd), "nc_def_dim (domain j)");
  check(nc_def_dim(ncid_, iname.c_str(), ext.ni, &id), "nc_def_dim (domain i)");
  if (one_d) jd = id;
  dimid[std::make_pair(0, index)] = jd;
  dimid[std::make_pair(1, index)] = id;
  int nbounds = -1;
  if (dom.nvertex > 0) {
    const std::string nv = rect ? "axis_nbounds" : "nvertex" + suffix;
    if (nc_inq_dimid(ncid_, nv.c_str(), &nbounds) != NC_NOERR)
      check(nc_def_dim(ncid_, nv.c_str(), dom.nvertex, &nbounds), "nc_def_dim (bounds)");
    names.lat_bounds = names.lat + "_bnds";
    names.lon_bounds = names.lon + "_bnds";
  }
  // Coordinates: 1-D coordinate variables (rectilinear), else auxiliary
  // coordinates over the domain's dimensions, named by `coordinates`.
  auto coordinate = [&](const std::string& name, const std::string& bounds, std::vector<int> dims, bool is_lat) {
    int var = -1;
    check(nc_def_var(ncid_, name.c_str(), NC_DOUBLE, static_cast<int>(dims.size()), dims.data(), &var), "nc_def_var (coordinate)");
    put_text(ncid_, var, "standard_name", is_lat ? "latitude" : "longitude");
    put_text(ncid_, var, "long_name", is_lat ? "Latitude" : "Longitude");
    put_text(ncid_, var, "units", is_lat ? "degrees_north" : "degrees_east");
    if (rect) put_text(ncid_, var, "axis", is_lat ? "Y" : "X");
    if (bounds.empty()) return;
    put_text(ncid_, var, "bounds", bounds);
    dims.push_back(nbounds);
    check(nc_def_var(ncid_, bounds.c_str(), NC_DOUBLE, static_cast<int>(dims.size()), dims.data(), &var), "nc_def_var (bounds)");
  };
  const std::vector<int> cell_dims = one_d ? std::vector<int>{id} : std::vector<int>{jd, id};
  coordinate(names.lat, names.lat_bounds, rect ? std::vector<int>{jd} : cell_dims, true);
  coordinate(names.lon, names.lon_bounds, rect ? std::vector<int>{id} : cell_dims, false);
  if (!rect) names.coordinates = names.lat + " " + names.lon;
  if (cdi_ && part_.whole && dom.type == "gaussian") {  // (multiple_file is refused with CDI)
    // CDI's own description of a reduced Gaussian grid, as `cdo -f nc`
    // writes it: the latitude and number of points of each row.
    if (std::string e = reduced_rows(dom, names.rows); !e.empty()) throw IoError(path_ + ": " + e);
    names.rows_lat = "lat_rows" + suffix;
    names.rows_points = "reduced_points" + suffix;
    int rows_dim = -1, var = -1;
    check(nc_def_dim(ncid_, ("rows" + suffix).c_str(), names.rows.lat.size(), &rows_dim), "nc_def_dim (rows)");
    check(nc_def_var(ncid_, names.rows_lat.c_str(), NC_DOUBLE, 1, &rows_dim, &var), "nc_def_var (row latitudes)");
    put_text(ncid_, var, "standard_name", "latitude");
    put_text(ncid_, var, "long_name", "Latitude of each row");
    put_text(ncid_, var, "units", "degrees_north");
    check(nc_def_var(ncid_, names.rows_points.c_str(), NC_INT, 1, &rows_dim, &var), "nc_def_var (reduced points)");
    put_text(ncid_, var, "long_name", "Number of points in each row");
    put_text(ncid_, var, "units", "1");
  }
  if (ugrid_ && dom.type == "unstructured" && dom.nvertex > 0) define_mesh(plan, index, ext, suffix, id, nbounds);
}

void NetcdfFile::define_mesh(const ContextPlan& plan, int index, const LocalBlock& part, const std::string& suffix,
                             int cell_dim, int nvertex_dim) {
  const DomainInfo& dom = plan.domains[index];
  // Nodes: the distinct corners of the part's cells (exactly equal
  // longitude and latitude), found by sorting the corners once.
  Mesh m;
  m.name = "mesh" + suffix;
  m.node_lon = "mesh" + suffix + "_node_lon";
  m.node_lat = "mesh" + suffix + "_node_lat";
  m.face_nodes = "mesh" + suffix + "_face_nodes";
  m.cells = static_cast<std::size_t>(part.ni);
  m.nvertex = static_cast<std::size_t>(dom.nvertex);
  const std::size_t first = static_cast<std::size_t>(part.ibegin) * m.nvertex, n = m.cells * m.nvertex;
  const double* lon = dom.bounds_lon.data() + first;
  const double* lat = dom.bounds_lat.data() + first;
  std::vector<std::size_t> order(n);
  for (std::size_t k = 0; k < n; ++k) order[k] = k;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return lon[a] < lon[b] || (lon[a] == lon[b] && lat[a] < lat[b]);
  });
  m.faces.resize(n);
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t c = order[k];
    if (m.lon.empty() || lon[c] != m.lon.back() || lat[c] != m.lat.back()) m.lon.push_back(lon[c]), m.lat.push_back(lat[c]);
    m.faces[c] = static_cast<int>(m.lon.size() - 1);
  }
  int node_dim = -1, var = -1;
  check(nc_def_dim(ncid_, ("nmesh" + suffix + "_node").c_str(), std::max<std::size_t>(m.lon.size(), 1), &node_dim),
        "nc_def_dim (mesh nodes)");
  check(nc_def_var(ncid_, m.name.c_str(), NC_INT, 0, nullptr, &var), "nc_def_var (mesh)");
  put_text(ncid_, var, "cf_role", "mesh_topology");
  put_text(ncid_, var, "long_name", "Topology of the unstructured domain '" + dom.id + "'");
  const int two = 2, zero = 0;
  nc_put_att_int(ncid_, var, "topology_dimension", NC_INT, 1, &two);
  put_text(ncid_, var, "node_coordinates", m.node_lon + " " + m.node_lat);
  put_text(ncid_, var, "face_node_connectivity", m.face_nodes);
  put_text(ncid_, var, "face_coordinates", domain_vars_[index].lon + " " + domain_vars_[index].lat);
  char dimname[NC_MAX_NAME + 1];
  check(nc_inq_dimname(ncid_, cell_dim, dimname), "nc_inq_dimname");
  put_text(ncid_, var, "face_dimension", dimname);
  for (const bool is_lat : {false, true}) {
    check(nc_def_var(ncid_, (is_lat ? m.node_lat : m.node_lon).c_str(), NC_DOUBLE, 1, &node_dim, &var), "nc_def_var (mesh node)");
    put_text(ncid_, var, "standard_name", is_lat ? "latitude" : "longitude");
    put_text(ncid_, var, "long_name", is_lat ? "Latitude of the mesh nodes" : "Longitude of the mesh nodes");
    put_text(ncid_, var, "units", is_lat ? "degrees_north" : "degrees_east");
  }
  const int dims[2] = {cell_dim, nvertex_dim};
  check(nc_def_var(ncid_, m.face_nodes.c_str(), NC_INT, 2, dims, &var), "nc_def_var (mesh faces)");
  put_text(ncid_, var, "cf_role", "face_node_connectivity");
  put_text(ncid_, var, "long_name", "Nodes of each cell, counterclockwise");
  nc_put_att_int(ncid_, var, "start_index", NC_INT, 1, &zero);
  meshes_[index] = std::move(m);
}

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

void NetcdfFile::write_coordinates(const ContextPlan& plan) {
  // In a parallel file the root writes the values and the others take part
  // in the collective call with an empty count.
  auto put = [&](const std::string& name, const std::vector<double>& values, std::vector<size_t> count) {
    int var = -1;
    if (nc_inq_varid(ncid_, name.c_str(), &var) != NC_NOERR) return;
    const std::vector<size_t> start(count.size(), 0);
    if (!is_root_) std::fill(count.begin(), count.end(), 0);
    check(nc_put_vara_double(ncid_, var, start.data(), count.data(), values.data()), "writing coordinates");
  };
  for (const AxisInfo& a : plan.axes) put(a.name.empty() ? a.id : a.name, a.values, {a.values.size()});
  for (const auto& [index, m] : meshes_) {
    put(m.node_lon, m.lon, {m.lon.size()});
    put(m.node_lat, m.lat, {m.lat.size()});
    int var = -1;
    check(nc_inq_varid(ncid_, m.face_nodes.c_str(), &var), "nc_inq_varid (mesh faces)");
    const size_t start[2] = {0, 0}, count[2] = {is_root_ ? m.cells : 0, m.nvertex};
    check(nc_put_vara_int(ncid_, var, start, count, m.faces.data()), "writing the mesh faces");
  }
  for (const auto& [index, name] : axis_bounds_) put(name, plan.axes[index].bounds, {plan.axes[index].values.size(), 2});
  for (const auto& [index, name] : scalar_names_) {
    // Every writer writes the one value (a collective call in a shared file).
    int var = -1;
    check(nc_inq_varid(ncid_, name.c_str(), &var), "nc_inq_varid (scalar)");
    check(nc_put_var_double(ncid_, var, &plan.scalars[index].value), "writing a scalar coordinate");
  }
  for (size_t d = 0; d < plan.domains.size(); ++d) {
    const DomainInfo& dom = plan.domains[d];
    const DomainVars& names = domain_vars_[d];
    if (!names.used) continue;
    const LocalBlock b = domain_extent(part_, dom, d);
    const auto ni = static_cast<size_t>(b.ni), nj = static_cast<size_t>(b.nj), nv = static_cast<size_t>(dom.nvertex);
    const bool rect = dom.type == "rectilinear", one_d = dom.one_dimensional();
    // Rectilinear: a row of ni_glo longitudes and a column of nj_glo latitudes.
    const LocalBlock lon_part = rect ? LocalBlock{b.ibegin, b.ni, 0, 1} : b;
    const LocalBlock lat_part = rect ? LocalBlock{0, 1, b.jbegin, b.nj} : b;
    const std::int64_t lon_width = dom.ni_glo, lat_width = rect ? 1 : dom.ni_glo;
    const std::vector<size_t> lon_count = rect ? std::vector<size_t>{ni} : one_d ? std::vector<size_t>{ni} : std::vector<size_t>{nj, ni};
    const std::vector<size_t> lat_count = rect ? std::vector<size_t>{nj} : lon_count;
    auto with_nv = [&](std::vector<size_t> c) { c.push_back(nv); return c; };
    const bool root = is_root_;
    put(names.lon, root ? part_values(dom.lon, lon_width, lon_part, 1) : std::vector<double>{}, lon_count);
    put(names.lat, root ? part_values(dom.lat, lat_width, lat_part, 1) : std::vector<double>{}, lat_count);
    if (!names.rows_lat.empty()) {
      put(names.rows_lat, names.rows.lat, {names.rows.lat.size()});
      int var = -1;
      check(nc_inq_varid(ncid_, names.rows_points.c_str(), &var), "nc_inq_varid (reduced points)");
      const size_t start = 0, count = is_root_ ? names.rows.points.size() : 0;
      check(nc_put_vara_int(ncid_, var, &start, &count, names.rows.points.data()), "writing the reduced points");
    }
    if (nv == 0) continue;
    put(names.lon_bounds, root ? part_values(dom.bounds_lon, lon_width, lon_part, dom.nvertex) : std::vector<double>{},
        with_nv(lon_count));
    put(names.lat_bounds, root ? part_values(dom.bounds_lat, lat_width, lat_part, dom.nvertex) : std::vector<double>{},
        with_nv(lat_count));
  }
}

void NetcdfFile::write_time(std::int64_t record, double end, double start_time) {
  const size_t start[2] = {static_cast<size_t>(base_record_ + record), 0};
  const size_t count[2] = {is_root_ ? size_t{1} : 0, 2};
  const double stamp = centered_ ? 0.5 * (start_time + end) : end;
  check(nc_put_vara_double(ncid_, time_var_, start, count, &stamp), "writing time_counter");
  if (time_bounds_var_ >= 0) {
    const double bounds[2] = {start_time, end};
    check(nc_put_vara_double(ncid_, time_bounds_var_, start, count, bounds), "writing time_counter_bounds");
  }
  if (time_instant_var_ >= 0) check(nc_put_vara_double(ncid_, time_instant_var_, start, count, &end), "writing time_instant");
}

void NetcdfFile::write(int variable, std::int64_t record, const grid::Box& box, const void* data) {
  const auto& offset = offset_.at(variable);
  const size_t t = timeless_[variable] ? 0 : 1;  // leading time dimension, if any
  const size_t rank = box.start.size() + t;
  size_t start[NC_MAX_VAR_DIMS], count[NC_MAX_VAR_DIMS];
  if (t) {
    start[0] = static_cast<size_t>(base_record_ + record);
    count[0] = box.empty() ? 0 : 1;
  }
  for (size_t d = t; d < rank; ++d) {
    count[d] = box.empty() ? 0 : static_cast<size_t>(box.count[d - t]);
    start[d] = box.empty() ? 0 : static_cast<size_t>(box.start[d - t] - offset[d - t]);
  }
  const int var = varids_.at(variable);
  if (t == 0 && offset.empty() && box.empty()) return;  // 0-d and held elsewhere (independent access)
  const double t0 = MPI_Wtime();
  if (prec_[variable] == 8)
    check(nc_put_vara_double(ncid_, var, start, count, static_cast<const double*>(data)), "writing a variable");
  else
    check(nc_put_vara_float(ncid_, var, start, count, static_cast<const float*>(data)), "writing a variable");
  write_seconds_ += MPI_Wtime() - t0;
  bytes_written_ += static_cast<std::uint64_t>(box.size()) * prec_[variable];
}

void NetcdfFile::sync() { check(nc_sync(ncid_), "nc_sync"); }

void NetcdfFile::close() {
  if (ncid_ < 0) return;
  const int id = ncid_;
  ncid_ = -1;
  const double t0 = MPI_Wtime();
  check(nc_close(id), "nc_close");
  write_seconds_ += MPI_Wtime() - t0;
}

}  // namespace foehn::output
