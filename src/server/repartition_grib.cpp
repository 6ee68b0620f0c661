// A GRIB2 multiple_file file continued (exact restart, append="true") by
// another number of writers than wrote its parts (docs/grib.md, "Parts").
// GRIB2 parts carry no count (netCDF's DOMAIN_number_total) and the names
// of two counts overlap (`_0` is in both), so a marker file beside them,
// `<file>.grib2.repart`, says how far a re-partition got:
//   no marker: the parts on disk are of one count; if not this run's, the
//     first writer moves them aside (`.old`; a run killed meanwhile left
//     some moved: the union is the old count), then writes "moved <n>";
//   "moved <n>": the old parts are the n `.old` files; every writer builds
//     its new part under `.repart` from them, all agree, rename them into
//     place, and the first writer writes "done";
//   "done": the new parts are complete; the `.old` files and the marker go.
// A run killed at any point finds the marker and goes on from there.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "formats/grib/grib_parts.h"
#include "formats/registry.h"
#include "server/repartition.h"

namespace foehn::server {

namespace {

namespace fs = std::filesystem;

// Written whole or not at all (rename over the old text).
void write_marker(const std::string& path, const std::string& text) {
  {
    std::ofstream out(path + ".tmp", std::ios::trunc);
    out << text << "\n";
    out.flush();
    if (!out) throw formats::IoError(path + ".tmp: cannot be written");
  }
  fs::rename(path + ".tmp", path);
}

// The first writer: the old count to rebuild from (0: nothing to do).
// can_rewrite false: nothing is moved (the caller refuses another count).
int prepare(const formats::FileName& name, std::string_view ext, int count, const std::string& marker,
            bool can_rewrite) {
  std::string state;
  int moved = 0;
  if (std::ifstream in(marker); in) in >> state >> moved;
  if (state == "done") {
    for (const fs::path& p : formats::part_files(name, ext, ".old")) fs::remove(p);
    fs::remove(marker);
    return 0;
  }
  if (state == "moved" && moved > 0) return moved;
  // No marker: which count wrote the parts (some may have been moved aside).
  std::vector<std::string> plain, old;
  for (const fs::path& p : formats::part_files(name, ext)) plain.push_back(p.filename().string());
  for (const fs::path& p : formats::part_files(name, ext, ".old")) {
    const std::string n = p.filename().string();
    old.push_back(n.substr(0, n.size() - 4));
  }
  std::vector<std::string> all = plain;
  for (const std::string& n : old)
    if (std::find(all.begin(), all.end(), n) == all.end()) all.push_back(n);
  const int n = static_cast<int>(all.size());
  if (n == 0) return 0;
  std::vector<std::string> want;
  for (int k = 0; k < n; ++k) want.push_back(fs::path(formats::part_file_name(name, k, n, ext)).filename().string());
  std::sort(all.begin(), all.end());
  std::sort(want.begin(), want.end());
  if (all != want)
    throw formats::IoError("the GRIB2 parts on disk (" + std::to_string(n) + " files " +
                           formats::file_name({name.base, name.period, -1, 1, 0}, "_*") + std::string(ext) +
                           ") are not the parts of one writer count: remove those a run left behind");
  if (n == count && old.empty()) return 0;  // this count's parts
  if (!can_rewrite) return n;
  const fs::path dir = fs::path(formats::file_name({name.base, name.period, -1, 1, 0}, "")).parent_path();
  for (const std::string& p : plain) fs::rename(dir / p, dir / (p + ".old"));
  write_marker(marker, "moved " + std::to_string(n));
  return n;
}

}  // namespace

void repartition_grib_parts(const output::ContextPlan& plan, int file, const formats::FileName& name,
                            const formats::WriterTarget& target, MPI_Comm writers, bool can_rewrite) {
  const output::FileInfo& f = plan.files[file];
  const std::string ext(formats::traits_of(f.format).extension);
  const std::string whole = formats::file_name({name.base, name.period, -1, 1, 0}, ext);
  const std::string marker = whole + ".repart", file_text = "file '" + f.id + "' (" + whole + ", multiple_file)";
  const int count = target.part.total, me = target.part.number;
  int rank = 0;
  MPI_Comm_rank(writers, &rank);
  const auto t0 = std::chrono::steady_clock::now();  // for the report line (bench/repartition.py)
  std::string error;
  int old_count = 0;
  if (rank == 0) try {
      old_count = prepare(name, ext, count, marker, can_rewrite);
    } catch (const std::exception& e) {
      error = e.what();
      old_count = -1;
    }
  MPI_Bcast(&old_count, 1, MPI_INT, 0, writers);
  if (old_count < 0) throw formats::IoError(file_text + ": " + (rank == 0 ? error : "see the first writer's error"));
  if (old_count == 0) return;
  if (!can_rewrite)
    throw formats::IoError(file_text + ": its parts were written by " + std::to_string(old_count) +
                           " writers and two-level servers cannot rewrite them for " + std::to_string(count) +
                           "; run with as many level-2 servers as the checkpoint's run, or make the file one_file");
  std::vector<std::string> sources;
  for (int j = 0; j < old_count; ++j) sources.push_back(formats::part_file_name(name, j, old_count, ext) + ".old");
  const std::string mine = formats::part_file_name(name, me, count, ext), tmp = mine + ".repart";
  const std::int64_t records = f.resume_file_records >= 0 ? f.resume_file_records : f.resume_records;
  // A split_freq period's file after the first holds no once field.
  const bool with_once = f.resume_file_records < 0 || f.resume_records == f.resume_file_records;
  std::int64_t copied = 0;
  try {
    copied = formats::grib::rebuild_part(plan, file, sources, me, count, records, tmp, with_once);
  } catch (const std::exception& e) { error = e.what(); }
  int failed = error.empty() ? 0 : 1;
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, writers);
  if (failed) {
    fs::remove(tmp);
    throw formats::IoError(file_text + ": re-partitioning its " + std::to_string(old_count) + " parts into " +
                           std::to_string(count) + " failed" + (error.empty() ? " on another writer" : ": " + error) +
                           "; the old parts are kept as .old files, and " + marker + " says so to the next run");
  }
  fs::rename(tmp, mine);
  unsigned long long bytes = fs::file_size(mine);  // written: each new part once
  MPI_Allreduce(MPI_IN_PLACE, &bytes, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, writers);
  if (rank != 0) return;
  write_marker(marker, "done");
  for (int j = 0; j < old_count; ++j) fs::remove(sources[j]);
  fs::remove(marker);
  std::cerr << "foehn: " << file_text << " re-partitioned from " << old_count << " to " << count << " parts (" << copied
            << " records, " << bytes << " bytes written in "
            << std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() << " s)" << std::endl;
}

void remove_stale_grib_parts(const formats::FileName& name, std::string_view ext, int count) {
  std::vector<fs::path> ours;
  for (int k = 0; k < count; ++k) ours.push_back(fs::path(formats::part_file_name(name, k, count, ext)).filename());
  // Removing is idempotent: a run killed meanwhile leaves the rest to the next.
  for (const fs::path& p : formats::part_files(name, ext))
    if (std::find(ours.begin(), ours.end(), p.filename()) == ours.end()) fs::remove(p);
}

}  // namespace foehn::server
