// PageBuffer: the send buffers' memory, taken from the kernel uninitialised
// (zero pages) instead of zero-filled by a vector.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <utility>

#include "transport/page_buffer.h"

namespace foehn::transport {
namespace {

TEST(PageBuffer, HoldsWhatIsWrittenAcrossItsWholeSize) {
  const std::size_t bytes = (std::size_t{5} << 20) + 123;  // an odd tail
  PageBuffer b(bytes);
  ASSERT_NE(b.data(), nullptr);
  EXPECT_EQ(b.size(), bytes);
  EXPECT_EQ(b.data()[bytes - 1], std::byte{0});  // fresh pages read as zero
  for (std::size_t k = 0; k < bytes; k += 4093) b.data()[k] = static_cast<std::byte>(k % 251);
  b.data()[bytes - 1] = std::byte{7};
  for (std::size_t k = 0; k < bytes; k += 4093) ASSERT_EQ(b.data()[k], static_cast<std::byte>(k % 251)) << k;
  EXPECT_EQ(b.data()[bytes - 1], std::byte{7});
}

TEST(PageBuffer, MovesOwnership) {
  PageBuffer a(1000);
  std::memset(a.data(), 0x5a, a.size());
  std::byte* where = a.data();
  PageBuffer b(std::move(a));
  EXPECT_EQ(a.data(), nullptr);
  EXPECT_EQ(a.size(), 0u);
  EXPECT_EQ(b.data(), where);
  EXPECT_EQ(b.data()[999], std::byte{0x5a});
  PageBuffer c(64);
  c = std::move(b);  // releases c's own pages
  EXPECT_EQ(c.data(), where);
  EXPECT_EQ(c.size(), 1000u);
  EXPECT_EQ(b.data(), nullptr);
  PageBuffer empty(0);
  EXPECT_EQ(empty.data(), nullptr);
}

}  // namespace
}  // namespace foehn::transport
