// The memory close of definition will take, estimated before it takes it,
// and the memory the node has: a definition that cannot fit is refused with
// both figures instead of growing until the kernel kills the model (a 10^9-
// point domain did). Called by Context::close_definition before the plan
// builder allocates the per-point index lists.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>

#include "client/plan_builder.h"

namespace foehn::client {

// Bytes per local point of a domain that close of definition holds at its
// peak on a model rank: the global index of each point and of each data
// value, the values sent, the pack plan's positions and stream maps.
// Measured 40-41 B (a 1.6e7-point domain, 1 rank, attached and with a
// server: the rank's peak less the model's own array); 48 with a margin.
inline constexpr double kDefinitionBytesPerPoint = 48;
// Per point of a gathered domain (on model rank 0 with servers, on every
// rank attached): an index (by-index parts), two coordinates and the bounds.
inline constexpr double kGatheredBytesPerIndex = 8;

struct MemoryNeed {
  double bytes = 0;
  std::string largest;  // the domain that needs most, for the message ("domain 'globe': 1000000000 points ...")
};

// What this rank's definition will hold for the domains the model set.
// `gathers`: this rank receives every rank's points and coordinates (model
// rank 0 with servers; every rank attached).
MemoryNeed definition_need(const ModelSettings& settings, bool gathers);

// Collective over `comm`: the needs of the ranks on each node against that
// node's memory, and each rank's against its own limit. Returns "" when
// everything fits, else the same message on every rank.
std::string check_definition_memory(const std::string& context_id, const ModelSettings& settings, bool gathers,
                                    MPI_Comm comm);

}  // namespace foehn::client
