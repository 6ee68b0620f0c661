#include "formats/grib/grib_writer.h"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "filters/temporal.h"
#include "formats/grib/grib_grid.h"

namespace foehn::formats {

std::unique_ptr<Writer> open_grib2(const output::ContextPlan& plan, int file, WriterTarget target) {
  return std::make_unique<grib::GribWriter>(plan, file, std::move(target));
}

namespace grib {

namespace {

using output::Dim;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// GRIB2's code for the statistical process of each temporal operation
// (code table 4.10, as ecCodes' stepType names it); "": none.
const char* step_type(filters::TemporalOp op) {
  switch (op) {
    case filters::TemporalOp::average: return "avg";
    case filters::TemporalOp::accumulate: return "accum";
    case filters::TemporalOp::minimum: return "min";
    case filters::TemporalOp::maximum: return "max";
    default: return "";
  }
}

// The reference time: the plan's time origin ("YYYY-MM-DD hh:mm:ss"), to
// which every record's steps count, whatever the calendar.
void set_reference_time(const GribHandle& h, const std::string& origin, const std::string& where) {
  int y = 0, mo = 0, d = 0, hh = 0, mi = 0, ss = 0;
  if (std::sscanf(origin.c_str(), "%d-%d-%d %d:%d:%d", &y, &mo, &d, &hh, &mi, &ss) < 3 || ss != 0)
    throw IoError(where + ": time_origin '" + origin + "' is not a GRIB2 reference time (whole minutes)");
  h.set_long("dataDate", static_cast<long>(y) * 10000 + mo * 100 + d);
  h.set_long("dataTime", hh * 100 + mi);
}

void set_attribute(const GribHandle& h, const output::Attribute& a) {
  if (a.type == "int") return h.set_long(a.name.c_str(), std::stol(a.value));
  if (a.type == "double") return h.set_double(a.name.c_str(), std::stod(a.value));
  if (a.type == "bool") return h.set_long(a.name.c_str(), a.value == "true" ? 1 : 0);
  h.set_string(a.name.c_str(), a.value);
}

// A level value as GRIB2's first fixed surface: a whole number as it is,
// else scaled by the fewest powers of ten that make it whole (up to 6).
void set_level(const GribHandle& h, double value) {
  if (value == std::round(value)) return h.set_long("level", std::lround(value));
  int scale = 1;
  while (scale < 6 && std::abs(value * std::pow(10.0, scale) - std::round(value * std::pow(10.0, scale))) > 1e-9)
    ++scale;
  h.set_long("scaleFactorOfFirstFixedSurface", scale);
  h.set_long("scaledValueOfFirstFixedSurface", std::lround(value * std::pow(10.0, scale)));
}

}  // namespace

GribWriter::GribWriter(const output::ContextPlan& plan, int file, WriterTarget target)
    : path_(std::move(target.path)), comm_(target.comm) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  const output::FileInfo& f = plan.files.at(file);
  own_file_ = !target.part.whole;
  field_of_.assign(plan.variables.size(), -1);
  for (std::size_t k = 0; k < f.variables.size(); ++k) {
    field_of_[f.variables[k]] = static_cast<int>(k);
    fields_.push_back(define_field(plan, f.variables[k], static_cast<int>(k)));
  }
  std::string error;
  if (rank_ == 0 || own_file_) {
    try {
      size_before_ = size_on_disk(path_);  // what an appended file held (0 for a new one)
      open_output(plan, f);
    } catch (const IoError& e) { error = e.what(); }
  }
  agree(error);
  int appended = appended_;  // the first writer's word, for all
  MPI_Bcast(&appended, 1, MPI_INT, 0, comm_);
  appended_ = appended != 0;
}

GribWriter::~GribWriter() {
  if (out_) std::fclose(out_);
}

GribWriter::Field GribWriter::define_field(const output::ContextPlan& plan, int vi, int position) {
  const output::VariableInfo& v = plan.variables[vi];
  const std::string where = path_ + ": field '" + v.name + "'";
  Field fd;
  fd.position = position;
  fd.prec = v.prec;
  int domain = -1;
  for (std::size_t k = 0; k < v.dims.size(); ++k) {
    const Dim& d = v.dims[k];
    if (d.kind != Dim::axis) {
      domain = d.index;
    } else if (domain < 0 && fd.level_dim < 0) {
      fd.level_dim = static_cast<int>(k);
      fd.level_values = plan.axes[d.index].values;
      fd.levels = plan.axes[d.index].size();
    } else {
      throw IoError(where +
                    ": GRIB2 messages hold one horizontal field each: at most one axis (the levels), "
                    "before the domain in the grid");
    }
  }
  if (domain < 0) throw IoError(where + ": GRIB2 messages need a horizontal domain");
  const output::DomainInfo& dom = plan.domains[domain];
  fd.points = dom.size();
  fd.ni_glo = dom.one_dimensional() ? dom.size() : dom.ni_glo;
  fd.handle = grid_handle(dom, where);
  const GribHandle& h = fd.handle;
  set_reference_time(h, plan.time_origin, where);
  const auto op = static_cast<filters::TemporalOp>(v.op);
  if (const std::string type = step_type(op); !type.empty()) {
    h.set_string("stepType", type);  // product definition template 4.8
    fd.statistics = true;
  }
  // Steps are set in seconds (any time step is exact); ecCodes stores them
  // in a coarser unit when that is exact too (hours for hourly records).
  h.set_long("stepUnits", 13);
  h.set_long("bitsPerValue", 16);
  bool parameter = false, level_type = false;
  for (const output::Attribute& a : v.attributes) {
    if (a.type == "data") continue;  // valid_min, valid_max: no GRIB key
    parameter = parameter || a.name == "paramId" || a.name == "shortName" || a.name == "parameterNumber";
    level_type = level_type || a.name == "typeOfLevel" || a.name == "typeOfFirstFixedSurface";
    set_attribute(h, a);
  }
  if (!parameter)
    throw IoError(where +
                  ": a GRIB2 field needs its parameter: a <variable name=\"paramId\" type=\"int\"> (or "
                  "shortName, or discipline, parameterCategory and parameterNumber)");
  if (fd.level_dim >= 0 && !level_type)
    throw IoError(where +
                  ": a field with levels needs <variable name=\"typeOfLevel\" type=\"string\"> in GRIB2 "
                  "(hybrid, isobaricInhPa, depthBelowSea, ...)");
  const double fill = v.has_fill ? v.fill_value : (v.prec == 8 ? kDefaultFillDouble : kDefaultFillFloat);
  fd.missing = v.prec == 8 ? fill : static_cast<double>(static_cast<float>(fill));
  if (v.has_fill || dom.needs_fill) {  // points without data are left out through a bitmap
    h.set_double("missingValue", fd.missing);
    h.set_long("bitmapPresent", 1);
  }
  fd.owned.resize(static_cast<std::size_t>(fd.levels));
  for (std::int64_t l = 0; l < fd.levels; ++l)
    if (owner(fd, l) == rank_) fd.owned[l].assign(static_cast<std::size_t>(fd.points), fd.missing);
  fd.once = op == filters::TemporalOp::once;
  return fd;
}

void GribWriter::write_time(std::int64_t, double end, double start) {
  flush_record();
  end_ = end, start_ = start;
  have_record_ = true;
}

void GribWriter::put(int variable, std::int64_t, const grid::Box& box, const void* values) {
  const auto t0 = std::chrono::steady_clock::now();
  Field& f = fields_.at(field_of_.at(variable));
  // This writer's part: levels [l0, l0 + nl), rows [j0, j0 + nj) and
  // columns [i0, i0 + ni) of the domain (1-D domains: one row).
  const std::size_t nd = box.start.size();
  const std::size_t idim = nd - 1;
  const bool two_d = nd >= 2 && static_cast<int>(nd - 2) != f.level_dim;
  long long mine[6] = {0, 1, 0, 1, box.start[idim], box.count[idim]};
  if (f.level_dim >= 0) mine[0] = box.start[f.level_dim], mine[1] = box.count[f.level_dim];
  if (two_d) mine[2] = box.start[nd - 2], mine[3] = box.count[nd - 2];
  if (box.empty()) mine[1] = 0;
  boxes_.resize(6 * static_cast<std::size_t>(size_));
  MPI_Allgather(mine, 6, MPI_LONG_LONG, boxes_.data(), 6, MPI_LONG_LONG, comm_);

  // Send each level's plane to its owner, in level order per owner.
  const long long plane = mine[3] * mine[5];
  send_counts_.assign(size_, 0);
  for (long long l = mine[0]; l < mine[0] + mine[1]; ++l) send_counts_[owner(f, l)] += static_cast<int>(plane);
  send_displs_.assign(size_, 0);
  for (int r = 1; r < size_; ++r) send_displs_[r] = send_displs_[r - 1] + send_counts_[r - 1];
  send_.resize(static_cast<std::size_t>(plane * mine[1]));
  receive_displs_ = send_displs_;  // used as cursors while packing
  for (long long l = 0; l < mine[1]; ++l) {
    double* to = send_.data() + receive_displs_[owner(f, mine[0] + l)];
    receive_displs_[owner(f, mine[0] + l)] += static_cast<int>(plane);
    if (f.prec == 8) {
      const double* from = static_cast<const double*>(values) + l * plane;
      for (long long p = 0; p < plane; ++p) to[p] = from[p];
    } else {
      const float* from = static_cast<const float*>(values) + l * plane;
      for (long long p = 0; p < plane; ++p) to[p] = from[p];
    }
  }
  receive_counts_.assign(size_, 0);
  for (int s = 0; s < size_; ++s) {
    const long long* b = &boxes_[6 * s];
    for (long long l = b[0]; l < b[0] + b[1]; ++l)
      if (owner(f, l) == rank_) receive_counts_[s] += static_cast<int>(b[3] * b[5]);
  }
  receive_displs_.assign(size_, 0);
  for (int r = 1; r < size_; ++r) receive_displs_[r] = receive_displs_[r - 1] + receive_counts_[r - 1];
  receive_.resize(static_cast<std::size_t>(receive_displs_[size_ - 1] + receive_counts_[size_ - 1]));
  MPI_Alltoallv(send_.data(), send_counts_.data(), send_displs_.data(), MPI_DOUBLE, receive_.data(),
                receive_counts_.data(), receive_displs_.data(), MPI_DOUBLE, comm_);

  // Place the received planes in the whole levels this writer encodes.
  for (int s = 0; s < size_; ++s) {
    const long long* b = &boxes_[6 * s];
    const double* from = receive_.data() + receive_displs_[s];
    for (long long l = b[0]; l < b[0] + b[1]; ++l) {
      if (owner(f, l) != rank_) continue;
      double* level = f.owned[l].data();
      for (long long j = 0; j < b[3]; ++j, from += b[5])
        std::copy(from, from + b[5], level + (b[2] + j) * f.ni_glo + b[4]);
    }
  }
  f.pending = true;
  bytes_ += static_cast<std::uint64_t>(box.size() * f.prec);  // values, as the NetCDF writer counts them
  write_seconds_ += seconds_since(t0);
}

void GribWriter::encode_owned(std::vector<unsigned char>& bytes, std::vector<long long>& sizes) {
  const long end = std::lround(end_), start = std::lround(start_);
  for (Field& f : fields_) {
    if (!f.pending) continue;
    const GribHandle& h = f.handle;
    if (f.statistics) {
      h.set_long("startStep", start);
      h.set_long("endStep", end);
    } else {
      h.set_long("step", end);
    }
    for (std::int64_t l = 0; l < f.levels; ++l) {
      if (owner(f, l) != rank_) continue;
      if (f.level_dim >= 0) set_level(h, f.level_values[l]);
      h.set_values(f.owned[l].data(), f.owned[l].size());
      const auto message = h.message();
      bytes.insert(bytes.end(), message.begin(), message.end());
      sizes.push_back(static_cast<long long>(message.size()));
      std::fill(f.owned[l].begin(), f.owned[l].end(), f.missing);  // points a later record leaves out
    }
  }
}

void GribWriter::write_in_order(const std::vector<unsigned char>& bytes, const std::vector<long long>& sizes) {
  if (own_file_) {  // multiple_file: this writer's messages, already in order, in its own part
    std::string error;
    if (!bytes.empty() && std::fwrite(bytes.data(), 1, bytes.size(), out_) != bytes.size())
      error = path_ + ": writing a GRIB2 message failed: " + std::strerror(errno);
    agree(error);
    return;
  }
  long long mine[2] = {static_cast<long long>(sizes.size()), static_cast<long long>(bytes.size())};
  std::vector<long long> counts(rank_ == 0 ? 2 * size_ : 0);
  MPI_Gather(mine, 2, MPI_LONG_LONG, counts.data(), 2, MPI_LONG_LONG, 0, comm_);
  std::vector<int> nsizes(size_), nbytes(size_), size_at(size_), byte_at(size_);
  if (rank_ == 0)
    for (int r = 0; r < size_; ++r) {
      nsizes[r] = static_cast<int>(counts[2 * r]), nbytes[r] = static_cast<int>(counts[2 * r + 1]);
      if (r > 0) size_at[r] = size_at[r - 1] + nsizes[r - 1], byte_at[r] = byte_at[r - 1] + nbytes[r - 1];
    }
  std::vector<long long> all_sizes(rank_ == 0 ? size_at[size_ - 1] + nsizes[size_ - 1] : 0);
  std::vector<unsigned char> all_bytes(rank_ == 0 ? byte_at[size_ - 1] + nbytes[size_ - 1] : 0);
  MPI_Gatherv(sizes.data(), static_cast<int>(sizes.size()), MPI_LONG_LONG, all_sizes.data(), nsizes.data(),
              size_at.data(), MPI_LONG_LONG, 0, comm_);
  MPI_Gatherv(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, all_bytes.data(), nbytes.data(), byte_at.data(),
              MPI_BYTE, 0, comm_);
  std::string error;
  if (rank_ == 0) {
    // Field in file order, then level: each message from its owner's stream.
    std::vector<int> next = size_at;
    std::vector<long long> offset(byte_at.begin(), byte_at.end());
    for (const Field& f : fields_) {
      if (!f.pending) continue;
      for (std::int64_t l = 0; l < f.levels && error.empty(); ++l) {
        const int r = owner(f, l);
        const long long n = all_sizes[next[r]++];
        if (std::fwrite(all_bytes.data() + offset[r], 1, n, out_) != static_cast<std::size_t>(n))
          error = path_ + ": writing a GRIB2 message failed: " + std::strerror(errno);
        offset[r] += n;
      }
    }
  }
  agree(error);
}

void GribWriter::flush_record() {
  bool any = false;
  for (const Field& f : fields_) any = any || f.pending;
  if (!any) return;
  const auto t0 = std::chrono::steady_clock::now();
  message_bytes_.clear();
  message_sizes_.clear();
  std::string error;
  try {
    encode_owned(message_bytes_, message_sizes_);
  } catch (const IoError& e) { error = e.what(); }
  agree(error);
  write_in_order(message_bytes_, message_sizes_);
  for (Field& f : fields_) f.pending = false;
  write_seconds_ += seconds_since(t0);
}

void GribWriter::agree(const std::string& error) const {
  int first = error.empty() ? std::numeric_limits<int>::max() : rank_;
  MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, comm_);
  if (first == std::numeric_limits<int>::max()) return;
  std::string message = error;
  unsigned long long length = message.size();
  MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG_LONG, first, comm_);
  message.resize(length);
  MPI_Bcast(message.data(), static_cast<int>(length), MPI_CHAR, first, comm_);
  throw IoError(first == rank_ ? message : "GRIB2 writer " + std::to_string(first) + ": " + message);
}

void GribWriter::sync() {
  flush_record();
  std::string error;
  if (out_ && (std::fflush(out_) != 0 || ::fsync(fileno(out_)) != 0))
    error = path_ + ": sync failed: " + std::strerror(errno);
  agree(error);
}

void GribWriter::close() {
  std::string error;
  try {
    flush_record();
  } catch (const IoError& e) { error = e.what(); }
  if (out_) {
    if (std::fclose(out_) != 0 && error.empty()) error = path_ + ": closing failed: " + std::strerror(errno);
    out_ = nullptr;
    const std::uint64_t size = size_on_disk(path_);
    disk_bytes_ = size > size_before_ ? size - size_before_ : 0;
  }
  if (!error.empty()) throw IoError(error);
}

}  // namespace grib
}  // namespace foehn::formats
