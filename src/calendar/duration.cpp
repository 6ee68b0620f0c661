// Text forms of durations and dates, and duration arithmetic.
//
// Numbers are parsed from their digits (integer and fractional part kept
// apart), never through double, so "0.1s" is exactly 100000 microseconds.
#include <cctype>
#include <cstdint>
#include <string>

#include "calendar/calendar.h"
#include "calendar/date_expression.h"

namespace foehn::calendar {
namespace {

std::string quoted(std::string_view s) { return "'" + std::string(s) + "'"; }

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }
bool is_alpha(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }

std::string_view take_digits(std::string_view& s) {
  std::size_t n = 0;
  while (n < s.size() && is_digit(s[n])) ++n;
  std::string_view digits = s.substr(0, n);
  s.remove_prefix(n);
  return digits;
}

// The value of the decimal number <whole>.<frac> times `unit`, if it is a
// whole number that fits in int64; the reason it is not otherwise.
struct Scaled {
  std::int64_t value = 0;
  const char* error = nullptr;
};

Scaled scale_decimal(std::string_view whole, std::string_view frac, std::int64_t unit) {
  while (!frac.empty() && frac.back() == '0') frac.remove_suffix(1);
  constexpr __int128 kMax = INT64_MAX;
  __int128 w = 0;
  for (char c : whole) {
    w = w * 10 + (c - '0');
    if (w * unit > kMax) return {0, "is too large"};
  }
  // Units are at most 86400e6 = 2^13 * 3^3 * 5^8, so a fraction that still
  // has more than 18 digits after dropping trailing zeros cannot be a whole
  // number of microseconds; the cut also keeps 10^n inside int64.
  if (frac.size() > 18) return {0, "is not a whole number of microseconds"};
  __int128 f = 0, pow10 = 1;
  for (char c : frac) {
    f = f * 10 + (c - '0');
    pow10 *= 10;
  }
  const __int128 num = f * unit;
  if (num % pow10 != 0) return {0, "is not a whole number of microseconds"};
  const __int128 total = w * unit + num / pow10;
  if (total > kMax) return {0, "is too large"};
  return {static_cast<std::int64_t>(total), nullptr};
}

struct Unit {
  const char* name;
  std::int64_t micros;  // 0 for the calendar/step units counted whole
};
constexpr std::int64_t kMicrosPerMinute = 60 * kMicrosPerSecond;
constexpr std::int64_t kMicrosPerHour = 60 * kMicrosPerMinute;
constexpr std::int64_t kMicrosPerDay = 24 * kMicrosPerHour;
constexpr Unit kUnits[] = {
    {"y", 0}, {"mo", 0}, {"d", kMicrosPerDay}, {"h", kMicrosPerHour}, {"mi", kMicrosPerMinute}, {"s", kMicrosPerSecond},
    {"ts", 0}};

std::int64_t add_checked(std::int64_t a, std::int64_t b) {
  std::int64_t r;
  if (__builtin_add_overflow(a, b, &r)) throw TimeError("overflow in duration addition");
  return r;
}

std::int64_t mul_checked(std::int64_t a, std::int64_t b) {
  std::int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) throw TimeError("overflow in duration multiplication");
  return r;
}

// Appends "<n><unit>" with n's sign, or nothing when n is zero.
void append_part(std::string& out, std::int64_t n, const char* unit) {
  if (n == 0) return;
  if (!out.empty()) out += ' ';
  out += std::to_string(n);
  out += unit;
}

// ".25" for 250000 microseconds; empty for zero.
std::string fraction_text(std::int64_t micros) {
  if (micros == 0) return "";
  std::string digits = std::to_string(micros);
  digits.insert(0, 6 - digits.size(), '0');
  while (digits.back() == '0') digits.pop_back();
  return "." + digits;
}

}  // namespace

Duration operator*(const Duration& d, std::int64_t k) {
  return Duration{mul_checked(d.months, k), mul_checked(d.microseconds, k), mul_checked(d.timesteps, k)};
}

Duration operator+(const Duration& a, const Duration& b) {
  return Duration{add_checked(a.months, b.months), add_checked(a.microseconds, b.microseconds),
                  add_checked(a.timesteps, b.timesteps)};
}

// Grammar: term { [spaces] term }, term = [+|-] digits [. digits] [spaces] unit.
// Each unit may appear once, in any order.
Duration parse_duration(std::string_view text) {
  const auto fail = [&](const std::string& why) -> TimeError {
    return TimeError("invalid duration " + quoted(text) + ": " + why);
  };
  Duration result;
  std::string seen;  // units already given, as " y mo ..."
  std::string_view rest = text;
  bool any = false;
  while (true) {
    while (!rest.empty() && is_space(rest.front())) rest.remove_prefix(1);
    if (rest.empty()) break;
    const std::string_view term_start = rest;
    bool negative = false;
    if (rest.front() == '+' || rest.front() == '-') {
      negative = rest.front() == '-';
      rest.remove_prefix(1);
    }
    const std::string_view whole = take_digits(rest);
    std::string_view frac;
    bool has_point = false;
    if (!rest.empty() && rest.front() == '.') {
      has_point = true;
      rest.remove_prefix(1);
      frac = take_digits(rest);
    }
    if (whole.empty() || (has_point && frac.empty())) {
      std::size_t n = 0;
      while (n < term_start.size() && !is_space(term_start[n])) ++n;
      throw fail("expected a number such as '6' or '1.5' at " + quoted(term_start.substr(0, n)));
    }
    while (!rest.empty() && is_space(rest.front())) rest.remove_prefix(1);
    std::size_t unit_len = 0;
    while (unit_len < rest.size() && is_alpha(rest[unit_len])) ++unit_len;
    const std::string_view unit = rest.substr(0, unit_len);
    rest.remove_prefix(unit_len);
    std::string_view term = term_start.substr(0, term_start.size() - rest.size());
    while (!term.empty() && is_space(term.back())) term.remove_suffix(1);  // for "6 " quote '6'
    if (unit.empty()) throw fail("missing unit after " + quoted(term) + " (units: y, mo, d, h, mi, s, ts)");
    const Unit* u = nullptr;
    for (const Unit& candidate : kUnits)
      if (unit == candidate.name) u = &candidate;
    if (u == nullptr) {
      if (unit == "m") throw fail("ambiguous unit 'm' in " + quoted(term) + " (use 'mo' for months, 'mi' for minutes)");
      throw fail("unknown unit " + quoted(unit) + " in " + quoted(term) + " (units: y, mo, d, h, mi, s, ts)");
    }
    const std::string key = " " + std::string(unit) + " ";
    if (seen.find(key) != std::string::npos) throw fail("unit " + quoted(unit) + " given twice, at " + quoted(term));
    seen += key;
    any = true;

    if (u->micros == 0 && !frac.empty() && frac.find_first_not_of('0') != std::string_view::npos)
      throw fail(std::string(unit == "ts"  ? "time steps"
                             : unit == "y" ? "years"
                                           : "months") +
                 " must be whole, got " + quoted(term));
    const Scaled s = scale_decimal(whole, frac, u->micros == 0 ? (unit == "y" ? 12 : 1) : u->micros);
    if (s.error != nullptr) throw fail(quoted(term) + " " + s.error);
    const std::int64_t value = negative ? -s.value : s.value;
    if (unit == "y" || unit == "mo")
      result.months = add_checked(result.months, value);
    else if (unit == "ts")
      result.timesteps = value;
    else
      result.microseconds = add_checked(result.microseconds, value);
  }
  if (!any) throw fail("empty duration (expected e.g. '6h', '1d 12h', '1mo' or '1ts')");
  return result;
}

// Canonical form: "1y 2mo 3d 4h 5mi 6.5s 2ts"; parse_duration reads it back
// exactly. Negative parts carry their own sign ("-1d -6h").
std::string format_duration(const Duration& d) {
  std::string out;
  append_part(out, d.months / 12, "y");
  append_part(out, d.months % 12, "mo");
  // Split the magnitude so that every part gets the same sign.
  const bool negative = d.microseconds < 0;
  const auto mag = static_cast<std::uint64_t>(negative ? -(d.microseconds + 1) : d.microseconds) + (negative ? 1 : 0);
  const auto sign = [&](std::uint64_t v) {
    return negative ? -static_cast<std::int64_t>(v) : static_cast<std::int64_t>(v);
  };
  const std::uint64_t secs = mag / kMicrosPerSecond;
  append_part(out, sign(secs / 86400), "d");
  append_part(out, sign(secs / 3600 % 24), "h");
  append_part(out, sign(secs / 60 % 60), "mi");
  const std::uint64_t s = secs % 60, us = mag % kMicrosPerSecond;
  if (s != 0 || us != 0) {
    if (!out.empty()) out += ' ';
    out += (negative ? "-" : "") + std::to_string(s) + fraction_text(static_cast<std::int64_t>(us)) + "s";
  }
  append_part(out, d.timesteps, "ts");
  return out.empty() ? "0s" : out;
}

// Grammar: [-]Y+ '-' M{1,2} '-' D{1,2} [ (spaces | 'T') h{1,2} ':' m{1,2}
// [ ':' s{1,2} [ '.' digits ] ] ], surrounded by optional spaces.
Date parse_date(std::string_view text) {
  std::string_view rest = text;
  const auto fail = [&](const std::string& what) -> TimeError {
    return TimeError("invalid date " + quoted(text) + ": expected " + what +
                     (rest.empty() ? std::string(" at the end") : " at " + quoted(rest)) +
                     " (form: 'YYYY-MM-DD[ hh:mm[:ss[.ffffff]]]')");
  };
  const auto number = [&](std::size_t max_digits, const char* what) {
    const std::string_view digits = take_digits(rest);
    if (digits.empty() || digits.size() > max_digits) {
      rest = std::string_view(digits.data(), rest.data() + rest.size() - digits.data());
      throw fail(what);
    }
    std::int64_t v = 0;
    for (char c : digits) v = v * 10 + (c - '0');
    return v;
  };
  const auto expect = [&](char c, const char* what) {
    if (rest.empty() || rest.front() != c) throw fail(what);
    rest.remove_prefix(1);
  };
  while (!rest.empty() && is_space(rest.front())) rest.remove_prefix(1);
  while (!rest.empty() && is_space(rest.back())) rest.remove_suffix(1);

  Date date;
  const bool negative_year = !rest.empty() && rest.front() == '-';
  if (negative_year) rest.remove_prefix(1);
  date.year = number(18, "a year");
  if (negative_year) date.year = -date.year;
  expect('-', "'-' after the year");
  date.month = static_cast<int>(number(2, "a month (1 or 2 digits)"));
  expect('-', "'-' after the month");
  date.day = static_cast<int>(number(2, "a day (1 or 2 digits)"));
  if (rest.empty()) return date;

  if (rest.front() == 'T') {
    rest.remove_prefix(1);
  } else {
    if (!is_space(rest.front())) throw fail("' ' or 'T' before the time");
    while (!rest.empty() && is_space(rest.front())) rest.remove_prefix(1);
  }
  date.hour = static_cast<int>(number(2, "an hour (1 or 2 digits)"));
  expect(':', "':' after the hour");
  date.minute = static_cast<int>(number(2, "minutes (1 or 2 digits)"));
  if (rest.empty()) return date;
  expect(':', "':' before the seconds");
  date.second = static_cast<int>(number(2, "seconds (1 or 2 digits)"));
  if (!rest.empty() && rest.front() == '.') {
    rest.remove_prefix(1);
    const std::string_view frac_start = rest;
    const std::string_view frac = take_digits(rest);
    if (frac.empty()) {
      rest = frac_start;
      throw fail("digits after the decimal point");
    }
    const Scaled s = scale_decimal("", frac, kMicrosPerSecond);
    if (s.error != nullptr)
      throw TimeError("invalid date " + quoted(text) + ": fractional seconds '." + std::string(frac) + "' " + s.error);
    date.microsecond = s.value;
  }
  if (!rest.empty()) throw fail("nothing more");
  return date;
}

std::string format_date(const Date& date) {
  const auto pad = [](std::int64_t v, std::size_t width) {
    std::string s = std::to_string(v < 0 ? -v : v);
    if (s.size() < width) s.insert(0, width - s.size(), '0');
    return (v < 0 ? "-" : "") + s;
  };
  std::string out = pad(date.year, 4) + "-" + pad(date.month, 2) + "-" + pad(date.day, 2) + " " + pad(date.hour, 2) +
                    ":" + pad(date.minute, 2) + ":" + pad(date.second, 2);
  if (date.microsecond > 0 && date.microsecond < kMicrosPerSecond) out += fraction_text(date.microsecond);
  return out;
}

DateExpression parse_date_expression(std::string_view text) {
  // A date never holds '+' (a negative year starts with '-'), so the first
  // '+' starts the duration.
  const std::size_t plus = text.find('+');
  DateExpression e;
  e.date = parse_date(text.substr(0, plus));
  if (plus == std::string_view::npos) return e;
  try {
    e.offset = parse_duration(text.substr(plus + 1));
  } catch (const TimeError& ex) {
    throw TimeError("invalid date expression " + quoted(text) + ": after '+': " + ex.what());
  }
  e.has_offset = true;
  return e;
}

}  // namespace foehn::calendar
