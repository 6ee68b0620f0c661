#include "server/server_order.h"

#include <cstring>
#include <iterator>

#include "transport/event.h"

namespace foehn::server {

void ServerOrder::issue(Order o) {
  queues_[queue_of(o)].push_back(o);
  for (std::size_t s = 1; s < server_ranks_.size(); ++s)
    MPI_Send(&o, sizeof o, MPI_BYTE, server_ranks_[s], transport::kTagOrder, comm_);
}

bool ServerOrder::receive(const std::byte* data, std::size_t bytes) {
  if (bytes != sizeof(Order)) return false;
  Order o;
  std::memcpy(&o, data, sizeof o);
  queues_[queue_of(o)].push_back(o);
  return true;
}

void ServerOrder::drive(const std::function<bool(const Order&)>& run) {
  for (auto it = queues_.begin(); it != queues_.end();) {
    std::deque<Order>& queue = it->second;
    while (!queue.empty() && run(queue.front())) queue.pop_front();
    it = queue.empty() ? queues_.erase(it) : std::next(it);
  }
}

}  // namespace foehn::server
