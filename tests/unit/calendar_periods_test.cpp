// File periods (split_freq, split_freq_format, sync_freq) and sampling with
// freq_offset, table-driven: period boundaries, which period a record falls
// in (also for records from irregular, dynamic steps), file name parts, and
// the sampling instants start + offset + k·freq_op.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "calendar/calendar.h"

namespace foehn::calendar {
namespace {

using CT = CalendarType;
constexpr std::int64_t kSecond = kMicrosPerSecond;
constexpr std::int64_t kHour = 3'600 * kSecond;
constexpr std::int64_t kDay = 24 * kHour;

Date ymd(std::int64_t y, int m, int d, int hh = 0, int mi = 0) { return Date{y, m, d, hh, mi, 0, 0}; }

TEST(FilePeriods, FormatCodes) {
  const Date d{2012, 2, 7, 5, 4, 3, 250};
  struct Case {
    const char* format;
    const char* text;
  };
  for (const Case& c : std::vector<Case>{{"%y", "2012"},
                                         {"%y%mo%d", "20120207"},
                                         {"%y-%mo-%d_%h:%mi:%s", "2012-02-07_05:04:03"},
                                         {"run%y", "run2012"},
                                         {"", ""}})
    EXPECT_EQ(format_date_as(d, c.format), c.text) << c.format;
  EXPECT_EQ(format_date_as(Date{7, 1, 1, 0, 0, 0, 0}, "%y"), "0007");
  EXPECT_THROW(format_date_as(d, "%q"), TimeError);
  EXPECT_THROW(format_date_as(d, "50%"), TimeError);
}

TEST(FilePeriods, DefaultFormatFromTheSmallestUnit) {
  struct Case {
    const char* split;
    const char* format;
  };
  for (const Case& c : std::vector<Case>{{"1y", "%y"},
                                         {"10y", "%y"},
                                         {"1mo", "%y%mo"},
                                         {"1y 6mo", "%y%mo"},
                                         {"1d", "%y%mo%d"},
                                         {"1mo 2d", "%y%mo%d"},
                                         {"6h", "%y%mo%d%h"},
                                         {"90mi", "%y%mo%d%h%mi"},
                                         {"30s", "%y%mo%d%h%mi%s"},
                                         {"4ts", "%y%mo%d%h"}})  // 4 steps of 3 h = 12 h
    EXPECT_EQ(default_split_format(parse_duration(c.split), 3 * kHour), c.format) << c.split;
}

TEST(FilePeriods, MonthlyPeriodsAndNames) {
  const Calendar cal(CT::gregorian);
  const std::int64_t start = cal.to_instant(ymd(2000, 1, 1));
  const SplitPeriods p(cal, start, parse_duration("1mo"), 0, "");
  struct Case {
    Date record_end;
    std::int64_t period;
  };
  for (const Case& c :
       std::vector<Case>{{ymd(2000, 1, 1, 6), 0},
                         {ymd(2000, 2, 1), 0},  // a record ending on the split instant is the last of its file
                         {Date{2000, 2, 1, 0, 0, 0, 1}, 1},
                         {ymd(2000, 2, 29, 12), 1},
                         {ymd(2000, 3, 1), 1},
                         {ymd(2000, 12, 31, 18), 11},
                         {ymd(2001, 1, 1, 6), 12}})
    EXPECT_EQ(p.period_of(cal.to_instant(c.record_end)), c.period) << format_date(c.record_end);
  EXPECT_EQ(p.name_part(0), "200001-200001");
  EXPECT_EQ(p.name_part(1), "200002-200002");
  EXPECT_EQ(p.period_start(1), cal.to_instant(ymd(2000, 2, 1)));
}

TEST(FilePeriods, DailyPeriodsInEachCalendar) {
  // 3-day files from Feb 27: the second file's last day depends on Feb 29/30.
  struct Case {
    CT type;
    const char* second_file;
  };
  for (const Case& c : std::vector<Case>{{CT::gregorian, "20000301-20000303"},
                                         {CT::noleap, "20000302-20000304"},
                                         {CT::all_leap, "20000301-20000303"},
                                         {CT::d360, "20000230-20000302"}}) {
    const Calendar cal(c.type);
    const SplitPeriods p(cal, cal.to_instant(ymd(2000, 2, 27)), parse_duration("3d"), 0, "");
    EXPECT_EQ(p.name_part(1), c.second_file) << cf_calendar_name(c.type);
  }
}

TEST(FilePeriods, CustomFormatAndSubDailyPeriods) {
  const Calendar cal(CT::proleptic_gregorian);
  const std::int64_t start = cal.to_instant(ymd(1990, 12, 31, 18));
  const SplitPeriods p(cal, start, parse_duration("12h"), 0, "%y-%mo-%d_%h");
  EXPECT_EQ(p.name_part(0), "1990-12-31_18-1991-01-01_05");
  EXPECT_EQ(p.name_part(2), "1991-01-01_18-1991-01-02_05");
  EXPECT_THROW(SplitPeriods(cal, start, parse_duration("12h"), 0, "%x"), TimeError);
}

TEST(FilePeriods, DynamicStepsLandInThePeriodOfTheirEnd) {
  // Irregular record ends (a model that tells its own time): each is in the
  // period (start + k·2d, start + (k+1)·2d] that holds it.
  const Calendar cal(CT::gregorian);
  const std::int64_t start = cal.to_instant(ymd(2020, 5, 1));
  const SplitPeriods p(cal, start, parse_duration("2d"), 0, "");
  for (const std::int64_t end : {std::int64_t{1}, 7 * kHour + 13 * kSecond, 2 * kDay, 2 * kDay + 1, 5 * kDay + kHour,
                                 9 * kDay + 59 * kSecond, 40 * kDay}) {
    const std::int64_t expected = (end - 1) / (2 * kDay);  // independent: integer arithmetic on microseconds
    EXPECT_EQ(p.period_of(start + end), expected) << end;
  }
}

TEST(FreqOffset, SamplingInstantsStartAtTheOffset) {
  // freq_op 2ts, freq_offset 1ts with 6 h steps: samples at steps 1, 3, 5,
  // ...; a monthly freq_op with a 1d offset: the 2nd of each month.
  const Calendar cal(CT::gregorian);
  const std::int64_t start = cal.to_instant(ymd(2000, 1, 1));
  const Schedule steps(cal, start, parse_duration("2ts"), parse_duration("1ts"), 6 * kHour);
  const std::int64_t first = steps.first_at_or_after(start + 1);
  EXPECT_EQ(first, 0);
  for (std::int64_t k = 0; k < 5; ++k) EXPECT_EQ(steps.instant(first + k), start + (2 * k + 1) * 6 * kHour);
  const Schedule monthly(cal, start, parse_duration("1mo"), parse_duration("1d"), 0);
  EXPECT_EQ(monthly.instant(monthly.first_at_or_after(start + 1)), cal.to_instant(ymd(2000, 1, 2)));
  EXPECT_EQ(monthly.instant(2), cal.to_instant(ymd(2000, 3, 2)));
  // Without an offset the first sample is one period after the start.
  const Schedule plain(cal, start, parse_duration("2ts"), Duration{}, 6 * kHour);
  EXPECT_EQ(plain.instant(plain.first_at_or_after(start + 1)), start + 12 * kHour);
}

}  // namespace
}  // namespace foehn::calendar
