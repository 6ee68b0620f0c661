// Fields read from files of mode="read" into the model (foehn_read_*,
// xios_recv_field). Each model rank reads its own part of a record from the
// file, read-only, in both modes (attached and with servers): the bounding
// box of its part, one hyperslab per read, then each value of its data
// layout from the box. XIOS reads on its servers instead; the difference is
// in docs/xios-compatibility.md.
//
// The layout is the one a write of the same grid takes (the domain's data
// points, halos and compressed data, each axis's part), so a model reads
// back into the array it writes from. Values the layout leaves out (halos,
// masked points) keep what the array held.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "calendar/calendar.h"
#include "client/plan_builder.h"
#include "formats/netcdf/nc_dataset.h"
#include "output/output_plan.h"

namespace foehn::client {

class FieldReader {
 public:
  // After the exchanges: `plan` has each domain's and axis's global size,
  // `settings` this rank's data points and axis parts. Local; opens no file.
  FieldReader(std::vector<ReadField> reads, const output::ContextPlan& plan, const ModelSettings& settings,
              const calendar::Calendar& calendar);

  bool reads(const std::string& field_id) const { return index_.count(field_id) > 0; }
  // Whether a record of the field is read at instant `now`.
  bool is_due(const std::string& field_id, std::int64_t now) const;
  // This rank's part of the record due at `now` into data (n values: the
  // grid's local size). Errors name the field, its line, the file, the
  // variable and the record.
  template <class T>
  void read(const std::string& field_id, std::int64_t now, T* data, std::size_t n);

 private:
  struct Entry {
    ReadField def;
    std::vector<std::size_t> box_start, box_count;  // per grid dimension of the file, slowest first
    std::vector<std::size_t> file_length;           // the global size of each grid dimension
    std::vector<std::string> dim_text;              // "domain 'grid_t' y" ..., for messages
    std::vector<std::int64_t> offset;               // of each local value in the box, -1: not read
    std::size_t box_size = 0;
    // Found at the first read.
    bool opened = false, has_record = false;
    int varid = -1;
    std::size_t records = 0;
  };
  void open(Entry& e);
  std::string where(const Entry& e) const;

  const calendar::Calendar* calendar_;
  std::vector<Entry> entries_;
  std::unordered_map<std::string, std::size_t> index_;
  std::map<std::string, formats::netcdf::NcDataset> files_;  // by path, open from a field's first read
  std::vector<double> box_;
};

}  // namespace foehn::client
