// The client's side of flow control by credit: every send channel of this
// process is enrolled here under a small id (carried in each buffer's
// header). poll() receives the credit messages the servers sent and hands
// each to its channel, which then sends the buffers it held back, so that
// waiting on one server always lets data for every other server leave.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

namespace foehn::transport {

class SendChannel;

class CreditBoard {
 public:
  explicit CreditBoard(MPI_Comm comm) : comm_(comm) {}
  CreditBoard(const CreditBoard&) = delete;
  CreditBoard& operator=(const CreditBoard&) = delete;

  // An id >= 1 for a new channel (a freed id is reused).
  std::uint16_t enrol(SendChannel* channel);
  void move(std::uint16_t id, SendChannel* channel) { channels_.at(id - 1) = channel; }
  void leave(std::uint16_t id);
  // Receives every credit message that has arrived; true if there was any.
  bool poll();

 private:
  MPI_Comm comm_;
  std::vector<SendChannel*> channels_;  // by id - 1; null: free
};

}  // namespace foehn::transport
