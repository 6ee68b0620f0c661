// A multiple_file netCDF file continued (exact restart, append="true") by
// another number of writers than wrote its parts: the parts are rewritten
// for the new writers before they open them (docs/restart.md, "Split and
// multiple_file files"). Each new writer creates its part under
// `<part>.repart` as a run of the new count would have (same definitions,
// coordinates and chunks), copies every record of its own points from the
// old parts (netCDF hyperslabs located by their DOMAIN_* attributes), and
// only once every new part is complete are the old parts moved aside
// (`.old`), the new ones renamed into place and the old ones removed. A run
// killed at any point leaves either the old parts (with `.old` names for
// some) or the complete new ones: the next run finds which and goes on.
#include "server/repartition.h"

#include <netcdf.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <optional>

#include "filters/temporal.h"
#include "formats/netcdf/nc_dataset.h"
#include "formats/netcdf/time_layout.h"
#include "formats/registry.h"

namespace foehn::server {

namespace {

namespace fs = std::filesystem;

// DOMAIN_number_total of a part; nullopt: not a readable part.
std::optional<int> parts_total(const std::string& path) {
  try {
    const std::vector<int> total =
        formats::netcdf::NcDataset::open_for_reading(path).get_ints(NC_GLOBAL, "DOMAIN_number_total");
    return total.size() == 1 ? std::optional<int>(total[0]) : std::nullopt;
  } catch (const formats::IoError&) { return std::nullopt; }
}

// The parts' total of any of them; 0: none.
int total_on_disk(const formats::FileName& name, std::string_view ext, const std::string& suffix) {
  for (const fs::path& p : formats::part_files(name, ext, suffix))
    if (const auto total = parts_total(p.string())) return *total;
  return 0;
}

// The block of each plan domain an old part holds, from its
// DOMAIN_<id>_position_first/last (1-based, i then j).
std::vector<output::LocalBlock> old_blocks(const output::ContextPlan& plan, const formats::netcdf::NcDataset& part) {
  std::vector<output::LocalBlock> blocks;
  for (const output::DomainInfo& dom : plan.domains) {
    const std::size_t n = dom.one_dimensional() ? 1 : 2;
    const std::string p = "DOMAIN_" + dom.id + "_position_";
    const std::vector<int> first = part.get_ints(NC_GLOBAL, p + "first"), last = part.get_ints(NC_GLOBAL, p + "last");
    if (first.size() != n || last.size() != n)
      throw formats::IoError(part.path() + ": a multiple_file part without its " + p + "first/last attributes");
    blocks.push_back(
        {first[0] - 1, last[0] - first[0] + 1, n == 2 ? first[1] - 1 : 0, n == 2 ? last[1] - first[1] + 1 : 1});
  }
  return blocks;
}

// The box (global indices, over v.dims) of an old part's blocks.
grid::Box old_box(const std::vector<output::LocalBlock>& blocks, const output::ContextPlan& plan,
                  const output::VariableInfo& v) {
  grid::Box b;
  for (const output::Dim& d : v.dims) {
    if (d.kind == output::Dim::axis) {
      b.start.push_back(0);
      b.count.push_back(plan.axes[d.index].size());
      continue;
    }
    const output::LocalBlock& k = blocks[d.index];
    b.start.push_back(d.kind == output::Dim::domain_i ? k.ibegin : k.jbegin);
    b.count.push_back(d.kind == output::Dim::domain_i ? k.ni : k.nj);
  }
  return b;
}

// Writes this writer's new part under `tmp` from the old parts: returns the
// records copied.
std::int64_t write_new_part(const output::ContextPlan& plan, int file, const formats::WriterTarget& target,
                            const std::string& tmp, const std::vector<std::string>& sources,
                            const std::function<grid::Box(const output::VariableInfo&)>& my_block) {
  const output::FileInfo& f = plan.files[file];
  output::ContextPlan fresh = plan;  // the new part as a run of this count from the start creates it
  fresh.files[file].append = false;
  fresh.files[file].resume_file_records = -1;
  fresh.files[file].resume_records = -1;
  formats::WriterTarget t = target;
  t.path = tmp;
  t.comm = MPI_COMM_SELF;
  std::unique_ptr<formats::Writer> w = formats::open_writer(fresh, file, std::move(t));
  w->finish_definition();
  std::vector<formats::netcdf::NcDataset> old;
  std::vector<std::vector<output::LocalBlock>> blocks;
  for (const std::string& s : sources) {
    old.push_back(formats::netcdf::NcDataset::open_for_reading(s));
    blocks.push_back(old_blocks(plan, old.back()));
  }
  const formats::netcdf::NcDataset& first = old.front();
  const std::string& counter = f.time_counter_name;
  const auto time_dim = first.find_dim(counter);
  if (!time_dim) throw formats::IoError(sources.front() + ": no dimension " + counter);
  const auto have = static_cast<std::int64_t>(first.dim_length(*time_dim));
  const std::int64_t records = f.resume_file_records >= 0 ? f.resume_file_records : have;
  for (std::size_t j = 0; j < old.size(); ++j)
    if (static_cast<std::int64_t>(old[j].dim_length(*old[j].find_dim(counter))) < records)
      throw formats::IoError(sources[j] + ": fewer records than the " + std::to_string(records) +
                             " the checkpoint wrote");
  // Each record's interval, from the first time bounds the file has
  // (formats/netcdf/time_layout.h: an instant's have zero width), back in
  // whole microseconds of seconds so that the writer's values are the
  // unbroken run's to the bit (days are seconds / 86400).
  std::optional<int> bounds;
  for (const std::string& name : formats::netcdf::time_bounds_names(counter))
    if (!bounds) bounds = first.find_var(name);
  const double unit = formats::netcdf::time_unit_seconds(f);
  const auto seconds = [unit](double value) { return formats::netcdf::time_value_seconds(value, unit); };
  for (std::int64_t r = 0; r < records && records > 0; ++r) {
    if (!bounds) throw formats::IoError(sources.front() + ": no time bounds");
    const std::size_t at[2] = {static_cast<std::size_t>(r), 0}, one[2] = {1, 2};
    double se[2] = {0, 0};
    first.get(*bounds, at, one, se);
    w->write_time(r, seconds(se[1]), seconds(se[0]));
  }
  std::vector<double> values;
  std::vector<float> floats;
  std::vector<std::size_t> start, count;
  for (int vi : f.variables) {
    const output::VariableInfo& v = plan.variables[vi];
    const grid::Box mine = my_block(v);
    const bool timeless = static_cast<filters::TemporalOp>(v.op) == filters::TemporalOp::once;
    for (std::size_t j = 0; j < old.size(); ++j) {
      const auto var = old[j].find_var(v.name);
      if (!var) throw formats::IoError(sources[j] + ": no variable '" + v.name + "'");
      const grid::Box theirs = old_box(blocks[j], plan, v);
      const grid::Box part = grid::intersect(mine, theirs);
      if (part.empty()) continue;
      values.resize(static_cast<std::size_t>(part.size()));
      start.assign(timeless ? 0 : 1, 0);
      count.assign(timeless ? 0 : 1, 1);
      for (std::size_t d = 0; d < part.start.size(); ++d) {
        start.push_back(static_cast<std::size_t>(part.start[d] - theirs.start[d]));
        count.push_back(static_cast<std::size_t>(part.count[d]));
      }
      for (std::int64_t r = 0; r < (timeless ? 1 : records); ++r) {
        if (!timeless) start[0] = static_cast<std::size_t>(r);
        old[j].get(*var, start.data(), count.data(), values.data());
        if (v.prec == 8) {
          w->put(vi, r, part, values.data());
        } else {  // float to double and back is exact
          floats.assign(values.begin(), values.end());
          w->put(vi, r, part, floats.data());
        }
      }
    }
  }
  w->close();
  return records;
}

}  // namespace

void repartition_parts(const output::ContextPlan& plan, int file, const formats::FileName& name,
                       const formats::WriterTarget& target, MPI_Comm writers, bool can_rewrite,
                       const std::function<grid::Box(const output::VariableInfo&)>& my_block) {
  const output::FileInfo& f = plan.files[file];
  const std::string ext(formats::traits_of(f.format).extension);
  const int count = target.part.total, me = target.part.number;
  int rank = 0;
  MPI_Comm_rank(writers, &rank);
  const auto t0 = std::chrono::steady_clock::now();  // for the report line (bench/repartition.py)
  // The first writer finds what is on disk: 0, nothing to do; else the old count.
  int old_count = 0;
  if (rank == 0) {
    bool done = true;
    for (int k = 0; k < count && done; ++k) done = parts_total(formats::part_file_name(name, k, count, ext)) == count;
    if (done) {
      // Complete new parts (or never another count): parts moved aside by a
      // run killed before it removed them go now.
      if (const int was = total_on_disk(name, ext, ".old"))
        for (int k = 0; k < was; ++k) fs::remove(formats::part_file_name(name, k, was, ext) + ".old");
    } else {
      old_count = total_on_disk(name, ext, ".old");
      if (old_count == 0) old_count = total_on_disk(name, ext, "");
      if (old_count == count) old_count = 0;  // a part missing: the writer says so
    }
  }
  MPI_Bcast(&old_count, 1, MPI_INT, 0, writers);
  if (old_count == 0) return;
  const std::string file_text =
      "file '" + f.id + "' (" + formats::file_name({name.base, name.period, -1, 1, 0}, ext) + ", multiple_file)";
  if (!can_rewrite)
    throw formats::IoError(file_text + ": its parts were written by " + std::to_string(old_count) +
                           " writers and two-level servers cannot rewrite them for " + std::to_string(count) +
                           "; run with as many level-2 servers as the checkpoint's run, or make the file one_file");
  std::vector<std::string> sources;
  for (int j = 0; j < old_count; ++j) {
    const std::string p = formats::part_file_name(name, j, old_count, ext);
    sources.push_back(fs::exists(p + ".old") ? p + ".old" : p);
  }
  const std::string mine = formats::part_file_name(name, me, count, ext), tmp = mine + ".repart";
  std::string error;
  std::int64_t records = 0;
  try {
    records = write_new_part(plan, file, target, tmp, sources, my_block);
  } catch (const std::exception& e) { error = e.what(); }
  // Every writer's new part complete, or none is used.
  int failed = error.empty() ? 0 : 1;
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, writers);
  if (failed) {
    fs::remove(tmp);
    throw formats::IoError(file_text + ": re-partitioning its " + std::to_string(old_count) + " parts into " +
                           std::to_string(count) + " failed" + (error.empty() ? " on another writer" : ": " + error) +
                           "; the old parts are kept");
  }
  if (rank == 0)
    for (int j = 0; j < old_count; ++j) {
      const std::string p = formats::part_file_name(name, j, old_count, ext);
      if (fs::exists(p) && !fs::exists(p + ".old")) fs::rename(p, p + ".old");
    }
  MPI_Barrier(writers);
  fs::rename(tmp, mine);
  unsigned long long bytes = fs::file_size(mine);  // written: each new part once
  MPI_Allreduce(MPI_IN_PLACE, &bytes, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, writers);
  if (rank != 0) return;
  for (int j = 0; j < old_count; ++j) fs::remove(formats::part_file_name(name, j, old_count, ext) + ".old");
  std::cerr << "foehn: " << file_text << " re-partitioned from " << old_count << " to " << count << " parts ("
            << records << " records, " << bytes << " bytes written in "
            << std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() << " s)" << std::endl;
}

void refuse_other_zarr_count(const output::FileInfo& f, const formats::FileName& name, std::string_view ext,
                             int count, MPI_Comm writers) {
  int rank = 0, on_disk = 0;
  MPI_Comm_rank(writers, &rank);
  if (rank == 0) on_disk = static_cast<int>(formats::part_files(name, ext).size());
  MPI_Bcast(&on_disk, 1, MPI_INT, 0, writers);
  if (on_disk == 0 || on_disk == count) return;
  const std::string store = formats::file_name({name.base, name.period, -1, 1, 0}, ext);
  throw formats::IoError("file '" + f.id + "' (" + store + ", multiple_file, append=\"true\"): " +
                         std::to_string(on_disk) + " part stores on disk, this run writes " + std::to_string(count) +
                         "; Zarr part stores are not re-partitioned: run with " + std::to_string(on_disk) +
                         " writers (servers; model ranks when attached) as the run that wrote them, or give the "
                         "file another name (a new store), or make it one_file");
}

void remove_stale_parts(const formats::FileName& name, std::string_view ext, int count) {
  std::vector<fs::path> ours;
  for (int k = 0; k < count; ++k) ours.push_back(fs::path(formats::part_file_name(name, k, count, ext)).filename());
  for (const fs::path& p : formats::part_files(name, ext))
    if (std::find(ours.begin(), ours.end(), p.filename()) == ours.end() && parts_total(p.string()) != count)
      fs::remove(p);
}

}  // namespace foehn::server
