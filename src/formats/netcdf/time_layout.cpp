#include "formats/netcdf/time_layout.h"

#include <cmath>

namespace foehn::formats::netcdf {

// XIOS decides field by field as it defines them; the outcome depends only
// on which kinds are present, which is what is decided here.
TimeLayout time_layout(std::string_view mode, bool any_reduced, bool any_instant) {
  using Counter = TimeLayout::Counter;
  TimeLayout t;
  t.centered = any_reduced;
  t.instant = any_instant;
  if (mode.empty()) {  // the counter follows the reduced fields, else the instant ones
    t.counter = any_reduced ? Counter::centered : any_instant ? Counter::instant : Counter::none;
  } else if (mode == "centered" || mode == "centered_exclusive") {
    if (any_reduced) t.counter = Counter::centered;
    t.centered = any_reduced && mode == "centered";  // exclusive: the counter is the only copy
  } else if (mode == "instant" || mode == "instant_exclusive") {
    if (any_instant) t.counter = Counter::instant;
    t.instant = any_instant && mode == "instant";
  } else if (mode == "exclusive") {  // the counter takes one kind, which gets no copy
    t.counter = any_reduced ? Counter::centered : any_instant ? Counter::instant : Counter::none;
    if (t.counter == Counter::centered) t.centered = false;
    if (t.counter == Counter::instant) t.instant = false;
  } else if (mode == "record") {
    if (any_reduced || any_instant) t.counter = Counter::record;
  }  // "none": time_centered and time_instant only
  return t;
}

double time_value_seconds(double value, double unit_seconds) {
  return std::round(value * unit_seconds * 1e6) / 1e6;
}

std::array<std::string, 3> time_bounds_names(const std::string& counter) {
  return {"time_centered_bounds", counter + "_bounds", "time_instant_bounds"};
}

}  // namespace foehn::formats::netcdf
