// interpolate_axis as a step of the transformation stage: each column (the
// values of the components before the axis, one per level) interpolated
// from the source coordinate to the target's (XIOS's orders 1 and 2,
// extrapolate; foehn's log_coordinate: in ln of the coordinate) by the
// kernel of ../vertical/. The source coordinate is the source axis's values
// or, with coordinate/coordinate_src, a model field on the step's source
// layout (3-D pressure); the target's the target axis's values or, with
// coordinate_dst, a field on its target layout. The Transform names them
// (coordinate_source/target); the filter graph passes their values of the
// same step. Columns are local to a model rank: the source axis must not be
// decomposed. No MPI.
#pragma once

#include "config/config.h"
#include "transform/build.h"

namespace foehn::transform::interp {

// `target`: the axis that holds `t`. ConfigError at the line at fault.
Step build_vertical(const config::TransformationDef& t, const config::AxisDef& target, const Component& source);

}  // namespace foehn::transform::interp
