// The time variables of a NetCDF file, by XIOS's rules for the file
// attribute time_counter (docs/operations.md, "Time axes"): which of the counter
// (the coordinate variable of the record dimension), time_centered and
// time_instant a file holds, given the kinds of its fields.
#pragma once

#include <string>
#include <string_view>

namespace foehn::formats::netcdf {

struct TimeLayout {
  // What the counter holds: nothing (no counter variable), the end of each
  // interval (instant), its centre (centered) or the record number.
  enum class Counter { none, instant, centered, record };
  Counter counter = Counter::none;
  bool centered = false;  // time_centered and time_centered_bounds
  bool instant = false;   // time_instant and time_instant_bounds

  // Instant and centered counters have CF bounds; a record number has none.
  bool counter_bounds() const { return counter == Counter::instant || counter == Counter::centered; }
};

// mode: the file's time_counter ("" for XIOS's default), checked by the
// XML reader; any_reduced / any_instant: whether a field of the file is
// reduced over time (average, minimum, ...) / instant.
TimeLayout time_layout(std::string_view mode, bool any_reduced, bool any_instant);

}  // namespace foehn::formats::netcdf
