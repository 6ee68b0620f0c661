// Definition of a new NetCDF file, phase by phase and in netCDF's order of
// ids: the time axis, the grid (axes and domains in the order the file's
// variables first use them, each with its coordinate variables), scalar
// coordinates, the variables with their attributes, the global attributes.
#include <netcdf.h>

#include <algorithm>
#include <set>
#include <sstream>
#include <string>

#include "filters/temporal.h"
#include "foehn_version.h"
#include "formats/netcdf/netcdf_writer.h"

namespace foehn::formats::netcdf {

using output::AxisInfo;
using output::ContextPlan;
using output::Dim;
using output::DomainInfo;
using output::FileInfo;
using output::LocalBlock;
using output::ScalarInfo;
using output::VariableInfo;

namespace {

// An attribute of the XML (output_plan.h's Attribute) on `varid`, typed;
// "data" takes the variable's type (nctype). Values were checked against
// their type when the XML was read.
void put_attribute(const NcDataset& ds, int varid, const output::Attribute& a, nc_type nctype) {
  if (a.type == "int") {
    const long long v = std::stoll(a.value);
    if (v >= INT32_MIN && v <= INT32_MAX)
      ds.put_ints(varid, a.name, {static_cast<int>(v)});
    else
      ds.put_int64(varid, a.name, v);
  } else if (a.type == "double" || a.type == "data") {
    ds.put_double(varid, a.name, a.type == "data" ? nctype : NC_DOUBLE, std::stod(a.value));
  } else {
    ds.put_text_as_given(varid, a.name, a.value);
  }
}

// A user_defined calendar described as CF 4.4.1 asks: month_lengths, and
// leap_year (and leap_month) when leap years come every 4 years. Other leap
// rules (XIOS' drift) CF cannot state: a comment gives them.
void put_user_calendar(const NcDataset& ds, int varid, const ContextPlan& plan) {
  const calendar::Calendar cal = plan.make_calendar();
  const calendar::UserCalendar& u = cal.user();
  ds.put_ints(varid, "month_lengths", std::vector<int>(u.month_lengths.begin(), u.month_lengths.end()));
  if (const auto leap_year = cal.cf_leap_year()) {
    ds.put_ints(varid, "leap_year", {static_cast<int>(*leap_year)});
    // CF assumes February without leap_month (and cfchecker 4.1.0 fails on a
    // scalar leap_month): written only for another month.
    if (u.leap_year_month != 2) ds.put_ints(varid, "leap_month", {u.leap_year_month});
  } else if (u.leap_year_month != 0) {
    std::ostringstream rule;
    rule << "leap years (not stated by leap_year): month " << u.leap_year_month << " gains a day whenever a drift of "
         << u.leap_year_drift / 1e6 << " days a year, from " << u.leap_year_drift_offset / 1e6
         << ", adds up to a whole day";
    ds.put_text(varid, "comment", rule.str());
  }
}

}  // namespace

void NetcdfWriter::define(const ContextPlan& plan, const FileInfo& f) {
  lay_out(plan, f);
  define_time(plan);
  define_grid(plan, f);
  define_scalars(plan, f);
  for (int vi : f.variables) define_variable(plan, vi);
  put_global_attributes(plan, f);
}

std::string NetcdfWriter::time_units(const ContextPlan& plan) const {
  const std::string origin = plan.time_units.substr(plan.time_units.find("since "));
  return (time_unit_ == 1 ? "seconds " : "days ") + origin;
}

void NetcdfWriter::put_time_attributes(const ContextPlan& plan, int var, const char* long_name) const {
  ds_.put_text(var, "standard_name", "time");
  ds_.put_text(var, "long_name", long_name);
  ds_.put_text(var, "units", time_units(plan));
  ds_.put_text(var, "calendar", plan.calendar);
  ds_.put_text(var, "time_origin", plan.time_units.substr(plan.time_units.find("since ") + 6));
  if (plan.calendar == "user_defined") put_user_calendar(ds_, var, plan);
}

// XIOS's time variables (time_layout.h): the counter over the record
// dimension, then time_centered and time_instant, each with CF bounds.
void NetcdfWriter::define_time(const ContextPlan& plan) {
  using Counter = TimeLayout::Counter;
  dim_time_ = ds_.def_dim(counter_name_, NC_UNLIMITED);
  int dim_nb = -1;
  const auto with_bounds = [&](const std::string& name, const char* long_name, int& var, int& bounds_var) {
    var = ds_.def_var(name, NC_DOUBLE, {dim_time_});
    put_time_attributes(plan, var, long_name);
    if (dim_nb < 0) dim_nb = ds_.def_dim("axis_nbounds", 2);
    bounds_var = ds_.def_var(name + "_bounds", NC_DOUBLE, {dim_time_, dim_nb});
    // As the time values' own chunks (netCDF's 4 KiB): its default, one
    // record a chunk, added a chunk and an index entry to the file at
    // every record.
    ds_.def_chunking(bounds_var, {kTimeChunkRecords, 2});
    ds_.put_text(var, "bounds", name + "_bounds");
  };
  if (time_.counter == Counter::record) {
    // XIOS gives the record number only axis="T"; CF wants units with
    // "since" on a time axis, so this one is a plain count.
    time_var_ = ds_.def_var(counter_name_, NC_DOUBLE, {dim_time_});
    ds_.put_text(time_var_, "long_name", "record number");
    ds_.put_text(time_var_, "units", "1");
  } else if (time_.counter != Counter::none) {
    with_bounds(counter_name_, time_.counter == Counter::centered ? "Time axis (centre of each interval)" : "Time axis",
                time_var_, time_bounds_var_);
    ds_.put_text(time_var_, "axis", "T");
  }
  if (time_.centered)
    with_bounds("time_centered", "Time axis (centre of each interval)", time_centered_var_, time_centered_bounds_var_);
  if (time_.instant)
    with_bounds("time_instant", "Time of the instant values", time_instant_var_, time_instant_bounds_var_);
}

// Dimensions and coordinate variables of the domains and axes this file
// uses, in the order its variables first use them.
void NetcdfWriter::define_grid(const ContextPlan& plan, const FileInfo& f) {
  // As XIOS: when the file holds more than one domain, every domain's names
  // take the suffix _<name or id>; with one domain, none.
  std::set<int> domains;
  for (int vi : f.variables)
    for (const Dim& d : plan.variables[vi].dims)
      if (d.kind != Dim::axis) domains.insert(d.index);
  domain_vars_.assign(plan.domains.size(), {});
  for (int vi : f.variables)
    for (const Dim& d : plan.variables[vi].dims) {
      if (dimid_.count({d.kind == Dim::axis ? 2 : 0, d.index})) continue;
      if (d.kind == Dim::axis) {
        define_axis(plan, d.index);
      } else {
        const DomainInfo& dom = plan.domains[d.index];
        define_domain(plan, d.index, domains.size() == 1 ? "" : "_" + (dom.name.empty() ? dom.id : dom.name));
      }
    }
}

void NetcdfWriter::define_axis(const ContextPlan& plan, int index) {
  const AxisInfo& a = plan.axes[index];
  const std::string name = a.name.empty() ? a.id : a.name;
  // XIOS names the dimension dim_name when given (the variable keeps the
  // axis's name: then an auxiliary coordinate, named by `coordinates`).
  const int id = ds_.def_dim(a.dim_name.empty() ? name : a.dim_name, a.values.size());
  if (!a.dim_name.empty() && a.dim_name != name) axis_auxiliary_[index] = name;
  const int var = ds_.def_var(name, NC_DOUBLE, {id});
  ds_.put_text(var, "axis", a.axis_type.empty() ? "Z" : a.axis_type);
  ds_.put_text(var, "standard_name", a.standard_name);
  ds_.put_text(var, "long_name", a.long_name);
  ds_.put_text(var, "units", a.units.empty() ? "1" : a.units);
  ds_.put_text(var, "positive", a.positive);
  for (const auto& at : a.attributes) put_attribute(ds_, var, at, NC_DOUBLE);
  if (!a.bounds.empty()) {  // CF bounds: (axis, 2), lower then upper
    const std::string bounds = a.bounds_name.empty() ? name + "_bounds" : a.bounds_name;  // XIOS's name
    int nb = ds_.find_dim("axis_nbounds").value_or(-1);
    if (nb < 0) nb = ds_.def_dim("axis_nbounds", 2);
    const int bvar = ds_.def_var(bounds, NC_DOUBLE, {id, nb});
    for (const auto& at : a.bounds_attributes) put_attribute(ds_, bvar, at, NC_DOUBLE);
    ds_.put_text(var, "bounds", bounds);
    axis_bounds_[index] = bounds;
  }
  dimid_[{2, index}] = id;
}

void NetcdfWriter::define_domain(const ContextPlan& plan, int index, const std::string& suffix) {
  const DomainInfo& dom = plan.domains[index];
  const LocalBlock ext = domain_extent(part_, dom, index);
  const bool rect = dom.type == "rectilinear", one_d = dom.one_dimensional();
  DomainVars& names = domain_vars_[index];
  names.used = true;
  // XIOS's names: lon_name and lat_name (rectilinear: else dim_i_name and
  // dim_j_name), else nav_lon/nav_lat (curvilinear) or lon/lat; dimensions
  // dim_j_name and dim_i_name, else lat/lon (rectilinear), y/x
  // (curvilinear), cell (1-D); each with the domain's suffix.
  const bool curvilinear = dom.type == "curvilinear";
  const std::string lon = !dom.lon_name.empty()             ? dom.lon_name
                          : rect && !dom.dim_i_name.empty() ? dom.dim_i_name
                          : curvilinear                     ? "nav_lon"
                                                            : "lon";
  const std::string lat = !dom.lat_name.empty()             ? dom.lat_name
                          : rect && !dom.dim_j_name.empty() ? dom.dim_j_name
                          : curvilinear                     ? "nav_lat"
                                                            : "lat";
  names.lat = lat + suffix;
  names.lon = lon + suffix;
  const std::string jname = (!dom.dim_j_name.empty() ? dom.dim_j_name : rect ? lat : "y") + suffix;
  const std::string iname = (!dom.dim_i_name.empty() ? dom.dim_i_name : rect ? lon : one_d ? "cell" : "x") + suffix;
  int jd = one_d ? -1 : ds_.def_dim(jname, ext.nj);
  const int id = ds_.def_dim(iname, ext.ni);
  if (one_d) jd = id;
  dimid_[{0, index}] = jd;
  dimid_[{1, index}] = id;
  int nbounds = -1;
  if (dom.nvertex > 0) {
    // nvertex_name as given (no suffix), for 1-D domains as XIOS does for unstructured ones.
    const std::string nv = rect ? "axis_nbounds" : one_d && !dom.nvertex_name.empty() ? dom.nvertex_name : "nvertex" + suffix;
    nbounds = ds_.find_dim(nv).value_or(-1);
    if (nbounds < 0) nbounds = ds_.def_dim(nv, dom.nvertex);
    // XIOS's bounds_<coordinate>; bounds_lat_name and bounds_lon_name as
    // given (XIOS adds no suffix).
    names.lat_bounds = dom.bounds_lat_name.empty() ? "bounds_" + names.lat : dom.bounds_lat_name;
    names.lon_bounds = dom.bounds_lon_name.empty() ? "bounds_" + names.lon : dom.bounds_lon_name;
  }
  // Coordinates: 1-D coordinate variables (rectilinear), else auxiliary
  // coordinates over the domain's dimensions, named by `coordinates`.
  auto coordinate = [&](const std::string& name, const std::string& bounds, std::vector<int> dims, bool is_lat) {
    const int var = ds_.def_var(name, NC_DOUBLE, dims);
    ds_.put_text(var, "standard_name", is_lat ? "latitude" : "longitude");
    ds_.put_text(var, "long_name", is_lat ? "Latitude" : "Longitude");
    ds_.put_text(var, "units", is_lat ? "degrees_north" : "degrees_east");
    if (rect) ds_.put_text(var, "axis", is_lat ? "Y" : "X");
    if (bounds.empty()) return;
    ds_.put_text(var, "bounds", bounds);
    dims.push_back(nbounds);
    ds_.def_var(bounds, NC_DOUBLE, dims);
  };
  const std::vector<int> cell_dims = one_d ? std::vector<int>{id} : std::vector<int>{jd, id};
  coordinate(names.lat, names.lat_bounds, rect ? std::vector<int>{jd} : cell_dims, true);
  coordinate(names.lon, names.lon_bounds, rect ? std::vector<int>{id} : cell_dims, false);
  if (!rect) names.coordinates = names.lat + " " + names.lon;
  if (cdi_ && part_.whole && dom.type == "gaussian")
    define_cdi_rows(dom, index, suffix);  // (multiple_file is refused with CDI)
  if (ugrid_ && dom.type == "unstructured" && dom.nvertex > 0) define_mesh(plan, index, ext, suffix, id, nbounds);
  if (dom.type == "healpix") define_healpix(dom, index, suffix, id);
}

// CF-1.13's HEALPix grid mapping, with the attributes the older hackathon
// convention (easygems: healpix_nside, healpix_order) reads, and the cell
// index as the coordinate variable of the cell dimension.
void NetcdfWriter::define_healpix(const DomainInfo& dom, int index, const std::string& suffix, int cell_dim) {
  DomainVars& names = domain_vars_[index];
  names.grid_mapping = "crs" + suffix;
  names.cell_index = ds_.dim_name(cell_dim);
  int var = ds_.def_var(names.grid_mapping, NC_INT, {});
  ds_.put_text(var, "grid_mapping_name", "healpix");
  ds_.put_text(var, "indexing_scheme", dom.healpix_nested ? "nested" : "ring");
  ds_.put_ints(var, "refinement_level", {dom.healpix_level});
  ds_.put_ints(var, "healpix_nside", {1 << dom.healpix_level});
  ds_.put_text(var, "healpix_order", dom.healpix_nested ? "nest" : "ring");
  var = ds_.def_var(names.cell_index, NC_INT64, {cell_dim});
  ds_.put_text(var, "standard_name", "healpix_index");
  ds_.put_text(var, "long_name", "HEALPix cell index");
  ds_.put_text(var, "units", "1");
}

// CDI's own description of a reduced Gaussian grid, as `cdo -f nc` writes
// it: the latitude and number of points of each row.
void NetcdfWriter::define_cdi_rows(const DomainInfo& dom, int index, const std::string& suffix) {
  DomainVars& names = domain_vars_[index];
  if (std::string e = output::reduced_rows(dom, names.rows); !e.empty()) throw IoError(ds_.path() + ": " + e);
  names.rows_lat = "lat_rows" + suffix;
  names.rows_points = "reduced_points" + suffix;
  const int rows_dim = ds_.def_dim("rows" + suffix, names.rows.lat.size());
  int var = ds_.def_var(names.rows_lat, NC_DOUBLE, {rows_dim});
  ds_.put_text(var, "standard_name", "latitude");
  ds_.put_text(var, "long_name", "Latitude of each row");
  ds_.put_text(var, "units", "degrees_north");
  var = ds_.def_var(names.rows_points, NC_INT, {rows_dim});
  ds_.put_text(var, "long_name", "Number of points in each row");
  ds_.put_text(var, "units", "1");
}

void NetcdfWriter::define_mesh(const ContextPlan& plan, int index, const LocalBlock& part, const std::string& suffix,
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
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return lon[a] < lon[b] || (lon[a] == lon[b] && lat[a] < lat[b]); });
  m.faces.resize(n);
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t c = order[k];
    if (m.lon.empty() || lon[c] != m.lon.back() || lat[c] != m.lat.back())
      m.lon.push_back(lon[c]), m.lat.push_back(lat[c]);
    m.faces[c] = static_cast<int>(m.lon.size() - 1);
  }
  const int node_dim = ds_.def_dim("nmesh" + suffix + "_node", std::max<std::size_t>(m.lon.size(), 1));
  int var = ds_.def_var(m.name, NC_INT, {});
  ds_.put_text(var, "cf_role", "mesh_topology");
  ds_.put_text(var, "long_name", "Topology of the unstructured domain '" + dom.id + "'");
  ds_.put_ints(var, "topology_dimension", {2});
  ds_.put_text(var, "node_coordinates", m.node_lon + " " + m.node_lat);
  ds_.put_text(var, "face_node_connectivity", m.face_nodes);
  ds_.put_text(var, "face_coordinates", domain_vars_[index].lon + " " + domain_vars_[index].lat);
  ds_.put_text(var, "face_dimension", ds_.dim_name(cell_dim));
  for (const bool is_lat : {false, true}) {
    var = ds_.def_var(is_lat ? m.node_lat : m.node_lon, NC_DOUBLE, {node_dim});
    ds_.put_text(var, "standard_name", is_lat ? "latitude" : "longitude");
    ds_.put_text(var, "long_name", is_lat ? "Latitude of the mesh nodes" : "Longitude of the mesh nodes");
    ds_.put_text(var, "units", is_lat ? "degrees_north" : "degrees_east");
  }
  var = ds_.def_var(m.face_nodes, NC_INT, {cell_dim, nvertex_dim});
  ds_.put_text(var, "cf_role", "face_node_connectivity");
  ds_.put_text(var, "long_name", "Nodes of each cell, counterclockwise");
  ds_.put_ints(var, "start_index", {0});
  meshes_[index] = std::move(m);
}

// Scalars with a value: 0-d coordinate variables, named by `coordinates`.
void NetcdfWriter::define_scalars(const ContextPlan& plan, const FileInfo& f) {
  for (int vi : f.variables)
    for (const std::int32_t c : plan.variables[vi].scalars) {
      const ScalarInfo& sc = plan.scalars[c];
      if (!sc.has_value || scalar_names_.count(c)) continue;
      const std::string name = sc.name.empty() ? sc.id : sc.name;
      const int var = ds_.def_var(name, NC_DOUBLE, {});
      ds_.put_text(var, "standard_name", sc.standard_name);
      ds_.put_text(var, "long_name", sc.long_name);
      ds_.put_text(var, "units", sc.units);
      ds_.put_text(var, "positive", sc.positive);
      ds_.put_text(var, "axis", sc.axis_type);
      scalar_names_[c] = name;
    }
}

void NetcdfWriter::define_variable(const ContextPlan& plan, int vi) {
  const VariableInfo& v = plan.variables[vi];
  std::vector<int> dims;
  if (!timeless_[vi]) dims.push_back(dim_time_);
  for (const Dim& d : v.dims) dims.push_back(dimid_.at({static_cast<int>(d.kind), d.index}));
  const int var = ds_.def_var(v.name, v.prec == 8 ? NC_DOUBLE : NC_FLOAT, dims);
  // Chunks, and whether HDF5 may skip filling them (netcdf_chunks.cpp).
  // (Not with a record_offset: the records before it are never written.)
  const bool nofill = !timeless_[vi] && !v.dims.empty() && define_chunks(plan, vi, var, dims) && base_record_ <= 0;
  // A writer puts whole blocks of a record at once, so HDF5's chunk cache
  // (16 MiB per variable by default) only copies the data and keeps it:
  // 12 variables of a 311 MB record held 192 MiB of a server
  // (bench/output_heavy.py). Chunks larger than this small cache go to
  // the file directly.
  if (!dims.empty()) define_compression(v, var);  // netcdf_compression.cpp (may chunk it)
  size_chunk_cache(vi, var);
  put_variable_attributes(v, vi, var);
  if (nofill) {
    ds_.def_nofill(var);
    // NC_NOFILL drops _FillValue, which readers take as missing: put back.
    if (v.has_fill && v.prec == 8) ds_.put_double(var, "_FillValue", NC_DOUBLE, v.fill_value);
    if (v.has_fill && v.prec != 8) ds_.put_float(var, "_FillValue", static_cast<float>(v.fill_value));
  }
  varids_[vi] = var;
}

void NetcdfWriter::put_variable_attributes(const VariableInfo& v, int vi, int var) const {
  ds_.put_text(var, "standard_name", v.standard_name);
  ds_.put_text(var, "long_name", v.long_name);
  ds_.put_text(var, "units", v.units);
  ds_.put_text(var, "online_operation", v.operation);
  ds_.put_text(var, "comment", v.comment);
  if (!timeless_[vi]) ds_.put_text(var, "cell_methods", v.cell_methods);
  ds_.put_text(var, "coordinates", coordinates_of(v, var));
  for (const Dim& d : v.dims)
    if (d.kind == Dim::domain_i) ds_.put_text(var, "grid_mapping", domain_vars_[d.index].grid_mapping);
  for (const Dim& d : v.dims)
    if (auto m = meshes_.find(d.index); d.kind == Dim::domain_i && m != meshes_.end()) {
      ds_.put_text(var, "mesh", m->second.name);
      ds_.put_text(var, "location", "face");
    }
  if (v.has_fill) {
    // _FillValue must have the variable's type.
    if (v.prec == 8) {
      ds_.def_fill(var, &v.fill_value);
      ds_.put_double(var, "missing_value", NC_DOUBLE, v.fill_value);
    } else {
      const float fill = static_cast<float>(v.fill_value);
      ds_.def_fill(var, &fill);
      ds_.put_float(var, "missing_value", fill);
    }
  }
  // The XML's own attributes last: they may replace the ones above.
  for (const auto& a : v.attributes) put_attribute(ds_, var, a, v.prec == 8 ? NC_DOUBLE : NC_FLOAT);
}

std::string NetcdfWriter::coordinates_of(const VariableInfo& v, int var) const {
  const auto op = static_cast<filters::TemporalOp>(v.op);
  const char* time = op == filters::TemporalOp::instant && time_instant_var_ >= 0 ? "time_instant"
                     : filters::reduces(op) && time_centered_var_ >= 0            ? "time_centered"
                                                                                  : "";
  std::string coordinates;
  bool cdi_rows = false;
  for (const Dim& d : v.dims) {
    if (auto axis = axis_auxiliary_.find(d.index); d.kind == Dim::axis && axis != axis_auxiliary_.end())
      coordinates += (coordinates.empty() ? "" : " ") + axis->second;
    if (d.kind != Dim::domain_i) continue;
    const DomainVars& dv = domain_vars_[d.index];
    if (dv.rows_lat.empty()) {
      if (!dv.coordinates.empty()) coordinates += (coordinates.empty() ? "" : " ") + dv.coordinates;
      continue;
    }
    // CDI's reduced Gaussian grid. CDI takes the last latitude that
    // `coordinates` names as the row latitudes, so the cells (still in
    // the file) are not named (docs/grids.md), nor the time (CDI finds it).
    cdi_rows = true;
    ds_.put_text(var, "CDI_grid_type", "gaussian_reduced");
    ds_.put_ints(var, "CDI_grid_num_LPE", {static_cast<int>(dv.rows.lat.size() / 2)});
    ds_.put_text(var, "CDI_grid_latitudes", dv.rows_lat);
    ds_.put_text(var, "CDI_grid_reduced_points", dv.rows_points);
  }
  for (const std::int32_t c : v.scalars)
    if (auto name = scalar_names_.find(c); name != scalar_names_.end())
      coordinates += (coordinates.empty() ? "" : " ") + name->second;
  if (*time && !cdi_rows) coordinates = time + (coordinates.empty() ? "" : " " + coordinates);
  return coordinates;
}

void NetcdfWriter::put_global_attributes(const ContextPlan& plan, const FileInfo& f) const {
  // CF-1.12 defines the quantization metadata (section 8.4), CF-1.13 the
  // HEALPix grid mapping: a file holding either says so; others keep CF-1.10.
  bool quantized = false;
  for (const int vi : f.variables) quantized = quantized || !plan.variables[vi].quantization.empty();
  const bool healpix = std::any_of(domain_vars_.begin(), domain_vars_.end(),
                                   [](const DomainVars& d) { return !d.grid_mapping.empty(); });
  const std::string cf = healpix ? "CF-1.13" : quantized ? "CF-1.12" : "CF-1.10";
  ds_.put_text(NC_GLOBAL, "Conventions", meshes_.empty() ? cf : cf + " UGRID-1.0");
  ds_.put_text(NC_GLOBAL, "title", f.title);
  ds_.put_text(NC_GLOBAL, "source", std::string("foehn ") + FOEHN_VERSION);
  ds_.put_text(NC_GLOBAL, "name", f.id);
  ds_.put_text(NC_GLOBAL, "output_frequency", f.output_freq);
  ds_.put_text_as_given(NC_GLOBAL, f.time_stamp_name, time_stamp_);
  ds_.put_text_as_given(NC_GLOBAL, f.uuid_name, uuid_);
  for (const auto& a : f.attributes) put_attribute(ds_, NC_GLOBAL, a, NC_DOUBLE);
  if (part_.whole) return;
  // What a tool needs to stitch the parts back into one global field.
  ds_.put_ints(NC_GLOBAL, "DOMAIN_number_total", {part_.total});
  ds_.put_ints(NC_GLOBAL, "DOMAIN_number", {part_.number});
  for (std::size_t d = 0; d < plan.domains.size(); ++d) {
    // Positions are 1-based, i then j (only i for a 1-D domain).
    const DomainInfo& dom = plan.domains[d];
    const LocalBlock b = domain_extent(part_, dom, d);
    std::vector<int> glo = {static_cast<int>(dom.ni_glo), static_cast<int>(dom.nj_glo)};
    std::vector<int> first = {static_cast<int>(b.ibegin + 1), static_cast<int>(b.jbegin + 1)};
    std::vector<int> last = {static_cast<int>(b.ibegin + b.ni), static_cast<int>(b.jbegin + b.nj)};
    if (dom.one_dimensional()) glo.pop_back(), first.pop_back(), last.pop_back();
    const std::string p = "DOMAIN_" + dom.id + "_";
    ds_.put_ints(NC_GLOBAL, p + "size_global", glo);
    ds_.put_ints(NC_GLOBAL, p + "position_first", first);
    ds_.put_ints(NC_GLOBAL, p + "position_last", last);
  }
}

}  // namespace foehn::formats::netcdf
