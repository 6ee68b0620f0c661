// The order of the servers' collective work: creating, writing and closing
// the files of a context. It must be one order on every server, or two
// servers could wait in different collectives forever. The first server
// proposes each context's next piece of work as it sees plans, announces
// and closes (issue) and sends it to the others (receive); every server
// keeps each context's proposals in a queue of their own. A server tells
// the first one when the front of a context's queue can be done without
// waiting for data (ready); once every server can, the first one says go,
// and every server carries out the go's in the one order it gave (drive).
// A piece whose collective part is done (a record of files this server
// writes alone, waiting for a variable's data) finishes later without
// holding back the go's after it. So a context whose record waits for
// data holds back only itself, and no server enters a collective that
// another one cannot reach (issue 18).
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <set>
#include <utility>
#include <vector>

namespace foehn::server {

struct Order {
  // open/write/close: a context's next work, proposed by the first server;
  // ready: to the first, this server can do the front of the context's
  // queue; go: from the first, every server can, do it now.
  enum Kind : std::uint32_t { open = 1, write = 2, close = 3, ready = 4, go = 5 } kind;
  std::uint32_t key;  // the context's
};

// What carrying out an order came to.
enum class Progress {
  done,
  wait,      // call again before any later order (the file's writers are still meeting)
  detached,  // the rest involves no other server: it finishes later, the next orders may go
};

class ServerOrder {
 public:
  // server_ranks: the servers' ranks in comm, this one at index.
  ServerOrder(MPI_Comm comm, std::vector<int> server_ranks, int index)
      : comm_(comm), server_ranks_(std::move(server_ranks)), index_(index) {}

  bool leader() const { return index_ == 0; }
  // The first server: queues o here and sends it to every other server.
  void issue(Order o);
  // A message of another server (a proposal or a go from the first, a
  // ready to the first); false if it is not one.
  bool receive(const std::byte* data, std::size_t bytes);
  // Tells the first server of every context front that `can` says can be
  // done without waiting for data, and carries out the go's in their
  // order with `run` (Progress above); detached ones are run again first.
  using Run = std::function<Progress(const Order&)>;
  void drive(const std::function<bool(const Order&)>& can, const Run& run);

 private:
  void report(std::uint32_t key);  // this server can do the front of key's queue
  void count_ready(std::uint32_t key);
  bool step(const std::function<bool(const Order&)>& can, const Run& run);
  void finish(std::uint32_t key);  // the front of key's queue is done

  MPI_Comm comm_;
  std::vector<int> server_ranks_;
  int index_ = 0;
  std::map<std::uint32_t, std::deque<Order>> queues_;  // by context key, as proposed
  std::set<std::uint32_t> reported_;                   // contexts whose front this server said it can do
  std::map<std::uint32_t, std::size_t> ready_;         // the first server: servers that can do each front
  std::deque<std::uint32_t> go_;                       // fronts every server can do, in the first's order
  std::set<std::uint32_t> detached_;                   // contexts whose front finishes on its own
};

}  // namespace foehn::server
