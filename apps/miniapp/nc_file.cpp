#include "nc_file.h"

#include <netcdf.h>
#include <netcdf_par.h>

#include <stdexcept>

#include "fields.h"

namespace miniapp {

namespace {

void put_text(int ncid, int var, const char* name, const std::string& value) {
  if (!value.empty()) nc_put_att_text(ncid, var, name, value.size(), value.c_str());
}

}  // namespace

void NcFile::check(int status, const char* what) const {
  if (status != NC_NOERR) throw std::runtime_error(path_ + ": " + what + ": " + nc_strerror(status));
}

NcFile::NcFile(const std::string& path, MPI_Comm comm, const Geometry& g, int levels, const std::vector<int>& fields,
               std::int64_t begin, std::int64_t count, const std::string& output_freq)
    : path_(path), levels_(levels), begin_(begin), count_(count), cells_(g.global_size()), fields_(fields) {
  const int mode = NC_CLOBBER | NC_NETCDF4;
  if (comm == MPI_COMM_NULL) {
    check(nc_create(path.c_str(), mode, &ncid_), "cannot create file");
  } else {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    root_ = rank == 0;
    check(nc_create_par(path.c_str(), mode, comm, MPI_INFO_NULL, &ncid_), "cannot create file");
  }
  define(fields, output_freq);
  if (comm != MPI_COMM_NULL) {
    int nvars = 0;
    check(nc_inq_nvars(ncid_, &nvars), "nc_inq_nvars");
    for (int v = 0; v < nvars; ++v) check(nc_var_par_access(ncid_, v, NC_COLLECTIVE), "nc_var_par_access");
  }
  write_coordinates(g);
}

NcFile::~NcFile() {
  if (ncid_ >= 0) nc_close(ncid_);
}

void NcFile::define(const std::vector<int>& fields, const std::string& output_freq) {
  int dim_time = -1, dim_lev = -1, dim_cell = -1, dim_nv = -1;
  check(nc_def_dim(ncid_, "time_counter", NC_UNLIMITED, &dim_time), "nc_def_dim time_counter");
  check(nc_def_var(ncid_, "time_counter", NC_DOUBLE, 1, &dim_time, &time_var_), "nc_def_var time_counter");
  put_text(ncid_, time_var_, "standard_name", "time");
  put_text(ncid_, time_var_, "long_name", "Time axis");
  put_text(ncid_, time_var_, "units", "seconds since 2000-01-01 00:00:00");
  put_text(ncid_, time_var_, "calendar", "standard");  // as foehn names the gregorian calendar
  put_text(ncid_, time_var_, "time_origin", "2000-01-01 00:00:00");
  put_text(ncid_, time_var_, "axis", "T");
  int var = -1;
  check(nc_def_dim(ncid_, "lev", static_cast<size_t>(levels_), &dim_lev), "nc_def_dim lev");
  check(nc_def_var(ncid_, "lev", NC_DOUBLE, 1, &dim_lev, &var), "nc_def_var lev");
  put_text(ncid_, var, "axis", "Z");
  put_text(ncid_, var, "standard_name", "model_level_number");
  put_text(ncid_, var, "long_name", "model level");
  put_text(ncid_, var, "units", "1");
  put_text(ncid_, var, "positive", "down");
  check(nc_def_dim(ncid_, "cell", static_cast<size_t>(cells_), &dim_cell), "nc_def_dim cell");
  check(nc_def_dim(ncid_, "nvertex", 4, &dim_nv), "nc_def_dim nvertex");
  for (const bool is_lat : {true, false}) {
    const std::string name = is_lat ? "lat" : "lon";
    const int dims[2] = {dim_cell, dim_nv};
    check(nc_def_var(ncid_, name.c_str(), NC_DOUBLE, 1, dims, &var), "nc_def_var (coordinate)");
    put_text(ncid_, var, "standard_name", is_lat ? "latitude" : "longitude");
    put_text(ncid_, var, "long_name", is_lat ? "Latitude" : "Longitude");
    put_text(ncid_, var, "units", is_lat ? "degrees_north" : "degrees_east");
    put_text(ncid_, var, "bounds", name + "_bnds");
    check(nc_def_var(ncid_, (name + "_bnds").c_str(), NC_DOUBLE, 2, dims, &var), "nc_def_var (bounds)");
  }
  for (const int f : fields) {
    const FieldInfo& info = f < 0 ? kSurfacePressure : kFields3d[static_cast<std::size_t>(f)];
    const int dims3[3] = {dim_time, dim_lev, dim_cell}, dims2[2] = {dim_time, dim_cell};
    check(nc_def_var(ncid_, info.id, NC_FLOAT, f < 0 ? 2 : 3, f < 0 ? dims2 : dims3, &var), "nc_def_var (field)");
    put_text(ncid_, var, "standard_name", info.standard_name);
    put_text(ncid_, var, "long_name", info.long_name);
    put_text(ncid_, var, "units", info.units);
    put_text(ncid_, var, "online_operation", "instant");
    put_text(ncid_, var, "cell_methods", "time: point");
    put_text(ncid_, var, "coordinates", "lat lon");
    varids_.push_back(var);
  }
  put_text(ncid_, NC_GLOBAL, "Conventions", "CF-1.10");
  put_text(ncid_, NC_GLOBAL, "source", "foehn miniapp (NetCDF baseline)");
  put_text(ncid_, NC_GLOBAL, "output_frequency", output_freq);
  check(nc_enddef(ncid_), "nc_enddef");
}

void NcFile::write_coordinates(const Geometry& g) {
  std::vector<double> levels(static_cast<std::size_t>(levels_));
  for (int k = 0; k < levels_; ++k) levels[static_cast<std::size_t>(k)] = k + 1;
  const size_t lev_start = 0, lev_count = root_ ? levels.size() : 0;
  int var = -1;
  check(nc_inq_varid(ncid_, "lev", &var), "lev");
  check(nc_put_vara_double(ncid_, var, &lev_start, &lev_count, levels.data()), "writing lev");
  std::vector<double> lon, lat, blon, blat;
  for (std::int64_t p = begin_; p < begin_ + count_; ++p) {
    double lon4[4], lat4[4];
    g.grid.corners(p, lon4, lat4);
    lon.push_back(g.grid.lon(p));
    lat.push_back(g.grid.lat(p));
    blon.insert(blon.end(), lon4, lon4 + 4);
    blat.insert(blat.end(), lat4, lat4 + 4);
  }
  const size_t start[2] = {static_cast<size_t>(begin_), 0}, count[2] = {static_cast<size_t>(count_), 4};
  for (const auto& [name, values] : {std::pair{"lon", &lon}, {"lat", &lat}, {"lon_bnds", &blon}, {"lat_bnds", &blat}}) {
    check(nc_inq_varid(ncid_, name, &var), name);
    check(nc_put_vara_double(ncid_, var, start, count, values->data()), "writing coordinates");
  }
}

void NcFile::write_time(int record, double seconds) {
  const size_t start = static_cast<size_t>(record), count = root_ ? 1 : 0;
  check(nc_put_vara_double(ncid_, time_var_, &start, &count, &seconds), "writing time_counter");
}

void NcFile::write_field(int i, int record, const float* data) {
  const bool surface = fields_[static_cast<std::size_t>(i)] < 0;
  const size_t start3[3] = {static_cast<size_t>(record), 0, static_cast<size_t>(begin_)};
  const size_t count3[3] = {1, static_cast<size_t>(levels_), static_cast<size_t>(count_)};
  const size_t start2[2] = {start3[0], start3[2]}, count2[2] = {1, count3[2]};
  check(nc_put_vara_float(ncid_, varids_[static_cast<std::size_t>(i)], surface ? start2 : start3,
                          surface ? count2 : count3, data),
        "writing a field");
}

void NcFile::close() {
  if (ncid_ >= 0) check(nc_close(ncid_), "nc_close");
  ncid_ = -1;
}

}  // namespace miniapp
