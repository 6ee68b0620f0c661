// The container of a checkpoint: one netCDF-4 file per context and date,
// written and read in parallel by every rank of the context. Small tables
// (schedules, counters) are int64 or double 2-D variables every rank reads
// whole; accumulators are 1-D double variables over a global index space,
// each rank writing and reading its slab (by_global_index.h). Text (the
// date, the configuration) is in global attributes.
//
// A file is written under a temporary name and renamed once closed, so a
// state file present under its name was complete when written; a damaged
// one (truncated) fails to open, and that is said with its path.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace foehn::restart {

struct StateError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class StateFile {
 public:
  // The text attributes of a state file, read by one rank alone (no MPI).
  static std::map<std::string, std::string> header(const std::string& path);
  // Collective over comm. create: defining; open: reading.
  static StateFile create(const std::string& path, MPI_Comm comm);
  static StateFile open(const std::string& path, MPI_Comm comm);
  StateFile(StateFile&& other) noexcept;
  StateFile& operator=(StateFile&&) = delete;
  ~StateFile();

  // Defining.
  void put_text(const std::string& name, const std::string& value);
  void define_table(const std::string& name, std::size_t rows, std::size_t cols, bool integer);
  void define_points(const std::string& name, std::int64_t global_size);
  void end_define();
  // Writing (collective): a table from rank 0's values; a slab of points.
  void put_table(const std::string& name, const std::vector<std::int64_t>& values);
  void put_table(const std::string& name, const std::vector<double>& values);
  void put_slab(const std::string& name, std::int64_t begin, std::int64_t count, const double* values);
  // Reading (collective).
  std::string text(const std::string& name) const;  // throws StateError when absent
  bool has(const std::string& name) const;
  std::vector<std::int64_t> int_table(const std::string& name, std::size_t rows, std::size_t cols) const;
  std::vector<double> double_table(const std::string& name, std::size_t rows, std::size_t cols) const;
  std::int64_t points(const std::string& name) const;  // the global size of a points variable
  void get_slab(const std::string& name, std::int64_t begin, std::int64_t count, double* values) const;

  // Closes (collective); a written file gets its own name.
  void close();

 private:
  StateFile(std::string path, std::string final_path, MPI_Comm comm, int id);
  void check(int status, const std::string& what) const;
  int var(const std::string& name) const;

  std::string path_, final_path_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  int id_ = -1, rank_ = 0;
};

}  // namespace foehn::restart
