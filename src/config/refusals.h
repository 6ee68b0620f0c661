// What an output file or field of the XML asks that foehn's writer does not
// do yet, as one text: "" or "<what> is not supported yet[: why]". Close of
// definition refuses it at the element's line (client/plan_builder.cpp) and
// `foehn check` reports it there (tools/check.cpp): one list, so that check
// finds everything close of definition would refuse. (Read files:
// read_file_refusal in config.h.) Defined in config.cpp.
#pragma once

#include <string>

#include "config/config.h"

namespace foehn::config {

std::string write_file_refusal(const FileDef& file);
std::string write_field_refusal(const FieldDef& field);

}  // namespace foehn::config
