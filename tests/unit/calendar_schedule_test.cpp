// Schedules under dynamic (irregular) model steps, as a model that tells its
// own time (MONC-like) drives them: a step from `prev` to `now` reaches the
// instants in (prev, now], which first_at_or_after gives as the index range
// [first_at_or_after(prev + 1), first_at_or_after(now + 1)). A long step may
// reach several instants; none may be lost or reached twice.
// (Fixed schedules are in calendar_test.cpp.)
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <utility>
#include <vector>

#include "calendar/calendar.h"

namespace foehn::calendar {
namespace {

using CT = CalendarType;
constexpr std::int64_t kSecond = kMicrosPerSecond;
constexpr std::int64_t kHour = 3'600 * kSecond;
constexpr std::int64_t kDay = 24 * kHour;

Date ymd(std::int64_t y, int m, int d, int hh = 0) { return Date{y, m, d, hh, 0, 0, 0}; }

// The instant indices k reached by a step from prev to now: [first, last).
std::pair<std::int64_t, std::int64_t> reached(const Schedule& s, std::int64_t prev, std::int64_t now) {
  const std::int64_t first = s.first_at_or_after(prev + 1);
  const std::int64_t last = s.first_at_or_after(now + 1);
  return {first, std::max(first, last)};
}

using Range = std::pair<std::int64_t, std::int64_t>;

TEST(DynamicSteps, LongStepsReachSeveralInstants) {
  const Calendar cal(CT::gregorian);
  const std::int64_t t0 = cal.to_instant(ymd(2000, 1, 1));
  const Schedule s(cal, t0, parse_duration("3h"), Duration{}, 0);
  // Model times in hours after the start, and the instants (k) each step reaches.
  struct Step {
    double hours;
    Range k;
  };
  const std::vector<Step> steps = {
      {0.5, {1, 1}},                     // nothing yet
      {1.0, {1, 1}},     {3.0, {1, 2}},  // exactly on the first output instant: reached now
      {3.25, {2, 2}},                    // and not again
      {10, {2, 4}},                      // 6h and 9h in one step
      {10.5, {4, 4}},    {24, {4, 9}},   // 12, 15, 18, 21, 24
      {50, {9, 17}},                     // 27 ... 48
      {50.75, {17, 17}},
  };
  std::int64_t prev = t0;
  for (const Step& step : steps) {
    const std::int64_t now = t0 + static_cast<std::int64_t>(step.hours * 4) * kHour / 4;
    EXPECT_EQ(reached(s, prev, now), step.k) << "step to " << step.hours << " h";
    prev = now;
  }
}

TEST(DynamicSteps, OneMicrosecondAroundAnInstant) {
  const Calendar cal(CT::noleap);
  const Schedule s(cal, 0, parse_duration("1d"), Duration{}, 0);
  EXPECT_EQ(reached(s, 0, kDay - 1), Range(1, 1));
  EXPECT_EQ(reached(s, kDay - 1, kDay), Range(1, 2));
  EXPECT_EQ(reached(s, kDay, kDay + 1), Range(2, 2));
  EXPECT_EQ(reached(s, kDay - 1, kDay + 1), Range(1, 2));
  // A step of zero length (the model reports the same time twice) reaches nothing.
  EXPECT_EQ(reached(s, kDay, kDay), Range(2, 2));
}

TEST(DynamicSteps, FractionalStepsAddUpExactly) {
  // Ten steps of 0.1 s reach the 1 s instant at the tenth step, not the
  // eleventh: time is counted in integer microseconds.
  const Calendar cal(CT::proleptic_gregorian);
  const Duration dt = parse_duration("0.1s");
  const Schedule s(cal, 0, parse_duration("1s"), Duration{}, 0);
  std::int64_t now = 0;
  for (int i = 1; i <= 30; ++i) {
    const std::int64_t prev = now;
    now = cal.add(now, dt, 0);
    const auto [first, last] = reached(s, prev, now);
    EXPECT_EQ(last - first, i % 10 == 0 ? 1 : 0) << "step " << i;
  }
}

TEST(DynamicSteps, MonthlyOutputWithStepsOfSeveralMonths) {
  // From Jan 31, monthly instants are month ends; steps of 100 days jump
  // over three of them at a time.
  const Calendar cal(CT::gregorian);
  const std::int64_t t0 = cal.to_instant(ymd(2001, 1, 31));
  const Schedule s(cal, t0, parse_duration("1mo"), Duration{}, 0);
  std::int64_t prev = t0;
  std::vector<Date> dates;
  std::vector<std::int64_t> per_step;
  for (int step = 0; step < 4; ++step) {
    const std::int64_t now = prev + 100 * kDay;
    const auto [first, last] = reached(s, prev, now);
    per_step.push_back(last - first);
    for (std::int64_t k = first; k < last; ++k) dates.push_back(cal.to_date(s.instant(k)));
    prev = now;
  }
  EXPECT_EQ(per_step, (std::vector<std::int64_t>{3, 3, 3, 4}));
  const std::vector<Date> expected = {ymd(2001, 2, 28),  ymd(2001, 3, 31),  ymd(2001, 4, 30),   // step to May 11
                                      ymd(2001, 5, 31),  ymd(2001, 6, 30),  ymd(2001, 7, 31),   // to Aug 19
                                      ymd(2001, 8, 31),  ymd(2001, 9, 30),  ymd(2001, 10, 31),  // to Nov 27
                                      ymd(2001, 11, 30), ymd(2001, 12, 31), ymd(2002, 1, 31),
                                      ymd(2002, 2, 28)};  // to 2002-03-07
  EXPECT_EQ(dates, expected);
}

TEST(DynamicSteps, WholeYearStepInEachCalendar) {
  // One step of a year reaches the twelve monthly instants of that year.
  for (CT type : {CT::gregorian, CT::proleptic_gregorian, CT::julian, CT::noleap, CT::all_leap, CT::d360}) {
    const Calendar cal(type);
    const std::int64_t t0 = cal.to_instant(ymd(1999, 3, 1));
    const Schedule s(cal, t0, parse_duration("1mo"), Duration{}, 0);
    const std::int64_t one_year = cal.add(t0, parse_duration("1y"), 0);
    EXPECT_EQ(reached(s, t0, one_year), Range(1, 13)) << cf_calendar_name(type);
    EXPECT_EQ(reached(s, t0, one_year - 1), Range(1, 12)) << cf_calendar_name(type);
  }
}

TEST(DynamicSteps, OffsetsMoveTheInstants) {
  const Calendar cal(CT::gregorian);
  const std::int64_t t0 = cal.to_instant(ymd(2000, 1, 1));
  // Offset 1h: instants 1h, 7h, 13h, ... The first lies after the start, so
  // the first step reaches k = 0.
  const Schedule late(cal, t0, parse_duration("6h"), parse_duration("1h"), 0);
  EXPECT_EQ(reached(late, t0, t0 + 13 * kHour), Range(0, 3));
  EXPECT_EQ(reached(late, t0 + 13 * kHour, t0 + 18 * kHour), Range(3, 3));
  // Offset -1ts (10 min): instants at 5:50, 11:50, ...; k = 0 is before the start.
  const Schedule early(cal, t0, parse_duration("6h"), parse_duration("-1ts"), 600 * kSecond);
  EXPECT_EQ(reached(early, t0, t0 + 12 * kHour), Range(1, 3));
  EXPECT_EQ(cal.to_date(early.instant(2)), (Date{2000, 1, 1, 11, 50, 0, 0}));
}

TEST(DynamicSteps, EveryInstantReachedExactlyOnce) {
  // Random irregular steps, from a microsecond to 40 hours: the ranges the
  // steps reach tile 1, 2, ..., K with no gap or overlap, and each instant
  // is reached by the first step whose time is at or after it.
  struct Case {
    CT type;
    std::string period, offset;
  };
  const std::vector<Case> cases = {{CT::gregorian, "3h", "0s"},      {CT::gregorian, "1mo", "0s"},
                                   {CT::noleap, "7d 1s", "2h"},      {CT::d360, "1ts", "0s"},
                                   {CT::julian, "1d 0.5s", "-30mi"}, {CT::none, "6h", "1ts"}};
  std::mt19937_64 rng(42);
  std::uniform_int_distribution<std::int64_t> dt(1, 40 * kHour);
  for (const Case& c : cases) {
    SCOPED_TRACE(cf_calendar_name(c.type) + " every " + c.period + " offset " + c.offset);
    const Calendar cal(c.type);
    const std::int64_t t0 = cal.to_instant(ymd(2003, 1, 1));
    const Schedule s(cal, t0, parse_duration(c.period), parse_duration(c.offset), 450 * kSecond);
    std::int64_t prev = t0, next_k = s.first_at_or_after(t0 + 1);
    for (int step = 0; step < 2'000; ++step) {
      const std::int64_t now = prev + (step % 7 == 3 ? 1 : dt(rng));
      const auto [first, last] = reached(s, prev, now);
      ASSERT_EQ(first, next_k) << "step " << step;
      for (std::int64_t k = first; k < last; ++k) {
        ASSERT_GT(s.instant(k), prev);
        ASSERT_LE(s.instant(k), now);
      }
      ASSERT_GT(s.instant(last), now);
      next_k = last;
      prev = now;
    }
    EXPECT_GT(next_k, 1);
  }
}

TEST(DynamicSteps, FirstAtOrAfterIsMonotoneAlongASequence) {
  // Times that go forward, by steps of every size, give indices that never
  // go back, and each is the first instant at or after its time.
  const Calendar cal(CT::all_leap);
  const Schedule s(cal, cal.to_instant(ymd(2000, 2, 29)), parse_duration("1y 1mo 1d"), Duration{}, 0);
  std::int64_t t = cal.to_instant(ymd(1999, 1, 1));
  std::int64_t last_k = 0;
  for (std::int64_t stride = 1; stride < 400LL * 366 * kDay; stride = stride * 3 + 1) {
    t += stride;
    const std::int64_t k = s.first_at_or_after(t);
    ASSERT_GE(k, last_k) << "t = " << t;
    ASSERT_GE(s.instant(k), t);
    if (k > 0) { ASSERT_LT(s.instant(k - 1), t); }
    last_k = k;
  }
  EXPECT_GT(last_k, 300);
}

}  // namespace
}  // namespace foehn::calendar
