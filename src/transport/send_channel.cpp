#include "transport/send_channel.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>

#include "transport/credit_board.h"
#include "transport/liveness.h"

namespace foehn::transport {

SendChannel::SendChannel(MPI_Comm comm, int dest, std::size_t capacity, int nbuffers, ClientCounters& counters,
                         CreditBoard* board)
    : comm_(comm), dest_(dest), capacity_(capacity), buffers_(nbuffers), counters_(&counters), board_(board) {
  if (nbuffers < 2) throw std::invalid_argument("a send channel needs at least two buffers");
  if (capacity <= sizeof(BufferHeader) + sizeof(EventHeader) + 8)
    throw std::invalid_argument("send buffer of " + std::to_string(capacity) + " bytes is too small");
  for (auto& b : buffers_) b.data.resize(capacity);
  requests_.resize(nbuffers);
  counters.buffer_bytes += capacity * static_cast<std::uint64_t>(nbuffers);
  current_ = 0;
  buffers_[0].used = sizeof(BufferHeader);
  if (!board_) {
    credit_ = INT64_MAX;
    return;
  }
  // Ask for room for the whole ring; the grant arrives while the client
  // goes on (the first buffer waits for it if it comes first).
  id_ = board_->enrol(this);
  CreditMessage ask;
  ask.channel = id_;
  ask.bytes = static_cast<std::int64_t>(capacity * static_cast<std::size_t>(nbuffers));
  if (MPI_Send(&ask, sizeof ask, MPI_BYTE, dest_, kTagReserve, comm_) != MPI_SUCCESS)
    throw std::runtime_error("asking server rank " + std::to_string(dest_) + " for buffer space failed");
  counters.bytes_sent += sizeof ask;
  ++counters.messages_sent;
}

SendChannel::SendChannel(SendChannel&& o) noexcept
    : comm_(o.comm_), dest_(o.dest_), capacity_(o.capacity_), buffers_(std::move(o.buffers_)),
      requests_(std::move(o.requests_)), queue_(std::move(o.queue_)), current_(o.current_), counters_(o.counters_),
      board_(o.board_), id_(o.id_), credit_(o.credit_) {
  if (board_) board_->move(id_, this);
  o.board_ = nullptr;
  o.buffers_.clear();
}

SendChannel::~SendChannel() {
  // Requests still in flight at destruction belong to a failed run; cancel
  // nothing (cancelling sends is deprecated) but do not leak the handles.
  for (auto& b : buffers_)
    if (b.request != MPI_REQUEST_NULL) MPI_Request_free(&b.request);
  if (board_) {
    // The server gave back every buffer before it acknowledged the close:
    // take those messages now, so that a later channel with this id never
    // receives them.
    try {
      board_->poll();
    } catch (...) {
    }
    board_->leave(id_);
  }
}

bool SendChannel::fits(std::size_t payload) const {
  return current_ >= 0 && buffers_[current_].used + event_bytes(payload) <= capacity_;
}

std::size_t SendChannel::room() const {
  if (current_ < 0) return 0;
  const std::size_t used = buffers_[current_].used + sizeof(EventHeader);
  return used >= capacity_ ? 0 : (capacity_ - used) & ~std::size_t{7};
}

std::byte* SendChannel::append(const EventHeader& header, std::size_t payload) {
  Buffer& b = buffers_[current_];
  std::memcpy(b.data.data() + b.used, &header, sizeof header);
  std::byte* out = b.data.data() + b.used + sizeof header;
  b.used += event_bytes(payload);
  return out;
}

void SendChannel::isend(Buffer& b) {
  BufferHeader bh;
  bh.channel = id_;
  bh.bytes = b.used;
  std::memcpy(b.data.data(), &bh, sizeof bh);
  if (MPI_Isend(b.data.data(), static_cast<int>(b.used), MPI_BYTE, dest_, kTagEvents, comm_, &b.request) != MPI_SUCCESS)
    throw std::runtime_error("MPI_Isend to server rank " + std::to_string(dest_) + " failed");
  credit_ -= static_cast<std::int64_t>(b.used);
  counters_->bytes_sent += b.used;
  counters_->largest_message_bytes = std::max<std::uint64_t>(counters_->largest_message_bytes, b.used);
  ++counters_->messages_sent;
}

void SendChannel::send_queued() {
  while (!queue_.empty()) {
    Buffer& b = buffers_[queue_.front()];
    if (static_cast<std::int64_t>(b.used) > credit_) return;
    b.queued = false;
    queue_.pop_front();
    isend(b);
  }
}

void SendChannel::add_credit(std::int64_t bytes) {
  credit_ += bytes;
  if (board_) counters_->credit_bytes = std::max<std::uint64_t>(counters_->credit_bytes, static_cast<std::uint64_t>(credit_));
  send_queued();
}

void SendChannel::send_current() {
  if (current_ < 0) return;
  Buffer& b = buffers_[current_];
  if (b.used <= sizeof(BufferHeader)) return;
  b.queued = true;
  queue_.push_back(current_);
  current_ = -1;
  if (board_) board_->poll();
  send_queued();
  current_ = find_free();
}

int SendChannel::find_free() {
  for (size_t i = 0; i < buffers_.size(); ++i) {
    Buffer& b = buffers_[i];
    if (b.queued) continue;
    if (b.request != MPI_REQUEST_NULL) {
      int done = 0;
      MPI_Test(&b.request, &done, MPI_STATUS_IGNORE);
      if (!done) continue;
    }
    if (b.used > sizeof(BufferHeader) && static_cast<int>(i) == current_) continue;
    b.used = sizeof(BufferHeader);
    return static_cast<int>(i);
  }
  return -1;
}

void SendChannel::progress() {
  if (board_) board_->poll();
  send_queued();
  if (current_ < 0) current_ = find_free();
  else
    for (auto& b : buffers_)
      if (b.request != MPI_REQUEST_NULL) {
        int done = 0;
        MPI_Test(&b.request, &done, MPI_STATUS_IGNORE);
      }
}

void SendChannel::wait_until(const std::function<bool()>& done) {
  // Poll with a growing sleep, so a waiting client yields its core, and
  // check about once a second that the server still lives: MPI alone would
  // wait forever for a dead one. Credit for every channel is taken in
  // meanwhile, so data held back for other servers leaves.
  auto nap = std::chrono::microseconds(5);
  double last_check = MPI_Wtime();
  while (!done()) {
    if (board_ && board_->poll()) {
      nap = std::chrono::microseconds(5);
      continue;
    }
    std::this_thread::sleep_for(nap);
    nap = std::min(nap * 2, std::chrono::microseconds(500));
    if (MPI_Wtime() - last_check > 1.0) {
      check_alive({dest_});
      last_check = MPI_Wtime();
    }
  }
}

void SendChannel::acquire() {
  if (current_ >= 0) return;
  current_ = find_free();
  if (current_ >= 0) return;
  const bool for_credit = !queue_.empty();
  ++counters_->waits;
  if (for_credit) ++counters_->credit_waits;
  const double t0 = MPI_Wtime();
  wait_until([&] {
    send_queued();
    for (size_t i = 0; i < buffers_.size(); ++i) requests_[i] = buffers_[i].request;
    int index = MPI_UNDEFINED, flag = 0;
    MPI_Testany(static_cast<int>(requests_.size()), requests_.data(), &index, &flag, MPI_STATUS_IGNORE);
    for (size_t i = 0; i < buffers_.size(); ++i) buffers_[i].request = requests_[i];
    return find_free() >= 0;
  });
  const double waited = MPI_Wtime() - t0;
  counters_->wait_seconds += waited;
  if (for_credit) counters_->credit_wait_seconds += waited;
  current_ = find_free();
  if (current_ < 0) throw std::runtime_error("internal: no send buffer free after a completed send");
}

void SendChannel::drain() {
  send_current();
  const double t0 = MPI_Wtime();
  wait_until([&] {
    send_queued();
    if (!queue_.empty()) return false;
    for (auto& b : buffers_) {
      int done = 0;
      MPI_Test(&b.request, &done, MPI_STATUS_IGNORE);
      if (!done) return false;
    }
    return true;
  });
  counters_->close_seconds += MPI_Wtime() - t0;
  if (current_ < 0) current_ = find_free();
}

}  // namespace foehn::transport
