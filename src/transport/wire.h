// A small binary encoder/decoder for definition-time messages (the output
// plan, acknowledgements). Not used on the per-step path. Reads are checked:
// a truncated or corrupt message throws WireError instead of reading past
// the end.
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace foehn::transport {

struct WireError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class WireWriter {
 public:
  template <class T>
  requires std::is_arithmetic_v<T>
  void put(T v) {
    const auto* p = reinterpret_cast<const char*>(&v);
    bytes_.insert(bytes_.end(), p, p + sizeof v);
  }
  void put(const std::string& s) {
    put<std::uint64_t>(s.size());
    bytes_.insert(bytes_.end(), s.begin(), s.end());
  }
  template <class T>
  void put(const std::vector<T>& v) {
    put<std::uint64_t>(v.size());
    for (const auto& x : v) put(x);
  }
  const std::vector<char>& bytes() const { return bytes_; }
  // For large messages (a plan with O1280 coordinates is hundreds of MB):
  // room up front, and the bytes without a copy.
  void reserve(std::size_t n) { bytes_.reserve(n); }
  std::vector<char> take() { return std::move(bytes_); }

 private:
  std::vector<char> bytes_;
};

class WireReader {
 public:
  WireReader(const char* data, std::size_t size) : p_(data), end_(data + size) {}
  template <class T>
  requires std::is_arithmetic_v<T>
  void get(T& v) {
    need(sizeof v);
    std::memcpy(&v, p_, sizeof v);
    p_ += sizeof v;
  }
  void get(std::string& s) {
    std::uint64_t n = 0;
    get(n);
    need(n);
    s.assign(p_, p_ + n);
    p_ += n;
  }
  template <class T>
  void get(std::vector<T>& v) {
    std::uint64_t n = 0;
    get(n);
    if (n > static_cast<std::uint64_t>(end_ - p_)) throw WireError("corrupt message: vector length too large");
    v.resize(n);
    for (auto& x : v) get(x);
  }
  bool at_end() const { return p_ == end_; }
  std::uint64_t remaining() const { return static_cast<std::uint64_t>(end_ - p_); }

 private:
  void need(std::uint64_t n) const {
    if (n > static_cast<std::uint64_t>(end_ - p_)) throw WireError("corrupt message: truncated");
  }
  const char* p_;
  const char* end_;
};

}  // namespace foehn::transport
