// The GRIB2 writer (format="grib2"): one message per field, level and
// record, encoded with ecCodes. Writers (servers, or attached model ranks)
// hold bands of rows with every level; a message needs a whole level, so
// each put sends every level to the writer that encodes it (level l of the
// file's k-th field: writer (k + l) mod n), and at the end of a record the
// messages go to the first writer, which appends them in one order (field
// in file order, then level): the file does not depend on the number of
// writers. With type="multiple_file" each writer instead writes the
// messages it encodes to its own part, in the same order. Every call is
// collective over the file's writers.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "formats/grib/grib_handle.h"
#include "formats/writer.h"

namespace foehn::formats {

std::unique_ptr<Writer> open_grib2(const output::ContextPlan& plan, int file, WriterTarget target);

namespace grib {

class GribWriter final : public Writer {
 public:
  GribWriter(const output::ContextPlan& plan, int file, WriterTarget target);
  ~GribWriter() override;

  const std::string& path() const override { return path_; }
  bool appended() const override { return appended_; }
  bool is_root() const override { return rank_ == 0; }
  void write_time(std::int64_t record, double end, double start) override;
  void put(int variable, std::int64_t record, const grid::Box& box, const void* values) override;
  void sync() override;
  void close() override;
  WriterFigures figures() const override { return {bytes_, write_seconds_, disk_bytes_}; }

 private:
  struct Field {              // one plan variable of the file
    int position = 0;         // in the file's variables: the message order and the owner of each level
    GribHandle handle;        // grid, parameter, packing, level type and time set once
    int prec = 4;             // of the values put
    std::int64_t points = 0;  // of one level
    std::int64_t ni_glo = 0;  // the domain's row length (2-D domains; 1-D: its size)
    std::int64_t levels = 1;
    int level_dim = -1;  // the dimension of the levels in the variable (-1: none)
    std::vector<double> level_values;
    bool statistics = false;                 // average, accumulate, minimum, maximum: the statistical-process template
    bool once = false;                       // operation="once": in the first record only
    double missing = 0;                      // the value of points without data (bitmap)
    std::vector<std::vector<double>> owned;  // the levels this writer encodes, whole
    bool pending = false;                    // put at this record, not yet encoded
  };
  Field define_field(const output::ContextPlan& plan, int vi, int position);
  // Creates the file, or continues it (grib_continue.cpp): append="true"
  // after its last message, an exact restart after the checkpoint's
  // records, the messages after them cut off. The first writer's (each
  // writer's, multiple_file); throws IoError.
  void open_output(const output::ContextPlan& plan, const output::FileInfo& f);
  // The messages this writer's file holds after `records` records; with_once:
  // the file holds the run's first record, so once fields' messages too (a
  // split_freq period's file after the first holds none).
  std::int64_t messages_in_records(std::int64_t records, bool with_once) const;
  int owner(const Field& f, std::int64_t level) const { return static_cast<int>((f.position + level) % size_); }
  // Encodes the pending fields' levels this writer owns and appends every
  // writer's messages, in order, to the file (the first writer writes).
  void flush_record();
  void encode_owned(std::vector<unsigned char>& bytes, std::vector<long long>& sizes);
  void write_in_order(const std::vector<unsigned char>& bytes, const std::vector<long long>& sizes);
  void agree(const std::string& error) const;  // throws on every writer when one failed

  std::string path_;
  MPI_Comm comm_ = MPI_COMM_SELF;
  int rank_ = 0, size_ = 1;
  bool appended_ = false;      // the file existed: this run continues it (append, exact restart)
  bool own_file_ = false;      // multiple_file: each writer writes the messages it encodes to its own part
  std::FILE* out_ = nullptr;   // the first writer's (multiple_file: each writer's)
  std::vector<int> field_of_;  // plan variable -> index into fields_ (-1: not in this file)
  std::vector<Field> fields_;
  double end_ = 0, start_ = 0;  // the record being put
  bool have_record_ = false;
  // Scratch of the exchange, grown once to the largest put.
  std::vector<double> send_, receive_;
  std::vector<long long> boxes_;
  std::vector<int> send_counts_, send_displs_, receive_counts_, receive_displs_;
  std::vector<unsigned char> message_bytes_;  // this writer's messages of a record, kept for the next
  std::vector<long long> message_sizes_;
  std::uint64_t bytes_ = 0;   // values put (the report's figure, as for NetCDF)
  double write_seconds_ = 0;  // exchanging, encoding and writing
  std::uint64_t size_before_ = 0, disk_bytes_ = 0;  // the file's size before this run (append), added at close
};

}  // namespace grib
}  // namespace foehn::formats
