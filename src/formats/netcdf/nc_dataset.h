// One open netCDF dataset, and the one place where netCDF calls are made
// and checked: every call goes through `call`, whose IoError names the
// file, the variable (or dimension, or the global attributes), the call and
// netCDF's own message. Move-only; the destructor closes without reporting
// (a writer that failed has already thrown), close() reports.
#pragma once

#include <mpi.h>
#include <netcdf.h>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace foehn::formats::netcdf {

class NcDataset {
 public:
  // NC_CLOBBER | mode; parallel: collectively over comm (nc_create_par).
  static NcDataset create(const std::string& path, int mode, MPI_Comm comm, bool parallel);
  // An existing file opened for writing.
  static NcDataset open_for_append(const std::string& path, MPI_Comm comm, bool parallel);
  // An existing file opened read-only by this process alone (fields read
  // into the model: client/field_reader.h).
  static NcDataset open_for_reading(const std::string& path);

  NcDataset() = default;  // not open
  NcDataset(NcDataset&& o) noexcept;
  NcDataset& operator=(NcDataset&& o) noexcept;
  NcDataset(const NcDataset&) = delete;
  NcDataset& operator=(const NcDataset&) = delete;
  ~NcDataset();

  const std::string& path() const { return path_; }
  bool is_open() const { return id_ >= 0; }

  // Throws IoError "<path>: <what varid names>: <call>: <netCDF message>"
  // unless status is NC_NOERR. varid NC_GLOBAL: the file itself.
  void call(int status, std::string_view call, int varid = NC_GLOBAL) const;
  // The same for a call about an object that has no variable id (yet).
  void call(int status, std::string_view call, std::string_view object) const;

  // Definition.
  int def_dim(const std::string& name, std::size_t length) const;
  int def_var(const std::string& name, nc_type type, const std::vector<int>& dims) const;
  std::optional<int> find_dim(const std::string& name) const;  // nullopt: no such dimension
  std::optional<int> find_var(const std::string& name) const;  // nullopt: no such variable
  int var_id(const std::string& name) const;                   // throws if there is none
  std::string dim_name(int dimid) const;
  std::size_t dim_length(int dimid) const;
  int nvars() const;
  void set_chunk_cache(int varid, std::size_t bytes) const;
  std::vector<std::size_t> chunk_sizes(int varid) const;  // one per dimension; empty: not chunked
  void def_deflate(int varid, int level) const;            // with shuffle
  void def_szip(int varid) const;                          // nearest-neighbour coding, 32 pixels per block
  void def_quantize(int varid, int mode, int keep) const;  // NC_QUANTIZE_*; digits, or bits for BitRound
  void def_chunking(int varid, const std::vector<std::size_t>& sizes) const;  // NC_CHUNKED, one size per dimension
  void def_fill(int varid, const void* value) const;
  void def_nofill(int varid) const;  // HDF5 does not fill chunks first; _FillValue stays
  void set_par_access(int varid, int access) const;
  void end_definition() const;

  // Attributes. put_text writes nothing for an empty value (CF metadata the
  // XML left unset); put_text_as_given writes it (an XML <variable>).
  void put_text(int varid, const std::string& name, std::string_view value) const;
  void put_text_as_given(int varid, const std::string& name, std::string_view value) const;
  void put_ints(int varid, const std::string& name, const std::vector<int>& values) const;
  void put_int64(int varid, const std::string& name, long long value) const;
  void put_double(int varid, const std::string& name, nc_type type, double value) const;
  void put_float(int varid, const std::string& name, float value) const;
  std::string get_text(int varid, const std::string& name) const;  // "" when absent
  std::vector<int> get_ints(int varid, const std::string& name) const;  // empty when absent

  // Variables of the file as they are.
  nc_type var_type(int varid) const;
  std::vector<int> var_dims(int varid) const;

  // Data (hyperslabs).
  void put(int varid, const std::size_t* start, const std::size_t* count, const double* values) const;
  void put(int varid, const std::size_t* start, const std::size_t* count, const float* values) const;
  void put(int varid, const std::size_t* start, const std::size_t* count, const int* values) const;
  void put(int varid, const std::size_t* start, const std::size_t* count, const long long* values) const;
  void put_scalar(int varid, double value) const;                // a 0-d variable
  double get_double(int varid, const std::size_t* start) const;  // one value
  void get(int varid, const std::size_t* start, const std::size_t* count, double* values) const;

  void sync() const;
  void close();  // reports; afterwards the dataset is closed whatever happened

  // After a file of this process failed to close, HDF5 1.10 keeps the
  // file's id over freed memory (H5F__dest frees the file even when its
  // last flush fails, and the id stays), and its own shutdown, at
  // MPI_Finalize or exit, closes it again: a segfault. This skips that
  // shutdown in such a process; call it after the last netCDF call.
  static void before_mpi_finalize();

 private:
  NcDataset(std::string path, int id) : path_(std::move(path)), id_(id) {}
  std::string object_of(int varid) const;
  void release() noexcept;  // closes without reporting

  std::string path_;
  int id_ = -1;
};

}  // namespace foehn::formats::netcdf
