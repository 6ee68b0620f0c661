// The spatial transformations of a field, for `foehn check` and `foehn
// plan`: the chain from its source field's grid to its own (src/transform/
// chain.h), each step with its sizes before and after, on the global sizes
// the XML (or the command line) gives, as one rank holding everything.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "config/config.h"

namespace foehn::tools {

struct FieldTransformations {
  bool any = false;                // the field's grid is made by transformations
  std::vector<std::string> steps;  // "zoom_domain 360x180 -> 10x5", in order
  std::int64_t points = 1;         // of the field's grid, after the transformations
};

// The global size (ni, nj) of a grid component (axes: n, 1; scalars: 1, 1).
using ComponentSize = std::function<std::pair<std::int64_t, std::int64_t>(const config::GridComponent&)>;

// Throws config::ConfigError at the line that is wrong: a chain that does
// not match by position, a box outside its domain, ...
FieldTransformations field_transformations(const config::ContextDef& ctx, const config::FieldDef& f,
                                           const ComponentSize& size);
// Only the chains (no sizes needed): throws like field_transformations.
bool check_field_chains(const config::ContextDef& ctx, const config::FieldDef& f);

}  // namespace foehn::tools
