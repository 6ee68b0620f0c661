// The time variables of a NetCDF file, by XIOS's rules for the file
// attribute time_counter (docs/operations.md, "Time axes"): which of the counter
// (the coordinate variable of the record dimension), time_centered and
// time_instant a file holds, given the kinds of its fields.
#pragma once

#include <array>
#include <string>
#include <string_view>

#include "output/output_plan.h"

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

// Seconds in a unit of file f's time values (time_units="days": 86400).
inline double time_unit_seconds(const output::FileInfo& f) { return f.time_in_days ? 86400.0 : 1.0; }

// A time value read from a file, back in seconds since the time origin and
// in whole microseconds, as foehn's instants are: a division by 86400 is
// not exact in binary, so days would otherwise not give back the seconds.
double time_value_seconds(double value, double unit_seconds);

// The time bounds a file of this layout may hold, the best first for a
// record's interval: time_centered's (the interval), the counter's (the
// interval or an instant), time_instant's (zero width).
std::array<std::string, 3> time_bounds_names(const std::string& counter);

}  // namespace foehn::formats::netcdf
