// Collective error agreement: after a phase in which any rank may have
// failed, every rank learns the first failure (lowest rank) and throws the
// same error, so that no rank goes on into a collective the others left.
#pragma once

#include <mpi.h>

#include <string>

#include "foehn/foehn.h"

namespace foehn::client {

struct LocalFailure {
  bool failed = false;
  foehn_status status = FOEHN_OK;
  std::string message;
};

// Collective over comm. Throws ApiError on every rank if any rank failed.
void agree(MPI_Comm comm, const LocalFailure& mine);

// Runs f, catching its error into a LocalFailure (not failed if f returned).
template <class F>
LocalFailure attempt(F&& f);

// Runs f, catching its error into a LocalFailure, then agrees over comm.
template <class F>
void collectively(MPI_Comm comm, F&& f);

}  // namespace foehn::client

#include "client/agree_impl.h"
