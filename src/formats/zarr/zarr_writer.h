// The Zarr writer (format="zarr"): a Zarr v2 store, NAME.zarr, a directory
// that xarray.open_zarr and zarr-python read. foehn writes the store itself
// (no Zarr library in C++ is packaged): JSON metadata (.zgroup, .zarray,
// .zattrs with _ARRAY_DIMENSIONS and the CF attributes; nlohmann-json) and
// one zlib-compressed file per chunk (numcodecs' "zlib" codec).
//
// Chunks: one record, one value of each axis slower than the domain, a
// block of the domain's slowest dimension (a nested block of 4^k HEALPix
// cells, or rows), everything faster whole. Several writers (servers) write
// one store: every put is collective over them; each chunk has one writer
// (runs of chunks per writer, like the servers' bands), to which the other
// writers send their pieces of it, so every chunk file has one writer (no
// locking) and the store's bytes do not depend on the number of writers. Time grows by record: the first writer
// rewrites the time-dependent arrays' shape at each record (docs/kmscale.md).
// HEALPix pyramids (variables <name>_z<level>) go to one group per level.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "formats/writer.h"

namespace foehn::formats {

std::unique_ptr<Writer> open_zarr(const output::ContextPlan& plan, int file, WriterTarget target);

namespace zarr {

class ZarrWriter final : public Writer {
 public:
  ZarrWriter(const output::ContextPlan& plan, int file, WriterTarget target);

  const std::string& path() const override { return path_; }
  bool appended() const override { return appended_; }
  bool is_root() const override { return rank_ == 0; }
  void write_time(std::int64_t record, double end, double start) override;
  void put(int variable, std::int64_t record, const grid::Box& box, const void* values) override;
  void sync() override {}  // every chunk is a closed file once written
  void close() override;
  WriterFigures figures() const override { return {bytes_, write_seconds_, disk_bytes_}; }

 private:
  struct Array {  // a data variable of the file
    std::string dir;                 // its directory in the store
    int prec = 4;                    // bytes per value
    bool timeless = false;           // operation="once": no time dimension
    std::vector<std::int64_t> shape;  // the file's part, time excluded
    std::vector<std::int64_t> offset;  // where the part starts in the global index space
    int split = -1;                    // the dimension cut into chunks (-1: none, one chunk)
    std::int64_t chunk = 1;            // its chunk length
    double fill = 0;
    int level = 1;  // zlib
  };
  // The layout and metadata; `write_files`: the store's files too (the first writer of a new store).
  void define(const output::ContextPlan& plan, const output::FileInfo& f, bool write_files);
  // An existing store this run continues (zarr_continue.cpp): checked
  // against the metadata define made; returns the record to write next.
  std::int64_t attach(const output::ContextPlan& plan, std::int64_t resume_records) const;
  [[noreturn]] void refuse(const std::string& why) const;
  void write_chunk(const Array& a, std::int64_t record, std::int64_t outer, std::int64_t chunk,
                   const unsigned char* data, std::size_t bytes);
  void write_time_shape(std::int64_t records);
  // Copies rows [from, to) of one chunk into its pending buffer; writes the
  // chunk once all its rows are there.
  void place(int variable, std::int64_t record, std::int64_t outer, std::int64_t chunk, std::int64_t from,
             std::int64_t to, const unsigned char* data);

  std::string path_;
  MPI_Comm comm_ = MPI_COMM_SELF;
  int rank_ = 0, size_ = 1;
  FilePart part_;
  bool centered_ = false;
  std::map<int, Array> arrays_;                   // by plan variable
  std::vector<std::string> timed_;                // array directories whose shape grows with time
  std::map<std::string, std::string> metadata_;   // store key -> JSON text (consolidated at close)
  std::vector<std::string> time_prefixes_;        // each group's prefix ("" or "z<level>/"), for its time arrays
  bool time_instant_ = false;                     // reduced and instant variables: a time_instant array too
  std::int64_t records_ = 0;      // records in the store (its time shape)
  std::int64_t base_record_ = 0;  // records a continued store held before this run
  bool appended_ = false;
  struct PendingKey {
    int variable;
    std::int64_t record, outer, chunk;
    auto operator<=>(const PendingKey&) const = default;
  };
  struct Pending {
    std::vector<unsigned char> bytes;
    std::int64_t filled = 0;  // rows received
  };
  std::map<PendingKey, Pending> pending_;  // chunks this writer owns, not complete yet
  std::vector<unsigned char> scratch_, shuffled_, packed_;
  std::uint64_t bytes_ = 0;
  double write_seconds_ = 0;
  std::uint64_t disk_bytes_ = 0;  // the chunk files this writer wrote (metadata not counted)
};

}  // namespace zarr
}  // namespace foehn::formats
