// File periods: the dates in split file names, and which split period a
// record belongs to.
#include <cstdint>
#include <string>

#include "calendar/calendar.h"

namespace foehn::calendar {

namespace {

std::string two_digits(std::int64_t v) { return (v < 10 ? "0" : "") + std::to_string(v); }

std::string year_digits(std::int64_t year) {
  std::string digits = std::to_string(year < 0 ? -year : year);
  if (digits.size() < 4) digits.insert(0, 4 - digits.size(), '0');
  return (year < 0 ? "-" : "") + digits;
}

}  // namespace

std::string format_date_as(const Date& date, std::string_view format) {
  std::string out;
  for (std::size_t i = 0; i < format.size(); ++i) {
    if (format[i] != '%') {
      out += format[i];
      continue;
    }
    const std::string_view rest = format.substr(i + 1);
    // Longest codes first: %mo before a bare %m (which is not a code), %mi.
    if (rest.substr(0, 2) == "mo")
      out += two_digits(date.month), i += 2;
    else if (rest.substr(0, 2) == "mi")
      out += two_digits(date.minute), i += 2;
    else if (rest.substr(0, 1) == "y")
      out += year_digits(date.year), i += 1;
    else if (rest.substr(0, 1) == "d")
      out += two_digits(date.day), i += 1;
    else if (rest.substr(0, 1) == "h")
      out += two_digits(date.hour), i += 1;
    else if (rest.substr(0, 1) == "s")
      out += two_digits(date.second), i += 1;
    else
      throw TimeError("bad date format '" + std::string(format) + "': after % expected y, mo, d, h, mi or s");
  }
  return out;
}

std::string default_split_format(const Duration& split_freq, std::int64_t timestep_us) {
  const std::int64_t us = split_freq.microseconds + split_freq.timesteps * timestep_us;
  const std::int64_t second = kMicrosPerSecond, minute = 60 * second, hour = 60 * minute, day = 24 * hour;
  if (us % minute != 0) return "%y%mo%d%h%mi%s";
  if (us % hour != 0) return "%y%mo%d%h%mi";
  if (us % day != 0) return "%y%mo%d%h";
  if (us != 0) return "%y%mo%d";
  if (split_freq.months % 12 != 0) return "%y%mo";
  return "%y";
}

SplitPeriods::SplitPeriods(const Calendar& calendar, std::int64_t start, Duration split_freq, std::int64_t timestep_us,
                           std::string format)
    : calendar_(&calendar),
      schedule_(calendar, start, split_freq, Duration{}, timestep_us),
      format_(format.empty() ? default_split_format(split_freq, timestep_us) : std::move(format)) {
  format_date_as(Date{}, format_);  // a bad format fails here, not at the first split
}

std::int64_t SplitPeriods::period_of(std::int64_t t) const {
  const std::int64_t k = schedule_.first_at_or_after(t);  // instant(k-1) < t <= instant(k)
  return k > 0 ? k - 1 : 0;
}

std::string SplitPeriods::name_part(std::int64_t k) const {
  const std::int64_t last = schedule_.instant(k + 1) - kMicrosPerSecond;
  return format_date_as(calendar_->to_date(schedule_.instant(k)), format_) + "-" +
         format_date_as(calendar_->to_date(last), format_);
}

}  // namespace foehn::calendar
