// Tests of the calendar module: calendar rules, date <-> instant mapping,
// durations, date text and schedules.
#include <gtest/gtest.h>

#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "calendar/calendar.h"

namespace foehn::calendar {

// Readable failure messages for dates and durations.
void PrintTo(const Date& d, std::ostream* os) { *os << format_date(d); }
void PrintTo(const Duration& d, std::ostream* os) { *os << format_duration(d); }

namespace {

using CT = CalendarType;
constexpr std::int64_t kDay = 86'400 * kMicrosPerSecond;
constexpr std::int64_t kHour = 3'600 * kMicrosPerSecond;
const std::vector<CT> kAllTypes = {
    CT::gregorian, CT::proleptic_gregorian, CT::julian, CT::noleap, CT::all_leap, CT::d360, CT::none};

Date ymd(std::int64_t y, int m, int d, int hh = 0, int mm = 0, int ss = 0, std::int64_t us = 0) {
  return Date{y, m, d, hh, mm, ss, us};
}

// Expects a TimeError whose message contains every one of `parts`.
template <class F>
void expect_time_error(F&& f, const std::vector<std::string>& parts) {
  try {
    f();
    ADD_FAILURE() << "no TimeError thrown; expected one mentioning " << parts.front();
  } catch (const TimeError& e) {
    for (const std::string& p : parts)
      EXPECT_NE(std::string(e.what()).find(p), std::string::npos)
          << "message \"" << e.what() << "\" lacks \"" << p << "\"";
  }
}

// ---- calendar names ------------------------------------------------------

TEST(CalendarType, ParsesXiosAndCfNamesCaseInsensitively) {
  const std::vector<std::pair<std::string, CT>> cases = {
      {"Gregorian", CT::gregorian},
      {"standard", CT::gregorian},
      {"STANDARD", CT::gregorian},
      {"gregorian", CT::gregorian},
      {"ProlepticGregorian", CT::proleptic_gregorian},
      {"proleptic_gregorian", CT::proleptic_gregorian},
      {"Julian", CT::julian},
      {"julian", CT::julian},
      {"NoLeap", CT::noleap},
      {"noleap", CT::noleap},
      {"365_day", CT::noleap},
      {"AllLeap", CT::all_leap},
      {"all_leap", CT::all_leap},
      {"366_day", CT::all_leap},
      {"D360", CT::d360},
      {"360_day", CT::d360},
      {"None", CT::none},
      {"none", CT::none},
  };
  for (const auto& [text, type] : cases) EXPECT_EQ(parse_calendar_type(text), type) << text;
}

TEST(CalendarType, RejectsUnknownNamesQuotingThem) {
  for (std::string bad : {"julia", "", "365day", "proleptic"})
    expect_time_error([&] { parse_calendar_type(bad); }, {"'" + bad + "'"});
}

TEST(CalendarType, CfNamesRoundTrip) {
  const std::vector<std::pair<CT, std::string>> cases = {
      {CT::gregorian, "standard"}, {CT::proleptic_gregorian, "proleptic_gregorian"},
      {CT::julian, "julian"},      {CT::noleap, "noleap"},
      {CT::all_leap, "all_leap"},  {CT::d360, "360_day"},
      {CT::none, "none"}};
  for (const auto& [type, name] : cases) {
    EXPECT_EQ(cf_calendar_name(type), name);
    EXPECT_EQ(parse_calendar_type(name), type);
  }
}

// ---- leap years, month lengths, validation ------------------------------

struct LeapCase {
  CT type;
  std::int64_t year;
  bool leap;
};

TEST(Calendar, LeapYears) {
  const std::vector<LeapCase> cases = {
      {CT::gregorian, 1900, false},
      {CT::gregorian, 2000, true},
      {CT::gregorian, 2004, true},
      {CT::gregorian, 2001, false},
      {CT::gregorian, 1500, true},  // Julian rule before 1582
      {CT::gregorian, 1700, false},
      {CT::proleptic_gregorian, 1900, false},
      {CT::proleptic_gregorian, 2000, true},
      {CT::proleptic_gregorian, 1500, false},
      {CT::proleptic_gregorian, 0, true},
      {CT::proleptic_gregorian, -100, false},
      {CT::julian, 1900, true},
      {CT::julian, 2000, true},
      {CT::julian, 2001, false},
      {CT::julian, -1, false},
      {CT::julian, -4, true},
      {CT::noleap, 2000, false},
      {CT::noleap, 2004, false},
      {CT::all_leap, 2001, true},
      {CT::all_leap, 1900, true},
      {CT::d360, 2000, false},
      {CT::none, 2000, false},
  };
  for (const LeapCase& c : cases)
    EXPECT_EQ(Calendar(c.type).is_leap_year(c.year), c.leap) << cf_calendar_name(c.type) << " " << c.year;
}

struct MonthCase {
  CT type;
  std::int64_t year;
  int month, days;
};

TEST(Calendar, DaysInMonth) {
  const std::vector<MonthCase> cases = {
      {CT::gregorian, 1900, 2, 28}, {CT::gregorian, 2000, 2, 29},
      {CT::julian, 1900, 2, 29},    {CT::proleptic_gregorian, 1900, 2, 28},
      {CT::noleap, 2000, 2, 28},    {CT::all_leap, 2001, 2, 29},
      {CT::d360, 2000, 2, 30},      {CT::d360, 2000, 1, 30},
      {CT::d360, 2000, 12, 30},     {CT::none, 2000, 2, 30},
      {CT::gregorian, 2001, 1, 31}, {CT::gregorian, 2001, 4, 30},
      {CT::noleap, 2001, 12, 31},   {CT::gregorian, 1582, 10, 31},  // last day number
  };
  for (const MonthCase& c : cases)
    EXPECT_EQ(Calendar(c.type).days_in_month(c.year, c.month), c.days)
        << cf_calendar_name(c.type) << " " << c.year << "-" << c.month;
  expect_time_error([] { Calendar(CT::gregorian).days_in_month(2000, 13); }, {"13"});
}

TEST(Calendar, DaysInYear) {
  EXPECT_EQ(Calendar(CT::gregorian).days_in_year(1582), 355);
  EXPECT_EQ(Calendar(CT::gregorian).days_in_year(1900), 365);
  EXPECT_EQ(Calendar(CT::julian).days_in_year(1900), 366);
  EXPECT_EQ(Calendar(CT::proleptic_gregorian).days_in_year(1582), 365);
  EXPECT_EQ(Calendar(CT::all_leap).days_in_year(2001), 366);
  EXPECT_EQ(Calendar(CT::noleap).days_in_year(2000), 365);
  EXPECT_EQ(Calendar(CT::d360).days_in_year(2000), 360);
  EXPECT_EQ(Calendar(CT::none).days_in_year(2000), 360);
}

struct ValidCase {
  CT type;
  Date date;
  bool valid;
  std::string why;  // a part of the message when invalid
};

TEST(Calendar, Validate) {
  const std::vector<ValidCase> cases = {
      {CT::noleap, ymd(2000, 2, 29), false, "2000-02-29"},
      {CT::noleap, ymd(2000, 2, 28), true, ""},
      {CT::gregorian, ymd(2000, 2, 29), true, ""},
      {CT::gregorian, ymd(1900, 2, 29), false, "1900-02-29"},
      {CT::julian, ymd(1900, 2, 29), true, ""},
      {CT::all_leap, ymd(2001, 2, 29), true, ""},
      {CT::d360, ymd(2000, 1, 31), false, "day must be 1..30"},
      {CT::d360, ymd(2001, 2, 30), true, ""},
      {CT::none, ymd(2001, 2, 30), true, ""},
      {CT::gregorian, ymd(1582, 10, 10), false, "skipped"},
      {CT::gregorian, ymd(1582, 10, 5), false, "skipped"},
      {CT::gregorian, ymd(1582, 10, 14), false, "skipped"},
      {CT::gregorian, ymd(1582, 10, 4), true, ""},
      {CT::gregorian, ymd(1582, 10, 15), true, ""},
      {CT::julian, ymd(1582, 10, 10), true, ""},
      {CT::proleptic_gregorian, ymd(1582, 10, 10), true, ""},
      {CT::gregorian, ymd(2000, 13, 1), false, "month"},
      {CT::gregorian, ymd(2000, 0, 1), false, "month"},
      {CT::gregorian, ymd(2000, 4, 31), false, "day must be 1..30"},
      {CT::gregorian, ymd(2000, 1, 0), false, "day"},
      {CT::gregorian, ymd(2000, 1, 1, 24), false, "hour"},
      {CT::gregorian, ymd(2000, 1, 1, 0, 60), false, "minute"},
      {CT::gregorian, ymd(2000, 1, 1, 0, 0, 60), false, "second"},
      {CT::gregorian, ymd(2000, 1, 1, 0, 0, 0, 1'000'000), false, "microsecond"},
      {CT::gregorian, ymd(2000, 1, 1, 23, 59, 59, 999'999), true, ""},
  };
  for (const ValidCase& c : cases) {
    const Calendar cal(c.type);
    SCOPED_TRACE(cf_calendar_name(c.type) + " " + format_date(c.date));
    if (c.valid) {
      EXPECT_NO_THROW(cal.validate(c.date));
    } else {
      expect_time_error([&] { cal.validate(c.date); }, {c.why, cf_calendar_name(c.type)});
      EXPECT_THROW(cal.to_instant(c.date), TimeError);
    }
  }
}

// ---- date <-> instant -----------------------------------------------------

TEST(Calendar, EpochIsYearOne) {
  for (CT type : kAllTypes) {
    const Calendar cal(type);
    EXPECT_EQ(cal.to_instant(ymd(1, 1, 1)), 0) << cf_calendar_name(type);
    EXPECT_EQ(cal.to_date(0), ymd(1, 1, 1));
    EXPECT_EQ(cal.to_date(-1), ymd(0, 12, cal.days_in_month(0, 12), 23, 59, 59, 999'999));
  }
}

struct DayCountCase {
  CT type;
  Date date;
  std::int64_t days;  // since 0001-01-01 of the calendar
};

TEST(Calendar, KnownDayNumbers) {
  // Julian day numbers: JDN(Julian 0001-01-01) = 1721424, JDN(Gregorian
  // 0001-01-01) = 1721426, JDN(2000-01-01 Gregorian) = 2451545.
  const std::vector<DayCountCase> cases = {
      {CT::proleptic_gregorian, ymd(1970, 1, 1), 719'162},
      {CT::proleptic_gregorian, ymd(2000, 1, 1), 2'451'545 - 1'721'426},
      {CT::julian, ymd(1999, 12, 19), 2'451'545 - 1'721'424},  // Julian date of Gregorian 2000-01-01
      {CT::gregorian, ymd(2000, 1, 1), 2'451'545 - 1'721'424},
      {CT::gregorian, ymd(1582, 10, 4), 2'299'160 - 1'721'424},
      {CT::gregorian, ymd(1582, 10, 15), 2'299'161 - 1'721'424},
      {CT::julian, ymd(1582, 10, 4), 2'299'160 - 1'721'424},
      {CT::noleap, ymd(2000, 3, 1), 1999 * 365 + 59},
      {CT::all_leap, ymd(2000, 3, 1), 1999 * 366 + 60},
      {CT::d360, ymd(2000, 3, 1), 1999 * 360 + 60},
      {CT::none, ymd(2000, 3, 1), 1999 * 360 + 60},
  };
  for (const DayCountCase& c : cases) {
    const Calendar cal(c.type);
    EXPECT_EQ(cal.to_instant(c.date), c.days * kDay) << cf_calendar_name(c.type) << " " << format_date(c.date);
    EXPECT_EQ(cal.to_date(c.days * kDay), c.date);
  }
}

struct DiffCase {
  CT type;
  Date from, to;
  std::int64_t days;
};

TEST(Calendar, KnownDayDifferences) {
  const std::vector<DiffCase> cases = {
      {CT::gregorian, ymd(2000, 1, 1), ymd(2001, 1, 1), 366},
      {CT::proleptic_gregorian, ymd(2000, 1, 1), ymd(2001, 1, 1), 366},
      {CT::julian, ymd(2000, 1, 1), ymd(2001, 1, 1), 366},
      {CT::noleap, ymd(2000, 1, 1), ymd(2001, 1, 1), 365},
      {CT::all_leap, ymd(2000, 1, 1), ymd(2001, 1, 1), 366},
      {CT::d360, ymd(2000, 1, 1), ymd(2001, 1, 1), 360},
      {CT::none, ymd(2000, 1, 1), ymd(2001, 1, 1), 360},
      {CT::gregorian, ymd(1900, 1, 1), ymd(1901, 1, 1), 365},
      {CT::julian, ymd(1900, 1, 1), ymd(1901, 1, 1), 366},
      {CT::all_leap, ymd(2001, 1, 1), ymd(2002, 1, 1), 366},
      {CT::noleap, ymd(1850, 1, 1), ymd(2000, 1, 1), 150 * 365},
      {CT::d360, ymd(2000, 1, 1), ymd(2000, 3, 1), 60},
      {CT::gregorian, ymd(1582, 1, 1), ymd(1583, 1, 1), 355},
      {CT::gregorian, ymd(1582, 10, 1), ymd(1582, 11, 1), 21},
      {CT::gregorian, ymd(1582, 10, 4), ymd(1582, 10, 15), 1},
      {CT::julian, ymd(1582, 10, 4), ymd(1582, 10, 15), 11},
      {CT::proleptic_gregorian, ymd(1, 1, 1), ymd(401, 1, 1), 146'097},
      {CT::julian, ymd(1, 1, 1), ymd(5, 1, 1), 1461},
  };
  for (const DiffCase& c : cases) {
    const Calendar cal(c.type);
    EXPECT_EQ(cal.to_instant(c.to) - cal.to_instant(c.from), c.days * kDay)
        << cf_calendar_name(c.type) << " " << format_date(c.from) << " -> " << format_date(c.to);
  }
}

TEST(Calendar, GregorianSwitchGap) {
  const Calendar greg(CT::gregorian);
  const Duration one_day{0, kDay, 0};
  EXPECT_EQ(greg.to_date(greg.add(greg.to_instant(ymd(1582, 10, 4)), one_day, 0)), ymd(1582, 10, 15));
  EXPECT_EQ(greg.to_date(greg.add(greg.to_instant(ymd(1582, 10, 15)), one_day * -1, 0)), ymd(1582, 10, 4));
  EXPECT_EQ(greg.to_date(greg.to_instant(ymd(1582, 10, 4, 23, 59, 59, 999'999)) + 1), ymd(1582, 10, 15));
  const Calendar julian(CT::julian);
  EXPECT_EQ(julian.to_date(julian.add(julian.to_instant(ymd(1582, 10, 4)), one_day, 0)), ymd(1582, 10, 5));
}

// Walks day by day with days_in_month only, an independent reference for
// the closed-form day numbers, over years -400..2400 of every calendar.
TEST(Calendar, DayByDayWalkMatchesInstants) {
  for (CT type : kAllTypes) {
    const Calendar cal(type);
    SCOPED_TRACE(cf_calendar_name(type));
    auto next = [&](Date d) {
      if (type == CT::gregorian && d.year == 1582 && d.month == 10 && d.day == 4) return ymd(1582, 10, 15);
      if (++d.day > cal.days_in_month(d.year, d.month)) {
        d.day = 1;
        if (++d.month > 12) d.month = 1, ++d.year;
      }
      return d;
    };
    Date d = ymd(-400, 1, 1);
    std::int64_t day = cal.to_instant(d) / kDay;
    int failures = 0;
    for (; d.year <= 2400 && failures < 5; d = next(d), ++day) {
      if (cal.to_instant(d) != day * kDay || cal.to_date(day * kDay + 12 * kHour) != ymd(d.year, d.month, d.day, 12)) {
        ADD_FAILURE() << "mismatch at " << format_date(d) << " (day " << day << ")";
        ++failures;
      }
    }
    EXPECT_EQ(cal.to_instant(ymd(1, 1, 1)), 0);
  }
}

TEST(Calendar, RandomInstantsRoundTripExactly) {
  std::mt19937_64 rng(20240601);
  std::uniform_int_distribution<std::int64_t> any_instant(INT64_MIN, INT64_MAX);
  std::uniform_int_distribution<std::int64_t> near_instant(-5000 * 366 * kDay, 5000 * 366 * kDay);
  for (CT type : kAllTypes) {
    const Calendar cal(type);
    for (int i = 0; i < 20'000; ++i) {
      const std::int64_t t = i % 2 ? any_instant(rng) : near_instant(rng);
      const Date d = cal.to_date(t);
      ASSERT_NO_THROW(cal.validate(d)) << cf_calendar_name(type) << " " << t;
      ASSERT_EQ(cal.to_instant(d), t) << cf_calendar_name(type) << " " << format_date(d);
    }
  }
}

TEST(Calendar, RandomDatesRoundTripExactly) {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<std::int64_t> year(-3000, 12'000);
  std::uniform_int_distribution<int> month(1, 12), day(1, 31), hour(0, 23), minsec(0, 59);
  std::uniform_int_distribution<std::int64_t> micro(0, 999'999);
  for (CT type : kAllTypes) {
    const Calendar cal(type);
    for (int i = 0; i < 20'000; ++i) {
      Date d = ymd(year(rng), month(rng), 1, hour(rng), minsec(rng), minsec(rng), micro(rng));
      d.day = 1 + (day(rng) - 1) % cal.days_in_month(d.year, d.month);
      if (type == CT::gregorian && d.year == 1582 && d.month == 10 && d.day > 4 && d.day < 15) continue;
      ASSERT_EQ(cal.to_date(cal.to_instant(d)), d) << cf_calendar_name(type) << " " << format_date(d);
    }
  }
}

TEST(Calendar, InstantRangeLimitsAreErrors) {
  const Calendar cal(CT::proleptic_gregorian);
  const Date last = cal.to_date(INT64_MAX);
  EXPECT_EQ(cal.to_instant(last), INT64_MAX);
  EXPECT_EQ(cal.to_instant(cal.to_date(INT64_MIN)), INT64_MIN);
  expect_time_error([&] { cal.to_instant(ymd(last.year + 1, 1, 1)); }, {"range"});
  expect_time_error([&] { cal.to_instant(ymd(5'000'000, 1, 1)); }, {"year"});
  expect_time_error([&] { cal.add(INT64_MAX, Duration{0, 1, 0}, 0); }, {"overflow"});
}

// ---- add ----------------------------------------------------------------

struct AddCase {
  CT type;
  Date from;
  std::string duration;
  Date to;
};

TEST(Calendar, AddMonthsClampsToMonthEnd) {
  const std::vector<AddCase> cases = {
      {CT::gregorian, ymd(2001, 1, 31), "1mo", ymd(2001, 2, 28)},
      {CT::gregorian, ymd(2000, 1, 31), "1mo", ymd(2000, 2, 29)},
      {CT::gregorian, ymd(2000, 1, 31, 6), "2mo", ymd(2000, 3, 31, 6)},
      {CT::gregorian, ymd(2000, 3, 31), "1mo", ymd(2000, 4, 30)},
      {CT::gregorian, ymd(2000, 3, 31), "-1mo", ymd(2000, 2, 29)},
      {CT::gregorian, ymd(2000, 12, 15), "1mo", ymd(2001, 1, 15)},
      {CT::gregorian, ymd(2000, 1, 15), "-1mo", ymd(1999, 12, 15)},
      {CT::gregorian, ymd(2000, 2, 29), "1y", ymd(2001, 2, 28)},
      {CT::gregorian, ymd(2000, 2, 29), "4y", ymd(2004, 2, 29)},
      {CT::gregorian, ymd(2001, 1, 31), "1mo 1d", ymd(2001, 3, 1)},  // months first
      {CT::gregorian, ymd(2001, 1, 31), "1y 1mo 12h", ymd(2002, 2, 28, 12)},
      {CT::gregorian, ymd(1582, 9, 10), "1mo", ymd(1582, 10, 15)},  // into the gap: clamped forward
      {CT::gregorian, ymd(1582, 9, 4), "1mo", ymd(1582, 10, 4)},
      {CT::julian, ymd(1900, 1, 31), "1mo", ymd(1900, 2, 29)},
      {CT::proleptic_gregorian, ymd(1900, 1, 31), "1mo", ymd(1900, 2, 28)},
      {CT::noleap, ymd(2000, 1, 31), "1mo", ymd(2000, 2, 28)},
      {CT::all_leap, ymd(2001, 1, 31), "1mo", ymd(2001, 2, 29)},
      {CT::d360, ymd(2000, 1, 30), "1mo", ymd(2000, 2, 30)},
      {CT::d360, ymd(2000, 1, 30), "1d", ymd(2000, 2, 1)},
      {CT::gregorian, ymd(2000, 1, 1), "1d 12h 30mi 0.5s", ymd(2000, 1, 2, 12, 30, 0, 500'000)},
      {CT::noleap, ymd(2000, 2, 28), "1d", ymd(2000, 3, 1)},
      {CT::none, ymd(1, 1, 1), "400d", ymd(2, 2, 11)},
  };
  for (const AddCase& c : cases) {
    const Calendar cal(c.type);
    EXPECT_EQ(cal.to_date(cal.add(cal.to_instant(c.from), parse_duration(c.duration), 0)), c.to)
        << cf_calendar_name(c.type) << " " << format_date(c.from) << " + " << c.duration;
  }
}

TEST(Calendar, AddTimesteps) {
  const Calendar cal(CT::gregorian);
  const std::int64_t t0 = cal.to_instant(ymd(2000, 1, 1));
  EXPECT_EQ(cal.add(t0, parse_duration("3ts"), 900 * kMicrosPerSecond), t0 + 2700 * kMicrosPerSecond);
  EXPECT_EQ(cal.add(t0, parse_duration("1h 2ts"), 30 * kMicrosPerSecond), t0 + kHour + 60 * kMicrosPerSecond);
  expect_time_error([&] { cal.add(t0, parse_duration("1ts"), 0); }, {"time step", "1ts"});
}

TEST(Calendar, NoneCalendarRefusesMonthsAndYears) {
  const Calendar cal(CT::none);
  expect_time_error([&] { cal.add(0, parse_duration("1mo"), 0); }, {"none", "1mo"});
  expect_time_error([&] { cal.add(0, parse_duration("1y"), 0); }, {"none", "1y"});
  EXPECT_EQ(cal.add(0, parse_duration("2d 6h"), 0), 2 * kDay + 6 * kHour);
}

// ---- durations ------------------------------------------------------------

struct DurationCase {
  std::string text;
  Duration expected;
};

TEST(Duration, ParsesAllUnitsAndFractions) {
  constexpr std::int64_t s = kMicrosPerSecond;
  const std::vector<DurationCase> cases = {
      {"1y 2mo 3d 1.5h 30mi 6s 2ts", {14, (3 * 86'400 + 5'400 + 1'800 + 6) * s, 2}},
      {"1y2mo3d1.5h30mi6s2ts", {14, (3 * 86'400 + 5'400 + 1'800 + 6) * s, 2}},
      {"6h", {0, 6 * 3'600 * s, 0}},
      {"1d", {0, 86'400 * s, 0}},
      {"1ts", {0, 0, 1}},
      {"0.5s", {0, s / 2, 0}},
      {"1d12h", {0, 36 * 3'600 * s, 0}},
      {"1d 12h", {0, 36 * 3'600 * s, 0}},
      {"  6h  ", {0, 6 * 3'600 * s, 0}},
      {"6 h", {0, 6 * 3'600 * s, 0}},
      {"1y", {12, 0, 0}},
      {"2mo", {2, 0, 0}},
      {"1.0y", {12, 0, 0}},
      {"3.00ts", {0, 0, 3}},
      {"1.5d", {0, 36 * 3'600 * s, 0}},
      {"0.25mi", {0, 15 * s, 0}},
      {"0.1s", {0, 100'000, 0}},
      {"0.000001s", {0, 1, 0}},
      {"1.0000000000000000000000s", {0, s, 0}},
      {"0.0000001d", {0, 8'640, 0}},
      {"0.1h", {0, 360 * s, 0}},
      {"0s", {0, 0, 0}},
      {"-1ts", {0, 0, -1}},
      {"-1d 6h", {0, -18 * 3'600 * s, 0}},
      {"+2mo", {2, 0, 0}},
      {"1y 1mo", {13, 0, 0}},
      {"9223372036854.775807s", {0, INT64_MAX, 0}},
  };
  for (const DurationCase& c : cases) EXPECT_EQ(parse_duration(c.text), c.expected) << c.text;
}

struct DurationError {
  std::string text;
  std::vector<std::string> parts;  // all must appear in the message
};

TEST(Duration, ErrorsNameTheBadPart) {
  const std::vector<DurationError> cases = {
      {"6x", {"'6x'", "unknown unit 'x'"}},
      {"1.5mo", {"'1.5mo'", "whole"}},
      {"1.5y", {"'1.5y'", "whole"}},
      {"2.5ts", {"'2.5ts'", "whole"}},
      {"", {"empty"}},
      {"   ", {"empty"}},
      {"h", {"'h'", "number"}},
      {"1.0000001s", {"'1.0000001s'", "microsecond"}},
      {"0.0000000001d", {"'0.0000000001d'", "microsecond"}},
      {"6", {"'6'", "missing unit"}},
      {"1d 6", {"'6'", "missing unit"}},
      {"1m", {"'m'", "ambiguous"}},
      {"1min", {"'min'", "unknown unit"}},
      {"1D", {"'D'", "unknown unit"}},
      {"1d 2d", {"'d'", "twice"}},
      {"1.s", {"'1.s'", "number"}},
      {".5s", {"'.5s'", "number"}},
      {"1d,6h", {"',6h'", "number"}},
      {"-d", {"'-d'", "number"}},
      {"99999999999999999999s", {"'99999999999999999999s'", "too large"}},
      {"9223372036854775807s", {"too large"}},
      {"800000000000000000y", {"too large"}},
  };
  for (const DurationError& c : cases) {
    SCOPED_TRACE(c.text);
    std::vector<std::string> parts = c.parts;
    parts.push_back("'" + c.text + "'");  // the whole text is quoted too
    expect_time_error([&] { parse_duration(c.text); }, parts);
  }
}

TEST(Duration, FormatIsCanonicalAndRoundTrips) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"1y 2mo 3d 1.5h 30mi 6s 2ts", "1y 2mo 3d 2h 6s 2ts"},
      {"14mo", "1y 2mo"},
      {"36h", "1d 12h"},
      {"0.5s", "0.5s"},
      {"90mi", "1h 30mi"},
      {"0s", "0s"},
      {"-1d 6h", "-18h"},
      {"-1.25s", "-1.25s"},
      {"-14mo", "-1y -2mo"},
      {"-90061.000001s", "-1d -1h -1mi -1.000001s"},
  };
  for (const auto& [in, out] : cases) EXPECT_EQ(format_duration(parse_duration(in)), out) << in;

  std::mt19937_64 rng(3);
  std::uniform_int_distribution<std::int64_t> any(INT64_MIN, INT64_MAX), small(-100, 100);
  for (int i = 0; i < 20'000; ++i) {
    const Duration d{i % 3 ? small(rng) : any(rng), i % 2 ? any(rng) : small(rng) * kMicrosPerSecond, small(rng)};
    ASSERT_EQ(parse_duration(format_duration(d)), d) << format_duration(d);
  }
}

TEST(Duration, Arithmetic) {
  const Duration a{1, 2, 3}, b{10, 20, 30};
  EXPECT_EQ(a + b, (Duration{11, 22, 33}));
  EXPECT_EQ(a * 4, (Duration{4, 8, 12}));
  EXPECT_EQ(a * -1, (Duration{-1, -2, -3}));
  EXPECT_TRUE((a * 0).is_zero());
  EXPECT_THROW((Duration{0, INT64_MAX / 2 + 1, 0} * 2), TimeError);
  EXPECT_THROW((Duration{INT64_MAX, 0, 0} + a), TimeError);
}

// ---- date text -------------------------------------------------------------

struct DateCase {
  std::string text;
  Date expected;
};

TEST(DateText, ParsesAllForms) {
  const std::vector<DateCase> cases = {
      {"2012-02-27 15:00:00", ymd(2012, 2, 27, 15)},
      {"2012-02-27 15:00", ymd(2012, 2, 27, 15)},
      {"2012-02-27", ymd(2012, 2, 27)},
      {"2012-02-27T15:00:00", ymd(2012, 2, 27, 15)},
      {"2012-02-27 15:00:00.25", ymd(2012, 2, 27, 15, 0, 0, 250'000)},
      {"2012-02-27T15:30:45.000001", ymd(2012, 2, 27, 15, 30, 45, 1)},
      {"2012-02-27 15:00:00.500000000", ymd(2012, 2, 27, 15, 0, 0, 500'000)},
      {"  2012-2-7   3:04:05 ", ymd(2012, 2, 7, 3, 4, 5)},
      {"0001-01-01", ymd(1, 1, 1)},
      {"12345-06-07", ymd(12'345, 6, 7)},
      {"-0044-03-15", ymd(-44, 3, 15)},
      {"2000-13-40 25:61:61", ymd(2000, 13, 40, 25, 61, 61)},  // ranges are validate's job
  };
  for (const DateCase& c : cases) EXPECT_EQ(parse_date(c.text), c.expected) << c.text;
}

TEST(DateText, ErrorsQuoteTheText) {
  const std::vector<DurationError> cases = {
      {"", {"a year"}},
      {"abc", {"a year", "'abc'"}},
      {"2012/02/27", {"'-' after the year", "'/02/27'"}},
      {"2012-02", {"'-' after the month"}},
      {"2012-002-27", {"a month", "'002-27'"}},
      {"2012-02-27 15", {"':' after the hour"}},
      {"2012-02-27 15:00:00x", {"nothing more", "'x'"}},
      {"2012-02-27_15:00", {"' ' or 'T'"}},
      {"2012-02-27 15:00:00.", {"digits after the decimal point"}},
      {"2012-02-27 15:00:00.0000001", {"'.0000001'", "microsecond"}},
      {"2012-02-27 15:00:", {"seconds"}},
  };
  for (const DurationError& c : cases) {
    SCOPED_TRACE(c.text);
    std::vector<std::string> parts = c.parts;
    parts.push_back("'" + c.text + "'");
    expect_time_error([&] { parse_date(c.text); }, parts);
  }
}

TEST(DateText, FormatAndRoundTrip) {
  EXPECT_EQ(format_date(ymd(2012, 2, 27, 15)), "2012-02-27 15:00:00");
  EXPECT_EQ(format_date(ymd(2012, 2, 27, 15, 0, 0, 250'000)), "2012-02-27 15:00:00.25");
  EXPECT_EQ(format_date(ymd(1, 1, 1)), "0001-01-01 00:00:00");
  EXPECT_EQ(format_date(ymd(-44, 3, 15)), "-0044-03-15 00:00:00");
  EXPECT_EQ(format_date(ymd(12'345, 1, 1, 0, 0, 0, 1)), "12345-01-01 00:00:00.000001");
  std::mt19937_64 rng(11);
  const Calendar cal(CT::proleptic_gregorian);
  std::uniform_int_distribution<std::int64_t> any(INT64_MIN, INT64_MAX);
  for (int i = 0; i < 5'000; ++i) {
    const Date d = cal.to_date(any(rng));
    ASSERT_EQ(parse_date(format_date(d)), d) << format_date(d);
  }
}

// ---- schedules --------------------------------------------------------------

TEST(Schedule, MonthlyFromMonthEndDoesNotDrift) {
  const Calendar cal(CT::gregorian);
  const Schedule s(cal, cal.to_instant(ymd(2001, 1, 31)), parse_duration("1mo"), Duration{}, 0);
  const std::vector<Date> expected = {ymd(2001, 1, 31), ymd(2001, 2, 28), ymd(2001, 3, 31),
                                      ymd(2001, 4, 30), ymd(2001, 5, 31), ymd(2001, 6, 30)};
  for (std::size_t k = 0; k < expected.size(); ++k) EXPECT_EQ(cal.to_date(s.instant(k)), expected[k]) << k;
  EXPECT_EQ(cal.to_date(s.instant(12)), ymd(2002, 1, 31));
  EXPECT_EQ(cal.to_date(s.instant(12 * 100 + 1)), ymd(2101, 2, 28));
  EXPECT_EQ(cal.to_date(s.instant(12 * 99 + 1)), ymd(2100, 2, 28));
  EXPECT_EQ(cal.to_date(s.instant(12 * 3 + 1)), ymd(2004, 2, 29));
}

struct ScheduleCase {
  CT type;
  Date start;
  std::string period, offset;
  std::int64_t timestep_s;
  std::int64_t k;
  Date expected;
};

TEST(Schedule, Instants) {
  const std::vector<ScheduleCase> cases = {
      {CT::d360, ymd(2000, 1, 30), "1mo", "0s", 0, 13, ymd(2001, 2, 30)},
      {CT::noleap, ymd(2000, 1, 1), "6h", "0s", 0, 4 * 365, ymd(2001, 1, 1)},
      {CT::gregorian, ymd(2000, 1, 1), "6h", "1ts", 900, 4, ymd(2000, 1, 2, 0, 15)},
      {CT::gregorian, ymd(2000, 1, 1), "1y", "0s", 0, 1, ymd(2001, 1, 1)},
      {CT::gregorian, ymd(2000, 1, 31), "1mo", "1d", 0, 1, ymd(2000, 3, 1)},  // Feb 29 + 1d
      {CT::gregorian, ymd(2000, 1, 31), "1mo", "1mo", 0, 1, ymd(2000, 3, 31)},
      {CT::gregorian, ymd(2000, 1, 1), "4ts", "0s", 600, 3, ymd(2000, 1, 1, 2)},
      {CT::gregorian, ymd(2000, 1, 1), "1d", "-1ts", 600, 1, ymd(2000, 1, 1, 23, 50)},
      {CT::none, ymd(1, 1, 1), "1d", "0s", 0, 365, ymd(2, 1, 6)},
  };
  for (const ScheduleCase& c : cases) {
    const Calendar cal(c.type);
    const Schedule s(cal, cal.to_instant(c.start), parse_duration(c.period), parse_duration(c.offset),
                     c.timestep_s * kMicrosPerSecond);
    EXPECT_EQ(cal.to_date(s.instant(c.k)), c.expected)
        << cf_calendar_name(c.type) << " " << format_date(c.start) << " every " << c.period << " k=" << c.k;
  }
}

TEST(Schedule, FirstAtOrAfter) {
  const Calendar cal(CT::gregorian);
  const std::int64_t t0 = cal.to_instant(ymd(2001, 1, 31));
  for (const char* period : {"1mo", "6h", "1y 1mo 1d", "1ts", "0.000001s", "2ts 1s"}) {
    SCOPED_TRACE(period);
    const Schedule s(cal, t0, parse_duration(period), parse_duration("1h"), 450 * kMicrosPerSecond);
    EXPECT_EQ(s.first_at_or_after(INT64_MIN), 0);
    EXPECT_EQ(s.first_at_or_after(t0), 0);
    EXPECT_EQ(s.first_at_or_after(s.instant(0)), 0);
    EXPECT_EQ(s.first_at_or_after(s.instant(0) + 1), 1);
    for (std::int64_t k : {1, 2, 7, 100, 12'345}) {
      EXPECT_EQ(s.first_at_or_after(s.instant(k)), k);
      const bool adjacent = s.instant(k - 1) == s.instant(k) - 1;  // 1 us period
      EXPECT_EQ(s.first_at_or_after(s.instant(k) - 1), adjacent ? k - 1 : k);
      EXPECT_EQ(s.first_at_or_after(s.instant(k) + 1), k + 1);
    }
    std::mt19937_64 rng(5);
    std::uniform_int_distribution<std::int64_t> t(t0 - kDay, t0 + 300LL * 366 * kDay);
    for (int i = 0; i < 300; ++i) {
      const std::int64_t x = t(rng);
      const std::int64_t k = s.first_at_or_after(x);
      ASSERT_GE(s.instant(k), x);
      if (k > 0) { ASSERT_LT(s.instant(k - 1), x); }
    }
  }
}

TEST(Schedule, FirstAtOrAfterNearTheEndOfTime) {
  const Calendar cal(CT::proleptic_gregorian);
  const Schedule monthly(cal, 0, parse_duration("1mo"), Duration{}, 0);
  const std::int64_t last = monthly.first_at_or_after(INT64_MAX - 40 * kDay);
  EXPECT_GE(monthly.instant(last), INT64_MAX - 40 * kDay);
  EXPECT_THROW(monthly.first_at_or_after(INT64_MAX), TimeError);
  const Schedule fine(cal, -10, parse_duration("0.000001s"), Duration{}, 0);
  EXPECT_THROW(fine.first_at_or_after(INT64_MAX), TimeError);
  EXPECT_EQ(fine.first_at_or_after(INT64_MAX - 10), INT64_MAX);
}

TEST(Schedule, RejectsBadPeriods) {
  const Calendar greg(CT::gregorian), none(CT::none);
  expect_time_error([&] { Schedule(greg, 0, Duration{}, Duration{}, 0); }, {"positive"});
  expect_time_error([&] { Schedule(greg, 0, parse_duration("1mo -1d"), Duration{}, 0); }, {"positive"});
  expect_time_error([&] { Schedule(none, 0, parse_duration("1mo"), Duration{}, 0); }, {"none", "1mo"});
  expect_time_error([&] { Schedule(none, 0, parse_duration("1d"), parse_duration("1y"), 0); }, {"none", "1y"});
  expect_time_error([&] { Schedule(greg, 0, parse_duration("1ts"), Duration{}, 0); }, {"time step"});
}

}  // namespace
}  // namespace foehn::calendar
