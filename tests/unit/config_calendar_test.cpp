// User-defined calendars in the XML (<calendar type="user_defined" ...>):
// the XIOS attributes read into CalendarDef::user, the calendar they make,
// and each mistake reported at the calendar's line.
#include <gtest/gtest.h>

#include <string>

#include "config/config.h"

using namespace foehn::config;
namespace cal = foehn::calendar;

namespace {

Simulation parse(const std::string& calendar) {
  return parse_string("<simulation><context id='a'>\n" + calendar + "\n</context></simulation>", "inline.xml", ".");
}

std::string error_of(const std::string& calendar) {
  try {
    parse(calendar);
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.where.line, 2) << e.what();
    return e.message;
  }
  ADD_FAILURE() << "no error for " << calendar;
  return "";
}

}  // namespace

TEST(ConfigUserCalendar, XiosAttributesMakeTheCalendar) {
  const Simulation sim = parse(
      "<calendar type='user_defined' day_length='86400' month_lengths='(1,12)[30 30 30 30 30 30 30 30 30 30 30 35]' "
      "year_length='31536000' leap_year_month='12' leap_year_drift='0.25' leap_year_drift_offset='0.5' "
      "start_date='2002-12-36' timestep='1h'/>");
  const CalendarDef& c = sim.contexts.at(0).calendar;
  ASSERT_TRUE(c.user.has_value());
  EXPECT_EQ(c.user->month_lengths[11], 35);
  EXPECT_EQ(c.user->leap_year_month, 12);
  EXPECT_EQ(c.user->leap_year_drift, 250'000);
  EXPECT_EQ(c.user->leap_year_drift_offset, 500'000);
  const cal::Calendar calendar = c.make_calendar();
  // Drift 0.25 from 0.5: the accumulated drift passes a whole day in years 2, 6, 10, ...
  for (int y = 1; y <= 12; ++y) EXPECT_EQ(calendar.is_leap_year(y), y % 4 == 2) << y;
  EXPECT_EQ(calendar.days_in_month(2001, 12), 35);
  EXPECT_EQ(calendar.to_date(calendar.to_instant(cal::parse_date("2002-12-36"))), cal::parse_date("2002-12-36"));
}

TEST(ConfigUserCalendar, MistakesAtTheCalendarLine) {
  struct Case {
    const char* calendar;
    const char* message;
  };
  for (const Case& c :
       {Case{"<calendar type='user_defined'/>", "a user_defined calendar needs month_lengths"},
        Case{"<calendar type='gregorian' month_lengths='30 30 30 30 30 30 30 30 30 30 30 30'/>",
             "month_lengths is only for a calendar of type user_defined, not 'gregorian'"},
        Case{"<calendar type='user_defined' month_lengths='30 30 30'/>", "expected 12 whole numbers of days"},
        Case{"<calendar type='user_defined' month_lengths='30 30 30 30 30 30 30 30 30 30 30 30.5'/>",
             "expected 12 whole numbers of days"},
        Case{"<calendar type='user_defined' day_length='88775' month_lengths='30 30 30 30 30 30 30 30 30 30 30 30'/>",
             "only days of 86400 s are supported"},
        Case{"<calendar type='user_defined' year_length='1' month_lengths='30 30 30 30 30 30 30 30 30 30 30 30'/>",
             "year_length 1 s is not the sum of month_lengths (31104000 s)"},
        Case{"<calendar type='user_defined' leap_year_month='2' leap_year_drift='1.5' "
             "month_lengths='30 30 30 30 30 30 30 30 30 30 30 30'/>",
             "leap_year_drift must be from 0 to 1 day per year"},
        Case{"<calendar type='user_defined' start_date='2000-02-31' "
             "month_lengths='30 30 30 30 30 30 30 30 30 30 30 30'/>",
             "bad start_date '2000-02-31' for a user_defined calendar"}}) {
    const std::string message = error_of(c.calendar);
    EXPECT_NE(message.find(c.message), std::string::npos) << c.calendar << "\n" << message;
  }
}
