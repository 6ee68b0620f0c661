// interpolate_domain as a step of the transformation stage, built once at
// close of definition by every model rank of the context together:
//
// - the target's points are split among the model ranks in contiguous
//   blocks of its global index (whole rows of a 2-D target), so the target
//   this rank holds is a block the writers take like any other;
// - each rank computes (or reads) the weight rows of its targets against
//   the whole source (cells gathered once: source_geometry.h); a row is
//   the same whatever the number of ranks, so the results are too;
// - the source points these rows need, and an MPI_Alltoallv plan that
//   brings their values from the ranks holding them every step
//   (mpi_exchange.h) into a buffer sized here; then the rows are summed in
//   their fixed order (Transform::apply, Operation::remap).
#pragma once

#include <mpi.h>

#include "config/config.h"
#include "transform/build.h"

namespace foehn::transform::interp {

// Collective over comm (MPI_COMM_NULL: one rank). `target` is the domain
// that holds `t`. Throws config::ConfigError at the line at fault (bad
// attributes, a weight file that does not fit the domains, ...).
Step build_interpolation(const config::TransformationDef& t, const config::DomainDef& target, const Component& source,
                         MPI_Comm comm);

}  // namespace foehn::transform::interp
