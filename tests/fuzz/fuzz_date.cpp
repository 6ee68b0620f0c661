// libFuzzer target: parse_date either fails with a TimeError or gives a date
// whose text reads back to the same date; in every calendar where the date
// is valid it maps to an instant and back to the same date.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "calendar/calendar.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace foehn::calendar;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Date date;
  try {
    date = parse_date(text);
  } catch (const TimeError&) {
    return 0;
  }
  if (!(parse_date(format_date(date)) == date)) __builtin_trap();
  for (CalendarType type : {CalendarType::gregorian, CalendarType::proleptic_gregorian, CalendarType::julian,
                            CalendarType::noleap, CalendarType::all_leap, CalendarType::d360, CalendarType::none}) {
    const Calendar cal(type);
    std::int64_t instant = 0;
    try {
      instant = cal.to_instant(date);  // validates; may also be out of the instant range
    } catch (const TimeError&) {
      continue;
    }
    if (!(cal.to_date(instant) == date)) __builtin_trap();
  }
  return 0;
}
