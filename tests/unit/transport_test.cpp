// Tests of the transport module's pure parts: decoding of event buffers and
// the checked binary encoder/decoder used for definition-time messages.
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "transport/event.h"
#include "transport/wire.h"

namespace foehn::transport {
namespace {

// ---------------------------------------------------------------------------
// Event buffers

// Builds a buffer the way the documented layout describes it: a header, then
// events, each an EventHeader followed by its payload padded to 8 bytes.
class BufferBuilder {
 public:
  BufferBuilder() { bytes_.resize(sizeof(BufferHeader)); }

  template <class T>
  BufferBuilder& data(std::uint32_t context, std::uint32_t item, std::int64_t record, std::int64_t offset,
                      const std::vector<T>& values) {
    EventHeader eh{};
    eh.type = EventType::data;
    eh.context = context;
    eh.item = item;
    eh.elem_size = sizeof(T);
    eh.record = record;
    eh.offset = offset;
    eh.count = static_cast<std::int64_t>(values.size());
    return event(eh, values.data(), values.size() * sizeof(T));
  }
  BufferBuilder& event(const EventHeader& eh, const void* payload = nullptr, std::size_t payload_bytes = 0) {
    append(&eh, sizeof eh);
    if (payload_bytes) append(payload, payload_bytes);
    bytes_.resize(padded(bytes_.size()));  // zero padding
    return *this;
  }
  // Raw bytes, not padded (to build malformed buffers).
  BufferBuilder& raw(const void* p, std::size_t n) {
    append(p, n);
    return *this;
  }
  // The finished buffer; the header's byte count is the buffer size unless
  // given, and the magic and version may be overridden.
  std::vector<std::byte> finish(std::uint32_t magic = kBufferMagic, std::uint16_t version = kProtocolVersion,
                                std::int64_t bytes = -1) const {
    std::vector<std::byte> out = bytes_;
    BufferHeader bh;
    bh.magic = magic;
    bh.version = version;
    bh.bytes = bytes < 0 ? out.size() : static_cast<std::uint64_t>(bytes);
    std::memcpy(out.data(), &bh, sizeof bh);
    return out;
  }

 private:
  void append(const void* p, std::size_t n) {
    const auto* b = static_cast<const std::byte*>(p);
    bytes_.insert(bytes_.end(), b, b + n);
  }
  std::vector<std::byte> bytes_;
};

EventHeader header(EventType type, std::uint32_t context, std::uint32_t item, std::int64_t record, double time = 0) {
  EventHeader eh{};
  eh.type = type;
  eh.context = context;
  eh.item = item;
  eh.record = record;
  eh.time = time;
  return eh;
}

struct Decoded {
  EventHeader h;
  std::vector<std::byte> payload;  // count * elem_size bytes for data events
};

std::vector<Decoded> decode_all(const std::vector<std::byte>& buf) {
  std::vector<Decoded> out;
  decode_buffer(buf.data(), buf.size(), [&](const EventHeader& h, const std::byte* p) {
    Decoded d{h, {}};
    if (h.type == EventType::data) d.payload.assign(p, p + h.count * h.elem_size);
    out.push_back(std::move(d));
  });
  return out;
}

template <class T>
std::vector<T> values_of(const Decoded& d) {
  std::vector<T> v(d.payload.size() / sizeof(T));
  std::memcpy(v.data(), d.payload.data(), v.size() * sizeof(T));
  return v;
}

// Expects decode_buffer to throw DecodeError whose message contains every
// one of `parts`.
void expect_decode_error(const std::vector<std::byte>& buf, std::vector<std::string> parts = {}) {
  try {
    decode_buffer(buf.data(), buf.size(), [](const EventHeader&, const std::byte*) {});
    ADD_FAILURE() << "decode_buffer accepted a malformed buffer of " << buf.size() << " bytes";
  } catch (const DecodeError& e) {
    const std::string msg = e.what();
    for (const auto& p : parts) EXPECT_NE(msg.find(p), std::string::npos) << "message: " << msg << "\nlacks: " << p;
  }
}

TEST(EventLayout, PaddingAndSizes) {
  EXPECT_EQ(padded(0), 0u);
  EXPECT_EQ(padded(1), 8u);
  EXPECT_EQ(padded(8), 8u);
  EXPECT_EQ(padded(9), 16u);
  EXPECT_EQ(padded(12), 16u);
  EXPECT_EQ(event_bytes(0), 56u);
  EXPECT_EQ(event_bytes(12), 72u);
  EXPECT_EQ(event_bytes(16), 72u);
}

TEST(DecodeBuffer, WellFormedBufferYieldsEachEventAndPayload) {
  const std::vector<float> f{1.5f, -2.25f, 3e7f};               // 12 bytes, padded to 16
  const std::vector<double> d{3.141592653589793, -1e300, 0.0};  // 24 bytes
  const std::vector<std::int32_t> i{7, -8, 9, 10, 11};          // 20 bytes, padded to 24
  const auto buf = BufferBuilder()
                       .data(5, 2, 17, 100, f)
                       .event(header(EventType::announce, 5, 1, 17, 86400.5))
                       .data(5, 3, 17, 0, d)
                       .data(6, 0, 3, 40, i)
                       .event(header(EventType::context_close, 5, 0, 0))
                       .finish();
  ASSERT_EQ(buf.size(), 16u + (56 + 16) + 56 + (56 + 24) + (56 + 24) + 56);

  const auto ev = decode_all(buf);
  ASSERT_EQ(ev.size(), 5u);

  EXPECT_EQ(ev[0].h.type, EventType::data);
  EXPECT_EQ(ev[0].h.context, 5u);
  EXPECT_EQ(ev[0].h.item, 2u);
  EXPECT_EQ(ev[0].h.elem_size, 4u);
  EXPECT_EQ(ev[0].h.record, 17);
  EXPECT_EQ(ev[0].h.offset, 100);
  EXPECT_EQ(ev[0].h.count, 3);
  EXPECT_EQ(values_of<float>(ev[0]), f);

  EXPECT_EQ(ev[1].h.type, EventType::announce);
  EXPECT_EQ(ev[1].h.context, 5u);
  EXPECT_EQ(ev[1].h.item, 1u);
  EXPECT_EQ(ev[1].h.record, 17);
  EXPECT_EQ(ev[1].h.time, 86400.5);

  EXPECT_EQ(ev[2].h.type, EventType::data);
  EXPECT_EQ(ev[2].h.item, 3u);
  EXPECT_EQ(ev[2].h.elem_size, 8u);
  EXPECT_EQ(ev[2].h.offset, 0);
  EXPECT_EQ(ev[2].h.count, 3);
  EXPECT_EQ(values_of<double>(ev[2]), d);

  EXPECT_EQ(ev[3].h.type, EventType::data);
  EXPECT_EQ(ev[3].h.context, 6u);
  EXPECT_EQ(ev[3].h.elem_size, 4u);
  EXPECT_EQ(ev[3].h.record, 3);
  EXPECT_EQ(ev[3].h.offset, 40);
  EXPECT_EQ(ev[3].h.count, 5);
  EXPECT_EQ(values_of<std::int32_t>(ev[3]), i);

  EXPECT_EQ(ev[4].h.type, EventType::context_close);
  EXPECT_EQ(ev[4].h.context, 5u);
}

TEST(DecodeBuffer, PayloadPointerIsRightAfterEachHeader) {
  const std::vector<double> d{1.0, 2.0};
  const std::vector<float> f{4.0f};
  const auto buf = BufferBuilder().data(1, 0, 0, 0, f).data(1, 1, 0, 0, d).finish();
  std::vector<std::ptrdiff_t> offsets;
  decode_buffer(buf.data(), buf.size(),
                [&](const EventHeader&, const std::byte* p) { offsets.push_back(p - buf.data()); });
  EXPECT_EQ(offsets, (std::vector<std::ptrdiff_t>{16 + 56, 16 + 56 + 8 + 56}));
}

TEST(DecodeBuffer, EmptyBufferAndEmptyDataEvent) {
  EXPECT_TRUE(decode_all(BufferBuilder().finish()).empty());
  const auto ev = decode_all(BufferBuilder().data(1, 4, 2, 9, std::vector<double>{}).finish());
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].h.count, 0);
  EXPECT_EQ(ev[0].h.item, 4u);
}

TEST(DecodeBuffer, DirectEventCarriesNoPayloadInTheBuffer) {
  // A direct data event announces 1000 doubles that travel apart; the next
  // event follows its header at once.
  EventHeader direct{};
  direct.type = EventType::data;
  direct.elem_size = 8;
  direct.flags = kDirect;
  direct.count = 1000;
  std::vector<EventHeader> seen;
  const auto buf = BufferBuilder().event(direct).event(header(EventType::announce, 1, 2, 3)).finish();
  EXPECT_EQ(buf.size(), sizeof(BufferHeader) + 2 * sizeof(EventHeader));
  decode_buffer(buf.data(), buf.size(), [&](const EventHeader& h, const std::byte*) { seen.push_back(h); });
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].count, 1000);
  EXPECT_EQ(seen[1].type, EventType::announce);
  // A last-sample marker is never direct.
  direct.flags = kDirect | kLastSample;
  direct.count = 0;
  expect_decode_error(BufferBuilder().event(direct).finish(), {"direct"});
}

TEST(DecodeBuffer, SyncEventCarriesTheCheckpointsWords) {
  // A checkpoint's sync with 3 int64 words (the open windows reduced on the
  // servers): decoded with its payload, the next event right after it.
  const std::vector<std::int64_t> words{1, 7, -2};
  EventHeader sync{};
  sync.type = EventType::sync;
  sync.elem_size = 8;
  sync.count = 3;
  std::vector<std::int64_t> got;
  std::vector<EventType> seen;
  const auto buf = BufferBuilder().event(sync).raw(words.data(), 24).event(header(EventType::announce, 1, 2, 3)).finish();
  decode_buffer(buf.data(), buf.size(), [&](const EventHeader& h, const std::byte* payload) {
    seen.push_back(h.type);
    if (h.type == EventType::sync) got.assign(reinterpret_cast<const std::int64_t*>(payload),
                                              reinterpret_cast<const std::int64_t*>(payload) + h.count);
  });
  EXPECT_EQ(got, words);
  EXPECT_EQ(seen, (std::vector<EventType>{EventType::sync, EventType::announce}));
  sync.count = 4;  // more words than the buffer holds
  expect_decode_error(BufferBuilder().event(sync).raw(words.data(), 24).finish(), {"sync"});
}

TEST(DecodeBuffer, RejectsTooShort) {
  expect_decode_error({}, {"0 bytes"});
  const auto full = BufferBuilder().finish();
  expect_decode_error(std::vector<std::byte>(full.begin(), full.begin() + 15), {"15 bytes"});
}

TEST(DecodeBuffer, RejectsBadMagic) {
  expect_decode_error(BufferBuilder().finish(0x12345678), {"magic"});
  expect_decode_error(BufferBuilder().event(header(EventType::finalize, 0, 0, 0)).finish(kBufferMagic ^ 1u), {"magic"});
}

TEST(DecodeBuffer, RejectsWrongVersionNamingBothVersions) {
  const std::uint16_t other = kProtocolVersion + 1;
  expect_decode_error(BufferBuilder().finish(kBufferMagic, other),
                      {"version", std::to_string(other), std::to_string(kProtocolVersion)});
  expect_decode_error(BufferBuilder().finish(kBufferMagic, 0), {"version"});
}

TEST(DecodeBuffer, RejectsHeaderByteCountDifferentFromSize) {
  BufferBuilder b;
  b.event(header(EventType::announce, 1, 0, 0, 1.0));
  const auto good = b.finish();
  const auto n = static_cast<std::int64_t>(good.size());
  expect_decode_error(b.finish(kBufferMagic, kProtocolVersion, n + 8), {std::to_string(n + 8), std::to_string(n)});
  expect_decode_error(b.finish(kBufferMagic, kProtocolVersion, n - 56), {std::to_string(n - 56)});
  expect_decode_error(b.finish(kBufferMagic, kProtocolVersion, 0));
}

TEST(DecodeBuffer, RejectsTruncatedEventHeader) {
  const auto eh = header(EventType::announce, 1, 0, 0);
  const auto buf = BufferBuilder().raw(&eh, 40).finish();  // 40 of 56 header bytes
  expect_decode_error(buf, {"truncated event header"});
  // A complete event followed by a partial one: the first is still handled,
  // then the error is thrown.
  const auto buf2 = BufferBuilder().event(eh).raw(&eh, 8).finish();
  int handled = 0;
  EXPECT_THROW(decode_buffer(buf2.data(), buf2.size(), [&](const EventHeader&, const std::byte*) { ++handled; }),
               DecodeError);
  EXPECT_EQ(handled, 1);
}

TEST(DecodeBuffer, RejectsTruncatedPayload) {
  EventHeader eh = header(EventType::data, 1, 0, 0);
  eh.elem_size = 8;
  eh.count = 4;  // 32 bytes announced
  const double two[2] = {1.0, 2.0};
  expect_decode_error(BufferBuilder().raw(&eh, sizeof eh).raw(two, sizeof two).finish(), {"truncated event payload"});
  // An unpadded payload is short too: 3 floats need 16 bytes, 12 given.
  eh.elem_size = 4;
  eh.count = 3;
  const float three[3] = {1, 2, 3};
  expect_decode_error(BufferBuilder().raw(&eh, sizeof eh).raw(three, sizeof three).finish(), {"truncated"});
  // No payload at all.
  expect_decode_error(BufferBuilder().raw(&eh, sizeof eh).finish(), {"truncated"});
}

TEST(DecodeBuffer, RejectsNegativeCount) {
  EventHeader eh = header(EventType::data, 1, 0, 0);
  eh.elem_size = 8;
  eh.count = -1;
  expect_decode_error(BufferBuilder().event(eh).finish(), {"bad data event sizes"});
  eh.count = std::numeric_limits<std::int64_t>::min();
  expect_decode_error(BufferBuilder().event(eh).finish(), {"bad data event sizes"});
}

TEST(DecodeBuffer, RejectsBadElementSize) {
  for (std::uint32_t es : {0u, 16u, 9u, 1000u}) {
    SCOPED_TRACE(::testing::Message() << "elem_size " << es);
    EventHeader eh = header(EventType::data, 1, 0, 0);
    eh.elem_size = es;
    eh.count = 1;
    const std::vector<std::byte> payload(16);
    expect_decode_error(BufferBuilder().event(eh, payload.data(), payload.size()).finish(), {"bad data event sizes"});
  }
}

TEST(DecodeBuffer, RejectsCountWhoseByteSizeOverflows) {
  // Regression test: a huge count must not wrap count * elem_size (or its
  // padding) around to a small payload size and be accepted.
  //   count = 2^61, elem_size = 8      -> 2^64 would wrap to 0
  //   count = 2^63 - 1, elem_size = 2  -> 2^64 - 2, padded would wrap to 0
  //   count = 2^62, elem_size = 4      -> 2^64 would wrap to 0
  for (auto [count, es] : {std::pair<std::int64_t, std::uint32_t>{std::int64_t{1} << 61, 8u},
                           {std::numeric_limits<std::int64_t>::max(), 2u},
                           {std::int64_t{1} << 62, 4u}}) {
    SCOPED_TRACE(::testing::Message() << "count " << count << " elem_size " << es);
    EventHeader eh = header(EventType::data, 1, 0, 0);
    eh.elem_size = es;
    eh.count = count;
    expect_decode_error(BufferBuilder().event(eh).finish());
  }
}

// ---------------------------------------------------------------------------
// WireWriter / WireReader

TEST(Wire, ArithmeticRoundTrip) {
  WireWriter w;
  w.put<std::int8_t>(-7);
  w.put<std::uint16_t>(65535);
  w.put<std::int32_t>(-123456789);
  w.put<std::uint32_t>(4000000000u);
  w.put<std::int64_t>(std::numeric_limits<std::int64_t>::min());
  w.put<std::uint64_t>(std::numeric_limits<std::uint64_t>::max());
  w.put(1.0f / 3.0f);
  w.put(-0.0);
  w.put(std::numeric_limits<double>::denorm_min());
  w.put(std::numeric_limits<double>::infinity());
  w.put(std::numeric_limits<double>::quiet_NaN());
  w.put(0.1);
  w.put(true);
  EXPECT_EQ(w.bytes().size(), 1u + 2 + 4 + 4 + 8 + 8 + 4 + 8 * 5 + 1);

  WireReader r(w.bytes().data(), w.bytes().size());
  std::int8_t a;
  std::uint16_t b;
  std::int32_t c;
  std::uint32_t d;
  std::int64_t e;
  std::uint64_t f;
  float g;
  double neg0, den, inf, nan, tenth;
  bool t = false;
  r.get(a);
  r.get(b);
  r.get(c);
  r.get(d);
  r.get(e);
  r.get(f);
  r.get(g);
  r.get(neg0);
  r.get(den);
  r.get(inf);
  r.get(nan);
  EXPECT_FALSE(r.at_end());
  r.get(tenth);
  r.get(t);
  EXPECT_TRUE(r.at_end());
  EXPECT_EQ(a, -7);
  EXPECT_EQ(b, 65535);
  EXPECT_EQ(c, -123456789);
  EXPECT_EQ(d, 4000000000u);
  EXPECT_EQ(e, std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(f, std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(g, 1.0f / 3.0f);
  EXPECT_EQ(neg0, 0.0);
  EXPECT_TRUE(std::signbit(neg0));
  EXPECT_EQ(den, std::numeric_limits<double>::denorm_min());
  EXPECT_EQ(inf, std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(nan));
  EXPECT_EQ(tenth, 0.1);
  EXPECT_TRUE(t);
}

TEST(Wire, StringRoundTrip) {
  const std::string embedded_nul("a\0b\0", 4);
  const std::string long_text(5000, 'x');
  const std::string utf8 =
      "F\xc3\xb6hn \xe2\x86\x92 \xc2\xb0"
      "C";
  WireWriter w;
  w.put(std::string());
  w.put(embedded_nul);
  w.put(long_text);
  w.put(utf8);
  EXPECT_EQ(w.bytes().size(), 8u + (8 + 4) + (8 + 5000) + (8 + utf8.size()));
  WireReader r(w.bytes().data(), w.bytes().size());
  std::string s0 = "not empty", s1, s2, s3;
  r.get(s0);
  r.get(s1);
  r.get(s2);
  r.get(s3);
  EXPECT_TRUE(r.at_end());
  EXPECT_EQ(s0, "");
  EXPECT_EQ(s1, embedded_nul);
  EXPECT_EQ(s1.size(), 4u);
  EXPECT_EQ(s2, long_text);
  EXPECT_EQ(s3, utf8);
}

TEST(Wire, VectorRoundTrip) {
  const std::vector<std::int32_t> ints{1, -2, 3, std::numeric_limits<std::int32_t>::max()};
  const std::vector<double> doubles{0.5, -1e-300, 6.02214076e23};
  const std::vector<std::string> strings{"lon", "", "lat", "time_counter"};
  const std::vector<std::vector<std::int64_t>> nested{{1, 2}, {}, {3}};
  WireWriter w;
  w.put(ints);
  w.put(std::vector<double>{});
  w.put(doubles);
  w.put(strings);
  w.put(nested);
  EXPECT_EQ(w.bytes().size(), (8u + 16) + 8 + (8 + 24) + (8 + 8 * 4 + 3 + 3 + 12) + (8 + (8 + 16) + 8 + (8 + 8)));
  WireReader r(w.bytes().data(), w.bytes().size());
  std::vector<std::int32_t> i2{99};
  std::vector<double> empty{1.0, 2.0}, d2;
  std::vector<std::string> s2;
  std::vector<std::vector<std::int64_t>> n2;
  r.get(i2);
  r.get(empty);
  r.get(d2);
  r.get(s2);
  r.get(n2);
  EXPECT_TRUE(r.at_end());
  EXPECT_EQ(i2, ints);
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(d2, doubles);
  EXPECT_EQ(s2, strings);
  EXPECT_EQ(n2, nested);
}

// Writes a mixed message; reading it back from any strict prefix throws.
TEST(Wire, EveryTruncationThrows) {
  WireWriter w;
  w.put<std::int32_t>(42);
  w.put(std::string("temperature"));
  w.put(std::vector<double>{1.0, 2.0, 3.0});
  w.put(std::vector<std::string>{"a", "bc"});
  w.put(2.5);
  const auto& full = w.bytes();
  auto read_all = [](const char* p, std::size_t n) {
    WireReader r(p, n);
    std::int32_t i;
    std::string s;
    std::vector<double> v;
    std::vector<std::string> vs;
    double d;
    r.get(i);
    r.get(s);
    r.get(v);
    r.get(vs);
    r.get(d);
    return r.at_end();
  };
  EXPECT_TRUE(read_all(full.data(), full.size()));
  for (std::size_t n = 0; n < full.size(); ++n) {
    SCOPED_TRACE(::testing::Message() << "prefix of " << n << " of " << full.size() << " bytes");
    EXPECT_THROW(read_all(full.data(), n), WireError);
  }
}

TEST(Wire, ReadingPastTheEndThrows) {
  const std::vector<char> buf(8, 0);
  WireReader r0(buf.data(), 0);
  std::int8_t b;
  EXPECT_THROW(r0.get(b), WireError);
  WireReader r3(buf.data(), 3);
  std::int32_t i;
  EXPECT_THROW(r3.get(i), WireError);
  WireReader r7(buf.data(), 7);
  double d;
  EXPECT_THROW(r7.get(d), WireError);
  // After a successful read the position moves on: 3 bytes cannot hold a second int32.
  WireReader r4(buf.data(), 7);
  r4.get(i);
  EXPECT_EQ(i, 0);
  EXPECT_THROW(r4.get(i), WireError);
}

TEST(Wire, StringLengthBeyondRemainingBytesThrows) {
  WireWriter w;
  w.put<std::uint64_t>(10);
  w.put<std::uint64_t>(0x4142434445464748ull);  // only 8 bytes follow
  WireReader r(w.bytes().data(), w.bytes().size());
  std::string s;
  EXPECT_THROW(r.get(s), WireError);

  WireWriter huge;
  huge.put<std::uint64_t>(std::numeric_limits<std::uint64_t>::max());
  WireReader rh(huge.bytes().data(), huge.bytes().size());
  EXPECT_THROW(rh.get(s), WireError);
}

TEST(Wire, VectorLengthBeyondRemainingBytesThrows) {
  // A length larger than the bytes left is refused before any allocation.
  for (std::uint64_t n : {std::uint64_t{9}, std::uint64_t{1} << 40, std::numeric_limits<std::uint64_t>::max()}) {
    SCOPED_TRACE(::testing::Message() << "length " << n);
    WireWriter w;
    w.put<std::uint64_t>(n);
    w.put<std::uint64_t>(0);  // 8 bytes remain
    {
      WireReader r(w.bytes().data(), w.bytes().size());
      std::vector<std::uint8_t> v;
      EXPECT_THROW(r.get(v), WireError);
    }
    {
      WireReader r(w.bytes().data(), w.bytes().size());
      std::vector<std::string> v;
      EXPECT_THROW(r.get(v), WireError);
    }
  }
  // A length that fits the byte count but not the element size fails on
  // the elements.
  WireWriter w;
  w.put<std::uint64_t>(2);
  w.put(1.0);  // one double of the two announced
  WireReader r(w.bytes().data(), w.bytes().size());
  std::vector<double> v;
  EXPECT_THROW(r.get(v), WireError);
}

}  // namespace
}  // namespace foehn::transport
