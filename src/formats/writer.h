// The seam between the output engine and a file format: what OutputEngine
// asks of any writer (create or append-open a file of a plan's variables,
// put a block of a variable at a record, write a record's time, sync,
// close), and the capabilities a format declares (WriterTraits) so that the
// engine decides the layout from them, never from the format's name.
// A writer is opened through registry.h; every rank of its communicator
// makes every call, in the same order.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "grid/box.h"
#include "output/output_plan.h"

namespace foehn::formats {

// Any failure to create, define, write or close an output file; its message
// names the file (and, from a library call, the variable and the call).
struct IoError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct WriterTraits {
  bool collective = false;     // several writers can write one file together (one_file with many writers)
  bool growable_time = false;  // records can be added after the file is defined (append, open-ended runs)
  bool compression = false;    // compression_level is honoured
  bool quantization = false;   // lossy bit rounding can be asked for
  // Every writer of a multiple_file file takes part in each write too: the
  // format holds whole fields (GRIB2's messages), each part file some of them.
  bool whole_fields = false;
  std::string_view extension;  // with its dot: ".nc"
};

// What the report takes from a writer.
struct WriterFigures {
  std::uint64_t bytes = 0;   // values written (not counting metadata)
  double write_seconds = 0;  // inside the data writes and the closing flush
  // After close: the bytes this writer accounts for on disk (the file's
  // size for its first writer, or each writer's part; Zarr: the chunk files
  // it wrote), less what an appended file held before. Summed over the
  // writers and periods of a <file>, against `bytes`: the achieved
  // compression ratio in the report.
  std::uint64_t disk_bytes = 0;
};

// The size of a file, 0 if it cannot be read (the report's figure, never an error).
inline std::uint64_t size_on_disk(const std::string& path) {
  std::error_code ec;
  const auto n = std::filesystem::file_size(path, ec);
  return ec ? 0 : static_cast<std::uint64_t>(n);
}

// The value of points no writer received, for variables without a fill
// value of their own: netCDF's defaults (NC_FILL_DOUBLE, NC_FILL_FLOAT),
// which readers take as missing. Every format writes these, so that a file
// does not depend on its format.
inline constexpr double kDefaultFillDouble = 9.9692099683868690e+36;
inline constexpr float kDefaultFillFloat = 9.9692099683868690e+36f;

// Which part of the global data a file holds: whole domains (one_file), or
// one block of each domain (multiple_file: a server's band, an attached
// client's block), with the part number for the stitching attributes.
struct FilePart {
  bool whole = true;
  std::vector<output::LocalBlock> blocks;  // by domain index, when !whole
  int number = 0, total = 1;
};

// A part of a domain: everything for one_file, the block for multiple_file.
inline output::LocalBlock domain_extent(const FilePart& part, const output::DomainInfo& d, std::size_t index) {
  if (part.whole) return {0, d.ni_glo, 0, d.nj_glo};
  return part.blocks.at(index);
}

// Where a writer writes: the file's path (formats::file_name), the ranks
// that write it together and the part of the data it holds.
struct WriterTarget {
  std::string path;
  MPI_Comm comm = MPI_COMM_SELF;
  FilePart part;
  // The block (global indices) of plan variable v that writer w (its rank
  // in comm) puts whole, in one put per record: what a format may shape
  // its chunks by. Unset when writers put pieces (attached one_file files).
  std::function<grid::Box(int v, int w)> block_of;
  // The context has no other writer: no collective of another writer can
  // wait on this one's failures (small chunk caches are safe then).
  bool alone = false;
  // Files of the context that may fill the same disk at once (a shared
  // file once, each writer's own file each): a space check leaves the
  // others as much room as this file needs (NetcdfWriter::check_space).
  int sharers = 1;
};

class Writer {
 public:
  Writer() = default;
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;
  // Releases what close() did not (after an error); reports nothing.
  virtual ~Writer() = default;

  virtual const std::string& path() const = 0;
  // The file existed and this run appends its records (append="true").
  virtual bool appended() const = 0;
  // The first of the file's writers: the one that removes a file left empty.
  virtual bool is_root() const = 0;
  // The record's time: its interval (start, end] in seconds since the time
  // origin. Files with reduced fields stamp records at the interval's
  // centre, with bounds.
  virtual void write_time(std::int64_t record, double end, double start) = 0;
  // Writes the block `box` (global indices, C order) of plan variable
  // `variable` at `record` of this file; `values` holds box.size() values
  // of the variable's precision. An empty box takes part in a collective
  // write without data.
  virtual void put(int variable, std::int64_t record, const grid::Box& box, const void* values) = 0;
  // A format may leave the costly part of a new file's definition for
  // later (netCDF-4: HDF5 creates every dataset at nc_enddef, about 1 ms a
  // variable), so that a server acknowledges a plan before that work and
  // does it while idle or before the file's first write. Every writer of
  // the file calls it at the same point of the order (or none does: the
  // other calls finish the definition first). Throws IoError as put does.
  virtual void finish_definition() {}
  virtual void sync() = 0;   // sync_freq: what is written reaches the disk
  virtual void close() = 0;  // throws IoError when the file cannot be completed
  virtual WriterFigures figures() const = 0;
};

}  // namespace foehn::formats
