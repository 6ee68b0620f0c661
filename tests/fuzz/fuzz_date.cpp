// libFuzzer target: parse_date either fails with a TimeError or gives a date
// whose text reads back to the same date; in every calendar where the date
// is valid (the standard ones and two user-defined ones) it maps to an
// instant and back to the same date.
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
  } catch (const TimeError&) { return 0; }
  if (!(parse_date(format_date(date)) == date)) __builtin_trap();
  // Two user-defined calendars too: odd month lengths with a leap drift,
  // and 12 one-day months every other year leap.
  static const Calendar user_odd(UserCalendar{{10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21}, 7, 333'334, 900'000});
  static const Calendar user_tiny(UserCalendar{{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, 12, 500'000, 0});
  const Calendar calendars[] = {Calendar(CalendarType::gregorian),
                                Calendar(CalendarType::proleptic_gregorian),
                                Calendar(CalendarType::julian),
                                Calendar(CalendarType::noleap),
                                Calendar(CalendarType::all_leap),
                                Calendar(CalendarType::d360),
                                Calendar(CalendarType::none),
                                user_odd,
                                user_tiny};
  for (const Calendar& cal : calendars) {
    std::int64_t instant = 0;
    try {
      instant = cal.to_instant(date);  // validates; may also be out of the instant range
    } catch (const TimeError&) { continue; }
    if (!(cal.to_date(instant) == date)) __builtin_trap();
  }
  return 0;
}
