// The output file of the NetCDF baselines, laid out as foehn lays out a
// file of a reduced Gaussian domain (dimensions time_counter, lev, cell;
// coordinates lat/lon with cell bounds; the same names and attributes), so
// that every scheme's file can be compared value for value. One process
// writes it (sequential) or all ranks collectively (parallel), each a
// contiguous slab of cells.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "geometry.h"

namespace miniapp {

class NcFile {
 public:
  // fields: indices into kFields3d, or -1 for surface pressure. comm is
  // MPI_COMM_NULL for a file of one process, else every rank of comm calls
  // every method (collective access). This rank writes cells [begin, begin+count).
  NcFile(const std::string& path, MPI_Comm comm, const Geometry& g, int levels, const std::vector<int>& fields,
         std::int64_t begin, std::int64_t count, const std::string& output_freq);
  ~NcFile();
  NcFile(const NcFile&) = delete;
  NcFile& operator=(const NcFile&) = delete;

  void write_time(int record, double seconds);
  // Field i of `fields`: levels x count values (count for a 2-D field), cells fastest.
  void write_field(int i, int record, const float* data);
  void close();

 private:
  void check(int status, const char* what) const;
  void define(const std::vector<int>& fields, const std::string& output_freq);
  void write_coordinates(const Geometry& g);

  std::string path_;
  int ncid_ = -1, levels_;
  bool root_ = true;
  std::int64_t begin_, count_, cells_;
  std::vector<int> fields_, varids_;
  int time_var_ = -1;
};

}  // namespace miniapp
