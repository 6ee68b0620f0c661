#include "restart/state_file.h"

#include <netcdf.h>
#include <netcdf_par.h>

#include <cstdio>
#include <utility>

namespace foehn::restart {

StateFile::StateFile(std::string path, std::string final_path, MPI_Comm comm, int id)
    : path_(std::move(path)), final_path_(std::move(final_path)), comm_(comm), id_(id) {
  MPI_Comm_rank(comm, &rank_);
}

StateFile::StateFile(StateFile&& o) noexcept
    : path_(std::move(o.path_)), final_path_(std::move(o.final_path_)), comm_(o.comm_), id_(o.id_), rank_(o.rank_) {
  o.id_ = -1;
}

StateFile::~StateFile() {
  if (id_ >= 0) nc_close(id_);  // after an error: the temporary file stays under its temporary name
}

StateFile StateFile::create(const std::string& path, MPI_Comm comm) {
  const std::string temporary = path + ".part";
  int id = -1;
  const int status = nc_create_par(temporary.c_str(), NC_CLOBBER | NC_NETCDF4, comm, MPI_INFO_NULL, &id);
  if (status != NC_NOERR) throw StateError(temporary + ": cannot create the state file: " + nc_strerror(status));
  return StateFile(temporary, path, comm, id);
}

StateFile StateFile::open(const std::string& path, MPI_Comm comm) {
  int id = -1;
  const int status = nc_open_par(path.c_str(), NC_NOWRITE, comm, MPI_INFO_NULL, &id);
  if (status != NC_NOERR)
    throw StateError(path + ": the state file cannot be read (" + nc_strerror(status) +
                     "): it is damaged or truncated; restart from another checkpoint or copy it again");
  return StateFile(path, "", comm, id);
}

std::map<std::string, std::string> StateFile::header(const std::string& path) {
  int id = -1;
  int status = nc_open(path.c_str(), NC_NOWRITE, &id);
  if (status != NC_NOERR)
    throw StateError(path + ": the state file cannot be read (" + std::string(nc_strerror(status)) +
                     "): it is damaged or truncated; restart from another checkpoint or copy it again");
  std::map<std::string, std::string> out;
  int natts = 0;
  nc_inq_natts(id, &natts);
  for (int a = 0; a < natts; ++a) {
    char name[NC_MAX_NAME + 1];
    nc_type type;
    std::size_t len = 0;
    if (nc_inq_attname(id, NC_GLOBAL, a, name) != NC_NOERR) continue;
    if (nc_inq_att(id, NC_GLOBAL, name, &type, &len) != NC_NOERR || type != NC_CHAR) continue;
    std::string value(len, '\0');
    if (nc_get_att_text(id, NC_GLOBAL, name, value.data()) == NC_NOERR) out[name] = value;
  }
  nc_close(id);
  return out;
}

void StateFile::check(int status, const std::string& what) const {
  if (status != NC_NOERR) throw StateError(path_ + ": " + what + ": " + nc_strerror(status));
}

int StateFile::var(const std::string& name) const {
  int v = -1;
  check(nc_inq_varid(id_, name.c_str(), &v), "variable '" + name + "' (the state file is incomplete)");
  return v;
}

void StateFile::put_text(const std::string& name, const std::string& value) {
  check(nc_put_att_text(id_, NC_GLOBAL, name.c_str(), value.size(), value.data()), "attribute " + name);
}

void StateFile::define_table(const std::string& name, std::size_t rows, std::size_t cols, bool integer) {
  int dims[2], v = -1;
  check(nc_def_dim(id_, (name + "_rows").c_str(), rows, &dims[0]), name);
  check(nc_def_dim(id_, (name + "_cols").c_str(), cols, &dims[1]), name);
  check(nc_def_var(id_, name.c_str(), integer ? NC_INT64 : NC_DOUBLE, 2, dims, &v), name);
  check(nc_var_par_access(id_, v, NC_COLLECTIVE), name);
}

void StateFile::define_points(const std::string& name, std::int64_t global_size) {
  int dim = -1, v = -1;
  check(nc_def_dim(id_, (name + "_points").c_str(), static_cast<std::size_t>(global_size), &dim), name);
  check(nc_def_var(id_, name.c_str(), NC_DOUBLE, 1, &dim, &v), name);
  // Every point is written: no fill values first (parallel HDF5 writes
  // them all when the file is defined, a second pass over the bytes), one
  // contiguous block.
  check(nc_def_var_chunking(id_, v, NC_CONTIGUOUS, nullptr), name);
  check(nc_def_var_fill(id_, v, NC_NOFILL, nullptr), name);
  check(nc_var_par_access(id_, v, NC_COLLECTIVE), name);
}

void StateFile::end_define() { check(nc_enddef(id_), "nc_enddef"); }

void StateFile::put_table(const std::string& name, const std::vector<std::int64_t>& values) {
  // Every rank has the same table; rank 0 writes it, the others take part.
  const std::size_t start[2] = {0, 0};
  auto* data = reinterpret_cast<const long long*>(values.data());
  int v = var(name), dims[2];
  std::size_t rows = 0;
  check(nc_inq_vardimid(id_, v, dims), name);
  check(nc_inq_dimlen(id_, dims[0], &rows), name);
  const std::size_t full[2] = {rank_ == 0 ? rows : 0u, rows ? values.size() / rows : 0u};
  check(nc_put_vara_longlong(id_, v, start, full, data), name);
}

void StateFile::put_table(const std::string& name, const std::vector<double>& values) {
  int v = var(name), dims[2];
  std::size_t rows = 0;
  check(nc_inq_vardimid(id_, v, dims), name);
  check(nc_inq_dimlen(id_, dims[0], &rows), name);
  const std::size_t start[2] = {0, 0}, full[2] = {rank_ == 0 ? rows : 0u, rows ? values.size() / rows : 0u};
  check(nc_put_vara_double(id_, v, start, full, values.data()), name);
}

void StateFile::put_slab(const std::string& name, std::int64_t begin, std::int64_t count, const double* values) {
  const std::size_t start = static_cast<std::size_t>(begin), n = static_cast<std::size_t>(count);
  check(nc_put_vara_double(id_, var(name), &start, &n, values), name);
}

std::string StateFile::text(const std::string& name) const {
  std::size_t len = 0;
  const int status = nc_inq_attlen(id_, NC_GLOBAL, name.c_str(), &len);
  if (status != NC_NOERR) throw StateError(path_ + ": not a foehn state file (no attribute '" + name + "')");
  std::string s(len, '\0');
  check(nc_get_att_text(id_, NC_GLOBAL, name.c_str(), s.data()), "attribute " + name);
  return s;
}

bool StateFile::has(const std::string& name) const {
  int v = -1;
  return nc_inq_varid(id_, name.c_str(), &v) == NC_NOERR;
}

namespace {
// The shape a reader expects against the file's, or a clear refusal.
void check_shape(int id, int v, std::size_t rows, std::size_t cols, const std::string& path, const std::string& name) {
  int dims[2];
  std::size_t have[2] = {0, 0};
  nc_inq_vardimid(id, v, dims);
  nc_inq_dimlen(id, dims[0], &have[0]);
  nc_inq_dimlen(id, dims[1], &have[1]);
  if (have[0] != rows || have[1] != cols)
    throw StateError(path + ": '" + name + "' is " + std::to_string(have[0]) + " x " + std::to_string(have[1]) +
                     ", this run needs " + std::to_string(rows) + " x " + std::to_string(cols));
}
}  // namespace

std::vector<std::int64_t> StateFile::int_table(const std::string& name, std::size_t rows, std::size_t cols) const {
  const int v = var(name);
  check_shape(id_, v, rows, cols, path_, name);
  std::vector<std::int64_t> out(rows * cols);
  const std::size_t start[2] = {0, 0}, count[2] = {rows, cols};
  check(nc_get_vara_longlong(id_, v, start, count, reinterpret_cast<long long*>(out.data())), name);
  return out;
}

std::vector<double> StateFile::double_table(const std::string& name, std::size_t rows, std::size_t cols) const {
  const int v = var(name);
  check_shape(id_, v, rows, cols, path_, name);
  std::vector<double> out(rows * cols);
  const std::size_t start[2] = {0, 0}, count[2] = {rows, cols};
  check(nc_get_vara_double(id_, v, start, count, out.data()), name);
  return out;
}

std::int64_t StateFile::points(const std::string& name) const {
  int dim = -1;
  std::size_t len = 0;
  check(nc_inq_vardimid(id_, var(name), &dim), name);
  check(nc_inq_dimlen(id_, dim, &len), name);
  return static_cast<std::int64_t>(len);
}

void StateFile::get_slab(const std::string& name, std::int64_t begin, std::int64_t count, double* values) const {
  const int v = var(name);
  check(nc_var_par_access(id_, v, NC_COLLECTIVE), name);
  const std::size_t start = static_cast<std::size_t>(begin), n = static_cast<std::size_t>(count);
  check(nc_get_vara_double(id_, v, &start, &n, values), name);
}

void StateFile::close() {
  const int id = id_;
  id_ = -1;
  check(nc_close(id), "nc_close");
  if (final_path_.empty()) return;
  // Renamed once every rank has closed: the state under its own name is whole.
  MPI_Barrier(comm_);
  int failed = 0;
  if (rank_ == 0) failed = std::rename(path_.c_str(), final_path_.c_str()) != 0;
  MPI_Bcast(&failed, 1, MPI_INT, 0, comm_);
  if (failed) throw StateError(final_path_ + ": cannot rename the state file from " + path_);
}

}  // namespace foehn::restart
