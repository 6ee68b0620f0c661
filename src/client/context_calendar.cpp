// Calendar queries for the XIOS-style calls (xios_date_convert_to_seconds,
// xios_date_get_*, xios_get_year/day_length_in_seconds): facts about a date
// in the context's calendar (the XML's, with the model's settings over it);
// and the calendar's attributes set from code (xios_define_calendar).
#include <algorithm>
#include <iterator>
#include <string>

#include "calendar/calendar.h"
#include "client/context.h"
#include "client/errors.h"
#include "config/calendar_setup.h"

namespace foehn::client {

double Context::calendar_query(const std::string& what, const std::string& date_text) const {
  check_open("foehn_calendar_query");
  const std::string call = "foehn_calendar_query: " + what;
  if (settings_.calendar.type.empty())
    fail(FOEHN_ERR_STATE, call + ": context '" + id_ + "' has no calendar type yet (XML or foehn_set_calendar)");
  try {
    const calendar::Calendar cal = settings_.calendar.make_calendar();
    constexpr double day = 86400.0;  // foehn's calendars have days of 86400 s
    if (what == "day_length") return day;
    const calendar::Date date = calendar::parse_date(date_text);
    cal.validate(date);
    if (what == "year_length") return cal.days_in_year(date.year) * day;
    const std::int64_t at = cal.to_instant(date);
    calendar::Date year_start{date.year};
    const double second_of_year = static_cast<double>(at - cal.to_instant(year_start)) / calendar::kMicrosPerSecond;
    const double second_of_day = date.hour * 3600.0 + date.minute * 60.0 + date.second;
    if (what == "second_of_year") return second_of_year;
    if (what == "day_of_year") return second_of_year / day;
    if (what == "fraction_of_year") return second_of_year / (cal.days_in_year(date.year) * day);
    if (what == "second_of_day") return second_of_day;
    if (what == "fraction_of_day") return second_of_day / day;
    if (what == "seconds_since_origin") {
      const std::string& origin =
          settings_.calendar.time_origin.empty() ? settings_.calendar.start_date : settings_.calendar.time_origin;
      if (origin.empty()) fail(FOEHN_ERR_STATE, call + ": context '" + id_ + "' has no time origin or start date");
      const calendar::Date o = calendar::parse_date(origin);
      return static_cast<double>(at - cal.to_instant(o)) / calendar::kMicrosPerSecond;
    }
  } catch (const calendar::TimeError& e) {
    fail(FOEHN_ERR_ARGUMENT, call + ": " + e.what());
  } catch (const config::ConfigError& e) { fail(FOEHN_ERR_CONFIG, call + ": " + e.what()); }
  fail(FOEHN_ERR_ARGUMENT, call +
                               ": unknown query (day_length, year_length, second_of_year, day_of_year, "
                               "fraction_of_year, second_of_day, fraction_of_day, seconds_since_origin)");
}

void Context::set_calendar_attribute(const std::string& what, const std::string& name, const std::string& value) {
  static constexpr const char* kUserAttrs[] = {"day_length",      "month_lengths",   "year_length",
                                               "leap_year_month", "leap_year_drift", "leap_year_drift_offset"};
  try {
    if (name == "type") return set_calendar(value.c_str(), nullptr, nullptr, nullptr);
    if (name == "start_date") return set_calendar(nullptr, value.c_str(), nullptr, nullptr);
    if (name == "time_origin") return set_calendar(nullptr, nullptr, value.c_str(), nullptr);
    if (name == "timestep") return set_calendar(nullptr, nullptr, nullptr, value.c_str());
    if (std::find(std::begin(kUserAttrs), std::end(kUserAttrs), name) == std::end(kUserAttrs))
      fail(FOEHN_ERR_ARGUMENT, what +
                                   ": not a calendar attribute (type, start_date, time_origin, timestep, day_length, "
                                   "month_lengths, year_length, leap_year_month, leap_year_drift, "
                                   "leap_year_drift_offset)");
    user_calendar_attrs_[name] = value;
    // Checked as a whole once month_lengths is there (XIOS makes the calendar
    // after all its attributes are set; so do the Fortran wrappers).
    if (!user_calendar_attrs_.count("month_lengths")) return;
    settings_.calendar.user = config::make_user_calendar([&](const char* n) -> const std::string* {
      const auto it = user_calendar_attrs_.find(n);
      return it == user_calendar_attrs_.end() ? nullptr : &it->second;
    });
  } catch (const calendar::TimeError& e) { fail(FOEHN_ERR_ARGUMENT, what + ": " + e.what()); }
  if (!settings_.calendar.type.empty() &&
      calendar::parse_calendar_type(settings_.calendar.type) == calendar::CalendarType::user_defined)
    config::evaluate_date_expressions(settings_.calendar);
}

}  // namespace foehn::client
