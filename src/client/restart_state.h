// Where a context's checkpoints live and which one a run resumes from
// (docs/restart.md): <restart_dir>/<date>/<context>.nc, one directory per
// checkpoint date (YYYYMMDDThhmmss). No MPI: every rank finds the same.
#pragma once

#include <optional>
#include <string>

#include "calendar/calendar.h"

namespace foehn::client {

// The directory name of a checkpoint date.
std::string state_date_tag(const calendar::Date& date);
std::string state_path(const std::string& restart_dir, const calendar::Date& date, const std::string& context);

struct ResumeState {
  std::string path;
  std::string date;         // the checkpoint's date (this run's start)
  std::string first_start;  // the first run's start date: the schedules' origin
  std::string time_origin;  // the first run's time origin
};

// The state whose date is `start` in restart_dir, or none when the
// directory holds no state of this context (a first run). Throws ApiError
// when it holds states of other dates only (naming them and `start`), when
// the date's state set lacks this context's file or holds it incomplete,
// and when the file cannot be read (damaged, truncated).
std::optional<ResumeState> find_resume_state(const std::string& restart_dir, const std::string& context,
                                             const calendar::Date& start);

}  // namespace foehn::client
