// The NetCDF-4 writer (formats "netcdf4" and "netcdf4_classic"): one file
// with CF metadata, written by one rank or collectively by all ranks of a
// communicator (parallel NetCDF-4 over HDF5-MPI). Every rank of the
// communicator calls every write in the same order; a rank with nothing to
// write passes an empty box. Definition is cut by phase: time, grid
// (axes and domains, with the UGRID mesh and CDI rows), scalars, variables,
// global attributes (netcdf_define.cpp); coordinate values
// (netcdf_coordinates.cpp); append="true" (netcdf_append.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "formats/netcdf/nc_dataset.h"
#include "formats/netcdf/time_layout.h"
#include "formats/writer.h"
#include "output/output_plan.h"

namespace foehn::formats {

// The registry's entries (registry.cpp).
std::unique_ptr<Writer> open_netcdf4(const output::ContextPlan& plan, int file, WriterTarget target);
std::unique_ptr<Writer> open_netcdf4_classic(const output::ContextPlan& plan, int file, WriterTarget target);

namespace netcdf {

// HDF5's chunk cache of each variable (netcdf_define.cpp).
constexpr std::size_t kChunkCacheBytes = 1 << 20;
// HDF5's chunk cache of the time variables (time_counter, time_centered,
// time_instant and their bounds). netCDF's default (64 MiB, 1-D chunks of 4 KiB) kept
// every chunk of a long run: the server grew with the records
// (bench/soak.py). A record is written once, in order: a few chunks do.
constexpr std::size_t kTimeChunkCacheBytes = 64 << 10;
// Records a chunk of the time bounds (netCDF gives 1-D time variables 512).
constexpr std::size_t kTimeChunkRecords = 512;
// Variables whose record is at most half this size get chunks of this size
// (or just under) along time; they fit the chunk cache.
constexpr std::size_t kSmallChunkBytes = 64 << 10;
// What those chunks, each held in the chunk cache while it fills, may take
// in all for a context's variables: with thousands of variables each gets
// a smaller chunk (20,000 variables of 64 KiB held 1.3 GB of a server).
constexpr std::size_t kSmallChunkBudget = 64 << 20;
// Chunks shaped as a writer's block are cut below this size along their
// outer dimensions (HDF5 takes chunks up to 4 GiB; one may be held whole).
constexpr std::size_t kMaxChunkBytes = 64 << 20;

class NetcdfWriter final : public Writer {
 public:
  // classic: NetCDF-4 in the classic model.
  NetcdfWriter(const output::ContextPlan& plan, int file_index, WriterTarget target, bool classic);

  const std::string& path() const override { return ds_.path(); }
  bool appended() const override { return appended_; }
  bool is_root() const override { return is_root_; }
  void write_time(std::int64_t record, double end, double start) override;
  void put(int variable, std::int64_t record, const grid::Box& box, const void* values) override;
  // nc_enddef (HDF5 creates the datasets), collective access and the
  // coordinate values; the constructor leaves these for later.
  void finish_definition() override;
  void sync() override;
  void close() override;
  WriterFigures figures() const override { return {bytes_written_, write_seconds_, disk_bytes_}; }
  ~NetcdfWriter() override;

  // Room kept on a shared file's file system for its close (reserve_room).
  static constexpr std::uint64_t kCloseReserveBytes = 1 << 20;

 private:
  using DimKey = std::pair<int, int>;  // (0: domain j, 1: domain i, 2: axis; index)

  // What the plan says of this file's variables (written once or per
  // record, where the part starts, precision) and its time variables
  // (time_); varids_ is left for define or attach to fill.
  void lay_out(const output::ContextPlan& plan, const output::FileInfo& f);
  // Definition, phase by phase (netcdf_define.cpp).
  void define(const output::ContextPlan& plan, const output::FileInfo& f);
  void define_time(const output::ContextPlan& plan);
  void put_time_attributes(const output::ContextPlan& plan, int var, const char* long_name) const;
  std::string time_units(const output::ContextPlan& plan) const;  // in seconds or days since the origin
  void define_grid(const output::ContextPlan& plan, const output::FileInfo& f);
  void define_axis(const output::ContextPlan& plan, int index);
  void define_domain(const output::ContextPlan& plan, int index, const std::string& suffix);
  void define_cdi_rows(const output::DomainInfo& dom, int index, const std::string& suffix);
  void define_healpix(const output::DomainInfo& dom, int index, const std::string& suffix, int cell_dim);
  void define_mesh(const output::ContextPlan& plan, int index, const output::LocalBlock& part,
                   const std::string& suffix, int cell_dim, int nvertex_dim);
  void define_scalars(const output::ContextPlan& plan, const output::FileInfo& f);
  void define_variable(const output::ContextPlan& plan, int vi);
  // A record variable's chunks (netcdf_chunks.cpp); returns whether every
  // chunk is written whole by one put, so that HDF5 need not fill it.
  bool define_chunks(const output::ContextPlan& plan, int vi, int var, const std::vector<int>& dims);
  bool whole_chunks(int vi, const std::vector<std::size_t>& sizes, const std::vector<std::size_t>& len) const;
  // Deflate or szip, and quantization with its CF-1.12 attributes and
  // container variable (netcdf_compression.cpp).
  void define_compression(const output::VariableInfo& v, int var);
  void put_variable_attributes(const output::VariableInfo& v, int vi, int var) const;
  std::string coordinates_of(const output::VariableInfo& v, int var) const;  // also CDI's grid attributes
  void put_global_attributes(const output::ContextPlan& plan, const output::FileInfo& f) const;
  // After definition: collective access for every variable (parallel files).
  void set_access(const output::ContextPlan& plan, const output::FileInfo& f) const;
  void bound_time_caches() const;  // kTimeChunkCacheBytes
  void size_chunk_cache(int vi, int var) const;
  // append="true" on an existing file: finds this run's variables in it
  // (netcdf_append.cpp) instead of defining them; records go after its own.
  void attach(const output::ContextPlan& plan, const output::FileInfo& f);
  void check_time_axis(const output::ContextPlan& plan, std::int64_t resume_records);
  void check_variable(const output::ContextPlan& plan, int vi);
  [[noreturn]] void refuse(const std::string& why) const;
  void write_coordinates(const output::ContextPlan& plan) const;  // netcdf_coordinates.cpp
  void write_domain_coordinates(const output::ContextPlan& plan, std::size_t d) const;
  // A coordinate variable's values, if the file has it: the root writes,
  // the others take part in the collective call with an empty count.
  void put_coordinate(const std::string& name, const std::vector<double>& values, std::vector<std::size_t> count) const;
  // Disk full: before record `record`, whether the file system has room for
  // it and for what HDF5 still caches, so that the file can be closed
  // readable with the records before (a file whose last flush fails is
  // lost). Collective: the root's free space decides for every writer.
  // Throws IoError "No space left on device" when there is no room.
  void check_space(std::int64_t record);
  void measure_record();  // record_bytes_ and cache_bytes_
  // A file of several writers: its root holds kCloseReserveBytes in a
  // hidden file beside it, freed just before the collective close (and
  // removed if the writer is dropped unclosed).
  void reserve_room();
  void release_room();

  NcDataset ds_;
  // Until finish_definition: the plan (the engine's, which outlives its
  // writers) and the file, for what is left of the definition.
  const output::ContextPlan* defining_plan_ = nullptr;
  int file_index_ = -1;
  MPI_Comm comm_ = MPI_COMM_SELF;  // the file's writers
  int writers_ = 1;
  bool alone_ = false;  // WriterTarget::alone
  int sharers_ = 1;     // WriterTarget::sharers
  // While the file is defined: the block each writer puts (WriterTarget).
  std::function<grid::Box(int v, int w)> block_of_;
  bool parallel_ = false;
  bool is_root_ = true;
  std::string reserve_path_;  // the root's reserve (empty: none)
  FilePart part_;
  bool ugrid_ = false, cdi_ = false;  // the file's convention names UGRID, CDI
  int dim_time_ = -1;
  // The time variables (-1: not in this file), named as XIOS names them;
  // the counter is the record dimension's coordinate variable.
  TimeLayout time_;
  std::string counter_name_ = "time_counter";
  double time_unit_ = 1;  // seconds in the unit of the time values
  int time_var_ = -1, time_bounds_var_ = -1;
  int time_centered_var_ = -1, time_centered_bounds_var_ = -1;
  int time_instant_var_ = -1, time_instant_bounds_var_ = -1;
  bool appended_ = false;
  std::int64_t base_record_ = 0;                   // records the file held before this run (append), record_offset
  std::string time_stamp_, uuid_;                  // a new file's global attributes (XIOS's)
  std::vector<char> timeless_;                     // by plan variable: written once, without the time dimension
  std::vector<int> varids_;                        // by plan variable index (-1: not in this file)
  std::vector<std::vector<std::int64_t>> offset_;  // by plan variable: start of the part per dim
  std::vector<std::int32_t> prec_;
  std::map<DimKey, int> dimid_;
  struct DomainVars {  // the names of a domain's coordinate variables in this file
    bool used = false;
    std::string lat, lon, lat_bounds, lon_bounds;
    std::string coordinates;  // for the `coordinates` attribute (auxiliary coordinates only)
    // convention="CDI", gaussian domains: CDI's row latitudes and lengths
    // (names empty otherwise).
    std::string rows_lat, rows_points;
    output::ReducedRows rows;
    // healpix domains: the CF grid mapping variable and the cell index
    // coordinate variable (names empty otherwise).
    std::string grid_mapping, cell_index;
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
  std::map<int, Mesh> meshes_;                                  // by plan domain
  std::map<int, std::string> axis_bounds_;                      // plan axis -> its bounds variable in this file
  std::map<int, std::string> axis_auxiliary_;                   // plan axis -> its variable, when not its dimension's
  std::map<int, std::string> scalar_names_;                     // plan scalar -> its 0-d coordinate variable
  std::map<std::string, std::string> quantization_containers_;  // algorithm -> its CF container variable
  std::uint64_t bytes_written_ = 0;
  double write_seconds_ = 0;
  std::uint64_t size_before_ = 0, disk_bytes_ = 0;    // the file's size before this run (append), added at close
  std::uint64_t record_bytes_ = 0, cache_bytes_ = 0;  // HDF5's chunk caches of the file's variables
  std::uint64_t file_bytes_ = 0;                      // records written into the file by all its writers
  std::uint64_t synced_bytes_ = 0;                    // of which flushed by check_space
  std::uint64_t unchecked_ = 0;                       // bytes that may be written before the next check
};

}  // namespace netcdf
}  // namespace foehn::formats
