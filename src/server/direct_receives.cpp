#include "server/direct_receives.h"

#include <stdexcept>
#include <string>
#include <utility>

namespace foehn::server {

void DirectReceives::post(Receive r) {
  const std::size_t bytes = r.bytes();
  if (!r.target) {
    if (!spare_.empty()) {
      r.staged = std::move(spare_.back());
      spare_.pop_back();
    }
    if (r.staged.size() < bytes) {
      r.staged = std::vector<std::byte>();  // not resize(): that would copy the old contents
      r.staged.resize(bytes);
    }
  }
  std::byte* into = r.target ? r.target : r.staged.data();
  MPI_Request request = MPI_REQUEST_NULL;
  if (MPI_Irecv(into, static_cast<int>(bytes), MPI_BYTE, r.source, transport::kTagPayload, comm_, &request) !=
      MPI_SUCCESS)
    throw std::runtime_error("posting the receive of a direct payload from rank " + std::to_string(r.source) +
                             " failed");
  receives_.push_back(std::move(r));
  requests_.push_back(request);
}

bool DirectReceives::pending_from(int source) const {
  for (const Receive& r : receives_)
    if (r.source == source) return true;
  return false;
}

std::size_t DirectReceives::staging_bytes() const {
  std::size_t bytes = 0;
  for (const Receive& r : receives_) bytes += r.staged.capacity();
  for (const auto& s : spare_) bytes += s.capacity();
  return bytes;
}

}  // namespace foehn::server
