// Which transformations turn a field's source grid into its own grid, XIOS's
// way: a field with field_ref to a source field and its own grid (grid_ref,
// domain_ref, axis_ref) is matched with the source's grid component by
// component, by position. At a position where the two differ, the field's
// component must carry transformations (<domain id="z" domain_ref="src">
// <zoom_domain .../></domain>): its own, after those of the element it
// refers to when that one has transformations too (chains), starting from
// the element at the same position of the source grid.
#pragma once

#include <string>
#include <vector>

#include "config/config.h"
#include "transform/build.h"

namespace foehn::transform {

// The components of a field's grid in declared order (grid_ref, else its
// domain_ref, axis_ref, scalar_ref); empty when it names none.
std::vector<config::GridComponent> grid_components(const config::ContextDef& ctx, const config::FieldDef& f);

// The grid component (element) has transformations of its own.
bool transformed(const config::ContextDef& ctx, const config::GridComponent& c);

// The transformations from `source` to `target` (the components at one
// position of the source's and the field's grids), in the order they apply;
// empty when they are the same element. Throws config::ConfigError at the
// line that is wrong: a target without transformations from the source, a
// chain that starts from another element, a kind that does not match.
std::vector<const config::TransformationDef*> chain_between(const config::ContextDef& ctx,
                                                            const config::GridComponent& source,
                                                            const config::GridComponent& target);

// Every position of two grids: one chain per position. Throws
// config::ConfigError (at `where`) when the grids have different numbers
// of components.
std::vector<std::vector<const config::TransformationDef*>> chains_between(
    const config::ContextDef& ctx, const std::vector<config::GridComponent>& source,
    const std::vector<config::GridComponent>& target, const config::Location& where, const std::string& field);

// A whole component of the given global size as one rank holding all of it
// (for `foehn plan` and `foehn check`, which have no decomposition).
Component whole_component(Component::Kind kind, std::int64_t ni_glo, std::int64_t nj_glo);

}  // namespace foehn::transform
