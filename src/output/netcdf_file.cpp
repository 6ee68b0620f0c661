#include "output/netcdf_file.h"

#include <netcdf.h>
#include <netcdf_par.h>

#include <algorithm>
#include <map>

#include "filters/temporal.h"
#include "foehn_version.h"

namespace foehn::output {

namespace {

void put_text(int ncid, int varid, const char* name, const std::string& value) {
  if (!value.empty()) nc_put_att_text(ncid, varid, name, value.size(), value.c_str());
}

// A part of a domain: everything for one_file, the block for multiple_file.
LocalBlock domain_extent(const FilePart& part, const DomainInfo& d, size_t index) {
  if (part.whole) return {0, d.ni_glo, 0, d.nj_glo};
  return part.blocks.at(index);
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
    const std::string suffix = "_" + std::to_string(part_.number);
    path_ = dot == std::string::npos ? path_ + suffix : path_.substr(0, dot) + suffix + ".nc";
  }
  int size = 1, rank = 0;
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, &rank);
  parallel_ = size > 1;
  is_root_ = rank == 0;
  const int mode = NC_CLOBBER | NC_NETCDF4;
  if (parallel_) check(nc_create_par(path_.c_str(), mode, comm, MPI_INFO_NULL, &ncid_), "cannot create file");
  else check(nc_create(path_.c_str(), mode, &ncid_), "cannot create file");
  define(plan, file_index);
  write_coordinates(plan);
}

NetcdfFile::~NetcdfFile() {
  if (ncid_ >= 0) nc_close(ncid_);
}

void NetcdfFile::define(const ContextPlan& plan, int file_index) {
  const FileInfo& f = plan.files[file_index];
  bool any_instant = false;
  for (int vi : f.variables) {
    const auto op = static_cast<filters::TemporalOp>(plan.variables[vi].op);
    if (filters::reduces(op)) centered_ = true;
    else if (op == filters::TemporalOp::instant) any_instant = true;
  }
  const std::string origin = plan.time_units.substr(plan.time_units.find("since ") + 6);
  auto time_attributes = [&](int var, const char* long_name) {
    put_text(ncid_, var, "standard_name", "time");
    put_text(ncid_, var, "long_name", long_name);
    put_text(ncid_, var, "units", plan.time_units);
    put_text(ncid_, var, "calendar", plan.calendar);
    put_text(ncid_, var, "time_origin", origin);
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
        put_text(ncid_, var, "axis", "Z");
        put_text(ncid_, var, "standard_name", a.standard_name);
        put_text(ncid_, var, "long_name", a.long_name);
        put_text(ncid_, var, "units", a.units.empty() ? "1" : a.units);
        put_text(ncid_, var, "positive", a.positive);
        dimid[key] = id;
      } else {
        const DomainInfo& dom = plan.domains[d.index];
        const LocalBlock ext = domain_extent(part_, dom, d.index);
        const std::string suffix = first_domain ? "" : "_" + dom.id;
        first_domain = false;
        const std::string lat = "lat" + suffix, lon = "lon" + suffix;
        int jd = -1, id = -1, vlat = -1, vlon = -1;
        check(nc_def_dim(ncid_, lat.c_str(), ext.nj, &jd), "nc_def_dim (lat)");
        check(nc_def_dim(ncid_, lon.c_str(), ext.ni, &id), "nc_def_dim (lon)");
        check(nc_def_var(ncid_, lat.c_str(), NC_DOUBLE, 1, &jd, &vlat), "nc_def_var (lat)");
        check(nc_def_var(ncid_, lon.c_str(), NC_DOUBLE, 1, &id, &vlon), "nc_def_var (lon)");
        put_text(ncid_, vlat, "standard_name", "latitude");
        put_text(ncid_, vlat, "long_name", "Latitude");
        put_text(ncid_, vlat, "units", "degrees_north");
        put_text(ncid_, vlat, "axis", "Y");
        put_text(ncid_, vlon, "standard_name", "longitude");
        put_text(ncid_, vlon, "long_name", "Longitude");
        put_text(ncid_, vlon, "units", "degrees_east");
        put_text(ncid_, vlon, "axis", "X");
        dimid[key] = jd;
        dimid[std::make_pair(1, d.index)] = id;
      }
    }
  }

  varids_.assign(plan.variables.size(), -1);
  timeless_.assign(plan.variables.size(), 0);
  offset_.assign(plan.variables.size(), {});
  prec_.assign(plan.variables.size(), 4);
  for (int vi : f.variables) {
    const VariableInfo& v = plan.variables[vi];
    const auto op = static_cast<filters::TemporalOp>(v.op);
    timeless_[vi] = op == filters::TemporalOp::once;
    std::vector<int> dims;
    if (!timeless_[vi]) dims.push_back(dim_time);
    std::vector<std::int64_t> offset;
    for (const Dim& d : v.dims) {
      dims.push_back(dimid.at(std::make_pair(static_cast<int>(d.kind), d.index)));
      std::int64_t start = 0;
      if (d.kind != Dim::axis) {
        const LocalBlock ext = domain_extent(part_, plan.domains[d.index], d.index);
        start = d.kind == Dim::domain_j ? ext.jbegin : ext.ibegin;
      }
      offset.push_back(start);
    }
    int var = -1;
    check(nc_def_var(ncid_, v.name.c_str(), v.prec == 8 ? NC_DOUBLE : NC_FLOAT, static_cast<int>(dims.size()),
                     dims.data(), &var),
          ("nc_def_var " + v.name).c_str());
    put_text(ncid_, var, "standard_name", v.standard_name);
    put_text(ncid_, var, "long_name", v.long_name);
    put_text(ncid_, var, "units", v.units);
    put_text(ncid_, var, "online_operation", v.operation);
    put_text(ncid_, var, "comment", v.comment);
    if (!timeless_[vi]) put_text(ncid_, var, "cell_methods", v.cell_methods);
    if (op == filters::TemporalOp::instant && time_instant_var_ >= 0) put_text(ncid_, var, "coordinates", "time_instant");
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
    varids_[vi] = var;
    offset_[vi] = std::move(offset);
    prec_[vi] = v.prec;
  }

  put_text(ncid_, NC_GLOBAL, "Conventions", "CF-1.10");
  put_text(ncid_, NC_GLOBAL, "title", f.title);
  put_text(ncid_, NC_GLOBAL, "source", std::string("foehn ") + FOEHN_VERSION);
  put_text(ncid_, NC_GLOBAL, "name", f.id);
  put_text(ncid_, NC_GLOBAL, "output_frequency", f.output_freq);
  for (const auto& [k, v] : f.attributes) put_text(ncid_, NC_GLOBAL, k.c_str(), v);
  if (!part_.whole) {
    // What a tool needs to stitch the parts back into one global field.
    const int number = part_.number, total = part_.total;
    nc_put_att_int(ncid_, NC_GLOBAL, "DOMAIN_number_total", NC_INT, 1, &total);
    nc_put_att_int(ncid_, NC_GLOBAL, "DOMAIN_number", NC_INT, 1, &number);
    for (size_t d = 0; d < plan.domains.size(); ++d) {
      const DomainInfo& dom = plan.domains[d];
      const LocalBlock b = domain_extent(part_, dom, d);
      const int glo[2] = {static_cast<int>(dom.ni_glo), static_cast<int>(dom.nj_glo)};
      const int first[2] = {static_cast<int>(b.ibegin + 1), static_cast<int>(b.jbegin + 1)};
      const int last[2] = {static_cast<int>(b.ibegin + b.ni), static_cast<int>(b.jbegin + b.nj)};
      const std::string p = "DOMAIN_" + dom.id + "_";
      nc_put_att_int(ncid_, NC_GLOBAL, (p + "size_global").c_str(), NC_INT, 2, glo);
      nc_put_att_int(ncid_, NC_GLOBAL, (p + "position_first").c_str(), NC_INT, 2, first);
      nc_put_att_int(ncid_, NC_GLOBAL, (p + "position_last").c_str(), NC_INT, 2, last);
    }
  }
  check(nc_enddef(ncid_), "nc_enddef");
  if (parallel_) {
    int nvars = 0;
    check(nc_inq_nvars(ncid_, &nvars), "nc_inq_nvars");
    for (int v = 0; v < nvars; ++v) check(nc_var_par_access(ncid_, v, NC_COLLECTIVE), "nc_var_par_access");
  }
}

void NetcdfFile::write_coordinates(const ContextPlan& plan) {
  // In a parallel file the root writes the values and the others take part
  // in the collective call with an empty count.
  auto put = [&](const char* name, const double* values, std::int64_t first, std::int64_t n) {
    int var = -1;
    if (nc_inq_varid(ncid_, name, &var) != NC_NOERR) return;
    const size_t start = 0, count = is_root_ ? static_cast<size_t>(n) : 0;
    check(nc_put_vara_double(ncid_, var, &start, &count, values + (count ? first : 0)), "writing coordinates");
  };
  for (const AxisInfo& a : plan.axes) {
    const std::string name = a.name.empty() ? a.id : a.name;
    put(name.c_str(), a.values.data(), 0, static_cast<std::int64_t>(a.values.size()));
  }
  bool first_domain = true;
  for (size_t d = 0; d < plan.domains.size(); ++d) {
    const DomainInfo& dom = plan.domains[d];
    int probe = -1;
    const std::string suffix = first_domain ? "" : "_" + dom.id;
    if (nc_inq_varid(ncid_, ("lat" + suffix).c_str(), &probe) != NC_NOERR) continue;
    first_domain = false;
    const LocalBlock b = domain_extent(part_, dom, d);
    put(("lat" + suffix).c_str(), dom.lat.data(), b.jbegin, b.nj);
    put(("lon" + suffix).c_str(), dom.lon.data(), b.ibegin, b.ni);
  }
}

void NetcdfFile::write_time(std::int64_t record, double end, double start_time) {
  const size_t start[2] = {static_cast<size_t>(record), 0};
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
    start[0] = static_cast<size_t>(record);
    count[0] = box.empty() ? 0 : 1;
  }
  for (size_t d = t; d < rank; ++d) {
    count[d] = box.empty() ? 0 : static_cast<size_t>(box.count[d - t]);
    start[d] = box.empty() ? 0 : static_cast<size_t>(box.start[d - t] - offset[d - t]);
  }
  const int var = varids_.at(variable);
  if (prec_[variable] == 8)
    check(nc_put_vara_double(ncid_, var, start, count, static_cast<const double*>(data)), "writing a variable");
  else
    check(nc_put_vara_float(ncid_, var, start, count, static_cast<const float*>(data)), "writing a variable");
  bytes_written_ += static_cast<std::uint64_t>(box.size()) * prec_[variable];
}

void NetcdfFile::sync() { check(nc_sync(ncid_), "nc_sync"); }

void NetcdfFile::close() {
  if (ncid_ < 0) return;
  const int id = ncid_;
  ncid_ = -1;
  check(nc_close(id), "nc_close");
}

}  // namespace foehn::output
