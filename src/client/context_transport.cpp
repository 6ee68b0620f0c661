// The client's side of the transport for a context: sizing the send
// buffers from the definitions and opening one channel per server.
#include <algorithm>

#include "client/context.h"
#include "client/errors.h"

namespace foehn::client {

void Context::create_channels(const std::vector<std::size_t>& bytes_per_server) {
  // Buffers hold everything a server gets in one output step ("performance"
  // sizing), within [min_buffer_size, max_buffer_size].
  const std::int64_t min_size = config::variable_int(def_, "min_buffer_size", 1 << 16);
  const std::int64_t max_size = config::variable_int(def_, "max_buffer_size", 1 << 26);
  const double factor = config::variable_double(def_, "buffer_size_factor", 1.0);
  if (min_size < 1024 || max_size < min_size || factor <= 0)
    fail(FOEHN_ERR_CONFIG, "context '" + id_ + "': need 1024 <= min_buffer_size <= max_buffer_size and buffer_size_factor > 0");
  for (size_t s = 0; s < bytes_per_server.size(); ++s) {
    const auto want = static_cast<std::int64_t>(
        factor * static_cast<double>(bytes_per_server[s] + 16 * sizeof(transport::EventHeader)));
    const auto capacity = static_cast<std::size_t>(std::clamp(want, min_size, max_size));
    channels_.emplace_back(world_->comm, world_->server_ranks[s], capacity, 2, *counters_);
  }
}

}  // namespace foehn::client
