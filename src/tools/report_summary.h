// `foehn report`: a summary of one JSON performance report, or a side by
// side comparison of two (docs/report.md has the schema).
#pragma once

#include <string>
#include <vector>

namespace foehn::tools {

// Reads the reports and returns the text to print; throws
// std::runtime_error naming the file when one cannot be read or is not a
// foehn report.
std::string summarise_reports(const std::vector<std::string>& paths);

}  // namespace foehn::tools
