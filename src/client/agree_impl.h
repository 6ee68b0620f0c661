#pragma once

#include <utility>

#include "calendar/calendar.h"
#include "client/errors.h"
#include "config/config.h"
#include "formats/writer.h"
#include "transport/liveness.h"

namespace foehn::client {

// Maps any error foehn raises to its status code.
inline LocalFailure failure_of(const std::exception& e) {
  LocalFailure f{true, FOEHN_ERR_INTERNAL, e.what()};
  if (auto* a = dynamic_cast<const ApiError*>(&e))
    f.status = a->status;
  else if (dynamic_cast<const config::ConfigError*>(&e))
    f.status = FOEHN_ERR_CONFIG;
  else if (dynamic_cast<const calendar::TimeError*>(&e))
    f.status = FOEHN_ERR_ARGUMENT;
  else if (dynamic_cast<const formats::IoError*>(&e))
    f.status = FOEHN_ERR_IO;
  else if (dynamic_cast<const transport::PeerLost*>(&e))
    f.status = FOEHN_ERR_MPI;
  return f;
}

template <class F>
LocalFailure attempt(F&& f) {
  try {
    f();
  } catch (const std::exception& e) { return failure_of(e); }
  return {};
}

template <class F>
void collectively(MPI_Comm comm, F&& f) {
  agree(comm, attempt(std::forward<F>(f)));
}

}  // namespace foehn::client
