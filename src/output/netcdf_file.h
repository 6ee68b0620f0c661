// One NetCDF-4 output file with CF metadata, written by one rank or
// collectively by all ranks of a communicator (parallel NetCDF-4 over
// HDF5-MPI). Every rank of the communicator calls every write in the same
// order; a rank with nothing to write passes an empty box.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "grid/box.h"
#include "output/output_plan.h"

namespace foehn::output {

struct IoError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Which part of the global data a file holds: whole domains (one_file), or
// one block of each domain (multiple_file: a server's band, an attached
// client's block), with the part number for the stitching attributes.
struct FilePart {
  bool whole = true;
  std::vector<LocalBlock> blocks;  // by domain index, when !whole
  int number = 0, total = 1;
};

// A part of a domain: everything for one_file, the block for multiple_file.
inline LocalBlock domain_extent(const FilePart& part, const DomainInfo& d, std::size_t index) {
  if (part.whole) return {0, d.ni_glo, 0, d.nj_glo};
  return part.blocks.at(index);
}

class NetcdfFile {
 public:
  NetcdfFile(const ContextPlan& plan, int file_index, MPI_Comm comm, FilePart part);
  NetcdfFile(const NetcdfFile&) = delete;
  NetcdfFile& operator=(const NetcdfFile&) = delete;
  ~NetcdfFile();

  const std::string& path() const { return path_; }
  // The file existed and this run appends its records (append="true").
  bool appended() const { return appended_; }
  bool is_root() const { return is_root_; }  // of the ranks writing this file
  // The record's time: its interval (start, end] in the time units. Files
  // with reduced fields stamp records at the interval's centre, with
  // bounds; instant fields in such a file point at time_instant.
  void write_time(std::int64_t record, double end, double start);
  // Writes the block `box` (global indices, C order) of plan variable
  // `variable` at `record`; `data` holds box.size() values of the variable's
  // precision.
  void write(int variable, std::int64_t record, const grid::Box& box, const void* data);
  void sync();
  void close();
  std::uint64_t bytes_written() const { return bytes_written_; }
  // Seconds inside netCDF's data writes and the closing flush (the write
  // throughput the report and bench/output_heavy.py compare).
  double write_seconds() const { return write_seconds_; }

 private:
  void define(const ContextPlan& plan, int file_index);
  // append="true" on an existing file: finds this run's variables in it
  // (netcdf_append.cpp) instead of defining them; records go after its own.
  void attach(const ContextPlan& plan, int file_index);
  // What the plan says of this file's variables (written once or per
  // record, where the part starts, precision) and whether records are
  // intervals (centered_); varids_ is left for define or attach to fill.
  // Returns whether the file has an instant field (in a file of intervals
  // its records also get time_instant).
  bool lay_out(const ContextPlan& plan, const FileInfo& f);
  // After definition: collective access for every variable (parallel files).
  void set_access(const ContextPlan& plan, const FileInfo& f);
  void define_domain(const ContextPlan& plan, int index, const std::string& suffix,
                     std::map<std::pair<int, int>, int>& dimid);
  void write_coordinates(const ContextPlan& plan);
  void check(int status, const char* what) const;

  std::string path_;
  int ncid_ = -1;
  bool parallel_ = false;
  bool is_root_ = true;
  FilePart part_;
  int time_var_ = -1, time_bounds_var_ = -1, time_instant_var_ = -1;
  bool centered_ = false;
  bool appended_ = false;
  std::int64_t base_record_ = 0;  // records the file held before this run (append)
  std::vector<char> timeless_;  // by plan variable: written once, without the time dimension
  std::vector<int> varids_;                       // by plan variable index (-1: not in this file)
  std::vector<std::vector<std::int64_t>> offset_; // by plan variable: start of the part per dim
  std::vector<std::int32_t> prec_;
  struct DomainVars {  // the names of a domain's coordinate variables in this file
    bool used = false;
    std::string lat, lon, lat_bounds, lon_bounds;
    std::string coordinates;  // for the `coordinates` attribute (auxiliary coordinates only)
    // convention="CDI", gaussian domains: CDI's row latitudes and lengths
    // (names empty otherwise).
    std::string rows_lat, rows_points;
    ReducedRows rows;
  };
  std::vector<DomainVars> domain_vars_;  // by plan domain
  // UGRID (convention="UGRID"): each unstructured domain's nodes (its cells'
  // distinct corners) and the nodes of each cell.
  struct Mesh {
    std::string name, node_lon, node_lat, face_nodes;
    std::vector<double> lon, lat;  // by node
    std::vector<int> faces;        // nvertex per cell of the part
    std::size_t cells = 0, nvertex = 0;
  };
  void define_mesh(const ContextPlan& plan, int index, const LocalBlock& part, const std::string& suffix, int cell_dim,
                   int nvertex_dim);
  bool ugrid_ = false;
  bool cdi_ = false;
  std::map<int, Mesh> meshes_;  // by plan domain
  std::map<int, std::string> axis_bounds_;   // plan axis -> its bounds variable in this file
  std::map<int, std::string> scalar_names_;  // plan scalar -> its 0-d coordinate variable
  std::uint64_t bytes_written_ = 0;
  double write_seconds_ = 0;
};

}  // namespace foehn::output
