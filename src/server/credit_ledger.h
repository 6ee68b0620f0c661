// The server's side of flow control by credit (docs/transport.md): a
// client's channel asks for room for its buffers; the server holds that much
// for it and grants it as credit. The credit of every buffer comes back once
// the buffer is taken in, so a client never has more in flight than the
// space held for it here. A context whose records wait on this server beyond
// its cap holds the credit back instead (OutputEngine::backlog_full): a
// server slower than the model slows the model rather than growing.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "transport/event.h"

namespace foehn::server {

class CreditLedger {
 public:
  // full(context): whether that context's backlog passes its cap.
  CreditLedger(MPI_Comm comm, std::function<bool(std::uint32_t)> full) : comm_(comm), full_(std::move(full)) {}

  // A channel's request for room (kTagReserve); an error message if it is invalid.
  std::optional<std::string> reserve(int source, const transport::CreditMessage& m);
  // A buffer of `bytes` from (source, channel) was taken in: its credit goes
  // back, or is held back while `context`'s backlog is full. closed: the
  // channel's last buffer (its room is freed). An error message if the
  // channel had no credit.
  std::optional<std::string> give_back(int source, std::uint16_t channel, std::int64_t bytes, bool closed,
                                       std::optional<std::uint32_t> context = std::nullopt);
  // Credit held back goes once its context's backlog is under the cap, and
  // all of it when idle (no message for a while): the server may then wait
  // for data that a client it holds back cannot send, through another
  // context or another server's order.
  void release(bool idle);
  // Frees the credit messages MPI has sent; never blocks.
  void reap();
  // At the end, every client inside MPI_Finalize: the last credits leave.
  void wait_all();
  std::int64_t peak_held_bytes() const { return peak_held_; }

 private:
  void send(int dest, std::uint16_t channel, std::int64_t bytes);

  MPI_Comm comm_;
  std::function<bool(std::uint32_t)> full_;
  std::map<std::pair<int, std::uint16_t>, std::int64_t> held_;  // (client rank, channel) -> space held
  std::int64_t held_bytes_ = 0, peak_held_ = 0;
  struct CreditSend {
    transport::CreditMessage message;
    MPI_Request request = MPI_REQUEST_NULL;
  };
  std::deque<CreditSend> in_flight_;  // a deque: each message stays where MPI_Isend was told
  struct Withheld {
    int source;
    std::uint16_t channel;
    std::int64_t bytes;
    std::uint32_t context;
  };
  std::vector<Withheld> withheld_;
};

}  // namespace foehn::server
