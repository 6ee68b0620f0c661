#include "server/credit_ledger.h"

#include <algorithm>

namespace foehn::server {

std::optional<std::string> CreditLedger::reserve(int source, const transport::CreditMessage& m) {
  if (m.bytes <= 0 || m.channel == 0)
    return "rank " + std::to_string(source) + " asked for " + std::to_string(m.bytes) + " bytes of buffer space";
  held_[{source, m.channel}] = m.bytes;
  held_bytes_ += m.bytes;
  peak_held_ = std::max(peak_held_, held_bytes_);
  send(source, m.channel, m.bytes);
  return std::nullopt;
}

std::optional<std::string> CreditLedger::give_back(int source, std::uint16_t channel, std::int64_t bytes, bool closed,
                                                   std::optional<std::uint32_t> context) {
  auto it = held_.find({source, channel});
  if (it == held_.end())
    return "rank " + std::to_string(source) + " sent on channel " + std::to_string(channel) + " without credit";
  if (!closed && context && full_(*context)) {
    withheld_.push_back({source, channel, bytes, *context});
    return std::nullopt;
  }
  if (closed)  // the channel's credit all goes back before its id can be reused
    std::erase_if(withheld_, [&](const Withheld& w) {
      if (w.source != source || w.channel != channel) return false;
      send(w.source, w.channel, w.bytes);
      return true;
    });
  send(source, channel, bytes);
  if (closed) {  // its last buffer: the space is free for others
    held_bytes_ -= it->second;
    held_.erase(it);
  }
  return std::nullopt;
}

void CreditLedger::release(bool idle) {
  std::erase_if(withheld_, [&](const Withheld& w) {
    if (!idle && full_(w.context)) return false;
    send(w.source, w.channel, w.bytes);
    return true;
  });
}

// Non-blocking: a blocking send waits, polling, for room in the client's
// shared-memory queue whenever the model computes and does not enter MPI
// (58 % of the server's CPU on the output-heavy run). The message stays
// here until sent; reap frees it.
void CreditLedger::send(int dest, std::uint16_t channel, std::int64_t bytes) {
  CreditSend& c = in_flight_.emplace_back();
  c.message.channel = channel;
  c.message.bytes = bytes;
  MPI_Isend(&c.message, sizeof c.message, MPI_BYTE, dest, transport::kTagCredit, comm_, &c.request);
}

// Credit messages leave in order per client; the oldest are done first.
void CreditLedger::reap() {
  while (!in_flight_.empty()) {
    int done = 0;
    MPI_Test(&in_flight_.front().request, &done, MPI_STATUS_IGNORE);
    if (!done) return;
    in_flight_.pop_front();
  }
}

void CreditLedger::wait_all() {
  for (CreditSend& c : in_flight_) MPI_Wait(&c.request, MPI_STATUS_IGNORE);
  in_flight_.clear();
}

}  // namespace foehn::server
