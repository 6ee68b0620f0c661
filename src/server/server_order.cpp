#include "server/server_order.h"

#include <cstring>
#include <stdexcept>
#include <string>

#include "transport/event.h"

namespace foehn::server {

void ServerOrder::issue(Order o) {
  queues_[o.key].push_back(o);
  for (std::size_t s = 1; s < server_ranks_.size(); ++s)
    MPI_Send(&o, sizeof o, MPI_BYTE, server_ranks_[s], transport::kTagOrder, comm_);
}

bool ServerOrder::receive(const std::byte* data, std::size_t bytes) {
  if (bytes != sizeof(Order)) return false;
  Order o;
  std::memcpy(&o, data, sizeof o);
  if (o.kind == Order::ready) {
    if (!leader()) return false;
    count_ready(o.key);
  } else if (o.kind == Order::go) {
    go_.push_back(o.key);
  } else if (o.kind == Order::open || o.kind == Order::write || o.kind == Order::close) {
    queues_[o.key].push_back(o);
  } else {
    return false;
  }
  return true;
}

void ServerOrder::report(std::uint32_t key) {
  reported_.insert(key);
  if (leader()) return count_ready(key);
  const Order o{Order::ready, key};
  MPI_Send(&o, sizeof o, MPI_BYTE, server_ranks_[0], transport::kTagOrder, comm_);
}

void ServerOrder::count_ready(std::uint32_t key) {
  if (++ready_[key] < server_ranks_.size()) return;
  ready_.erase(key);
  go_.push_back(key);
  const Order o{Order::go, key};
  for (std::size_t s = 1; s < server_ranks_.size(); ++s)
    MPI_Send(&o, sizeof o, MPI_BYTE, server_ranks_[s], transport::kTagOrder, comm_);
}

// One round: the fronts newly doable reported, then the go's carried out
// until one must wait. True if anything moved.
bool ServerOrder::step(const std::function<bool(const Order&)>& can, const Run& run) {
  bool moved = false;
  for (auto it = detached_.begin(); it != detached_.end();) {
    const std::uint32_t key = *it;
    if (run(queues_.at(key).front()) != Progress::done) {
      ++it;
      continue;
    }
    it = detached_.erase(it);
    finish(key);
    moved = true;
  }
  for (const auto& [key, queue] : queues_)
    if (!queue.empty() && !reported_.contains(key) && can(queue.front())) {
      report(key);
      moved = true;
    }
  while (!go_.empty()) {
    const std::uint32_t key = go_.front();
    auto it = queues_.find(key);
    // A go follows this server's ready for the same front.
    if (it == queues_.end() || it->second.empty())
      throw std::runtime_error("server order: a go for context key " + std::to_string(key) + " with no work queued");
    const Progress p = run(it->second.front());
    if (p == Progress::wait) break;
    go_.pop_front();
    if (p == Progress::done)
      finish(key);
    else
      detached_.insert(key);
    moved = true;
  }
  return moved;
}

void ServerOrder::finish(std::uint32_t key) {
  auto it = queues_.find(key);
  it->second.pop_front();
  if (it->second.empty()) queues_.erase(it);
  reported_.erase(key);
}

void ServerOrder::drive(const std::function<bool(const Order&)>& can, const Run& run) {
  while (step(can, run)) {}
}

}  // namespace foehn::server
