#include "server/server_order.h"

#include <cstring>

#include "transport/event.h"

namespace foehn::server {

void ServerOrder::issue(Order o) {
  queue_.push_back(o);
  for (std::size_t s = 1; s < server_ranks_.size(); ++s)
    MPI_Send(&o, sizeof o, MPI_BYTE, server_ranks_[s], transport::kTagOrder, comm_);
}

bool ServerOrder::receive(const std::byte* data, std::size_t bytes) {
  if (bytes != sizeof(Order)) return false;
  Order o;
  std::memcpy(&o, data, sizeof o);
  queue_.push_back(o);
  return true;
}

void ServerOrder::drive(const std::function<bool(const Order&)>& run) {
  while (!queue_.empty() && run(queue_.front())) queue_.pop_front();
}

}  // namespace foehn::server
