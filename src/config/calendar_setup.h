// A context's calendar as XIOS sets it up: date expressions in its dates and
// a user_defined calendar's attributes, shared by the XML reader and the
// calls that set the calendar from code (foehn_set_attribute of "calendar",
// xios_define_calendar).
#pragma once

#include <functional>
#include <string>

#include "calendar/calendar.h"
#include "config/config.h"

namespace foehn::config {

// Rewrites a start_date or time_origin written as an XIOS date expression
// ("2000-01-01 + 1d") as the plain date it stands for, in c's calendar (ts
// from its timestep when given). Throws ConfigError at c.where.
void evaluate_date_expressions(CalendarDef& c);

// A user_defined calendar from XIOS's attributes as text (day_length,
// month_lengths, year_length, leap_year_month, leap_year_drift,
// leap_year_drift_offset; `get` gives nullptr for one not given). Throws
// calendar::TimeError naming the attribute.
calendar::UserCalendar make_user_calendar(const std::function<const std::string*(const char*)>& get);

}  // namespace foehn::config
