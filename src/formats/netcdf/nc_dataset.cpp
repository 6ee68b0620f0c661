#include "formats/netcdf/nc_dataset.h"

#include <dlfcn.h>
#include <netcdf_par.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

#include "formats/writer.h"

namespace foehn::formats::netcdf {

namespace {

std::atomic<bool> a_close_failed{false};

// nc_close, remembering a failure (see before_mpi_finalize).
int close_noting(int id) {
  const int status = nc_close(id);
  if (status != NC_NOERR) a_close_failed = true;
  return status;
}

// The reason in words of an I/O failure, from errno: netCDF says only
// "HDF error" for a full disk. errno is read only after the calls that
// write, which reset it first (arm_errno), so that an errno left by an
// earlier failure is not blamed; and only reasons a write can have are
// named, as HDF5 and MPI may leave others on the way.
thread_local bool errno_armed = false;

void arm_errno() {
  errno = 0;
  errno_armed = true;
}

std::string io_reason() {
  const int e = errno;
  if (!std::exchange(errno_armed, false)) return "";
  if (e == ENOSPC || e == EDQUOT || e == EIO || e == EFBIG || e == EROFS) return std::strerror(e);
  return "";
}

// Why a file cannot be created in its directory, in words (netCDF reports
// any failure of HDF5's create as EACCES, "Permission denied"); empty when
// the directory looks writable.
std::string create_reason(const std::string& path) {
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (dir.empty()) dir = ".";
  std::error_code ec;
  const auto status = std::filesystem::status(dir, ec);
  if (ec) return "directory " + dir.string() + ": " + ec.message();
  if (!std::filesystem::is_directory(status)) return dir.string() + " is not a directory";
  if (access(dir.c_str(), W_OK | X_OK) != 0) return "directory " + dir.string() + ": " + std::strerror(errno);
  return "";
}

}  // namespace

void NcDataset::before_mpi_finalize() {
  if (!a_close_failed) return;
  // HDF5's shutdown runs only while its "initialized" flag is set; the
  // flag is looked up at run time so that another HDF5, without it, is
  // merely left to crash as before. Files still open lose their last
  // flush: only files that failed are left in this state.
  if (auto* initialized = static_cast<bool*>(dlsym(RTLD_DEFAULT, "H5_libinit_g"))) *initialized = false;
}

NcDataset NcDataset::create(const std::string& path, int mode, MPI_Comm comm, bool parallel) {
  NcDataset ds(path, -1);
  int id = -1;
  arm_errno();
  const int status = parallel ? nc_create_par(path.c_str(), NC_CLOBBER | mode, comm, MPI_INFO_NULL, &id)
                              : nc_create(path.c_str(), NC_CLOBBER | mode, &id);
  if (status != NC_NOERR) {  // netCDF's own reason would be "Permission denied", whatever it was
    std::string why = io_reason();
    if (why.empty()) why = create_reason(path);
    if (!why.empty()) throw IoError(path + ": file: " + (parallel ? "nc_create_par: " : "nc_create: ") + why);
  }
  ds.call(status, parallel ? "nc_create_par" : "nc_create");
  ds.id_ = id;
  return ds;
}

NcDataset NcDataset::open_for_append(const std::string& path, MPI_Comm comm, bool parallel) {
  NcDataset ds(path, -1);
  int id = -1;
  if (parallel)
    ds.call(nc_open_par(path.c_str(), NC_WRITE, comm, MPI_INFO_NULL, &id), "nc_open_par (to append)");
  else
    ds.call(nc_open(path.c_str(), NC_WRITE, &id), "nc_open (to append)");
  ds.id_ = id;
  return ds;
}

NcDataset NcDataset::open_for_reading(const std::string& path) {
  NcDataset ds(path, -1);
  int id = -1;
  ds.call(nc_open(path.c_str(), NC_NOWRITE, &id), "nc_open (to read)");
  ds.id_ = id;
  return ds;
}

NcDataset::NcDataset(NcDataset&& o) noexcept : path_(std::move(o.path_)), id_(std::exchange(o.id_, -1)) {}

NcDataset& NcDataset::operator=(NcDataset&& o) noexcept {
  if (this != &o) {
    release();
    path_ = std::move(o.path_);
    id_ = std::exchange(o.id_, -1);
  }
  return *this;
}

NcDataset::~NcDataset() { release(); }

void NcDataset::release() noexcept {
  // The one netCDF status not turned into an error: a dataset still open
  // here belongs to a writer that has thrown already (close() was not
  // reached), and a destructor has no one to report to.
  if (id_ >= 0) static_cast<void>(close_noting(std::exchange(id_, -1)));
}

std::string NcDataset::object_of(int varid) const {
  if (varid == NC_GLOBAL) return "file";
  char name[NC_MAX_NAME + 1] = {};
  if (id_ >= 0 && nc_inq_varname(id_, varid, name) == NC_NOERR) return "variable '" + std::string(name) + "'";
  return "variable id " + std::to_string(varid);
}

void NcDataset::call(int status, std::string_view what, int varid) const {
  if (status != NC_NOERR) return call(status, what, object_of(varid));
  errno_armed = false;
}

void NcDataset::call(int status, std::string_view what, std::string_view object) const {
  if (status == NC_NOERR) {
    errno_armed = false;
    return;
  }
  const std::string why = io_reason();
  throw IoError(path_ + ": " + std::string(object) + ": " + std::string(what) + ": " + nc_strerror(status) +
                (why.empty() ? "" : " (" + why + ")"));
}

int NcDataset::def_dim(const std::string& name, std::size_t length) const {
  int dim = -1;
  call(nc_def_dim(id_, name.c_str(), length, &dim), "nc_def_dim", "dimension '" + name + "'");
  return dim;
}

int NcDataset::def_var(const std::string& name, nc_type type, const std::vector<int>& dims) const {
  int var = -1;
  call(nc_def_var(id_, name.c_str(), type, static_cast<int>(dims.size()), dims.data(), &var), "nc_def_var",
       "variable '" + name + "'");
  return var;
}

std::optional<int> NcDataset::find_dim(const std::string& name) const {
  int dim = -1;
  const int status = nc_inq_dimid(id_, name.c_str(), &dim);
  if (status == NC_EBADDIM) return std::nullopt;
  call(status, "nc_inq_dimid", "dimension '" + name + "'");
  return dim;
}

std::optional<int> NcDataset::find_var(const std::string& name) const {
  int var = -1;
  const int status = nc_inq_varid(id_, name.c_str(), &var);
  if (status == NC_ENOTVAR) return std::nullopt;
  call(status, "nc_inq_varid", "variable '" + name + "'");
  return var;
}

int NcDataset::var_id(const std::string& name) const {
  int var = -1;
  call(nc_inq_varid(id_, name.c_str(), &var), "nc_inq_varid", "variable '" + name + "'");
  return var;
}

std::string NcDataset::dim_name(int dimid) const {
  char name[NC_MAX_NAME + 1] = {};
  call(nc_inq_dimname(id_, dimid, name), "nc_inq_dimname", "dimension id " + std::to_string(dimid));
  return name;
}

std::size_t NcDataset::dim_length(int dimid) const {
  std::size_t length = 0;
  call(nc_inq_dimlen(id_, dimid, &length), "nc_inq_dimlen", "dimension id " + std::to_string(dimid));
  return length;
}

int NcDataset::nvars() const {
  int n = 0;
  call(nc_inq_nvars(id_, &n), "nc_inq_nvars");
  return n;
}

void NcDataset::set_chunk_cache(int varid, std::size_t bytes) const {
  call(nc_set_var_chunk_cache(id_, varid, bytes, 101, 0.75f), "nc_set_var_chunk_cache", varid);
}

void NcDataset::def_deflate(int varid, int level) const {
  call(nc_def_var_deflate(id_, varid, NC_SHUFFLE, 1, level), "nc_def_var_deflate", varid);
}

std::vector<std::size_t> NcDataset::chunk_sizes(int varid) const {
  int storage = NC_CONTIGUOUS, ndims = 0;
  call(nc_inq_varndims(id_, varid, &ndims), "nc_inq_varndims", varid);
  std::vector<std::size_t> sizes(static_cast<std::size_t>(std::max(ndims, 1)));
  call(nc_inq_var_chunking(id_, varid, &storage, sizes.data()), "nc_inq_var_chunking", varid);
  if (storage != NC_CHUNKED) sizes.clear();
  return sizes;
}

void NcDataset::def_chunking(int varid, const std::vector<std::size_t>& sizes) const {
  call(nc_def_var_chunking(id_, varid, NC_CHUNKED, sizes.data()), "nc_def_var_chunking", varid);
}

void NcDataset::def_szip(int varid) const {
  call(nc_def_var_szip(id_, varid, NC_SZIP_NN, 32), "nc_def_var_szip", varid);
}

void NcDataset::def_quantize(int varid, int mode, int keep) const {
  call(nc_def_var_quantize(id_, varid, mode, keep), "nc_def_var_quantize", varid);
}

void NcDataset::def_fill(int varid, const void* value) const {
  call(nc_def_var_fill(id_, varid, 0, value), "nc_def_var_fill", varid);
}

void NcDataset::def_nofill(int varid) const {
  call(nc_def_var_fill(id_, varid, NC_NOFILL, nullptr), "nc_def_var_fill (NC_NOFILL)", varid);
}

void NcDataset::set_par_access(int varid, int access) const {
  call(nc_var_par_access(id_, varid, access), "nc_var_par_access", varid);
}

void NcDataset::end_definition() const {
  arm_errno();
  call(nc_enddef(id_), "nc_enddef");
}

void NcDataset::put_text(int varid, const std::string& name, std::string_view value) const {
  if (!value.empty()) put_text_as_given(varid, name, value);
}

void NcDataset::put_text_as_given(int varid, const std::string& name, std::string_view value) const {
  call(nc_put_att_text(id_, varid, name.c_str(), value.size(), value.data()), "nc_put_att_text " + name, varid);
}

void NcDataset::put_ints(int varid, const std::string& name, const std::vector<int>& values) const {
  call(nc_put_att_int(id_, varid, name.c_str(), NC_INT, values.size(), values.data()), "nc_put_att_int " + name, varid);
}

void NcDataset::put_int64(int varid, const std::string& name, long long value) const {
  call(nc_put_att_longlong(id_, varid, name.c_str(), NC_INT64, 1, &value), "nc_put_att_longlong " + name, varid);
}

void NcDataset::put_double(int varid, const std::string& name, nc_type type, double value) const {
  call(nc_put_att_double(id_, varid, name.c_str(), type, 1, &value), "nc_put_att_double " + name, varid);
}

void NcDataset::put_float(int varid, const std::string& name, float value) const {
  call(nc_put_att_float(id_, varid, name.c_str(), NC_FLOAT, 1, &value), "nc_put_att_float " + name, varid);
}

std::string NcDataset::get_text(int varid, const std::string& name) const {
  std::size_t length = 0;
  const int status = nc_inq_attlen(id_, varid, name.c_str(), &length);
  if (status == NC_ENOTATT) return "";
  call(status, "nc_inq_attlen " + name, varid);
  std::string value(length, '\0');
  if (length > 0) call(nc_get_att_text(id_, varid, name.c_str(), value.data()), "nc_get_att_text " + name, varid);
  return value;
}

std::vector<int> NcDataset::get_ints(int varid, const std::string& name) const {
  std::size_t length = 0;
  const int status = nc_inq_attlen(id_, varid, name.c_str(), &length);
  if (status == NC_ENOTATT) return {};
  call(status, "nc_inq_attlen " + name, varid);
  std::vector<int> values(length);
  if (length > 0) call(nc_get_att_int(id_, varid, name.c_str(), values.data()), "nc_get_att_int " + name, varid);
  return values;
}

nc_type NcDataset::var_type(int varid) const {
  nc_type type = NC_NAT;
  call(nc_inq_vartype(id_, varid, &type), "nc_inq_vartype", varid);
  return type;
}

std::vector<int> NcDataset::var_dims(int varid) const {
  int ndims = 0;
  call(nc_inq_varndims(id_, varid, &ndims), "nc_inq_varndims", varid);
  std::vector<int> dims(static_cast<std::size_t>(ndims));
  call(nc_inq_vardimid(id_, varid, dims.data()), "nc_inq_vardimid", varid);
  return dims;
}

void NcDataset::put(int varid, const std::size_t* start, const std::size_t* count, const double* values) const {
  arm_errno();
  call(nc_put_vara_double(id_, varid, start, count, values), "nc_put_vara_double", varid);
}

void NcDataset::put(int varid, const std::size_t* start, const std::size_t* count, const float* values) const {
  arm_errno();
  call(nc_put_vara_float(id_, varid, start, count, values), "nc_put_vara_float", varid);
}

void NcDataset::put(int varid, const std::size_t* start, const std::size_t* count, const int* values) const {
  arm_errno();
  call(nc_put_vara_int(id_, varid, start, count, values), "nc_put_vara_int", varid);
}

void NcDataset::put(int varid, const std::size_t* start, const std::size_t* count, const long long* values) const {
  arm_errno();
  call(nc_put_vara_longlong(id_, varid, start, count, values), "nc_put_vara_longlong", varid);
}

void NcDataset::put_scalar(int varid, double value) const {
  arm_errno();
  call(nc_put_var_double(id_, varid, &value), "nc_put_var_double", varid);
}

double NcDataset::get_double(int varid, const std::size_t* start) const {
  std::size_t one[NC_MAX_VAR_DIMS];
  std::fill(one, one + NC_MAX_VAR_DIMS, std::size_t{1});
  double value = 0;
  call(nc_get_vara_double(id_, varid, start, one, &value), "nc_get_vara_double", varid);
  return value;
}

void NcDataset::get(int varid, const std::size_t* start, const std::size_t* count, double* values) const {
  call(nc_get_vara_double(id_, varid, start, count, values), "nc_get_vara_double", varid);
}

void NcDataset::sync() const {
  arm_errno();
  call(nc_sync(id_), "nc_sync");
}

void NcDataset::close() {
  if (id_ < 0) return;
  const int id = std::exchange(id_, -1);
  arm_errno();
  call(close_noting(id), "nc_close");
}

}  // namespace foehn::formats::netcdf
