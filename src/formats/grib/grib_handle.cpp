#include "formats/grib/grib_handle.h"

#include <eccodes.h>

#include <utility>

#include "formats/writer.h"

namespace foehn::formats::grib {

GribHandle GribHandle::from_sample(const std::string& sample, std::string where) {
  GribHandle g;
  g.where_ = std::move(where);
  g.h_ = codes_grib_handle_new_from_samples(nullptr, sample.c_str());
  if (!g.h_) throw IoError(g.where_ + ": ecCodes has no sample " + sample + " (is libeccodes-data installed?)");
  return g;
}

GribHandle GribHandle::from_message(const unsigned char* message, std::size_t size, std::string where) {
  GribHandle g;
  g.where_ = std::move(where);
  g.h_ = codes_handle_new_from_message_copy(nullptr, message, size);
  if (!g.h_) throw IoError(g.where_ + ": ecCodes cannot read the message");
  return g;
}

GribHandle::GribHandle(GribHandle&& o) noexcept : h_(std::exchange(o.h_, nullptr)), where_(std::move(o.where_)) {}

GribHandle& GribHandle::operator=(GribHandle&& o) noexcept {
  if (this != &o) {
    if (h_) codes_handle_delete(h_);
    h_ = std::exchange(o.h_, nullptr);
    where_ = std::move(o.where_);
  }
  return *this;
}

GribHandle::~GribHandle() {
  if (h_) codes_handle_delete(h_);
}

void GribHandle::check(int status, const std::string& call, const char* key) const {
  if (status != CODES_SUCCESS)
    throw IoError(where_ + ": GRIB key '" + key + "': " + call + ": " + codes_get_error_message(status));
}

void GribHandle::set_long(const char* key, long value) const {
  check(codes_set_long(h_, key, value), "codes_set_long(" + std::to_string(value) + ")", key);
}

void GribHandle::set_double(const char* key, double value) const {
  check(codes_set_double(h_, key, value), "codes_set_double(" + std::to_string(value) + ")", key);
}

void GribHandle::set_string(const char* key, const std::string& value) const {
  std::size_t length = value.size();
  check(codes_set_string(h_, key, value.c_str(), &length), "codes_set_string(\"" + value + "\")", key);
}

void GribHandle::set_longs(const char* key, const std::vector<long>& values) const {
  check(codes_set_long_array(h_, key, values.data(), values.size()), "codes_set_long_array", key);
}

void GribHandle::set_values(const double* values, std::size_t n) const {
  check(codes_set_double_array(h_, "values", values, n), "codes_set_double_array", "values");
}

long GribHandle::get_long(const char* key) const {
  long value = 0;
  check(codes_get_long(h_, key, &value), "codes_get_long", key);
  return value;
}

std::string GribHandle::get_string(const char* key) const {
  char value[256] = {};
  std::size_t length = sizeof value;
  check(codes_get_string(h_, key, value, &length), "codes_get_string", key);
  return value;
}

std::span<const unsigned char> GribHandle::message() const {
  const void* data = nullptr;
  std::size_t size = 0;
  check(codes_get_message(h_, &data, &size), "codes_get_message", "(message)");
  return {static_cast<const unsigned char*>(data), size};
}

}  // namespace foehn::formats::grib
