// Calendar types, leap rules and the date <-> instant mapping.
//
// Every calendar is reduced to a day number (days since its 0001-01-01) plus
// the time of day; all arithmetic is integer and uses floor division so that
// dates before year 1 (astronomical year numbering: year 0 is 1 BC) work too.
#include "calendar/calendar.h"
#include "calendar/date_expression.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>

namespace foehn::calendar {
namespace {

constexpr std::int64_t kMicrosPerDay = 86'400 * kMicrosPerSecond;
// Keeps the day arithmetic far from int64 overflow; the instant range
// (about +-292,000 years) is checked separately in to_instant.
constexpr std::int64_t kMaxAbsYear = 1'000'000;
constexpr std::int64_t kMillion = 1'000'000;  // millionths of a day in a day (user_defined leap drift)

constexpr std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}

struct Ymd {
  std::int64_t year;
  int month, day;
};

// The proleptic Gregorian and Julian mappings count from 1 March of year 0 so
// that the leap day is the last day of the (March-based) year; the month
// lengths Mar..Feb then follow the (153 * m + 2) / 5 pattern.
// See H. Hinnant, "chrono-Compatible Low-Level Date Algorithms".
constexpr std::int64_t kMarch1ToJan1 = 306;  // days from 0000-03-01 to 0001-01-01

constexpr std::int64_t day_of_march_year(int month, int day) {
  const int mp = (month + 9) % 12;  // March = 0 ... February = 11
  return (153 * mp + 2) / 5 + day - 1;
}

constexpr Ymd from_march_year(std::int64_t year, std::int64_t doy) {
  const int mp = static_cast<int>((5 * doy + 2) / 153);
  const int day = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  const int month = mp < 10 ? mp + 3 : mp - 9;
  return {year + (month <= 2), month, day};
}

constexpr std::int64_t gregorian_days(std::int64_t y, int m, int d) {
  y -= m <= 2;
  const std::int64_t era = floor_div(y, 400);
  const std::int64_t yoe = y - era * 400;
  const std::int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + day_of_march_year(m, d);
  return era * 146'097 + doe - kMarch1ToJan1;
}

constexpr Ymd gregorian_ymd(std::int64_t days) {
  const std::int64_t z = days + kMarch1ToJan1;
  const std::int64_t era = floor_div(z, 146'097);
  const std::int64_t doe = z - era * 146'097;
  const std::int64_t yoe = (doe - doe / 1460 + doe / 36'524 - doe / 146'096) / 365;
  return from_march_year(era * 400 + yoe, doe - (365 * yoe + yoe / 4 - yoe / 100));
}

constexpr std::int64_t julian_days(std::int64_t y, int m, int d) {
  y -= m <= 2;
  const std::int64_t era = floor_div(y, 4);
  const std::int64_t yoe = y - era * 4;
  return era * 1461 + yoe * 365 + day_of_march_year(m, d) - kMarch1ToJan1;
}

constexpr Ymd julian_ymd(std::int64_t days) {
  const std::int64_t z = days + kMarch1ToJan1;
  const std::int64_t era = floor_div(z, 1461);
  const std::int64_t doe = z - era * 1461;
  const std::int64_t yoe = (doe - doe / 1460) / 365;
  return from_march_year(era * 4 + yoe, doe - 365 * yoe);
}

// CF "standard": Julian up to 1582-10-04, Gregorian from 1582-10-15, which is
// the next day. Day numbers count from Julian 0001-01-01, so Gregorian dates
// are shifted by the two days the calendars differ at year 1.
constexpr std::int64_t kGregorianShift = 2;
constexpr std::int64_t kSwitchDay = gregorian_days(1582, 10, 15) + kGregorianShift;
static_assert(kSwitchDay == julian_days(1582, 10, 4) + 1);
static_assert(gregorian_days(1970, 1, 1) == 719'162);
static_assert(julian_ymd(julian_days(-4713, 11, 24)).year == -4713);

constexpr bool before_switch(std::int64_t y, int m, int d) {
  return y < 1582 || (y == 1582 && (m < 10 || (m == 10 && d < 15)));
}
constexpr bool in_switch_gap(std::int64_t y, int m, int d) { return y == 1582 && m == 10 && d > 4 && d < 15; }

constexpr std::array<int, 13> kCumDays = {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365};

// Calendars whose years all have the same length (noleap, all_leap).
std::int64_t fixed_year_days(const Calendar& cal, std::int64_t y, int m, int d) {
  const int year_len = cal.days_in_year(y);
  const int leap_shift = (year_len == 366 && m > 2) ? 1 : 0;
  return (y - 1) * year_len + kCumDays[m - 1] + leap_shift + d - 1;
}

Ymd fixed_year_ymd(const Calendar& cal, std::int64_t days) {
  const int year_len = cal.days_in_year(1);
  const std::int64_t year = floor_div(days, year_len) + 1;
  int doy = static_cast<int>(days - (year - 1) * year_len);
  int month = 1;
  while (doy >= cal.days_in_month(year, month)) doy -= cal.days_in_month(year, month++);
  return {year, month, doy + 1};
}

std::string lower(std::string_view text) {
  std::string out;
  for (char c : text) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::int64_t checked_add(std::int64_t a, std::int64_t b, const char* what) {
  std::int64_t r;
  if (__builtin_add_overflow(a, b, &r)) throw TimeError(std::string("overflow in ") + what);
  return r;
}

}  // namespace

CalendarType parse_calendar_type(std::string_view text) {
  struct Name {
    const char* name;
    CalendarType type;
  };
  // XIOS names are listed lower-cased; comparison is case-insensitive.
  static constexpr Name kNames[] = {
      {"gregorian", CalendarType::gregorian},
      {"standard", CalendarType::gregorian},
      {"proleptic_gregorian", CalendarType::proleptic_gregorian},
      {"prolepticgregorian", CalendarType::proleptic_gregorian},
      {"julian", CalendarType::julian},
      {"noleap", CalendarType::noleap},
      {"365_day", CalendarType::noleap},
      {"all_leap", CalendarType::all_leap},
      {"allleap", CalendarType::all_leap},
      {"366_day", CalendarType::all_leap},
      {"360_day", CalendarType::d360},
      {"d360", CalendarType::d360},
      {"none", CalendarType::none},
      {"user_defined", CalendarType::user_defined},
  };
  const std::string key = lower(trim(text));
  for (const Name& n : kNames)
    if (key == n.name) return n.type;
  throw TimeError("unknown calendar '" + std::string(text) +
                  "' (expected one of: standard, gregorian, proleptic_gregorian, julian, noleap, "
                  "365_day, all_leap, 366_day, 360_day, none, user_defined, or the XIOS names "
                  "Gregorian, ProlepticGregorian, Julian, NoLeap, AllLeap, D360, None)");
}

std::string cf_calendar_name(CalendarType type) {
  switch (type) {
    case CalendarType::gregorian: return "standard";  // CF 1.9 deprecates "gregorian"
    case CalendarType::proleptic_gregorian: return "proleptic_gregorian";
    case CalendarType::julian: return "julian";
    case CalendarType::noleap: return "noleap";
    case CalendarType::all_leap: return "all_leap";
    case CalendarType::d360: return "360_day";
    case CalendarType::none: return "none";
    case CalendarType::user_defined: return "user_defined";
  }
  throw TimeError("invalid CalendarType value " + std::to_string(static_cast<int>(type)));
}

Calendar::Calendar(CalendarType type) : type_(type) {
  if (type == CalendarType::user_defined)
    throw TimeError("a user_defined calendar needs its month lengths (month_lengths)");
}

Calendar::Calendar(const UserCalendar& user) : type_(CalendarType::user_defined), user_(user) {
  for (int days : user.month_lengths) {
    if (days < 1 || days > 100'000)
      throw TimeError("month length " + std::to_string(days) + " is not in 1..100000 days");
    user_year_days_ += days;
  }
  if (user.leap_year_month < 0 || user.leap_year_month > 12)
    throw TimeError("leap_year_month " + std::to_string(user.leap_year_month) + " is not in 1..12 (0: no leap years)");
  if (user.leap_year_drift < 0 || user.leap_year_drift > kMillion)
    throw TimeError("leap_year_drift must be from 0 to 1 day per year");
  if (user.leap_year_drift_offset < 0 || user.leap_year_drift_offset >= kMillion)
    throw TimeError("leap_year_drift_offset must be from 0 to less than 1 day");
}

std::int64_t Calendar::user_leaps_before(std::int64_t year) const {
  if (user_.leap_year_month == 0) return 0;
  // Telescoping: the leap years of [1, year) are the whole days the drift
  // gains from the start of year 1 to the start of `year`.
  return floor_div(user_.leap_year_drift_offset + (year - 1) * user_.leap_year_drift, kMillion) -
         floor_div(user_.leap_year_drift_offset, kMillion);
}

std::int64_t Calendar::user_days_before(std::int64_t year) const {
  return (year - 1) * user_year_days_ + user_leaps_before(year);
}

std::int64_t parse_millionths(std::string_view text) {
  const std::string_view t = trim(text);
  std::int64_t whole = 0, frac = 0;
  std::size_t i = 0, digits = 0, decimals = 0;
  for (; i < t.size() && std::isdigit(static_cast<unsigned char>(t[i])); ++i, ++digits) {
    if (whole > 1'000'000'000) throw TimeError("number '" + std::string(text) + "' is too large");
    whole = whole * 10 + (t[i] - '0');
  }
  if (i < t.size() && t[i] == '.') {
    for (++i; i < t.size() && std::isdigit(static_cast<unsigned char>(t[i])); ++i, ++decimals) {
      if (decimals == 6) throw TimeError("number '" + std::string(text) + "' has more than 6 decimals");
      frac = frac * 10 + (t[i] - '0');
    }
  }
  if (i != t.size() || digits + decimals == 0)
    throw TimeError("expected a non-negative decimal number, not '" + std::string(text) + "'");
  for (; decimals < 6; ++decimals) frac *= 10;
  return whole * kMillion + frac;
}

bool Calendar::is_leap_year(std::int64_t year) const {
  const bool julian_rule = floor_div(year, 4) * 4 == year;
  const bool gregorian_rule = julian_rule && (year % 100 != 0 || year % 400 == 0);
  switch (type_) {
    case CalendarType::gregorian: return year < 1582 ? julian_rule : gregorian_rule;
    case CalendarType::proleptic_gregorian: return gregorian_rule;
    case CalendarType::julian: return julian_rule;
    case CalendarType::all_leap: return true;
    case CalendarType::noleap:
    case CalendarType::d360:
    case CalendarType::none: return false;
    case CalendarType::user_defined:
      return user_.leap_year_month != 0 && user_leaps_before(year + 1) > user_leaps_before(year);
  }
  return false;
}

std::optional<std::int64_t> Calendar::cf_leap_year() const {
  if (type_ != CalendarType::user_defined || user_.leap_year_month == 0 || user_.leap_year_drift != kMillion / 4)
    return std::nullopt;
  for (std::int64_t year = 1; year <= 4; ++year)  // four drifts of 0.25 make exactly one leap day
    if (is_leap_year(year)) return year;
  return std::nullopt;
}

int Calendar::days_in_month(std::int64_t year, int month) const {
  if (month < 1 || month > 12) throw TimeError("month " + std::to_string(month) + " is not in 1..12");
  if (type_ == CalendarType::d360 || type_ == CalendarType::none) return 30;
  if (type_ == CalendarType::user_defined)
    return user_.month_lengths[month - 1] + (month == user_.leap_year_month && is_leap_year(year) ? 1 : 0);
  if (month == 2) return is_leap_year(year) ? 29 : 28;
  return kCumDays[month] - kCumDays[month - 1];
}

int Calendar::days_in_year(std::int64_t year) const {
  if (type_ == CalendarType::d360 || type_ == CalendarType::none) return 360;
  if (type_ == CalendarType::user_defined) return user_year_days_ + (is_leap_year(year) ? 1 : 0);
  if (type_ == CalendarType::gregorian && year == 1582) return 355;  // 10 days skipped
  return is_leap_year(year) ? 366 : 365;
}

void Calendar::validate(const Date& date) const {
  const auto fail = [&](const std::string& why) {
    throw TimeError("date '" + format_date(date) + "' does not exist in the " + cf_calendar_name(type_) +
                    " calendar: " + why);
  };
  if (date.year > kMaxAbsYear || date.year < -kMaxAbsYear) fail("year out of range");
  if (date.month < 1 || date.month > 12) fail("month must be 1..12");
  const int dim = days_in_month(date.year, date.month);
  if (date.day < 1 || date.day > dim) fail("day must be 1.." + std::to_string(dim));
  if (type_ == CalendarType::gregorian && in_switch_gap(date.year, date.month, date.day))
    fail("1582-10-05..14 were skipped when the Gregorian calendar was adopted");
  if (date.hour < 0 || date.hour > 23) fail("hour must be 0..23");
  if (date.minute < 0 || date.minute > 59) fail("minute must be 0..59");
  if (date.second < 0 || date.second > 59) fail("second must be 0..59");
  if (date.microsecond < 0 || date.microsecond >= kMicrosPerSecond) fail("microsecond must be 0..999999");
}

std::int64_t Calendar::to_instant(const Date& date) const {
  validate(date);
  const std::int64_t y = date.year;
  const int m = date.month, d = date.day;
  std::int64_t days = 0;
  switch (type_) {
    case CalendarType::gregorian:
      days = before_switch(y, m, d) ? julian_days(y, m, d) : gregorian_days(y, m, d) + kGregorianShift;
      break;
    case CalendarType::proleptic_gregorian: days = gregorian_days(y, m, d); break;
    case CalendarType::julian: days = julian_days(y, m, d); break;
    case CalendarType::noleap:
    case CalendarType::all_leap: days = fixed_year_days(*this, y, m, d); break;
    case CalendarType::d360:
    case CalendarType::none: days = (y - 1) * 360 + (m - 1) * 30 + (d - 1); break;
    case CalendarType::user_defined:
      days = user_days_before(y) + d - 1;
      for (int k = 1; k < m; ++k) days += days_in_month(y, k);
      break;
  }
  const std::int64_t time_of_day =
      ((date.hour * 60 + date.minute) * 60 + date.second) * kMicrosPerSecond + date.microsecond;
  // In 128 bits: near INT64_MIN the midnight alone may not fit though the instant does.
  const __int128 instant = static_cast<__int128>(days) * kMicrosPerDay + time_of_day;
  if (instant > INT64_MAX || instant < INT64_MIN)
    throw TimeError("date '" + format_date(date) + "' is outside the representable range of instants");
  return static_cast<std::int64_t>(instant);
}

Date Calendar::to_date(std::int64_t instant) const {
  const std::int64_t days = floor_div(instant, kMicrosPerDay);
  std::int64_t rest = instant % kMicrosPerDay;  // not instant - days * D, which can overflow
  if (rest < 0) rest += kMicrosPerDay;
  Ymd ymd{};
  switch (type_) {
    case CalendarType::gregorian:
      ymd = days < kSwitchDay ? julian_ymd(days) : gregorian_ymd(days - kGregorianShift);
      break;
    case CalendarType::proleptic_gregorian: ymd = gregorian_ymd(days); break;
    case CalendarType::julian: ymd = julian_ymd(days); break;
    case CalendarType::noleap:
    case CalendarType::all_leap: ymd = fixed_year_ymd(*this, days); break;
    case CalendarType::d360:
    case CalendarType::none: {
      const std::int64_t year0 = floor_div(days, 360);
      const int doy = static_cast<int>(days - year0 * 360);
      ymd = {year0 + 1, doy / 30 + 1, doy % 30 + 1};
      break;
    }
    case CalendarType::user_defined: {
      // Estimate the year from the mean year length, then step to it.
      const std::int64_t mean_millionths =
          user_year_days_ * kMillion + (user_.leap_year_month ? user_.leap_year_drift : 0);
      std::int64_t year = floor_div(days * kMillion, mean_millionths) + 1;
      while (user_days_before(year) > days) --year;
      while (user_days_before(year + 1) <= days) ++year;
      std::int64_t doy = days - user_days_before(year);
      int month = 1;
      while (doy >= days_in_month(year, month)) doy -= days_in_month(year, month++);
      ymd = {year, month, static_cast<int>(doy) + 1};
      break;
    }
  }
  Date date;
  date.year = ymd.year;
  date.month = ymd.month;
  date.day = ymd.day;
  date.microsecond = rest % kMicrosPerSecond;
  rest /= kMicrosPerSecond;
  date.second = static_cast<int>(rest % 60);
  date.minute = static_cast<int>(rest / 60 % 60);
  date.hour = static_cast<int>(rest / 3600);
  return date;
}

std::int64_t Calendar::add(std::int64_t instant, const Duration& d, std::int64_t timestep_us) const {
  std::int64_t t = instant;
  if (d.months != 0) {
    if (type_ == CalendarType::none)
      throw TimeError("the 'none' calendar has no months or years, cannot add '" + format_duration(d) + "'");
    Date date = to_date(t);
    const std::int64_t total = checked_add(date.year * 12 + (date.month - 1), d.months, "month arithmetic");
    date.year = floor_div(total, 12);
    date.month = static_cast<int>(total - date.year * 12) + 1;
    if (date.year > kMaxAbsYear || date.year < -kMaxAbsYear)
      throw TimeError("adding '" + format_duration(d) + "' leaves the representable range of dates");
    date.day = std::min(date.day, days_in_month(date.year, date.month));
    // A day inside the 1582 gap is clamped forward, like a month end.
    if (type_ == CalendarType::gregorian && in_switch_gap(date.year, date.month, date.day)) date.day = 15;
    t = to_instant(date);
  }
  t = checked_add(t, d.microseconds, "time arithmetic");
  if (d.timesteps != 0) {
    if (timestep_us <= 0)
      throw TimeError("duration '" + format_duration(d) + "' counts time steps ('ts') but no time step is set");
    std::int64_t steps;
    if (__builtin_mul_overflow(d.timesteps, timestep_us, &steps)) throw TimeError("overflow in time-step arithmetic");
    t = checked_add(t, steps, "time arithmetic");
  }
  return t;
}

Date evaluate_date_expression(const Calendar& calendar, std::string_view text, std::int64_t timestep_us) {
  const DateExpression e = parse_date_expression(text);
  calendar.validate(e.date);
  if (!e.has_offset) return e.date;
  if (e.offset.timesteps != 0 && timestep_us <= 0)
    throw TimeError("date expression '" + std::string(text) + "' counts time steps but the calendar has no timestep");
  return calendar.to_date(calendar.add(calendar.to_instant(e.date), e.offset, timestep_us));
}

}  // namespace foehn::calendar
