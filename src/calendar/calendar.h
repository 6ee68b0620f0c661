// Calendars, dates, durations and exact time arithmetic.
//
// Instants are kept as integer microseconds since the calendar's epoch
// (0001-01-01 00:00:00 of that calendar), never as accumulated floating point.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace foehn::calendar {

enum class CalendarType {
  gregorian,  // CF "standard": Julian before 1582-10-15, Gregorian after
  proleptic_gregorian,
  julian,
  noleap,        // 365_day
  all_leap,      // 366_day
  d360,          // 360_day: 12 months of 30 days
  none,          // no dates: only elapsed time (days of 86400 s, no months or years)
  user_defined,  // XIOS "user_defined": month lengths and a leap rule of its own (UserCalendar)
};

// Accepts the XIOS names (Gregorian, ProlepticGregorian, Julian, NoLeap,
// AllLeap, D360, None) and the CF names (standard, gregorian,
// proleptic_gregorian, julian, noleap, 365_day, all_leap, 366_day, 360_day,
// none), case-insensitively. Throws TimeError on anything else.
CalendarType parse_calendar_type(std::string_view text);
// The CF name written in the "calendar" attribute ("user_defined" for a
// user-defined calendar).
std::string cf_calendar_name(CalendarType type);

struct TimeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

constexpr std::int64_t kMicrosPerSecond = 1'000'000;

struct Date {
  std::int64_t year = 1;
  int month = 1, day = 1, hour = 0, minute = 0, second = 0;
  std::int64_t microsecond = 0;
  friend bool operator==(const Date&, const Date&) = default;
};

// "2012-02-27 15:00:00", "2012-02-27 15:00", "2012-02-27", "2012-02-27T15:00:00",
// with optional fractional seconds ("15:00:00.25"). Field ranges are checked
// against the calendar by Calendar::validate, not here. Throws TimeError.
Date parse_date(std::string_view text);
// "YYYY-MM-DD hh:mm:ss" (fractional seconds appended only when non-zero).
std::string format_date(const Date& date);

// A duration in calendar units. Years and months are whole numbers; the rest
// is exact in microseconds; timesteps are whole model time steps.
struct Duration {
  std::int64_t months = 0;        // years are stored as 12 months
  std::int64_t microseconds = 0;  // days, hours, minutes, seconds
  std::int64_t timesteps = 0;
  bool is_zero() const { return months == 0 && microseconds == 0 && timesteps == 0; }
  friend bool operator==(const Duration&, const Duration&) = default;
};
Duration operator*(const Duration& d, std::int64_t k);
Duration operator+(const Duration& a, const Duration& b);

// "1y 2mo 3d 1.5h 30mi 6s 2ts", "6h", "1d", "1ts", "0.5s", also without
// spaces ("1d12h"). Units: y, mo, d, h, mi, s, ts. Fractions are allowed for
// d, h, mi and s when exact to the microsecond; y, mo and ts must be whole.
// Throws TimeError naming the bad part.
Duration parse_duration(std::string_view text);
std::string format_duration(const Duration& d);

// A user-defined calendar (XIOS type "user_defined"): 12 months of given
// lengths and days of 86400 s. Leap years (when leap_year_month is 1..12)
// come from a drift of leap_year_drift days per year: year y is a leap
// year, with one more day in leap_year_month, when
// offset + y·drift passes a whole number during the year, i.e.
// floor(offset + y·drift) > floor(offset + (y-1)·drift). Drift and offset
// are kept in millionths of a day, so the rule is exact integer arithmetic
// (drift 0.25, offset 0: every 4th year, as in the Julian calendar).
struct UserCalendar {
  std::array<int, 12> month_lengths{};      // days, each >= 1
  int leap_year_month = 0;                  // 0: no leap years
  std::int64_t leap_year_drift = 0;         // millionths of a day per year, 0..1'000'000
  std::int64_t leap_year_drift_offset = 0;  // millionths of a day, 0..999'999
};
// Reads "0.25" (a decimal number, at most 6 decimals) as 250000 millionths.
// Throws TimeError otherwise.
std::int64_t parse_millionths(std::string_view text);

class Calendar {
 public:
  // Throws TimeError for user_defined, which needs its UserCalendar.
  explicit Calendar(CalendarType type);
  // Throws TimeError when a month length or the leap rule is out of range.
  explicit Calendar(const UserCalendar& user);
  const UserCalendar& user() const { return user_; }
  CalendarType type() const { return type_; }

  bool is_leap_year(std::int64_t year) const;
  int days_in_month(std::int64_t year, int month) const;
  int days_in_year(std::int64_t year) const;
  // CF's leap_year attribute for a user_defined calendar (CF 4.4.1): the
  // first leap year, when leap years come every 4 years (a leap_year_drift
  // of 0.25 days a year, the only rule CF can state). Empty otherwise.
  std::optional<std::int64_t> cf_leap_year() const;

  // Throws TimeError if the date does not exist in this calendar (e.g. Feb 29
  // in noleap, day 31 in 360_day, the skipped days 1582-10-05..14 in gregorian).
  void validate(const Date& date) const;

  std::int64_t to_instant(const Date& date) const;  // microseconds since epoch
  Date to_date(std::int64_t instant) const;

  // Adds months first (the day is clamped to the end of the target month, so
  // Jan 31 + 1mo = Feb 28/29), then the exact part, then timesteps * timestep.
  std::int64_t add(std::int64_t instant, const Duration& d, std::int64_t timestep_us) const;

 private:
  CalendarType type_;
  UserCalendar user_;                                       // user_defined only
  int user_year_days_ = 0;                                  // user_defined: days of a common year
  std::int64_t user_leaps_before(std::int64_t year) const;  // leap years in [1, year)
  std::int64_t user_days_before(std::int64_t year) const;   // days from 0001-01-01 to year-01-01
};

// The instants start + offset + k * period, for k = 1, 2, ...: each computed
// from the start (never by repeated addition, so month ends do not drift).
class Schedule {
 public:
  Schedule(const Calendar& calendar, std::int64_t start, Duration period, Duration offset, std::int64_t timestep_us);
  // The k-th instant (k >= 0; k = 0 is start + offset).
  std::int64_t instant(std::int64_t k) const;
  // The smallest k >= 0 with instant(k) >= t.
  std::int64_t first_at_or_after(std::int64_t t) const;
  Duration period() const { return period_; }
  Duration offset() const { return offset_; }

 private:
  const Calendar* calendar_;
  std::int64_t start_;
  Duration period_, offset_;
  std::int64_t timestep_us_;
};

// ---- file periods (split_freq, sync_freq) ---------------------------------

// A date written with a split_freq_format: %y is the year (at least 4
// digits), %mo, %d, %h, %mi, %s two-digit month, day, hour, minute, second;
// any other text is copied. Throws TimeError on a '%' not followed by one of
// these.
std::string format_date_as(const Date& date, std::string_view format);
// The format used when split_freq_format is not set, from the smallest unit
// split_freq uses: "%y" (whole years), "%y%mo" (months), "%y%mo%d" (days),
// "%y%mo%d%h", "%y%mo%d%h%mi", "%y%mo%d%h%mi%s". Time steps count as their
// length (`timestep_us`).
std::string default_split_format(const Duration& split_freq, std::int64_t timestep_us);

// The periods a file is split into: [start + k·split_freq, start +
// (k+1)·split_freq) for k = 0, 1, .... A record whose interval ends at t
// belongs to the period with start < t <= end, so a record that ends
// exactly on a split instant is the last one of its file.
class SplitPeriods {
 public:
  SplitPeriods(const Calendar& calendar, std::int64_t start, Duration split_freq, std::int64_t timestep_us,
               std::string format);
  // The period of a record ending at instant t (> start).
  std::int64_t period_of(std::int64_t t) const;
  std::int64_t period_start(std::int64_t k) const { return schedule_.instant(k); }
  // "<first>-<last>": the period's first instant and its last second
  // (end - 1 s), both in the format.
  std::string name_part(std::int64_t k) const;

 private:
  const Calendar* calendar_;
  Schedule schedule_;
  std::string format_;
};

}  // namespace foehn::calendar
