// Reductions whose targets' source points are split between model ranks
// (a zonal mean with a row split, a global mean of a decomposed domain,
// reduce_axis on a decomposed axis), built once at close of definition by
// every model rank of the context together.
//
// Each target belongs to one rank: the rank holding its source point of
// lowest global index (a scalar: rank 0, the one that sends scalar-only
// grids to the servers). Every rank sends each of its points that another
// rank's target combines to that rank, every step (one MPI_Alltoallv,
// mpi_exchange.h); the owner reduces over the points gathered in
// increasing global index, as a rank holding them all does. So the bytes
// are the same whatever the decomposition; when no target is split,
// nothing is exchanged and the step is build_step's.
#pragma once

#include <mpi.h>

#include <string>

#include "config/config.h"
#include "transform/build.h"

namespace foehn::transform::interp {

// What the reduction needs of the grid's other components (collective
// facts the caller computes): the same points on every rank (the values
// sent carry the other components' layout), and for a scalar target no
// domain among them (each rank would send the same domain points).
struct OtherComponents {
  bool same_on_every_rank = true;
  bool has_domain = false;
};

// reduce_scalar and reduce_axis into an axis (XIOS's) combine, for each
// point, the values every model rank holds of it, in rank order, on rank 0
// (the rank that sends a scalar or a whole axis to the servers).
bool across_ranks(const config::TransformationDef& t);

// Collective over comm when t is a reduction (build.h's reduction_targets,
// or across_ranks) and comm has more than one rank; otherwise build_step. Throws
// config::ConfigError at t.where, naming `field`, for what cannot be combined.
// The exchange is collective every step: in attached mode the model ranks'
// collective file writes keep to the same order (server::WriterRole::attached).
Step build_reduction(const config::TransformationDef& t, const Component& source, const OtherComponents& others,
                     MPI_Comm comm, const std::string& field);

}  // namespace foehn::transform::interp
