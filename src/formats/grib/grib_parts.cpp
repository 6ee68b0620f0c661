// A GRIB2 part for another number of writers, message by message from the
// old parts (grib_parts.h). Each record holds, in every part, the messages
// of its writer's levels, field in file order then level (once fields in
// the first record only): walking that order with one cursor per old part
// finds each message without decoding it.
#include "formats/grib/grib_parts.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>

#include "filters/temporal.h"
#include "formats/writer.h"

namespace foehn::formats::grib {

namespace {

struct FieldLevels {
  std::int64_t levels = 1;
  bool once = false;
};

std::vector<FieldLevels> fields_of(const output::ContextPlan& plan, const output::FileInfo& f) {
  std::vector<FieldLevels> out;
  for (int vi : f.variables) {
    const output::VariableInfo& v = plan.variables[vi];
    FieldLevels fl;
    for (const output::Dim& d : v.dims)
      if (d.kind == output::Dim::axis) fl.levels *= plan.axes[d.index].size();  // one axis at most (GribWriter)
    fl.once = static_cast<filters::TemporalOp>(v.op) == filters::TemporalOp::once;
    out.push_back(fl);
  }
  return out;
}

using File = std::unique_ptr<std::FILE, int (*)(std::FILE*)>;

}  // namespace

std::int64_t rebuild_part(const output::ContextPlan& plan, int file, const std::vector<std::string>& old_parts,
                          int part, int parts, std::int64_t records, const std::string& to, bool with_once) {
  const std::vector<FieldLevels> fields = fields_of(plan, plan.files[file]);
  const int old = static_cast<int>(old_parts.size());
  const auto owner = [](std::size_t position, std::int64_t level, int n) {
    return static_cast<int>((static_cast<std::int64_t>(position) + level) % n);
  };
  std::vector<Scan> scans;
  for (const std::string& p : old_parts) scans.push_back(scan_messages(p));
  // Messages of each old part in its first record and in each later one.
  std::vector<std::int64_t> first(old, 0), later(old, 0);
  for (std::size_t k = 0; k < fields.size(); ++k)
    for (std::int64_t l = 0; l < fields[k].levels; ++l) {
      if (!fields[k].once || with_once) ++first[owner(k, l, old)];
      if (!fields[k].once) ++later[owner(k, l, old)];
    }
  if (records < 0) {  // every record whole in all parts
    records = std::numeric_limits<std::int64_t>::max();
    for (int k = 0; k < old; ++k) {
      const auto n = static_cast<std::int64_t>(scans[k].ends.size());
      if (n < first[k])
        records = 0;
      else if (later[k] > 0)
        records = std::min(records, 1 + (n - first[k]) / later[k]);
    }
    if (records == std::numeric_limits<std::int64_t>::max()) records = 1;  // once fields only
  }
  for (int k = 0; k < old; ++k) {
    const std::int64_t want = records == 0 ? 0 : first[k] + (records - 1) * later[k];
    if (static_cast<std::int64_t>(scans[k].ends.size()) < want)
      throw IoError(old_parts[k] + ": it has " + std::to_string(scans[k].ends.size()) +
                    " whole GRIB2 messages, the checkpoint's " + std::to_string(records) + " records make " +
                    std::to_string(want));
  }
  std::vector<File> in;
  for (const std::string& p : old_parts) {
    in.emplace_back(std::fopen(p.c_str(), "rb"), &std::fclose);
    if (!in.back()) throw IoError(p + ": cannot be opened: " + std::strerror(errno));
  }
  File out(std::fopen(to.c_str(), "wb"), &std::fclose);
  if (!out) throw IoError(to + ": cannot be created: " + std::strerror(errno));
  std::vector<std::size_t> cursor(old, 0);
  std::vector<unsigned char> bytes;
  for (std::int64_t r = 0; r < records; ++r)
    for (std::size_t k = 0; k < fields.size(); ++k) {
      if (fields[k].once && (r > 0 || !with_once)) continue;
      for (std::int64_t l = 0; l < fields[k].levels; ++l) {
        const int from = owner(k, l, old);
        const std::size_t m = cursor[from]++;
        if (owner(k, l, parts) != part) continue;
        const std::uint64_t begin = m == 0 ? 0 : scans[from].ends[m - 1], end = scans[from].ends[m];
        bytes.resize(end - begin);
        if (std::fseek(in[from].get(), static_cast<long>(begin), SEEK_SET) != 0 ||
            std::fread(bytes.data(), 1, bytes.size(), in[from].get()) != bytes.size())
          throw IoError(old_parts[from] + ": cannot read its message " + std::to_string(m) + ": " +
                        std::strerror(errno));
        if (std::fwrite(bytes.data(), 1, bytes.size(), out.get()) != bytes.size())
          throw IoError(to + ": writing a GRIB2 message failed: " + std::strerror(errno));
      }
    }
  if (std::fflush(out.get()) != 0 || ::fsync(fileno(out.get())) != 0)
    throw IoError(to + ": writing failed: " + std::strerror(errno));
  std::FILE* done = out.release();
  if (std::fclose(done) != 0) throw IoError(to + ": closing failed: " + std::strerror(errno));
  return records;
}

}  // namespace foehn::formats::grib
