// The two baselines foehn is measured against, writing the same file:
//
// sequential (the thesis' IFS baseline): at an output step every rank
//   gathers its NPROMA blocks, MPI_Gatherv brings each field to rank 0,
//   which puts the points in global order and writes the file alone while
//   the other ranks wait for it at the next step's halo exchange.
// parallel (the PIO-style baseline): every rank sends each field to the
//   rank that owns its contiguous slab of cells (MPI_Alltoallv, as PIO's
//   box rearranger does) and all ranks write one file collectively.
// grib (the thesis' critical path, with CDO converting afterwards): as
//   sequential, but rank 0 encodes each field and level as a GRIB2 message.
#include <algorithm>
#include <stdexcept>

#include "fields.h"
#include "formats/file_naming.h"
#include "formats/registry.h"
#include "grib_file.h"
#include "nc_file.h"
#include "output.h"

namespace miniapp {

namespace {

std::vector<int> field_list(const Options& opt) {
  std::vector<int> out;
  for (int f = 0; f < kNumFields3d; ++f) out.push_back(f);
  out.push_back(-1);
  if (opt.fields.empty()) return out;
  std::vector<int> chosen;
  for (const int f : out) {
    const char* id = f < 0 ? kSurfacePressure.id : kFields3d[static_cast<std::size_t>(f)].id;
    if (std::find(opt.fields.begin(), opt.fields.end(), id) != opt.fields.end()) chosen.push_back(f);
  }
  return chosen;
}

class NetcdfOutput : public Output {
 public:
  NetcdfOutput(const Options& opt, const Geometry& g, int levels, MPI_Comm comm)
      : parallel_(opt.output == "parallel"),
        mode_(opt.output),
        comm_(comm),
        levels_(levels),
        nloc_(g.local_size()),
        timestep_(opt.timestep),
        period_(opt.output_hours * 3600),
        fields_(field_list(opt)) {
    const std::int64_t n = g.global_size();
    // Named as foehn names its own file of that name, so the schemes compare.
    const foehn::formats::FileName name{opt.file, "", -1, 1, 0};
    const std::string path = foehn::formats::file_name(name, foehn::formats::traits_of("netcdf4").extension);
    const std::string freq = std::to_string(opt.output_hours) + "h";
    if (parallel_) {
      // Slab r holds cells [n r / P, n (r+1) / P); local points are in
      // ascending order, so the points for each slab are a contiguous run.
      for (int r = 0; r <= g.ranks; ++r) slab_.push_back(n * r / g.ranks);
      for (int r = 0; r <= g.ranks; ++r)
        run_.push_back(
            static_cast<int>(std::lower_bound(g.global.begin(), g.global.end(), slab_[r]) - g.global.begin()));
      from_.resize(static_cast<std::size_t>(g.ranks));
      for (std::int64_t p = slab_[g.rank]; p < slab_[g.rank + 1]; ++p)
        from_[static_cast<std::size_t>(g.owner[static_cast<std::size_t>(p)])].push_back(
            static_cast<int>(p - slab_[g.rank]));
      file_ = std::make_unique<NcFile>(path, comm, g, levels, fields_, slab_[g.rank], slab_[g.rank + 1] - slab_[g.rank],
                                       freq);
    } else {
      // Rank 0 puts gathered values in global order: rank 0's points, rank 1's, ...
      std::vector<std::int64_t> first;
      g.points_of_all(first, order_);
      for (int r = 0; r < g.ranks; ++r) counts_.push_back(static_cast<int>(first[r + 1] - first[r]));
      if (g.rank != 0) order_ = {};  // only rank 0 reorders
      if (g.rank == 0 && opt.output == "grib")
        grib_ = std::make_unique<GribFile>(opt.file + ".grib2", g.grid, levels, fields_, opt.grib_bits);
      else if (g.rank == 0)
        file_ = std::make_unique<NcFile>(path, MPI_COMM_NULL, g, levels, fields_, 0, n, freq);
    }
    rank_ = g.rank;
    cells_ = n;
    local_.resize(static_cast<std::size_t>(nloc_) * levels);
  }

  void end_of_step(int step, const State& state) override {
    if (static_cast<long>(step) * timestep_ % period_ != 0) return;
    seconds_ = static_cast<double>(step) * timestep_;
    if (file_) file_->write_time(record_, seconds_);
    for (std::size_t i = 0; i < fields_.size(); ++i) {
      const int f = fields_[i], depth = f < 0 ? 1 : levels_;
      state.gather(f, local_.data(), true);
      if (parallel_)
        write_parallel(static_cast<int>(i), depth);
      else
        write_sequential(static_cast<int>(i), depth);
      bytes_ += cells_ * depth * static_cast<std::int64_t>(sizeof(float));
    }
    ++record_;
  }

  void finish() override {
    if (file_) file_->close();
    if (grib_) grib_->close();
  }
  std::int64_t bytes_written() const override { return bytes_; }
  std::string mode() const override { return mode_; }

 private:
  void write_sequential(int i, int depth) {
    std::vector<int> recv_counts, displs;
    for (const int c : counts_) {
      displs.push_back(recv_counts.empty() ? 0 : displs.back() + recv_counts.back());
      recv_counts.push_back(c * depth);
    }
    gathered_.resize(rank_ == 0 ? static_cast<std::size_t>(cells_) * depth : 0);
    MPI_Gatherv(local_.data(), nloc_ * depth, MPI_FLOAT, gathered_.data(), recv_counts.data(), displs.data(), MPI_FLOAT,
                0, comm_);
    if (rank_ != 0) return;
    global_.resize(gathered_.size());
    std::size_t at = 0;
    for (std::size_t r = 0, first = 0; r < counts_.size(); first += counts_[r], ++r)
      for (int k = 0; k < depth; ++k)
        for (int j = 0; j < counts_[r]; ++j) global_[k * cells_ + order_[first + j]] = gathered_[at++];
    if (grib_)
      grib_->write_field(i, seconds_, global_.data());
    else
      file_->write_field(i, record_, global_.data());
  }

  void write_parallel(int i, int depth) {
    const int ranks = static_cast<int>(run_.size()) - 1;
    std::vector<int> send_counts(ranks), send_displs(ranks), recv_counts(ranks), recv_displs(ranks);
    send_.clear();
    for (int r = 0; r < ranks; ++r) {
      send_displs[r] = static_cast<int>(send_.size());
      for (int k = 0; k < depth; ++k)
        send_.insert(send_.end(), local_.begin() + k * nloc_ + run_[r], local_.begin() + k * nloc_ + run_[r + 1]);
      send_counts[r] = static_cast<int>(send_.size()) - send_displs[r];
      recv_counts[r] = static_cast<int>(from_[r].size()) * depth;
      recv_displs[r] = r ? recv_displs[r - 1] + recv_counts[r - 1] : 0;
    }
    gathered_.resize(static_cast<std::size_t>(recv_displs.back() + recv_counts.back()));
    MPI_Alltoallv(send_.data(), send_counts.data(), send_displs.data(), MPI_FLOAT, gathered_.data(), recv_counts.data(),
                  recv_displs.data(), MPI_FLOAT, comm_);
    const std::int64_t width = slab_[rank_ + 1] - slab_[rank_];
    global_.resize(static_cast<std::size_t>(width * depth));
    std::size_t at = 0;
    for (int r = 0; r < ranks; ++r)
      for (int k = 0; k < depth; ++k)
        for (const int offset : from_[r]) global_[k * width + offset] = gathered_[at++];
    file_->write_field(i, record_, global_.data());
  }

  bool parallel_;
  std::string mode_;
  MPI_Comm comm_;
  int levels_, nloc_, timestep_, period_, rank_ = 0, record_ = 0;
  double seconds_ = 0;  // model time of the output step
  std::int64_t cells_ = 0, bytes_ = 0;
  std::vector<int> fields_;
  std::unique_ptr<NcFile> file_;
  std::unique_ptr<GribFile> grib_;  // instead of file_ in the grib scheme
  std::vector<float> local_, gathered_, global_, send_;
  std::vector<int> counts_;             // sequential: points per rank
  std::vector<std::int64_t> order_;     // sequential, rank 0: global index of each gathered point
  std::vector<std::int64_t> slab_;      // parallel: slab boundaries
  std::vector<int> run_;                // parallel: local points [run_[r], run_[r+1]) go to slab r
  std::vector<std::vector<int>> from_;  // parallel: per source rank, offsets in my slab
};

class NoOutput : public Output {
 public:
  void end_of_step(int, const State&) override {}
  void finish() override {}
  std::int64_t bytes_written() const override { return 0; }
  std::string mode() const override { return "none"; }
};

}  // namespace

std::unique_ptr<Output> make_no_output() { return std::make_unique<NoOutput>(); }

std::unique_ptr<Output> make_netcdf_output(const Options& opt, const Geometry& g, int levels, MPI_Comm comm) {
  return std::make_unique<NetcdfOutput>(opt, g, levels, comm);
}

}  // namespace miniapp
