// GRIB2 multiple_file parts rebuilt for another number of writers (a run
// continuing them with another server or model-rank count: docs/grib.md,
// server/repartition_grib.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "output/output_plan.h"

namespace foehn::formats::grib {

struct Scan {
  std::vector<std::uint64_t> ends;  // the byte after each whole message
  std::uint64_t size = 0;           // of the file
};

// The whole messages of a GRIB2 file (a message cut short ends the scan).
Scan scan_messages(const std::string& path);

// Writes to `to` part `part` of `parts` of GRIB2 multiple_file file `file`
// from its parts written by old_parts.size() writers (old_parts[k]: part
// k): the messages of its first `records` records (-1: every whole record
// all the old parts hold) that a run of `parts` writers puts in that part.
// A part holds no position of its own: level l of the file's k-th field is
// encoded by writer (k + l) mod n (GribWriter), so the plan says where each
// message is. The messages are copied as they are: the bytes a run of
// `parts` writers encodes. with_once: the file holds the run's first
// record, with the once fields' messages (not a split_freq period's file
// after the first). Returns the records copied.
std::int64_t rebuild_part(const output::ContextPlan& plan, int file, const std::vector<std::string>& old_parts,
                          int part, int parts, std::int64_t records, const std::string& to, bool with_once = true);

}  // namespace foehn::formats::grib
