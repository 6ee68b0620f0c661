// What every continued output (append="true", exact restarts:
// docs/restart.md) checks the same way, whatever its format. Each returns
// why the output cannot continue, or an empty string; the writer adds its
// path and refuses.
#pragma once

#include <cstdint>
#include <string>

#include "output/output_plan.h"

namespace foehn::formats {

// The checkpoint says more records were written than the output holds.
std::string checkpoint_beyond(std::int64_t records, std::int64_t resume_records);

// The output's last record ends (`last_end`, seconds since time_origin)
// after this run's start: the run would write a period twice. `kind` names
// what to remove ("file", "store").
std::string repeats_a_period(const output::ContextPlan& plan, double last_end, const char* kind);

}  // namespace foehn::formats
