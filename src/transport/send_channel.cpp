#include "transport/send_channel.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>

#include "transport/liveness.h"
#include <stdexcept>
#include <string>

namespace foehn::transport {

SendChannel::SendChannel(MPI_Comm comm, int dest, std::size_t capacity, int nbuffers, ClientCounters& counters)
    : comm_(comm), dest_(dest), capacity_(capacity), buffers_(nbuffers), counters_(&counters) {
  if (nbuffers < 2) throw std::invalid_argument("a send channel needs at least two buffers");
  if (capacity <= sizeof(BufferHeader) + sizeof(EventHeader) + 8)
    throw std::invalid_argument("send buffer of " + std::to_string(capacity) + " bytes is too small");
  for (auto& b : buffers_) b.data.resize(capacity);
  requests_.resize(nbuffers);
  counters.buffer_bytes += capacity * static_cast<std::uint64_t>(nbuffers);
  current_ = 0;
  buffers_[0].used = sizeof(BufferHeader);
}

SendChannel::~SendChannel() {
  // Requests still in flight at destruction belong to a failed run; cancel
  // nothing (cancelling sends is deprecated) but do not leak the handles.
  for (auto& b : buffers_)
    if (b.request != MPI_REQUEST_NULL) MPI_Request_free(&b.request);
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

void SendChannel::send_current() {
  if (current_ < 0) return;
  Buffer& b = buffers_[current_];
  if (b.used <= sizeof(BufferHeader)) return;
  BufferHeader bh;
  bh.bytes = b.used;
  std::memcpy(b.data.data(), &bh, sizeof bh);
  if (MPI_Isend(b.data.data(), static_cast<int>(b.used), MPI_BYTE, dest_, kTagEvents, comm_, &b.request) != MPI_SUCCESS)
    throw std::runtime_error("MPI_Isend to server rank " + std::to_string(dest_) + " failed");
  counters_->bytes_sent += b.used;
  counters_->largest_message_bytes = std::max<std::uint64_t>(counters_->largest_message_bytes, b.used);
  ++counters_->messages_sent;
  current_ = find_free();
}

int SendChannel::find_free() {
  for (size_t i = 0; i < buffers_.size(); ++i) {
    Buffer& b = buffers_[i];
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
  // wait forever for a dead one.
  auto nap = std::chrono::microseconds(5);
  double last_check = MPI_Wtime();
  while (!done()) {
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
  ++counters_->waits;
  const double t0 = MPI_Wtime();
  wait_until([&] {
    for (size_t i = 0; i < buffers_.size(); ++i) requests_[i] = buffers_[i].request;
    int index = MPI_UNDEFINED, done = 0;
    MPI_Testany(static_cast<int>(requests_.size()), requests_.data(), &index, &done, MPI_STATUS_IGNORE);
    for (size_t i = 0; i < buffers_.size(); ++i) buffers_[i].request = requests_[i];
    return done != 0 && index != MPI_UNDEFINED;
  });
  counters_->wait_seconds += MPI_Wtime() - t0;
  current_ = find_free();
  if (current_ < 0) throw std::runtime_error("internal: no send buffer free after a completed send");
}

void SendChannel::drain() {
  send_current();
  const double t0 = MPI_Wtime();
  for (auto& b : buffers_)
    wait_until([&] {
      int done = 0;
      MPI_Test(&b.request, &done, MPI_STATUS_IGNORE);
      return done != 0;
    });
  counters_->close_seconds += MPI_Wtime() - t0;
  if (current_ < 0) current_ = find_free();
}

}  // namespace foehn::transport
