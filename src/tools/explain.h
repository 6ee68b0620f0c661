// `foehn check --explain ID`: every resolved attribute of the field, file,
// domain, axis, scalar or grid with that id (in every context that has one),
// with the file and line it was written at and how it got there.
#pragma once

#include <string>

#include "config/config.h"

namespace foehn::tools {

// One block per element found:
//
//   context 'c': field 't' (iodef.xml:12)
//     operation  average  iodef.xml:9   <field_group id='g'>
//     unit       K        iodef.xml:12
//
// (attributes in name order; the last column says how the attribute reached
// the element, empty for its own). Empty if no element has that id.
std::string explain_id(const config::Simulation& sim, const std::string& id);

}  // namespace foehn::tools
