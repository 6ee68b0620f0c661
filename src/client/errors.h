// Errors raised inside the client and turned into a status code and a
// message at the C API boundary.
#pragma once

#include <stdexcept>
#include <string>

#include "foehn/foehn.h"

namespace foehn::client {

struct ApiError : std::runtime_error {
  ApiError(foehn_status s, const std::string& message) : std::runtime_error(message), status(s) {}
  foehn_status status;
};

[[noreturn]] inline void fail(foehn_status s, const std::string& message) { throw ApiError(s, message); }

}  // namespace foehn::client
