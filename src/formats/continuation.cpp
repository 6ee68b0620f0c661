#include "formats/continuation.h"

#include <sstream>

#include "calendar/calendar.h"

namespace foehn::formats {

namespace {

std::string seconds_text(double s) {
  std::ostringstream out;
  out << s;
  return out.str();
}

}  // namespace

std::string checkpoint_beyond(std::int64_t records, std::int64_t resume_records) {
  if (resume_records <= records) return {};
  return "it has " + std::to_string(records) + " records, the checkpoint says " + std::to_string(resume_records) +
         " were written (was it replaced by an older copy?)";
}

std::string repeats_a_period(const output::ContextPlan& plan, double last_end, const char* kind) {
  const calendar::Calendar cal = plan.make_calendar();
  const double run_start = static_cast<double>(cal.to_instant(calendar::parse_date(plan.start_date)) -
                                               cal.to_instant(calendar::parse_date(plan.time_origin))) /
                           static_cast<double>(calendar::kMicrosPerSecond);
  if (last_end <= run_start) return {};
  return "its records reach " + seconds_text(last_end) + " s since " + plan.time_origin + ", after this run's start (" +
         plan.start_date + ", " + seconds_text(run_start) + " s): restart where it ends, or remove the " + kind;
}

}  // namespace foehn::formats
