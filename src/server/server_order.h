// The order of the servers' collective work: creating, writing and closing
// the files of a context. It must be one order on every server, or two
// servers could wait in different collectives forever. The first server
// decides it as it sees plans, announces and closes (issue) and tells the
// others (receive); each server carries out the orders (drive) when their
// work can be done.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
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
  // which stops the queue there.
  void drive(const std::function<bool(const Order&)>& run);

 private:
  MPI_Comm comm_;
  std::vector<int> server_ranks_;
  int index_ = 0;
  std::deque<Order> queue_;
};

}  // namespace foehn::server
