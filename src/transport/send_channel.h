// The client's outgoing path to one server: a ring of fixed-size buffers
// under credit. The client fills the current buffer while earlier ones are
// in flight with non-blocking MPI. A buffer leaves as messages of at most
// `message_size` bytes (segments, each a whole buffer for the decoder), as
// soon as each is full: the server takes in the first while the client
// packs the next, and its receive buffer stays small and in cache. A
// segment leaves only when the server has granted room for it
// (credit_board.h); until then it waits in order in the channel's queue. When no buffer is free the client waits,
// receiving credit and sending queued buffers of every channel meanwhile,
// and that wait is timed: it is the number that says whether output slowed
// the model.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

#include "transport/event.h"
#include "transport/page_buffer.h"

namespace foehn::transport {

class CreditBoard;

struct ClientCounters {
  double wait_seconds = 0;         // blocked waiting for a free buffer during the run (credit waits included)
  double credit_wait_seconds = 0;  // of which the buffers were held back for lack of credit
  double close_seconds = 0;        // waiting for the last buffers to leave at context close
  std::uint64_t bytes_sent = 0;
  std::uint64_t messages_sent = 0;
  std::uint64_t waits = 0;                  // how many times a buffer was not free
  std::uint64_t credit_waits = 0;           // of which because the server's credit was used up
  std::uint64_t buffer_bytes = 0;           // send buffer memory allocated
  std::uint64_t largest_message_bytes = 0;  // the fullest buffer sent
  std::uint64_t credit_bytes = 0;           // receive space the servers granted (at its peak)
  std::uint64_t progress_threads = 0;       // contexts that ran a progress thread
};

class SendChannel {
 public:
  // With a board, the channel asks server `dest` for capacity * nbuffers
  // bytes of credit at once, and sends nothing beyond what it was granted.
  // With a direct communicator, fragments of at least direct_min_bytes
  // may travel as direct payloads (event.h, kDirect).
  SendChannel(MPI_Comm comm, int dest, std::size_t capacity, int nbuffers, ClientCounters& counters,
              CreditBoard* board = nullptr, std::size_t message_size = 0 /* 0: the capacity */,
              MPI_Comm direct = MPI_COMM_NULL, std::size_t direct_min_bytes = 0);
  SendChannel(const SendChannel&) = delete;
  SendChannel& operator=(const SendChannel&) = delete;
  SendChannel(SendChannel&& other) noexcept;
  SendChannel& operator=(SendChannel&&) = delete;
  ~SendChannel();

  int dest() const { return dest_; }
  std::size_t capacity() const { return capacity_; }
  // Whether an event with `payload` bytes fits in the current buffer, once
  // the current message is sealed (and sent) if it must be. Never blocks.
  bool make_space(std::size_t payload);
  // Payload bytes an event may carry in an empty message.
  std::size_t max_payload() const { return message_size_ - sizeof(BufferHeader) - sizeof(EventHeader); }
  // Payload bytes that fit in the current message right now (0 if none).
  std::size_t room() const;
  // Whether the current buffer can be filled without waiting.
  bool ready() const { return current_ >= 0; }

  // Direct payloads: a fragment of `bytes` (what is left of a field) goes
  // as one if this is true; then make_direct_space(min(bytes,
  // direct_min_bytes())) (false: send_current and acquire a buffer, then it
  // holds), begin_direct, pack at most direct_room() bytes into the
  // pointer returned, end_direct.
  bool wants_direct(std::size_t bytes) const { return direct_comm_ != MPI_COMM_NULL && bytes >= direct_min_; }
  std::size_t direct_min_bytes() const { return direct_min_; }
  bool make_direct_space(std::size_t payload);
  std::size_t direct_room() const;
  std::byte* begin_direct(const EventHeader& header);
  // The header's message and the payload (its bytes, as packed) leave
  // together, or wait for credit for both, in order.
  void end_direct(std::size_t payload);

  // Appends an event; the caller then writes its payload to the returned
  // pointer. The event must fit (check fits(); call send_current() first).
  std::byte* append(const EventHeader& header, std::size_t payload);
  // Seals the current buffer if it holds events: it leaves now if the
  // credit allows, or later, in order, when credit arrives. Never blocks.
  void send_current();
  // Makes sure a current buffer exists, waiting for one to be free.
  void acquire();
  // Tests in-flight sends (MPI progress), receives credit and sends what it allows.
  void progress();
  // Sends what is pending and waits for every buffer to be delivered.
  void drain();

  // Called by the board: the server granted (or gave back) `bytes`.
  void add_credit(std::int64_t bytes);
  std::int64_t credit() const { return credit_; }

 private:
  struct Buffer {
    PageBuffer data;
    std::size_t used = 0;               // end of the last event
    std::size_t segment = 0;            // where the open message (its header) starts
    int queued = 0;                     // sealed messages waiting for credit
    std::vector<MPI_Request> requests;  // of the messages sent from it
  };
  struct Sealed {
    int buffer;
    std::size_t begin, bytes;
    std::size_t follows = 0;  // a buffer whose last event is direct: its payload's bytes (the next entry)
    bool payload = false;     // a direct payload (sent on direct_comm_)
  };
  bool event_fits(std::size_t payload) const;
  void seal_segment();                      // the open message of the current buffer joins the queue
  void queue_segment(std::size_t follows);  // the same, leaving the buffer's cursors as they are
  bool buffer_free(Buffer& b);
  int find_free();
  void send_queued();  // as many queued messages as the credit allows, in order
  bool all_sent();
  void wait_until(const std::function<bool()>& done);

  MPI_Comm comm_;
  int dest_;
  std::size_t capacity_;
  std::size_t message_size_;
  std::vector<Buffer> buffers_;
  std::deque<Sealed> queue_;  // sealed messages waiting for credit, oldest first
  int current_ = -1;          // buffer being filled, -1 if none acquired
  ClientCounters* counters_;
  CreditBoard* board_ = nullptr;
  std::uint16_t id_ = 0;     // on the board (BufferHeader::channel)
  std::int64_t credit_ = 0;  // bytes the server still has room for (unlimited without a board)
  MPI_Comm direct_comm_ = MPI_COMM_NULL;
  std::size_t direct_min_ = 0;
};

}  // namespace foehn::transport
