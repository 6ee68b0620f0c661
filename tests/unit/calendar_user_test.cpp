// User-defined calendars (XIOS type "user_defined"): month lengths and a
// leap-year drift of their own. Table-driven: leap years against an
// independent year-by-year accumulation, day numbers against sums of month
// lengths, a day-by-day walk, month-end clamping, and bad definitions.
#include <gtest/gtest.h>

#include <numeric>
#include <string>
#include <vector>

#include "calendar/calendar.h"

namespace foehn::calendar {
namespace {

constexpr std::int64_t kDay = 86'400 * kMicrosPerSecond;
constexpr std::array<int, 12> kJulianMonths = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

UserCalendar user(std::array<int, 12> months, int leap_month = 0, const char* drift = "0", const char* offset = "0") {
  return UserCalendar{months, leap_month, parse_millionths(drift), parse_millionths(offset)};
}

// Independent of the library's closed form: carry the drift year by year.
std::vector<bool> leap_years_by_accumulation(std::int64_t drift, std::int64_t offset, int years) {
  std::vector<bool> leap(static_cast<std::size_t>(years) + 1, false);
  std::int64_t acc = offset;
  for (int y = 1; y <= years; ++y) {
    const std::int64_t before = acc / 1'000'000;
    acc += drift;
    leap[static_cast<std::size_t>(y)] = acc / 1'000'000 > before;
  }
  return leap;
}

TEST(UserCalendar, ParseMillionths) {
  struct Case {
    const char* text;
    std::int64_t value;
  };
  for (const Case& c : std::vector<Case>{{"0", 0},
                                         {"0.25", 250'000},
                                         {"1", 1'000'000},
                                         {".5", 500'000},
                                         {"0.242199", 242'199},
                                         {" 2.000001 ", 2'000'001}})
    EXPECT_EQ(parse_millionths(c.text), c.value) << c.text;
  for (const char* bad : {"", ".", "-0.5", "0.1234567", "1e3", "abc", "0.5x"})
    EXPECT_THROW(parse_millionths(bad), TimeError) << bad;
}

TEST(UserCalendar, LeapYearsFollowTheDrift) {
  struct Case {
    const char* drift;
    const char* offset;
  };
  for (const Case& c : std::vector<Case>{{"0.25", "0"}, {"0.2422", "0.5"}, {"0.3", "0.9"}, {"1", "0"}, {"0", "0.7"}}) {
    const Calendar cal(user(kJulianMonths, 2, c.drift, c.offset));
    const auto want = leap_years_by_accumulation(parse_millionths(c.drift), parse_millionths(c.offset), 2000);
    std::int64_t days_before = 0;
    for (int y = 1; y <= 2000; ++y) {
      ASSERT_EQ(cal.is_leap_year(y), want[static_cast<std::size_t>(y)]) << c.drift << " " << c.offset << " year " << y;
      ASSERT_EQ(cal.to_instant(Date{y, 1, 1, 0, 0, 0, 0}), days_before * kDay) << y;
      ASSERT_EQ(cal.days_in_month(y, 2), want[static_cast<std::size_t>(y)] ? 29 : 28);
      days_before += 365 + (want[static_cast<std::size_t>(y)] ? 1 : 0);
    }
  }
}

TEST(UserCalendar, QuarterDayDriftIsTheJulianCalendar) {
  const Calendar mine(user(kJulianMonths, 2, "0.25"));
  const Calendar julian(CalendarType::julian);
  for (const Date& d : {Date{1, 1, 1, 0, 0, 0, 0}, Date{4, 2, 29, 12, 0, 0, 0}, Date{1900, 2, 29, 0, 0, 0, 0},
                        Date{2024, 12, 31, 23, 59, 59, 999'999}, Date{-7, 3, 1, 6, 0, 0, 0}}) {
    EXPECT_EQ(mine.to_instant(d), julian.to_instant(d)) << format_date(d);
    EXPECT_EQ(mine.to_date(mine.to_instant(d)), d) << format_date(d);
  }
}

// CF's leap_year: an example leap year, every 4th year from it leap too;
// only a drift of 0.25 days a year gives that rule.
TEST(UserCalendar, CfLeapYearOnlyForEveryFourthYear) {
  for (const char* offset : {"0", "0.1", "0.25", "0.5", "0.75", "0.999999"}) {
    const auto want = leap_years_by_accumulation(250'000, parse_millionths(offset), 400);
    const auto year = Calendar(user(kJulianMonths, 2, "0.25", offset)).cf_leap_year();
    ASSERT_TRUE(year.has_value()) << offset;
    EXPECT_GE(*year, 1);
    EXPECT_LE(*year, 4);
    for (int y = 1; y <= 400; ++y)
      EXPECT_EQ(want[static_cast<std::size_t>(y)], (y - *year) % 4 == 0) << "offset " << offset << " year " << y;
  }
  EXPECT_FALSE(Calendar(user(kJulianMonths, 2, "0.2422")).cf_leap_year().has_value());
  EXPECT_FALSE(Calendar(user(kJulianMonths, 2, "1")).cf_leap_year().has_value());
  EXPECT_FALSE(Calendar(user(kJulianMonths, 0, "0.25")).cf_leap_year().has_value());  // no leap month: no leap years
  EXPECT_FALSE(Calendar(CalendarType::julian).cf_leap_year().has_value());
}

TEST(UserCalendar, OddMonthLengthsDayByDay) {
  // 12 months of 10..21 days (186 days a year), a leap day in month 7
  // every third year: walking one day at a time visits every date once.
  std::array<int, 12> months{};
  std::iota(months.begin(), months.end(), 10);
  const Calendar cal(user(months, 7, "0.333334"));
  Date expected{-2, 1, 1, 0, 0, 0, 0};
  std::int64_t t = cal.to_instant(expected);
  for (int n = 0; n < 186 * 12; ++n, t += kDay) {
    ASSERT_EQ(cal.to_date(t), expected) << n;
    ASSERT_EQ(cal.to_instant(expected), t);
    if (++expected.day > cal.days_in_month(expected.year, expected.month)) {
      expected.day = 1;
      if (++expected.month > 12) expected.month = 1, ++expected.year;
    }
  }
  EXPECT_EQ(cal.days_in_year(3), 187);  // 3 * 0.333334 passes 1.0
  EXPECT_EQ(cal.days_in_year(4), 186);
  EXPECT_THROW(cal.validate(Date{4, 7, 17, 0, 0, 0, 0}), TimeError);  // month 7 has 16 days in a common year
  EXPECT_NO_THROW(cal.validate(Date{3, 7, 17, 0, 0, 0, 0}));
}

TEST(UserCalendar, MonthsAddWithClampingAndDaysExactly) {
  std::array<int, 12> months = kJulianMonths;
  months[1] = 20;  // a short February
  const Calendar cal(user(months));
  struct Case {
    Date from;
    const char* duration;
    Date to;
  };
  for (const Case& c :
       std::vector<Case>{{Date{2000, 1, 31, 0, 0, 0, 0}, "1mo", Date{2000, 2, 20, 0, 0, 0, 0}},
                         {Date{2000, 1, 31, 0, 0, 0, 0}, "1mo 1d", Date{2000, 3, 1, 0, 0, 0, 0}},
                         {Date{2000, 2, 20, 6, 0, 0, 0}, "1d", Date{2000, 3, 1, 6, 0, 0, 0}},
                         {Date{2000, 12, 31, 0, 0, 0, 0}, "1y", Date{2001, 12, 31, 0, 0, 0, 0}},
                         {Date{2000, 1, 1, 0, 0, 0, 0}, "357d", Date{2001, 1, 1, 0, 0, 0, 0}}})  // 365 - 8 days a year
    EXPECT_EQ(cal.to_date(cal.add(cal.to_instant(c.from), parse_duration(c.duration), 0)), c.to) << c.duration;
}

TEST(UserCalendar, BadDefinitions) {
  std::array<int, 12> zero = kJulianMonths;
  zero[4] = 0;
  EXPECT_THROW(Calendar{user(zero)}, TimeError);
  EXPECT_THROW(Calendar{user(kJulianMonths, 13, "0.25")}, TimeError);
  EXPECT_THROW(Calendar{user(kJulianMonths, 2, "1.5")}, TimeError);
  EXPECT_THROW(Calendar{user(kJulianMonths, 2, "0.25", "1")}, TimeError);
  EXPECT_THROW(Calendar{CalendarType::user_defined}, TimeError);
  EXPECT_EQ(parse_calendar_type("user_defined"), CalendarType::user_defined);
  EXPECT_EQ(cf_calendar_name(CalendarType::user_defined), "user_defined");
}

}  // namespace
}  // namespace foehn::calendar
