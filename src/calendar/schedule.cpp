// Periodic instants. Each instant is computed from the start in one step
// (months first, then the exact part), so a monthly schedule started on
// Jan 31 gives Feb 28, Mar 31, Apr 30, ... instead of drifting to the 28th.
#include <cstdint>
#include <string>

#include "calendar/calendar.h"

namespace foehn::calendar {

Schedule::Schedule(const Calendar& calendar, std::int64_t start, Duration period, Duration offset,
                   std::int64_t timestep_us)
    : calendar_(&calendar), start_(start), period_(period), offset_(offset), timestep_us_(timestep_us) {
  // first_at_or_after relies on instant(k) strictly increasing with k.
  if (period.months < 0 || period.microseconds < 0 || period.timesteps < 0 || period.is_zero())
    throw TimeError("schedule period '" + format_duration(period) + "' must be positive");
  if (calendar.type() == CalendarType::none && (period.months != 0 || offset.months != 0))
    throw TimeError("the 'none' calendar has no months or years, so period '" + format_duration(period) +
                    "' with offset '" + format_duration(offset) + "' cannot be scheduled");
  if ((period.timesteps != 0 || offset.timesteps != 0) && timestep_us <= 0)
    throw TimeError("schedule period '" + format_duration(period) + "' or offset '" + format_duration(offset) +
                    "' counts time steps ('ts') but no time step is set");
}

std::int64_t Schedule::instant(std::int64_t k) const {
  return calendar_->add(start_, offset_ + period_ * k, timestep_us_);
}

std::int64_t Schedule::first_at_or_after(std::int64_t t) const {
  // True from the answer onwards. An instant past the int64 range counts as
  // "after t", which keeps the search monotonic near the range's end.
  const auto reached = [&](std::int64_t k) {
    try {
      return instant(k) >= t;
    } catch (const TimeError&) { return true; }
  };
  if (reached(0)) {
    instant(0);  // rethrows if even the first instant is out of range
    return 0;
  }
  // Gallop to a bound, then bisect: O(log k) calendar additions, and no
  // assumption about month lengths.
  std::int64_t lo = 0, hi = 1;  // reached(lo) is false
  while (!reached(hi)) {
    if (hi == INT64_MAX) throw TimeError("no instant of the schedule is at or after " + std::to_string(t) + " us");
    lo = hi;
    hi = hi > INT64_MAX / 2 ? INT64_MAX : hi * 2;
  }
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    (reached(mid) ? hi : lo) = mid;
  }
  try {
    instant(hi);
  } catch (const TimeError&) {
    throw TimeError("no instant of the schedule (period '" + format_duration(period_) + "') at or after " +
                    std::to_string(t) + " us is representable");
  }
  return hi;
}

}  // namespace foehn::calendar
