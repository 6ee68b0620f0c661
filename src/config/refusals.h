// What an output file or field of the XML asks that foehn's writer does not
// do yet, as one text: "" or "<what> is not supported yet[: why]". Close of
// definition refuses it at the element's line (client/plan_builder.cpp) and
// `foehn check` reports it there (tools/check.cpp): one list, so that check
// finds everything close of definition would refuse. (Read files:
// read_file_refusal in config.h.) Defined in config.cpp.
#pragma once

#include <cstdint>
#include <string>

#include "config/config.h"

namespace foehn::config {

std::string write_file_refusal(const FileDef& file);
std::string write_field_refusal(const FieldDef& field);
// An output_freq that is not a whole number of time steps (timestep_us: the
// context's; 0 unknown): "" or why it is refused. XIOS writes such a file at
// the first step at or after each output date, records at uneven intervals
// (1h20, 2h, 3h20, 4h for 40-minute steps and 1 h output); foehn refuses it.
std::string output_freq_refusal(const FileDef& file, std::int64_t timestep_us);

}  // namespace foehn::config
