// The grid a field is written on, found the way XIOS finds it: grid_ref
// first, else domain_ref/axis_ref/scalar_ref, else (for a field computed
// from an expression) the grid of the first field the expression names.
#pragma once

#include <string>
#include <vector>

#include "config/config.h"

namespace foehn::tools {

struct FieldGrid {
  std::string label;                              // "model_levels", or "domain:globe axis:lev" without a grid_ref
  std::vector<config::GridComponent> components;  // declared order
};

// Throws config::ConfigError at the field's line when no grid can be found.
FieldGrid field_grid(const config::ContextDef& ctx, const config::FieldDef& field);

}  // namespace foehn::tools
