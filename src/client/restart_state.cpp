#include "client/restart_state.h"

#include <algorithm>
#include <filesystem>
#include <vector>

#include "client/errors.h"
#include "restart/state_file.h"

namespace foehn::client {

namespace fs = std::filesystem;

std::string state_date_tag(const calendar::Date& date) { return calendar::format_date_as(date, "%y%mo%dT%h%mi%s"); }

std::string state_path(const std::string& restart_dir, const calendar::Date& date, const std::string& context) {
  return (fs::path(restart_dir) / state_date_tag(date) / (context + ".nc")).string();
}

std::optional<ResumeState> find_resume_state(const std::string& restart_dir, const std::string& context,
                                             const calendar::Date& start) {
  const std::string where = "context '" + context + "' (restart_dir '" + restart_dir + "'): ";
  const fs::path dir = fs::path(restart_dir) / state_date_tag(start);
  const fs::path file = dir / (context + ".nc");
  std::error_code ec;
  if (!fs::exists(dir, ec)) {
    // States of other dates only: this run starts where no checkpoint is.
    std::vector<std::string> dates;
    for (const auto& entry : fs::directory_iterator(restart_dir, ec))
      if (fs::exists(entry.path() / (context + ".nc"), ec)) dates.push_back(entry.path().filename().string());
    if (dates.empty()) return std::nullopt;
    std::sort(dates.begin(), dates.end());
    std::string list;
    for (const auto& d : dates) list += (list.empty() ? "" : ", ") + d;
    fail(FOEHN_ERR_CONFIG, where + "no state of this run's start date " + calendar::format_date(start) + " (" +
                               state_date_tag(start) + "); the directory holds the state of " + list +
                               ": start the run at the date of a checkpoint, or use an empty restart_dir for a "
                               "fresh run");
  }
  if (!fs::exists(file, ec)) {
    const bool partial = fs::exists(file.string() + ".part", ec);
    fail(FOEHN_ERR_CONFIG, where + "the state of " + calendar::format_date(start) + " has no file " + file.string() +
                               (partial ? " (only a part: the run stopped while writing it; resume from an earlier "
                                          "checkpoint)"
                                        : " (missing state file: was it moved or deleted?)"));
  }
  try {
    const auto header = restart::StateFile::header(file.string());
    ResumeState s;
    s.path = file.string();
    s.date = header.at("date");
    s.first_start = header.at("first_start_date");
    s.time_origin = header.at("time_origin");
    return s;
  } catch (const restart::StateError& e) { fail(FOEHN_ERR_IO, where + e.what()); } catch (const std::out_of_range&) {
    fail(FOEHN_ERR_IO, where + file.string() + ": not a foehn state file (attributes missing)");
  }
}

}  // namespace foehn::client
