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
                         CreditBoard* board, std::size_t message_size, MPI_Comm direct, std::size_t direct_min_bytes)
    : comm_(comm),
      dest_(dest),
      capacity_(capacity),
      message_size_(message_size ? std::min(message_size, capacity) : capacity),
      buffers_(nbuffers),
      counters_(&counters),
      board_(board) {
  if (nbuffers < 2) throw std::invalid_argument("a send channel needs at least two buffers");
  if (message_size_ <= sizeof(BufferHeader) + sizeof(EventHeader) + 8)
    throw std::invalid_argument("send buffer (or message) of " + std::to_string(message_size_) + " bytes is too small");
  for (auto& b : buffers_) {
    b.data = PageBuffer(capacity);
    b.used = sizeof(BufferHeader);
  }
  counters.buffer_bytes += capacity * static_cast<std::uint64_t>(nbuffers);
  // Direct payloads only where the smallest one fits an empty message
  // beside its header: then make_direct_space holds in an empty buffer.
  const std::size_t overhead = 2 * sizeof(BufferHeader) + sizeof(EventHeader) + 8;
  if (direct != MPI_COMM_NULL && direct_min_bytes > 0 && direct_min_bytes + overhead <= message_size_) {
    direct_comm_ = direct;
    direct_min_ = direct_min_bytes;
  }
  current_ = 0;
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
    : comm_(o.comm_),
      dest_(o.dest_),
      capacity_(o.capacity_),
      message_size_(o.message_size_),
      buffers_(std::move(o.buffers_)),
      queue_(std::move(o.queue_)),
      current_(o.current_),
      counters_(o.counters_),
      board_(o.board_),
      id_(o.id_),
      credit_(o.credit_),
      direct_comm_(o.direct_comm_),
      direct_min_(o.direct_min_) {
  if (board_) board_->move(id_, this);
  o.board_ = nullptr;
  o.buffers_.clear();
}

SendChannel::~SendChannel() {
  // Requests still in flight at destruction belong to a failed run; cancel
  // nothing (cancelling sends is deprecated) but do not leak the handles.
  for (auto& b : buffers_)
    for (auto& r : b.requests)
      if (r != MPI_REQUEST_NULL) MPI_Request_free(&r);
  if (board_) {
    // The server gave back every buffer before it acknowledged the close:
    // take those messages now, so that a later channel with this id never
    // receives them.
    try {
      board_->poll();
    } catch (...) {}
    board_->leave(id_);
  }
}

bool SendChannel::event_fits(std::size_t payload) const {
  const Buffer& b = buffers_[current_];
  return b.used + event_bytes(payload) <= capacity_ && b.used - b.segment + event_bytes(payload) <= message_size_;
}

bool SendChannel::make_space(std::size_t payload) {
  if (current_ < 0) return false;
  if (event_fits(payload)) return true;
  const Buffer& b = buffers_[current_];
  // A new message in the same buffer, if the buffer has room for it.
  if (b.used > b.segment + sizeof(BufferHeader) && b.used + sizeof(BufferHeader) + event_bytes(payload) <= capacity_) {
    seal_segment();
    return event_fits(payload);
  }
  return false;
}

std::size_t SendChannel::room() const {
  if (current_ < 0) return 0;
  const Buffer& b = buffers_[current_];
  const std::size_t need = sizeof(EventHeader);
  const std::size_t in_buffer = b.used + need >= capacity_ ? 0 : capacity_ - b.used - need;
  const std::size_t in_message =
      b.used - b.segment + need >= message_size_ ? 0 : message_size_ - (b.used - b.segment) - need;
  return std::min(in_buffer, in_message) & ~std::size_t{7};
}

std::byte* SendChannel::append(const EventHeader& header, std::size_t payload) {
  Buffer& b = buffers_[current_];
  std::memcpy(b.data.data() + b.used, &header, sizeof header);
  std::byte* out = b.data.data() + b.used + sizeof header;
  b.used += event_bytes(payload);
  return out;
}

void SendChannel::queue_segment(std::size_t follows) {
  Buffer& b = buffers_[current_];
  BufferHeader bh;
  bh.channel = id_;
  bh.bytes = b.used - b.segment;
  std::memcpy(b.data.data() + b.segment, &bh, sizeof bh);
  queue_.push_back({current_, b.segment, b.used - b.segment, follows, false});
  ++b.queued;
}

void SendChannel::seal_segment() {
  queue_segment(0);
  Buffer& b = buffers_[current_];
  b.segment = b.used;
  b.used += sizeof(BufferHeader);
  if (board_) board_->poll();
  send_queued();
}

bool SendChannel::make_direct_space(std::size_t payload) {
  if (current_ < 0) return false;
  const Buffer& b = buffers_[current_];
  // The direct event ends the open message: it needs room for its header.
  if (b.used - b.segment + sizeof(EventHeader) > message_size_) {
    if (b.used + sizeof(BufferHeader) > capacity_) return false;
    seal_segment();
  }
  return direct_room() >= payload;
}

std::size_t SendChannel::direct_room() const {
  if (current_ < 0) return 0;
  const Buffer& b = buffers_[current_];
  if (b.used - b.segment + sizeof(EventHeader) > message_size_) return 0;
  // The payload follows the header; the next message's header after it.
  const std::size_t need = b.used + sizeof(EventHeader) + sizeof(BufferHeader);
  const std::size_t in_buffer = need >= capacity_ ? 0 : capacity_ - need;
  return std::min(in_buffer, message_size_) & ~std::size_t{7};
}

std::byte* SendChannel::begin_direct(const EventHeader& header) {
  append(header, 0);
  Buffer& b = buffers_[current_];
  return b.data.data() + b.used;
}

void SendChannel::end_direct(std::size_t payload) {
  Buffer& b = buffers_[current_];
  queue_segment(payload);
  queue_.push_back({current_, b.used, payload, 0, true});
  ++b.queued;
  b.segment = b.used + padded(payload);
  b.used = b.segment + sizeof(BufferHeader);
  if (board_) board_->poll();
  send_queued();
}

void SendChannel::send_queued() {
  while (!queue_.empty()) {
    const Sealed m = queue_.front();
    // A buffer ending in a direct event leaves only with its payload, so
    // that the server, once it has the event, never waits on credit.
    if (static_cast<std::int64_t>(m.bytes + m.follows) > credit_) return;
    queue_.pop_front();
    Buffer& b = buffers_[m.buffer];
    --b.queued;
    MPI_Request& r = b.requests.emplace_back(MPI_REQUEST_NULL);
    if (MPI_Isend(b.data.data() + m.begin, static_cast<int>(m.bytes), MPI_BYTE, dest_,
                  m.payload ? kTagPayload : kTagEvents, m.payload ? direct_comm_ : comm_, &r) != MPI_SUCCESS)
      throw std::runtime_error("MPI_Isend to server rank " + std::to_string(dest_) + " failed");
    credit_ -= static_cast<std::int64_t>(m.bytes);
    counters_->bytes_sent += m.bytes;
    counters_->largest_message_bytes = std::max<std::uint64_t>(counters_->largest_message_bytes, m.bytes);
    ++counters_->messages_sent;
  }
}

void SendChannel::add_credit(std::int64_t bytes) {
  credit_ += bytes;
  if (board_)
    counters_->credit_bytes = std::max<std::uint64_t>(counters_->credit_bytes, static_cast<std::uint64_t>(credit_));
  send_queued();
}

void SendChannel::send_current() {
  if (current_ < 0) return;
  Buffer& b = buffers_[current_];
  if (b.used <= b.segment + sizeof(BufferHeader)) {
    if (b.segment == 0) return;  // nothing written into this buffer
  } else {
    seal_segment();
  }
  current_ = -1;
  current_ = find_free();
}

bool SendChannel::buffer_free(Buffer& b) {
  if (b.queued) return false;
  if (!b.requests.empty()) {
    int done = 0;
    MPI_Testall(static_cast<int>(b.requests.size()), b.requests.data(), &done, MPI_STATUSES_IGNORE);
    if (!done) return false;
    b.requests.clear();
  }
  return true;
}

int SendChannel::find_free() {
  for (size_t i = 0; i < buffers_.size(); ++i) {
    if (static_cast<int>(i) == current_) continue;
    Buffer& b = buffers_[i];
    if (!buffer_free(b)) continue;
    b.segment = 0;
    b.used = sizeof(BufferHeader);
    return static_cast<int>(i);
  }
  return -1;
}

bool SendChannel::all_sent() {
  send_queued();
  if (!queue_.empty()) return false;
  for (auto& b : buffers_)
    if (!buffer_free(b)) return false;
  return true;
}

void SendChannel::progress() {
  if (board_) board_->poll();
  send_queued();
  if (current_ < 0)
    current_ = find_free();
  else
    for (auto& b : buffers_)
      for (auto& r : b.requests)
        if (r != MPI_REQUEST_NULL) {
          int done = 0;
          MPI_Test(&r, &done, MPI_STATUS_IGNORE);
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
    current_ = find_free();
    return current_ >= 0;
  });
  const double waited = MPI_Wtime() - t0;
  counters_->wait_seconds += waited;
  if (for_credit) counters_->credit_wait_seconds += waited;
}

void SendChannel::drain() {
  send_current();
  const double t0 = MPI_Wtime();
  wait_until([&] { return all_sent(); });
  counters_->close_seconds += MPI_Wtime() - t0;
  if (current_ < 0) current_ = find_free();
}

}  // namespace foehn::transport
