// append="true" and exact restarts (docs/restart.md) of a Zarr store: the
// store a run wrote is opened, checked against this run's definitions and
// continued after its last record (or after the checkpoint's, records
// written later being written again in place). Chunks of the records it
// keeps, coordinates and attributes are not rewritten.
#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "formats/continuation.h"
#include "formats/zarr/zarr_writer.h"

namespace foehn::formats::zarr {

using nlohmann::json;

namespace {

std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return {};
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

void ZarrWriter::refuse(const std::string& why) const {
  throw IoError(path_ + ": cannot continue this Zarr store: " + why +
                " (append=\"true\" continues a store written by the same definitions)");
}

std::int64_t ZarrWriter::attach(const output::ContextPlan& plan, std::int64_t resume_records) const {
  // Every array of this run, with the same type, chunks, compression and
  // shape (time apart): its chunks then go on where the store's end.
  for (const auto& [key, text] : metadata_) {
    if (!key.ends_with("/.zarray")) continue;
    const std::string dir = key.substr(0, key.size() - 8);
    const std::string have_text = read_text(std::filesystem::path(path_) / key);
    if (have_text.empty()) refuse("it has no array '" + dir + "'");
    json have = json::parse(have_text, nullptr, false), want = json::parse(text);
    if (have.is_discarded()) refuse("its " + key + " is not JSON");
    const bool timed = std::find(timed_.begin(), timed_.end(), dir) != timed_.end();
    if (timed && have.contains("shape") && have["shape"].is_array() && !have["shape"].empty()) have["shape"][0] = 0;
    if (have != want)
      refuse("its '" + dir + "' is " + have.dump() + ", this run defines " + want.dump());
  }
  const std::string time_dir = time_prefixes_.front() + "time_counter";
  const json time_attrs = json::parse(read_text(std::filesystem::path(path_) / time_dir / ".zattrs"), nullptr, false);
  for (const char* name : {"units", "calendar"}) {
    const std::string want = name == std::string("units") ? plan.time_units : plan.calendar;
    const std::string got = time_attrs.is_object() && time_attrs.contains(name) ? time_attrs[name].dump() : "none";
    if (got != json(want).dump())
      refuse(std::string("its time_counter ") + name + " is " + got + ", this run's is '" + want +
             "' (keep the first run's calendar and time_origin)");
  }
  const std::int64_t records =
      json::parse(read_text(std::filesystem::path(path_) / time_dir / ".zarray"))["shape"][0].get<std::int64_t>();
  if (resume_records >= 0) {
    if (std::string why = checkpoint_beyond(records, resume_records); !why.empty()) refuse(why);
    return resume_records;
  }
  if (records == 0) return 0;
  // Its last record must end by this run's start: a run that repeats a
  // period would write its records twice.
  const std::string last = std::to_string(records - 1);
  const std::filesystem::path chunk = std::filesystem::path(path_) / (centered_ ? time_dir + "_bounds" : time_dir) /
                                      (centered_ ? last + ".0" : last);
  const std::string packed = read_text(chunk);
  double values[2] = {0, 0};
  uLongf size = sizeof values;
  if (packed.empty() || uncompress(reinterpret_cast<Bytef*>(values), &size,
                                   reinterpret_cast<const Bytef*>(packed.data()), packed.size()) != Z_OK)
    refuse("its last time chunk " + chunk.string() + " is missing or not zlib");
  const double last_end = centered_ ? values[1] : values[0];
  if (std::string why = repeats_a_period(plan, last_end, "store"); !why.empty()) refuse(why);
  return records;
}

}  // namespace foehn::formats::zarr
