#pragma once

#include "calendar/calendar.h"
#include "client/errors.h"
#include "config/config.h"
#include "output/netcdf_file.h"
#include "transport/liveness.h"

namespace foehn::client {

// Maps any error foehn raises to its status code.
inline LocalFailure failure_of(const std::exception& e) {
  LocalFailure f{true, FOEHN_ERR_INTERNAL, e.what()};
  if (auto* a = dynamic_cast<const ApiError*>(&e)) f.status = a->status;
  else if (dynamic_cast<const config::ConfigError*>(&e)) f.status = FOEHN_ERR_CONFIG;
  else if (dynamic_cast<const calendar::TimeError*>(&e)) f.status = FOEHN_ERR_ARGUMENT;
  else if (dynamic_cast<const output::IoError*>(&e)) f.status = FOEHN_ERR_IO;
  else if (dynamic_cast<const transport::PeerLost*>(&e)) f.status = FOEHN_ERR_MPI;
  return f;
}

template <class F>
void collectively(MPI_Comm comm, F&& f) {
  LocalFailure mine;
  try {
    f();
  } catch (const std::exception& e) {
    mine = failure_of(e);
  }
  agree(comm, mine);
}

}  // namespace foehn::client
