#include "transport/event.h"

#include <cstring>
#include <string>

namespace foehn::transport {

void decode_buffer(const std::byte* data, std::size_t size,
                   const std::function<void(const EventHeader&, const std::byte*)>& handle) {
  BufferHeader bh;
  if (size < sizeof bh)
    throw DecodeError("message of " + std::to_string(size) + " bytes is shorter than a buffer header");
  std::memcpy(&bh, data, sizeof bh);
  if (bh.magic != kBufferMagic) throw DecodeError("message is not a foehn buffer (bad magic)");
  if (bh.version != kProtocolVersion)
    throw DecodeError("foehn protocol version " + std::to_string(bh.version) + " received, this build speaks " +
                      std::to_string(kProtocolVersion) + " (client and server built from different versions?)");
  if (bh.bytes != size)
    throw DecodeError("buffer says " + std::to_string(bh.bytes) + " bytes, message has " + std::to_string(size));
  std::size_t pos = sizeof bh;
  while (pos < size) {
    EventHeader eh;
    if (size - pos < sizeof eh) throw DecodeError("truncated event header");
    std::memcpy(&eh, data + pos, sizeof eh);
    pos += sizeof eh;
    std::size_t payload = 0;
    if (eh.type == EventType::data) {
      if (eh.count < 0 || eh.elem_size == 0 || eh.elem_size > 8) throw DecodeError("bad data event sizes");
      if ((eh.flags & kLastSample) && eh.count != 0) throw DecodeError("a last-sample marker carries no values");
      if ((eh.flags & kDirect) && (eh.flags & kLastSample))
        throw DecodeError("a last-sample marker has no direct values");
      // Compare counts, not byte sizes, so that a huge count cannot overflow.
      if (!(eh.flags & kDirect) && static_cast<std::uint64_t>(eh.count) > (size - pos) / eh.elem_size)
        throw DecodeError("truncated event payload");
      if (!(eh.flags & kDirect)) payload = padded(static_cast<std::size_t>(eh.count) * eh.elem_size);
    }
    if (eh.type == EventType::sync && eh.elem_size != 0) {  // a checkpoint's open windows (int64 words)
      if (eh.count < 0 || eh.elem_size != 8 || static_cast<std::uint64_t>(eh.count) > (size - pos) / eh.elem_size)
        throw DecodeError("bad sync event payload");
      payload = padded(static_cast<std::size_t>(eh.count) * eh.elem_size);
    }
    if (size - pos < payload) throw DecodeError("truncated event payload");
    handle(eh, data + pos);
    pos += payload;
  }
}

}  // namespace foehn::transport
