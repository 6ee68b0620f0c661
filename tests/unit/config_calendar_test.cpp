// User-defined calendars in the XML (<calendar type="user_defined" ...>):
// the XIOS attributes read into CalendarDef::user, the calendar they make,
// and each mistake reported at the calendar's line. XIOS's date expressions
// ("2012-02-28 15:00:00 + 1d") in start_date and time_origin.
#include <gtest/gtest.h>

#include <string>

#include "calendar/date_expression.h"
#include "config/calendar_setup.h"
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

// The expected dates are counted by hand (and agree with Python's datetime
// for the Gregorian cases): 2012 is a leap year, 2011 is not, a 360-day
// January has 30 days.
TEST(DateExpression, DurationsAddedInTheCalendar) {
  const cal::Calendar greg(cal::CalendarType::gregorian), noleap(cal::CalendarType::noleap),
      d360(cal::CalendarType::d360);
  const std::int64_t hour = 3600 * cal::kMicrosPerSecond;
  const auto eval = [](const cal::Calendar& c, const char* text, std::int64_t ts) {
    return cal::format_date(cal::evaluate_date_expression(c, text, ts));
  };
  EXPECT_EQ(eval(greg, "2012-02-28 15:00:00 + 1d", 0), "2012-02-29 15:00:00");
  EXPECT_EQ(eval(noleap, "2012-02-28 15:00:00 + 1d", 0), "2012-03-01 15:00:00");
  EXPECT_EQ(eval(d360, "2000-01-30+1d", 0), "2000-02-01 00:00:00");
  EXPECT_EQ(eval(greg, "2011-12-31 23:00:00 + 1h 30mi", 0), "2012-01-01 00:30:00");
  EXPECT_EQ(eval(greg, "2000-01-31 + 1mo", 0), "2000-02-29 00:00:00");
  EXPECT_EQ(eval(greg, "2000-01-01 + 1y 2d", 0), "2001-01-03 00:00:00");
  EXPECT_EQ(eval(greg, "2000-01-01 + 3ts", hour), "2000-01-01 03:00:00");
  EXPECT_EQ(eval(greg, "2000-01-01 06:00:00", 0), "2000-01-01 06:00:00");
  const cal::DateExpression e = cal::parse_date_expression("1999-12-31 12:00 + 12h");
  EXPECT_TRUE(e.has_offset);
  EXPECT_EQ(e.date, cal::parse_date("1999-12-31 12:00"));
  EXPECT_EQ(e.offset, cal::parse_duration("12h"));
  EXPECT_THROW(cal::parse_date_expression("2000-01-01 + 1 parsec"), cal::TimeError);
  EXPECT_THROW(cal::parse_date_expression("2000-01-01 +"), cal::TimeError);
  EXPECT_THROW(eval(greg, "2000-01-01 + 1ts", 0), cal::TimeError);
  EXPECT_THROW(eval(noleap, "2000-02-29 + 1d", 0), cal::TimeError);
}

TEST(DateExpression, XmlDatesBecomePlainDates) {
  // XIOS's test_diurnal_cycle writes time_origin="2012-02-28 15:00:00 + 1d".
  const Simulation sim = parse(
      "<calendar type='Gregorian' timestep='1h' start_date='2012-02-28 15:00:00 + 2ts' "
      "time_origin='2012-02-28 15:00:00 + 1d'/>");
  const CalendarDef& c = sim.contexts.at(0).calendar;
  EXPECT_EQ(c.start_date, "2012-02-28 17:00:00");
  EXPECT_EQ(c.time_origin, "2012-02-29 15:00:00");
  EXPECT_NE(error_of("<calendar type='Gregorian' start_date='2012-02-28 + 1 fortnight'/>").find("after '+'"),
            std::string::npos);
  EXPECT_NE(error_of("<calendar type='NoLeap' start_date='2012-02-29 + 1d'/>").find("bad start_date"),
            std::string::npos);
}
