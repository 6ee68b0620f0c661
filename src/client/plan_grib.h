// What a GRIB2 file (format="grib2", docs/grib.md) cannot hold, refused at
// close of definition at the XML line of the field or file, rather than by
// the writer when the servers open the file: whole fields only (no
// multiple_file), a horizontal domain of a type with a GRIB2 grid, at most
// one axis (the levels) before it, the parameter and, with levels, the
// level type among the field's <variable>s (ecCodes keys).
#pragma once

#include <string>

#include "config/config.h"
#include "output/output_plan.h"

namespace foehn::client {

// Throws config::ConfigError; does nothing for other formats.
void check_grib_field(const config::FieldDef& f, const config::FileDef& file, const std::string& id,
                      const output::VariableInfo& v, const output::ContextPlan& plan);

}  // namespace foehn::client
