#include "report/details.h"

#include <cstdio>
#include <map>
#include <stdexcept>
#include <utility>

#include <nlohmann/json.hpp>

namespace foehn::report {

using nlohmann::json;

namespace {
// Adds each line of `more` to the line of `into` with the same key(line),
// or appends it, in order of first appearance.
template <class Line, class Key, class Add>
void merge_lines(std::vector<Line>& into, const std::vector<Line>& more, Key key, Add add) {
  std::map<decltype(key(std::declval<const Line&>())), std::size_t> at;
  for (std::size_t k = 0; k < into.size(); ++k) at.emplace(key(into[k]), k);
  for (const Line& line : more) {
    auto [it, fresh] = at.try_emplace(key(line), into.size());
    if (fresh)
      into.push_back(line);
    else
      add(into[it->second], line);
  }
}
}  // namespace

void merge(Details& into, const Details& more) {
  merge_lines(
      into.files, more.files, [](const FileBytes& f) { return std::pair(f.context, f.file); },
      [](FileBytes& t, const FileBytes& f) { t.raw_bytes += f.raw_bytes, t.disk_bytes += f.disk_bytes; });
  merge_lines(
      into.fields, more.fields, [](const FieldNonFinite& f) { return std::pair(f.context, f.field); },
      [](FieldNonFinite& t, const FieldNonFinite& f) {
        t.nan += f.nan, t.pos_inf += f.pos_inf, t.neg_inf += f.neg_inf;
      });
}

std::string to_text(const Details& d) {
  json files = json::array(), fields = json::array();
  for (const FileBytes& f : d.files) files.push_back({f.context, f.file, f.code, f.raw_bytes, f.disk_bytes});
  for (const FieldNonFinite& f : d.fields) fields.push_back({f.context, f.field, f.nan, f.pos_inf, f.neg_inf});
  return json{{"files", files}, {"fields", fields}}.dump();
}

Details from_text(const std::string& s) {
  Details d;
  try {
    const json j = json::parse(s);
    for (const json& f : j.at("files"))
      d.files.push_back({f.at(0).get<std::string>(), f.at(1).get<std::string>(), f.at(2).get<int>(),
                         f.at(3).get<double>(), f.at(4).get<double>()});
    for (const json& f : j.at("fields"))
      d.fields.push_back({f.at(0).get<std::string>(), f.at(1).get<std::string>(), f.at(2).get<double>(),
                          f.at(3).get<double>(), f.at(4).get<double>()});
  } catch (const json::exception& e) {
    throw std::runtime_error(std::string("foehn report: per-file and per-field details unreadable: ") + e.what());
  }
  return d;
}

Details gather(const Details& mine, MPI_Comm comm) {
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const std::string text = to_text(mine);
  int length = static_cast<int>(text.size());
  std::vector<int> lengths(rank == 0 ? size : 0), displs(rank == 0 ? size : 0);
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, comm);
  std::string all;
  if (rank == 0) {
    int total = 0;
    for (int r = 0; r < size; ++r) displs[r] = total, total += lengths[r];
    all.resize(static_cast<std::size_t>(total));
  }
  MPI_Gatherv(text.data(), length, MPI_CHAR, all.data(), lengths.data(), displs.data(), MPI_CHAR, 0, comm);
  Details merged;
  if (rank != 0) return merged;
  for (int r = 0; r < size; ++r)
    merge(merged, from_text(all.substr(static_cast<std::size_t>(displs[r]), static_cast<std::size_t>(lengths[r]))));
  return merged;
}

double compression_ratio(const FileBytes& f) { return f.disk_bytes > 0 ? f.raw_bytes / f.disk_bytes : 0.0; }

namespace {
std::string line(const char* fmt, auto... args) {
  char buf[512];
  std::snprintf(buf, sizeof buf, fmt, args...);
  return buf;
}
}  // namespace

void print_files(std::ostream& out, const std::vector<FileBytes>& files) {
  if (files.empty()) return;
  out << "foehn report: files (values' raw size against the size on disk)\n"
      << line("  %-12s %-24s %14s %14s %8s\n", "context", "file", "raw MB", "on disk MB", "ratio");
  for (const FileBytes& f : files)
    out << line("  %-12s %-24s %14.3f %14.3f %8.3f\n", f.context.c_str(), f.file.c_str(), f.raw_bytes / 1e6,
                f.disk_bytes / 1e6, compression_ratio(f));
}

void print_non_finite(std::ostream& out, const std::vector<FieldNonFinite>& fields) {
  if (fields.empty()) {
    out << "foehn report: non-finite values written: none\n";
    return;
  }
  out << "foehn report: non-finite values written (NaN: missing in temporal operations; Inf: data)\n"
      << line("  %-12s %-24s %14s %14s %14s\n", "context", "field", "NaN", "+Inf", "-Inf");
  for (const FieldNonFinite& f : fields)
    out << line("  %-12s %-24s %14.0f %14.0f %14.0f\n", f.context.c_str(), f.field.c_str(), f.nan, f.pos_inf,
                f.neg_inf);
}

}  // namespace foehn::report
