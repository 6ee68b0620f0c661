// One ecCodes GRIB handle, and the one place where formats/ calls ecCodes:
// every call is checked, and a failure names the file, the field, the key
// and ecCodes' message. Move-only; the destructor releases.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

struct grib_handle;

namespace foehn::formats::grib {

class GribHandle {
 public:
  // A handle from one of ecCodes' samples (regular_ll_sfc_grib2, ...);
  // where: "<file>: field '<name>'" for messages.
  static GribHandle from_sample(const std::string& sample, std::string where);

  // A handle of a copy of an encoded message (a message read back).
  static GribHandle from_message(const unsigned char* message, std::size_t size, std::string where);

  GribHandle() = default;
  GribHandle(GribHandle&& o) noexcept;
  GribHandle& operator=(GribHandle&& o) noexcept;
  GribHandle(const GribHandle&) = delete;
  GribHandle& operator=(const GribHandle&) = delete;
  ~GribHandle();

  void set_long(const char* key, long value) const;
  void set_double(const char* key, double value) const;
  void set_string(const char* key, const std::string& value) const;
  void set_longs(const char* key, const std::vector<long>& values) const;
  void set_values(const double* values, std::size_t n) const;
  long get_long(const char* key) const;
  std::string get_string(const char* key) const;
  // The encoded message, valid until the handle changes.
  std::span<const unsigned char> message() const;

 private:
  void check(int status, const std::string& call, const char* key) const;
  grib_handle* h_ = nullptr;
  std::string where_;
};

}  // namespace foehn::formats::grib
