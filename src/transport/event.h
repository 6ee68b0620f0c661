// The events that travel from clients to servers inside send buffers.
//
// A buffer is a BufferHeader followed by events; each event is an
// EventHeader followed by `count * elem_size` payload bytes, padded to 8.
// Decoding checks every length against the buffer size and the version, so
// a corrupt or foreign message is reported, never read past its end.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>

namespace foehn::transport {

constexpr std::uint32_t kBufferMagic = 0x6e686f66;  // "fohn"
constexpr std::uint16_t kProtocolVersion = 3;

// MPI tags on foehn's private duplicate of the world communicator.
enum Tag : int {
  kTagEvents = 1,
  kTagPlan = 2,
  kTagAck = 3,
  kTagReport = 4,
  kTagOrder = 5,
  kTagReserve = 6,   // client -> server: a channel asks for receive space (CreditMessage)
  kTagCredit = 7,    // server -> client: space granted or given back (CreditMessage)
  kTagBlock = 8,     // level-1 -> level-2 server: an assembled block of a record
  kTagLevel2 = 9,    // level-1 -> level-2 server: an announce, or a context done
  kTagPayload = 10,  // on World::direct: the values of a kDirect data event
  kTagError = 11,    // server -> client: a context failed (its key, the message); raised at the next call
  kTagSynced = 12,   // server -> client 0: the records before a checkpoint are on disk (the context's key)
};

enum class EventType : std::uint32_t {
  data = 1,           // a fragment of a variable's values for one record
  announce = 2,       // a file's record exists, with its time value
  context_close = 3,  // this client closed the context
  finalize = 4,       // this client finalized foehn
  sync = 5,           // a checkpoint: the records announced before it reach the disk (client rank 0 sends it);
                      // with elem_size 8, `count` int64 words: the open windows reduced on the servers
                      // (server::OutputEngine::on_sync)
};

struct BufferHeader {
  std::uint32_t magic = kBufferMagic;
  std::uint16_t version = kProtocolVersion;
  std::uint16_t channel = 0;  // the sender's channel, for credit; 0: not under credit
  std::uint64_t bytes = 0;    // whole buffer including this header
};

// Flow control by credit (credit_board.h): a client channel asks each
// server for receive space once (kTagReserve); the server grants it
// (kTagCredit) and gives the bytes of every buffer back once it has taken
// the buffer in. A channel never has more bytes in flight than its credit.
struct CreditMessage {
  std::uint16_t channel = 0;  // the client's channel id (BufferHeader::channel)
  std::uint16_t reserved = 0;
  std::uint32_t reserved2 = 0;
  std::int64_t bytes = 0;  // space asked (reserve) or granted (credit)
};
static_assert(sizeof(CreditMessage) == 16);

// Flags of a data event.
enum EventFlags : std::uint16_t {
  kSample = 1,      // a sample for the server to accumulate (temporal operation on the server)
  kLastSample = 2,  // with count 0: this client sent every sample of the record
  // The values are not in the buffer: they follow as a message of their
  // own (kTagPayload on World::direct, in event order), which the server
  // can receive straight into the record it assembles: one copy per byte
  // on the server instead of two (docs/transport.md, "Direct payloads").
  kDirect = 4,
  // With count 0: this client's transformed field has no value in the
  // record (a temporal_splitting's cycle not yet full): the record is
  // written as fill values once every client has said so, and a
  // checkpoint behind it goes on (issue 18).
  kNoValue = 8,
};

struct EventHeader {
  EventType type;
  std::uint32_t context = 0;    // context key
  std::uint32_t item = 0;       // variable index (data) or file index (announce)
  std::uint16_t elem_size = 0;  // bytes per value (data)
  std::uint16_t flags = 0;      // EventFlags (data)
  std::int64_t record = 0;      // record index in the file
  std::int64_t offset = 0;      // first value of this fragment in the client's packed stream
  std::int64_t count = 0;       // number of values in this fragment
  double time = 0;              // announce: end of the record's interval; sample: its weight
  double time_start = 0;        // announce: start of the record's interval
};
static_assert(sizeof(EventHeader) == 56);
static_assert(sizeof(BufferHeader) == 16);

constexpr std::size_t padded(std::size_t n) { return (n + 7) & ~std::size_t{7}; }
inline std::size_t event_bytes(std::size_t payload) { return sizeof(EventHeader) + padded(payload); }

struct DecodeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Calls handle(header, payload) for each event of a received buffer.
// Throws DecodeError on a bad magic, version or length.
void decode_buffer(const std::byte* data, std::size_t size,
                   const std::function<void(const EventHeader&, const std::byte*)>& handle);

}  // namespace foehn::transport
