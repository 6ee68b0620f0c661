// The order of the servers' collective work: creating, writing and closing
// the files of a context. It must be one order on every server, or two
// servers could wait in different collectives forever. The first server
// decides it as it sees plans, announces and closes (issue) and tells the
// others (receive); each server carries out the orders (drive) when their
// work can be done. With one server nothing has to match across servers:
// each context's orders are a queue of their own, so a context whose
// record waits for data holds back only itself. With several, one queue
// holds every context's orders (issue 18: there a record waiting for data
// still holds back the other contexts' work behind it).
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <utility>
#include <vector>

namespace foehn::server {

struct Order {
  enum Kind : std::uint32_t { open = 1, write = 2, close = 3 } kind;
  std::uint32_t key;  // the context's
};

class ServerOrder {
 public:
  // server_ranks: the servers' ranks in comm, this one at index.
  ServerOrder(MPI_Comm comm, std::vector<int> server_ranks, int index)
      : comm_(comm), server_ranks_(std::move(server_ranks)), index_(index) {}

  bool leader() const { return index_ == 0; }
  // The first server: queues o here and sends it to every other server.
  void issue(Order o);
  // Another server: an order message from the first; false if it has not
  // the size of one.
  bool receive(const std::byte* data, std::size_t bytes);
  // Carries out the orders whose work can be done now: `run` does one and
  // says false when its work must wait (data or a plan still on its way),
  // which stops that queue there.
  void drive(const std::function<bool(const Order&)>& run);

 private:
  MPI_Comm comm_;
  std::vector<int> server_ranks_;
  int index_ = 0;
  // Queues by context key with one server; else the single queue 0.
  std::map<std::uint32_t, std::deque<Order>> queues_;
  std::uint32_t queue_of(const Order& o) const { return server_ranks_.size() == 1 ? o.key : 0; }
};

}  // namespace foehn::server
