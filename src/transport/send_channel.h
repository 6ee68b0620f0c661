// The client's outgoing path to one server: a ring of fixed-size buffers.
// The client fills the current buffer while earlier ones are in flight with
// non-blocking MPI; when no buffer is free it waits, and that wait is timed
// (it is the number that says whether output slowed the model).
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "transport/event.h"

namespace foehn::transport {

struct ClientCounters {
  double wait_seconds = 0;      // blocked waiting for a free buffer during the run
  double close_seconds = 0;     // waiting for the last buffers to leave at context close
  std::uint64_t bytes_sent = 0;
  std::uint64_t messages_sent = 0;
  std::uint64_t waits = 0;      // how many times a buffer was not free
  std::uint64_t buffer_bytes = 0;           // send buffer memory allocated
  std::uint64_t largest_message_bytes = 0;  // the fullest buffer sent
};

class SendChannel {
 public:
  SendChannel(MPI_Comm comm, int dest, std::size_t capacity, int nbuffers, ClientCounters& counters);
  SendChannel(const SendChannel&) = delete;
  SendChannel& operator=(const SendChannel&) = delete;
  SendChannel(SendChannel&&) = default;
  ~SendChannel();

  std::size_t capacity() const { return capacity_; }
  // Room for an event with `payload` bytes in the current buffer, without sending.
  bool fits(std::size_t payload) const;
  // Payload bytes an event may carry in an empty buffer.
  std::size_t max_payload() const { return capacity_ - sizeof(BufferHeader) - sizeof(EventHeader); }
  // Payload bytes that fit in the current buffer right now (0 if none).
  std::size_t room() const;
  // Whether the current buffer can be filled without waiting.
  bool ready() const { return current_ >= 0; }

  // Appends an event; the caller then writes its payload to the returned
  // pointer. The event must fit (check fits(); call send_current() first).
  std::byte* append(const EventHeader& header, std::size_t payload);
  // Sends the current buffer if it holds events.
  void send_current();
  // Makes sure a current buffer exists, waiting for one to be free.
  void acquire();
  // Tests in-flight sends (MPI progress); frees completed buffers.
  void progress();
  // Sends what is pending and waits for every buffer to be delivered.
  void drain();

 private:
  struct Buffer {
    std::vector<std::byte> data;
    std::size_t used = 0;
    MPI_Request request = MPI_REQUEST_NULL;
  };
  int find_free();
  void wait_until(const std::function<bool()>& done);

  MPI_Comm comm_;
  int dest_;
  std::size_t capacity_;
  std::vector<Buffer> buffers_;
  std::vector<MPI_Request> requests_;  // scratch for MPI_Waitany, sized once
  int current_ = -1;  // buffer being filled, -1 if none acquired
  ClientCounters* counters_;
};

}  // namespace foehn::transport
