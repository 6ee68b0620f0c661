// Opening a GRIB2 file: created, or continued by a later run. A GRIB2 file
// is a sequence of messages each of which says its length (section 0), so
// the messages already there are found by reading those lengths, and the
// records they make by counting: every record holds the same messages
// (field in file order, then level), the first also those of once fields.
// append="true" goes on after the last message, once its time is found to
// end by this run's start; an exact restart (FileInfo::resume_file_records:
// the file's records at the checkpoint, those of its period with
// split_freq) keeps the messages of the checkpoint's records and cuts off
// any written after them, which this run writes again. A period's file
// after the checkpoint's (resume_file_records -1) is a new file: one a run
// killed after the checkpoint left is rewritten from empty.
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "calendar/calendar.h"
#include "formats/grib/grib_parts.h"
#include "formats/grib/grib_writer.h"

namespace foehn::formats::grib {

namespace {

std::uint64_t big_endian(const unsigned char* p, int n) {
  std::uint64_t v = 0;
  for (int k = 0; k < n; ++k) v = v << 8 | p[k];
  return v;
}

// The messages of a GRIB2 file, from section 0's "GRIB", edition 2 and
// total length, and section 8's "7777". A message cut short (a run killed
// while writing it) ends the scan: what follows the last whole message.
Scan scan_messages(std::FILE* in, const std::string& path) {
  Scan s;
  if (std::fseek(in, 0, SEEK_END) != 0) throw IoError(path + ": cannot seek: " + std::strerror(errno));
  s.size = static_cast<std::uint64_t>(std::ftell(in));
  std::uint64_t at = 0;
  unsigned char head[16], tail[4];
  while (at + 16 <= s.size) {
    if (std::fseek(in, static_cast<long>(at), SEEK_SET) != 0 || std::fread(head, 1, 16, in) != 16)
      throw IoError(path + ": cannot read at byte " + std::to_string(at) + ": " + std::strerror(errno));
    if (std::memcmp(head, "GRIB", 4) != 0 || head[7] != 2)
      throw IoError(path + ": byte " + std::to_string(at) + " does not start a GRIB2 message: not a file foehn wrote");
    const std::uint64_t length = big_endian(head + 8, 8);
    if (length < 20 || at + length > s.size) break;
    if (std::fseek(in, static_cast<long>(at + length - 4), SEEK_SET) != 0 || std::fread(tail, 1, 4, in) != 4 ||
        std::memcmp(tail, "7777", 4) != 0)
      break;
    at += length;
    s.ends.push_back(at);
  }
  return s;
}

}  // namespace

Scan scan_messages(const std::string& path) {
  std::FILE* in = std::fopen(path.c_str(), "rb");
  if (!in) throw IoError(path + ": cannot be opened: " + std::strerror(errno));
  try {
    const Scan s = scan_messages(in, path);
    std::fclose(in);
    return s;
  } catch (...) {
    std::fclose(in);
    throw;
  }
}

namespace {

// The end of the interval of a message, in seconds since its reference
// time, and that reference time as "YYYYMMDD hhmm".
void message_time(std::FILE* in, std::uint64_t begin, std::uint64_t end, const std::string& where, long& end_seconds,
                  std::string& reference) {
  std::vector<unsigned char> bytes(end - begin);
  if (std::fseek(in, static_cast<long>(begin), SEEK_SET) != 0 ||
      std::fread(bytes.data(), 1, bytes.size(), in) != bytes.size())
    throw IoError(where + ": cannot read its last message: " + std::strerror(errno));
  const GribHandle h = GribHandle::from_message(bytes.data(), bytes.size(), where + ": its last message");
  h.set_long("stepUnits", 13);  // seconds
  end_seconds = h.get_long("endStep");
  reference = std::to_string(h.get_long("dataDate")) + " " + std::to_string(h.get_long("dataTime"));
}

std::string origin_as_grib(const std::string& origin) {
  int y = 0, mo = 0, d = 0, hh = 0, mi = 0;
  std::sscanf(origin.c_str(), "%d-%d-%d %d:%d", &y, &mo, &d, &hh, &mi);
  return std::to_string(static_cast<long>(y) * 10000 + mo * 100 + d) + " " + std::to_string(hh * 100 + mi);
}

}  // namespace

std::int64_t GribWriter::messages_in_records(std::int64_t records, bool with_once) const {
  if (records <= 0) return 0;
  std::int64_t first = 0, later = 0;
  for (const Field& f : fields_)
    for (std::int64_t l = 0; l < f.levels; ++l) {
      if (own_file_ && owner(f, l) != rank_) continue;  // in another writer's part
      if (!f.once) ++later;
      if (!f.once || with_once) ++first;
    }
  return first + (records - 1) * later;
}

void GribWriter::open_output(const output::ContextPlan& plan, const output::FileInfo& f) {
  const std::int64_t kept = f.resume_file_records;
  const bool resume = kept >= 0;
  if (kept > 0 && !std::filesystem::exists(path_))
    throw IoError(path_ + ": the file the checkpoint continues is missing (" + std::to_string(kept) +
                  " records were written before it)");
  if (!(f.append || resume) || !std::filesystem::exists(path_)) {
    out_ = std::fopen(path_.c_str(), "wb");
    if (!out_) throw IoError(path_ + ": cannot create the file: " + std::strerror(errno));
    return;
  }
  out_ = std::fopen(path_.c_str(), "r+b");
  if (!out_) throw IoError(path_ + ": cannot open the file to continue it: " + std::strerror(errno));
  appended_ = true;
  const Scan s = scan_messages(out_, path_);
  const std::uint64_t whole = s.ends.empty() ? 0 : s.ends.back();
  std::uint64_t keep = whole;
  if (resume) {
    // The checkpoint's records stay; messages written after it go.
    // The run's first record (once fields' messages) is in this file
    // unless earlier periods' files hold records.
    const std::int64_t want = messages_in_records(kept, f.resume_records == kept);
    if (static_cast<std::int64_t>(s.ends.size()) < want)
      throw IoError(path_ + ": it has " + std::to_string(s.ends.size()) + " whole GRIB2 messages, the checkpoint's " +
                    std::to_string(kept) + " records make " + std::to_string(want) +
                    " (was it replaced by an older copy?)");
    keep = want == 0 ? 0 : s.ends[static_cast<std::size_t>(want - 1)];
  } else if (whole != s.size) {
    throw IoError(path_ + ": cannot append to this file: it ends inside a GRIB2 message (byte " +
                  std::to_string(whole) + " of " + std::to_string(s.size) + ")");
  } else if (!s.ends.empty()) {
    // Its last message must end by this run's start, counted from the same
    // reference time: a run that repeats a period would write it twice.
    long last_end = 0;
    std::string reference;
    message_time(out_, s.ends.size() > 1 ? s.ends[s.ends.size() - 2] : 0, whole, path_, last_end, reference);
    if (reference != origin_as_grib(plan.time_origin))
      throw IoError(path_ + ": cannot append to this file: its reference time (dataDate dataTime) is " + reference +
                    ", this run's time_origin " + plan.time_origin + " (keep the first run's time_origin)");
    const calendar::Calendar cal = plan.make_calendar();
    const std::int64_t run_start = (cal.to_instant(calendar::parse_date(plan.start_date)) -
                                    cal.to_instant(calendar::parse_date(plan.time_origin))) /
                                   calendar::kMicrosPerSecond;
    if (last_end > run_start)
      throw IoError(path_ + ": cannot append to this file: its messages reach " + std::to_string(last_end) +
                    " s since " + plan.time_origin + ", after this run's start (" + plan.start_date + ", " +
                    std::to_string(run_start) + " s): restart where it ends, or remove the file");
  }
  if (keep != s.size && ::ftruncate(fileno(out_), static_cast<off_t>(keep)) != 0)
    throw IoError(path_ + ": cannot cut it after the checkpoint's messages (byte " + std::to_string(keep) +
                  "): " + std::strerror(errno));
  if (std::fseek(out_, static_cast<long>(keep), SEEK_SET) != 0)
    throw IoError(path_ + ": cannot seek to its end: " + std::strerror(errno));
}

}  // namespace foehn::formats::grib
