#include "formats/netcdf/netcdf_writer.h"

#include <netcdf.h>
#include <netcdf_par.h>

#include <fcntl.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include <uuid/uuid.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <tuple>
#include <utility>

#include "filters/temporal.h"

namespace foehn::formats {

static_assert(kDefaultFillDouble == NC_FILL_DOUBLE && kDefaultFillFloat == NC_FILL_FLOAT,
              "formats' default fill values are netCDF's");

std::unique_ptr<Writer> open_netcdf4(const output::ContextPlan& plan, int file, WriterTarget target) {
  return std::make_unique<netcdf::NetcdfWriter>(plan, file, std::move(target), false);
}

std::unique_ptr<Writer> open_netcdf4_classic(const output::ContextPlan& plan, int file, WriterTarget target) {
  return std::make_unique<netcdf::NetcdfWriter>(plan, file, std::move(target), true);
}

namespace netcdf {

namespace {

// Where the root of a shared file keeps room for its close (reserve_room).
std::string reserve_path_of(const std::string& path) {
  const std::filesystem::path p(path);
  return (p.parent_path() / ("." + p.filename().string() + ".foehn-reserve")).string();
}

// XIOS's timeStamp and uuid of a new file: the time now (UTC, strftime's
// format) and a random uuid, placed at each %uuid% of uuid_format if given.
// The file's writers take its root's values: netCDF wants the same
// attributes from each.
std::pair<std::string, std::string> stamp_and_uuid(const output::FileInfo& f, MPI_Comm comm, bool parallel, bool root) {
  std::string both;
  if (root) {
    char stamp[256] = "";
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    std::strftime(stamp, sizeof stamp, f.time_stamp_format.c_str(), &utc);
    uuid_t id;
    char text[37];
    uuid_generate_random(id);  // version 4, as boost's random generator in XIOS
    uuid_unparse_lower(id, text);
    std::string uuid = f.uuid_format.empty() ? text : f.uuid_format;
    if (!f.uuid_format.empty())
      for (std::size_t at = uuid.find("%uuid%"); at != std::string::npos; at = uuid.find("%uuid%", at + 36))
        uuid.replace(at, 6, text);
    both = std::string(stamp) + '\0' + uuid;
  }
  if (parallel) {
    int n = static_cast<int>(both.size());
    MPI_Bcast(&n, 1, MPI_INT, 0, comm);
    both.resize(static_cast<std::size_t>(n));
    MPI_Bcast(both.data(), n, MPI_CHAR, 0, comm);
  }
  const std::size_t cut = both.find('\0');
  return {both.substr(0, cut), both.substr(cut + 1)};
}

}  // namespace

using output::ContextPlan;
using output::Dim;
using output::FileInfo;
using output::LocalBlock;
using output::VariableInfo;

NetcdfWriter::NetcdfWriter(const ContextPlan& plan, int file_index, WriterTarget target, bool classic)
    : part_(std::move(target.part)) {
  const FileInfo& f = plan.files.at(file_index);
  int size = 1, rank = 0;
  MPI_Comm_size(target.comm, &size);
  MPI_Comm_rank(target.comm, &rank);
  // A file a later run may continue is created through the parallel API
  // even for one writer (FileInfo::continuable), and opened so again.
  parallel_ = size > 1 || f.continuable;
  is_root_ = rank == 0;
  writers_ = size;
  alone_ = target.alone;
  sharers_ = std::max(1, target.sharers);
  block_of_ = std::move(target.block_of);
  ugrid_ = f.has_convention("UGRID");
  cdi_ = f.has_convention("CDI");
  // A run killed with the file open left its reserve: the next run that
  // creates or continues the file removes it, whatever its writer count.
  if (is_root_) std::remove(reserve_path_of(target.path).c_str());
  // A file of no record at the checkpoint (a split period that had just
  // begun) may be missing: it is created as the unbroken run did.
  if (f.resume_file_records > 0 && !std::filesystem::exists(target.path))
    throw IoError(target.path + ": the file the checkpoint continues is missing (" +
                  std::to_string(f.resume_file_records) + " records were written before it" +
                  (part_.whole ? ")" : "; a multiple_file part)"));
  if ((f.append || f.resume_file_records >= 0) && std::filesystem::exists(target.path)) {
    size_before_ = size_on_disk(target.path);
    ds_ = NcDataset::open_for_append(target.path, target.comm, parallel_);
    attach(plan, f);
  } else {
    ds_ = NcDataset::create(target.path, NC_NETCDF4 | (classic ? NC_CLASSIC_MODEL : 0), target.comm, parallel_);
    std::tie(time_stamp_, uuid_) = stamp_and_uuid(f, target.comm, parallel_, is_root_);
    base_record_ = f.record_offset;
    // Defined in netCDF's memory now (names, dimensions and attributes
    // checked); HDF5's datasets later, in finish_definition.
    define(plan, f);
    defining_plan_ = &plan;
    file_index_ = file_index;
  }
  block_of_ = nullptr;  // the engine's plan is not kept beyond definition
  comm_ = target.comm;
  measure_record();
  reserve_room();
}

NetcdfWriter::~NetcdfWriter() {
  if (!reserve_path_.empty()) std::remove(reserve_path_.c_str());
}

// On a full disk parallel HDF5 cannot close a file of several writers: its
// ranks write parts of the metadata, the one whose write fails leaves the
// collective flush early and the others wait in it for ever (gdb: one in
// H5AC__run_sync_point's MPI_Barrier, one in H5FD_truncate's MPI_Bcast,
// test_disk_full.py). Room kept from the start lets the close complete,
// whoever filled the disk. Best effort: no room now, no reserve.
void NetcdfWriter::reserve_room() {
  if (writers_ < 2 || !is_root_) return;
  const std::string reserve = reserve_path_of(ds_.path());
  const int fd = ::open(reserve.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return;
  const bool held = posix_fallocate(fd, 0, static_cast<off_t>(kCloseReserveBytes)) == 0;
  ::close(fd);
  if (held)
    reserve_path_ = reserve;
  else
    std::remove(reserve.c_str());
}

// Before a collective close: every writer waits until the root has freed
// the reserve, so that no rank writes metadata before there is room.
void NetcdfWriter::release_room() {
  if (writers_ < 2) return;
  if (!reserve_path_.empty()) std::remove(std::exchange(reserve_path_, {}).c_str());
  MPI_Barrier(comm_);
}

void NetcdfWriter::measure_record() {
  // One record of the whole file (of the part, multiple_file), from the
  // file's own dimensions.
  for (std::size_t vi = 0; vi < varids_.size(); ++vi) {
    if (varids_[vi] < 0 || timeless_[vi]) continue;
    std::uint64_t n = static_cast<std::uint64_t>(prec_[vi] == 8 ? 8 : 4);
    const std::vector<int> dims = ds_.var_dims(varids_[vi]);
    for (std::size_t k = 1; k < dims.size(); ++k) n *= ds_.dim_length(dims[k]);  // dims[0]: time
    record_bytes_ += n;
    cache_bytes_ += kChunkCacheBytes;
  }
  // The time variables: a double per record (two for bounds) and a cache each.
  for (const auto& [var, values] : {std::pair{time_var_, 1},
                                    {time_bounds_var_, 2},
                                    {time_centered_var_, 1},
                                    {time_centered_bounds_var_, 2},
                                    {time_instant_var_, 1},
                                    {time_instant_bounds_var_, 2}})
    if (var >= 0) {
      record_bytes_ += sizeof(double) * values;
      cache_bytes_ += kTimeChunkCacheBytes;
    }
}

void NetcdfWriter::check_space(std::int64_t record) {
  file_bytes_ += record_bytes_;
  if (file_bytes_ <= unchecked_) return;  // room was seen for these bytes already
  // What may still be in HDF5's chunk caches reaches the disk at the
  // latest at close, with the metadata (a small reserve).
  constexpr std::uint64_t kMetadataReserve = 1 << 20;
  const std::uint64_t cached = std::min<std::uint64_t>(file_bytes_ - record_bytes_ - synced_bytes_, cache_bytes_);
  std::uint64_t needed = record_bytes_ + cached + kMetadataReserve;
  // The context's other files fill the disk too, between their own checks
  // and from caches this check does not see: each is left as much room as
  // this one needs. Without it, several writers' own files filled the disk
  // in one record, and a shared file's next collective write failed on one
  // writer only, inside HDF5 (test_disk_full.py hung).
  const std::uint64_t others = static_cast<std::uint64_t>(sharers_ - 1) * (cached + kMetadataReserve);
  long long free = -1;  // -1: unknown (the check is skipped)
  if (is_root_) {
    std::filesystem::path dir = std::filesystem::path(ds_.path()).parent_path();
    struct statvfs fs;
    if (statvfs(dir.empty() ? "." : dir.c_str(), &fs) == 0)
      free = static_cast<long long>(fs.f_bavail) * static_cast<long long>(fs.f_frsize);
  }
  if (parallel_) MPI_Bcast(&free, 1, MPI_LONG_LONG, 0, comm_);
  if (free < 0) {
    unchecked_ = file_bytes_ + (std::uint64_t{1} << 30);
    return;
  }
  const bool low = static_cast<std::uint64_t>(free) < 4 * (needed + others);
  if (low && cached > 0) {
    // Little room left, for this file and for the others on the file
    // system (whose caches this check does not see): flushing the caches
    // now leaves only the metadata to write at close, whenever it comes.
    ds_.sync();
    synced_bytes_ = file_bytes_ - record_bytes_;
    needed -= cached;
  }
  needed += others;
  if (static_cast<std::uint64_t>(free) < needed)
    throw IoError(ds_.path() + ": record " + std::to_string(base_record_ + record) + ": " + std::strerror(ENOSPC) +
                  ": " + std::to_string(free) + " bytes free on its file system, about " + std::to_string(needed) +
                  " needed (the record, what HDF5 still caches of the file and its metadata" +
                  (sharers_ > 1 ? ", and room for the context's other files)" : ")"));
  // Others may fill the file system too: look again after half the margin
  // (at every record once room is low).
  // (at every record once room is low); the others may take their share.
  unchecked_ = low ? file_bytes_ : file_bytes_ + (static_cast<std::uint64_t>(free) - needed) / (2 * sharers_);
}

void NetcdfWriter::lay_out(const ContextPlan& plan, const FileInfo& f) {
  const std::size_t n = plan.variables.size();
  varids_.assign(n, -1);
  timeless_.assign(n, 0);
  offset_.assign(n, {});
  prec_.assign(n, 4);
  bool any_reduced = false, any_instant = false;
  for (int vi : f.variables) {
    const VariableInfo& v = plan.variables[vi];
    const auto op = static_cast<filters::TemporalOp>(v.op);
    any_reduced = any_reduced || filters::reduces(op);
    any_instant = any_instant || op == filters::TemporalOp::instant;
    timeless_[vi] = op == filters::TemporalOp::once;
    prec_[vi] = v.prec;
    for (const Dim& d : v.dims) {  // where the part starts in each dimension
      const LocalBlock ext = d.kind == Dim::axis ? LocalBlock{} : domain_extent(part_, plan.domains[d.index], d.index);
      offset_[vi].push_back(d.kind == Dim::axis ? 0 : d.kind == Dim::domain_j ? ext.jbegin : ext.ibegin);
    }
  }
  time_ = time_layout(f.time_counter, any_reduced, any_instant);
  counter_name_ = f.time_counter_name;
  time_unit_ = time_unit_seconds(f);
}

void NetcdfWriter::set_access(const ContextPlan& plan, const FileInfo& f) const {
  if (!parallel_) return;
  const int nvars = ds_.nvars();
  for (int v = 0; v < nvars; ++v) ds_.set_par_access(v, NC_COLLECTIVE);
  // A variable of no dimension at all (a scalar field written once) is
  // written by its one holder alone: a collective put would have every
  // rank write the value.
  for (int vi : f.variables)
    if (timeless_[vi] && plan.variables[vi].dims.empty()) ds_.set_par_access(varids_[vi], NC_INDEPENDENT);
}

// A chunk of many small records (netcdf_define.cpp) is complete once and
// never read again: room for two is all its cache needs. The whole
// kChunkCacheBytes kept up to 1 MiB of finished chunks per variable, which
// filled over a long run (bench/soak.py). Only where the context has one
// writer: with small caches HDF5 writes chunks inside its writes, and on a
// full disk a writer of a shared file failing inside a collective write
// leaves the others waiting in it, while a writer's own file filling the
// disk moves that failure into the shared file (test_disk_full.py hung).
void NetcdfWriter::size_chunk_cache(int vi, int var) const {
  if (!alone_) return ds_.set_chunk_cache(var, kChunkCacheBytes);
  const std::vector<std::size_t> sizes = ds_.chunk_sizes(var);
  std::size_t bytes = prec_[vi] == 8 ? 8 : 4;
  for (std::size_t s : sizes) bytes *= s;
  const bool many_records = !timeless_[vi] && sizes.size() > 1 && sizes[0] > 1;
  ds_.set_chunk_cache(var, many_records ? std::min(2 * bytes, kChunkCacheBytes) : kChunkCacheBytes);
}

void NetcdfWriter::bound_time_caches() const {
  if (!alone_) return;  // as size_chunk_cache
  for (int var : {time_var_, time_bounds_var_, time_centered_var_, time_centered_bounds_var_, time_instant_var_,
                  time_instant_bounds_var_})
    if (var >= 0) ds_.set_chunk_cache(var, kTimeChunkCacheBytes);
}

void NetcdfWriter::finish_definition() {
  if (!defining_plan_) return;
  const ContextPlan& plan = *defining_plan_;
  defining_plan_ = nullptr;
  ds_.end_definition();
  set_access(plan, plan.files.at(file_index_));
  bound_time_caches();
  write_coordinates(plan);
}

void NetcdfWriter::write_time(std::int64_t record, double end, double start_time) {
  finish_definition();
  if (base_record_ + record < 0) return;  // record_offset < 0: not written
  check_space(record);
  const std::size_t start[2] = {static_cast<std::size_t>(base_record_ + record), 0};
  const std::size_t count[2] = {is_root_ ? std::size_t{1} : 0, 2};
  // XIOS's values: an interval's centre and bounds, an instant's end with
  // bounds of zero width, the record's number.
  const double centre = 0.5 * (start_time + end) / time_unit_,
               interval[2] = {start_time / time_unit_, end / time_unit_};
  const double instant[2] = {end / time_unit_, end / time_unit_};
  const auto put_pair = [&](int var, int bounds_var, const double* values, const double* bounds) {
    if (var >= 0) ds_.put(var, start, count, values);
    if (bounds_var >= 0) ds_.put(bounds_var, start, count, bounds);
  };
  put_pair(time_centered_var_, time_centered_bounds_var_, &centre, interval);
  put_pair(time_instant_var_, time_instant_bounds_var_, instant, instant);
  const double number = static_cast<double>(start[0]);
  if (time_.counter == TimeLayout::Counter::centered) put_pair(time_var_, time_bounds_var_, &centre, interval);
  if (time_.counter == TimeLayout::Counter::instant) put_pair(time_var_, time_bounds_var_, instant, instant);
  if (time_.counter == TimeLayout::Counter::record) put_pair(time_var_, -1, &number, nullptr);
}

void NetcdfWriter::put(int variable, std::int64_t record, const grid::Box& box, const void* values) {
  finish_definition();
  const auto& offset = offset_.at(variable);
  const std::size_t t = timeless_[variable] ? 0 : 1;  // leading time dimension, if any
  if (t && base_record_ + record < 0) return;         // record_offset < 0: not written
  const std::size_t rank = box.start.size() + t;
  std::size_t start[NC_MAX_VAR_DIMS], count[NC_MAX_VAR_DIMS];
  if (t) {
    start[0] = static_cast<std::size_t>(base_record_ + record);
    count[0] = box.empty() ? 0 : 1;
  }
  for (std::size_t d = t; d < rank; ++d) {
    count[d] = box.empty() ? 0 : static_cast<std::size_t>(box.count[d - t]);
    start[d] = box.empty() ? 0 : static_cast<std::size_t>(box.start[d - t] - offset[d - t]);
  }
  const int var = varids_.at(variable);
  if (t == 0 && offset.empty() && box.empty()) return;  // 0-d and held elsewhere (independent access)
  const double t0 = MPI_Wtime();
  if (prec_[variable] == 8)
    ds_.put(var, start, count, static_cast<const double*>(values));
  else
    ds_.put(var, start, count, static_cast<const float*>(values));
  write_seconds_ += MPI_Wtime() - t0;
  bytes_written_ += static_cast<std::uint64_t>(box.size()) * prec_[variable];
}

void NetcdfWriter::sync() {
  finish_definition();
  ds_.sync();
}

void NetcdfWriter::close() {
  if (!ds_.is_open()) return;
  finish_definition();  // a file without records is complete too
  release_room();
  const double t0 = MPI_Wtime();
  ds_.close();
  write_seconds_ += MPI_Wtime() - t0;
  if (is_root_) {  // the file is complete once the collective close returns
    const std::uint64_t size = size_on_disk(ds_.path());
    disk_bytes_ = size > size_before_ ? size - size_before_ : 0;
  }
}

}  // namespace netcdf
}  // namespace foehn::formats
