// libFuzzer target: parse_duration either fails with a TimeError or gives a
// duration whose canonical text reads back to the same duration; adding it
// in every calendar, and scheduling with it, gives an instant or a
// TimeError, never overflow or a crash.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "calendar/calendar.h"

namespace {

using namespace foehn::calendar;

void exercise(CalendarType type, const Duration& d) {
  const Calendar cal(type);
  const std::int64_t start = cal.to_instant(Date{2000, 1, 30});  // a day every calendar has
  constexpr std::int64_t timestep = 600 * kMicrosPerSecond;
  try {
    cal.add(start, d, timestep);
  } catch (const TimeError&) {}
  try {
    const Schedule s(cal, start, d, Duration{0, 3'600 * kMicrosPerSecond, 0}, timestep);
    s.instant(7);
    const std::int64_t k = s.first_at_or_after(start + 400LL * 86'400 * kMicrosPerSecond);
    if (s.instant(k) < start + 400LL * 86'400 * kMicrosPerSecond) __builtin_trap();
  } catch (const TimeError&) {}
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Duration d;
  try {
    d = parse_duration(text);
  } catch (const TimeError&) { return 0; }
  const std::string canonical = format_duration(d);
  if (!(parse_duration(canonical) == d)) __builtin_trap();  // throws, or traps, if the round trip fails
  for (CalendarType type : {CalendarType::gregorian, CalendarType::proleptic_gregorian, CalendarType::julian,
                            CalendarType::noleap, CalendarType::all_leap, CalendarType::d360, CalendarType::none})
    exercise(type, d);
  return 0;
}
