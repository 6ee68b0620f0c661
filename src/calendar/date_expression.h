// XIOS's date expressions ("2012-02-28 15:00:00 + 1d"), accepted wherever
// a calendar date is (start_date, time_origin, xios_date_convert_from_string).
#pragma once

#include <cstdint>
#include <string_view>

#include "calendar/calendar.h"

namespace foehn::calendar {

// As XIOS's date parser reads them: a date, then optionally '+' and a
// duration. The offset is zero without '+'. Throws TimeError naming the bad
// part.
struct DateExpression {
  Date date;
  Duration offset;
  bool has_offset = false;
};
DateExpression parse_date_expression(std::string_view text);

// The date a date expression stands for in `calendar`: the date (checked
// by validate) plus the offset, whose ts count timestep_us (0: not known
// yet, and ts in the expression throws). Throws TimeError.
Date evaluate_date_expression(const Calendar& calendar, std::string_view text, std::int64_t timestep_us);

}  // namespace foehn::calendar
