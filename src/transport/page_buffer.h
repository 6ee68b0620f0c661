// A large byte buffer taken straight from the kernel, for send buffers.
//
// A std::vector zero-fills its bytes when it is sized: for the default
// send buffers (one whole output step, up to 64 MiB each, two per server)
// that is a pass over all of it with a page fault per 4 KiB. mmap with
// MAP_POPULATE maps the same zeroed pages in one call, in about half the
// time (128 MiB: 40 ms against 75 ms here), at foehn_close_definition
// rather than in the model's first output steps. Transparent huge pages
// were slower still on first touch (300 ms: the kernel compacts memory).
#pragma once

#include <cstddef>

namespace foehn::transport {

class PageBuffer {
 public:
  PageBuffer() = default;
  explicit PageBuffer(std::size_t bytes);  // throws std::bad_alloc
  ~PageBuffer();
  PageBuffer(PageBuffer&& o) noexcept;
  PageBuffer& operator=(PageBuffer&& o) noexcept;
  PageBuffer(const PageBuffer&) = delete;
  PageBuffer& operator=(const PageBuffer&) = delete;

  std::byte* data() { return data_; }
  const std::byte* data() const { return data_; }
  std::size_t size() const { return size_; }

 private:
  void release();
  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace foehn::transport
