// `foehn check`: what the reader checks, plus what a run needs of every
// enabled output file (a grid for each enabled field, usable frequencies, a
// usable calendar).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "config/config.h"

namespace foehn::tools {

struct CheckResult {
  std::size_t contexts = 0;
  std::size_t files = 0;                        // enabled output files
  std::size_t fields = 0;                       // enabled fields in them
  std::vector<config::ConfigError> problems;    // in document order; empty means OK
  std::size_t omitted = 0;                      // problems the reader found beyond those it reported
  std::vector<config::ConfigWarning> warnings;  // the reader's (Simulation::warnings); not problems
  bool ok() const { return problems.empty(); }
  // Adds each error of a reader's ConfigError as one problem.
  void add_reader_errors(const config::ConfigError& e);
};

// The checks after reading. Every problem is collected, not only the first.
CheckResult check_simulation(const config::Simulation& sim);
// Reads `path` and checks it. When the reader finds errors, they are the
// problems (every one it found, up to config::kMaxReportedErrors) and the
// checks after reading are not run.
CheckResult check_file(const std::string& path);

// An enabled file that is written (mode is not read).
bool is_output_file(const config::FileDef& file);
using config::is_output_field;  // an enabled field the file's output_level lets through

}  // namespace foehn::tools
