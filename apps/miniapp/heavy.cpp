// miniapp_heavy: the output-heavy configuration of the benchmark (issue 7
// item 8, bench/output_heavy.py): a rectilinear lon/lat grid (360 x 180),
// 50 levels, 12 float64 fields, every field written every 6 of 24 steps
// (4 records of 311 MB: 1.24 GB), against about 3 s of model work. Here
// output, not computation, dominates, so it shows whether a server keeps
// up with the disk, what the model rank and the server hold in memory, and
// whether the model waits.
//
// Each rank holds a band of latitudes of every field, laid out
// [level][lat][lon] (lon fastest), as foehn expects for a grid of a domain
// and an axis. A step is --work sweeps of upwind advection with diffusion
// along every latitude row; fields evolve deterministically, so any two
// schemes' files can be compared value for value.
//
//   --output none     the reference time
//   --output foehn    foehn (server mode beside foehn-server ranks, else attached)
//   --output netcdf   gather to rank 0 and write netCDF-4 serially, the same
//                     file foehn writes; with --work 0 it is the plain
//                     netCDF-4 writer whose throughput the server is compared with
//                     (--alone: beside a computing model in one MPMD job, as a server)
#include <mpi.h>
#include <netcdf.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <sys/resource.h>
#include <vector>

#include "fields.h"
#include "foehn/foehn.h"
#include "formats/file_naming.h"
#include "formats/registry.h"

namespace {

struct HeavyOptions {
  int ni = 360, nj = 180, levels = 50, fields = 12, steps = 24, every = 6, work = 3, timestep = 600;
  std::string output = "none", iodef = "iodef_heavy.xml", file = "heavy_6ts", summary;
  bool alone = false;  // each rank a model of its own (MPI_COMM_SELF), beside other programs of one MPMD job
};

void must(int status, const char* call) {
  if (status != FOEHN_OK) throw std::runtime_error(std::string(call) + " failed: " + foehn_last_error());
}

void nc(int status, const std::string& what) {
  if (status != NC_NOERR) throw std::runtime_error(what + ": " + nc_strerror(status));
}

// Resident memory now (VmRSS) and at its peak, in bytes.
double rss_now() {
  std::ifstream in("/proc/self/statm");
  long pages = 0, resident = 0;
  in >> pages >> resident;
  return static_cast<double>(resident) * 4096.0;
}

double rss_peak() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) * 1024.0;
}

// CPU time of this process: well below its wall time, it waited for a core.
double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

// A band of latitudes of every field and the sweep that advances them.
class Model {
 public:
  Model(const HeavyOptions& o, int rank, int ranks)
      : o_(o),
        jbegin_(static_cast<int>(static_cast<long>(o.nj) * rank / ranks)),
        nj_(static_cast<int>(static_cast<long>(o.nj) * (rank + 1) / ranks) - jbegin_),
        size_(static_cast<std::size_t>(o.levels) * nj_ * o.ni),
        fields_(static_cast<std::size_t>(o.fields)),
        scratch_(size_) {
    for (int f = 0; f < o.fields; ++f) {
      const miniapp::FieldInfo& info = miniapp::kFields3d[static_cast<std::size_t>(f % miniapp::kNumFields3d)];
      std::vector<double>& x = fields_[static_cast<std::size_t>(f)];
      x.resize(size_);
      std::vector<double> cos_lon(static_cast<std::size_t>(o.ni));
      for (int i = 0; i < o.ni; ++i) cos_lon[static_cast<std::size_t>(i)] = std::cos(lon_deg(i) * M_PI / 180 + f);
      for (int k = 0; k < o.levels; ++k)
        for (int j = 0; j < nj_; ++j) {
          const double row = info.amplitude * std::cos(lat_deg(jbegin_ + j) * M_PI / 180);
          for (int i = 0; i < o.ni; ++i)
            x[at(k, j, i)] = info.mean + row * cos_lon[static_cast<std::size_t>(i)] * (1.0 - 0.5 * k / o.levels);
        }
    }
  }

  double lon_deg(int i) const { return (i + 0.5) * 360.0 / o_.ni; }
  double lat_deg(int j) const { return -90.0 + (j + 0.5) * 180.0 / o_.nj; }
  int jbegin() const { return jbegin_; }
  int nj() const { return nj_; }
  std::size_t size() const { return size_; }
  const double* field(int f) const { return fields_[static_cast<std::size_t>(f)].data(); }

  // Upwind advection eastward (Courant number varying with latitude and
  // level) and a little diffusion along each row; periodic in longitude.
  void step() {
    const int ni = o_.ni;
    for (int sweep = 0; sweep < o_.work; ++sweep)
      for (int f = 0; f < o_.fields; ++f) {
        std::vector<double>& x = fields_[static_cast<std::size_t>(f)];
#pragma omp parallel for schedule(static)
        for (int row = 0; row < o_.levels * nj_; ++row) {
          const int k = row / nj_, j = row % nj_;
          const double c = 0.3 * std::cos(lat_deg(jbegin_ + j) * M_PI / 180) * (1.0 - 0.5 * k / o_.levels);
          const double nu = 0.05;
          const double* in = x.data() + static_cast<std::size_t>(row) * ni;
          double* out = scratch_.data() + static_cast<std::size_t>(row) * ni;
          for (int i = 0; i < ni; ++i) {
            const double w = in[i == 0 ? ni - 1 : i - 1], e = in[i == ni - 1 ? 0 : i + 1];
            out[i] = in[i] - c * (in[i] - w) + nu * (e - 2 * in[i] + w);
          }
        }
        x.swap(scratch_);
      }
  }

 private:
  std::size_t at(int k, int j, int i) const { return (static_cast<std::size_t>(k) * nj_ + j) * o_.ni + i; }

  const HeavyOptions& o_;
  int jbegin_, nj_;
  std::size_t size_;
  std::vector<std::vector<double>> fields_;
  std::vector<double> scratch_;
};

class HeavyOutput {
 public:
  virtual ~HeavyOutput() = default;
  virtual void write(int step, const Model& m) = 0;
  virtual void finish() = 0;
  double write_seconds = 0;  // netcdf: inside netCDF calls (writes and close)
};

class NoOutput : public HeavyOutput {
  void write(int, const Model&) override {}
  void finish() override {}
};

class FoehnOutput : public HeavyOutput {
 public:
  FoehnOutput(const HeavyOptions& o, const Model& m, MPI_Comm comm) : o_(o) {
    must(foehn_context_open("heavy", comm, &ctx_), "foehn_context_open");
    must(foehn_set_calendar(ctx_, nullptr, nullptr, nullptr, (std::to_string(o.timestep) + "s").c_str()),
         "foehn_set_calendar");
    std::vector<double> lon(static_cast<std::size_t>(o.ni)), lat(static_cast<std::size_t>(m.nj())),
        lev(static_cast<std::size_t>(o.levels));
    for (int i = 0; i < o.ni; ++i) lon[static_cast<std::size_t>(i)] = m.lon_deg(i);
    for (int j = 0; j < m.nj(); ++j) lat[static_cast<std::size_t>(j)] = m.lat_deg(m.jbegin() + j);
    for (int k = 0; k < o.levels; ++k) lev[static_cast<std::size_t>(k)] = k + 1;
    must(foehn_set_domain_rectilinear(ctx_, "globe", o.ni, o.nj, 0, o.ni, m.jbegin(), m.nj(), lon.data(), lat.data()),
         "foehn_set_domain_rectilinear");
    must(foehn_set_axis(ctx_, "lev", o.levels, lev.data(), nullptr, nullptr), "foehn_set_axis");
    must(foehn_close_definition(ctx_), "foehn_close_definition");
    for (int f = 0; f < o.fields; ++f) {
      int h = 0;
      must(foehn_field_handle(ctx_, miniapp::kFields3d[static_cast<std::size_t>(f)].id, &h), "foehn_field_handle");
      handles_.push_back(h);
    }
  }

  void write(int step, const Model& m) override {
    must(foehn_update_calendar(ctx_, step), "foehn_update_calendar");
    for (int f = 0; f < o_.fields; ++f)
      must(foehn_write_double_h(ctx_, handles_[static_cast<std::size_t>(f)], m.field(f), m.size()),
           "foehn_write_double_h");
  }

  void finish() override {
    must(foehn_context_close(ctx_), "foehn_context_close");
    must(foehn_finalize(), "foehn_finalize");
  }

 private:
  const HeavyOptions& o_;
  foehn_context ctx_ = nullptr;
  std::vector<int> handles_;
};

// Rank 0 gathers every field and writes the file foehn writes (same
// dimensions, coordinates and variables), with plain serial netCDF-4.
class NetcdfOutput : public HeavyOutput {
 public:
  NetcdfOutput(const HeavyOptions& o, const Model& m, MPI_Comm comm) : o_(o), comm_(comm) {
    int rank = 0, ranks = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    root_ = rank == 0;
    const int mine = static_cast<int>(m.size());
    counts_.resize(static_cast<std::size_t>(ranks));
    MPI_Gather(&mine, 1, MPI_INT, counts_.data(), 1, MPI_INT, 0, comm);
    displs_.assign(counts_.size(), 0);
    for (std::size_t r = 1; r < counts_.size(); ++r) displs_[r] = displs_[r - 1] + counts_[r - 1];
    if (ranks > 1 && root_) gathered_.resize(static_cast<std::size_t>(o.levels) * o.nj * o.ni);
    if (!root_) return;
    const double t0 = MPI_Wtime();
    // Named as foehn names its own file of that name, so the schemes compare.
    const foehn::formats::FileName name{o.file, "", -1, 1, 0};
    const std::string path = foehn::formats::file_name(name, foehn::formats::traits_of("netcdf4").extension);
    nc(nc_create(path.c_str(), NC_CLOBBER | NC_NETCDF4, &ncid_), "nc_create " + path);
    int dt, dk, dj, di;
    nc(nc_def_dim(ncid_, "time_counter", NC_UNLIMITED, &dt), "nc_def_dim");
    nc(nc_def_dim(ncid_, "lev", static_cast<size_t>(o.levels), &dk), "nc_def_dim");
    nc(nc_def_dim(ncid_, "lat", static_cast<size_t>(o.nj), &dj), "nc_def_dim");
    nc(nc_def_dim(ncid_, "lon", static_cast<size_t>(o.ni), &di), "nc_def_dim");
    int vlev, vlat, vlon;
    nc(nc_def_var(ncid_, "time_counter", NC_DOUBLE, 1, &dt, &time_var_), "nc_def_var");
    nc(nc_def_var(ncid_, "lev", NC_DOUBLE, 1, &dk, &vlev), "nc_def_var");
    nc(nc_def_var(ncid_, "lat", NC_DOUBLE, 1, &dj, &vlat), "nc_def_var");
    nc(nc_def_var(ncid_, "lon", NC_DOUBLE, 1, &di, &vlon), "nc_def_var");
    const int dims[4] = {dt, dk, dj, di};
    for (int f = 0; f < o.fields; ++f) {
      int v = 0;
      nc(nc_def_var(ncid_, miniapp::kFields3d[static_cast<std::size_t>(f)].id, NC_DOUBLE, 4, dims, &v), "nc_def_var");
      varids_.push_back(v);
    }
    nc(nc_enddef(ncid_), "nc_enddef");
    std::vector<double> lon(static_cast<std::size_t>(o.ni)), lat(static_cast<std::size_t>(o.nj)),
        lev(static_cast<std::size_t>(o.levels));
    for (int i = 0; i < o.ni; ++i) lon[static_cast<std::size_t>(i)] = m.lon_deg(i);
    for (int j = 0; j < o.nj; ++j) lat[static_cast<std::size_t>(j)] = m.lat_deg(j);
    for (int k = 0; k < o.levels; ++k) lev[static_cast<std::size_t>(k)] = k + 1;
    nc(nc_put_var_double(ncid_, vlon, lon.data()), "writing lon");
    nc(nc_put_var_double(ncid_, vlat, lat.data()), "writing lat");
    nc(nc_put_var_double(ncid_, vlev, lev.data()), "writing lev");
    write_seconds += MPI_Wtime() - t0;
  }

  void write(int step, const Model& m) override {
    if (step % o_.every != 0) return;
    const size_t record = static_cast<size_t>(step / o_.every - 1);
    for (int f = 0; f < o_.fields; ++f) {
      const double* data = m.field(f);
      if (!gathered_.empty() || !root_) {
        MPI_Gatherv(data, static_cast<int>(m.size()), MPI_DOUBLE, gathered_.data(), counts_.data(), displs_.data(),
                    MPI_DOUBLE, 0, comm_);
        data = gathered_.data();
      }
      if (!root_) continue;
      const double t0 = MPI_Wtime();
      // Each rank's part is a [level][its latitudes][lon] box of the file.
      for (std::size_t r = 0; r < counts_.size(); ++r) {
        const int nj_r = counts_[r] / (o_.levels * o_.ni), jb = displs_[r] / (o_.levels * o_.ni);
        const size_t start[4] = {record, 0, static_cast<size_t>(jb), 0};
        const size_t count[4] = {1, static_cast<size_t>(o_.levels), static_cast<size_t>(nj_r),
                                 static_cast<size_t>(o_.ni)};
        nc(nc_put_vara_double(ncid_, varids_[static_cast<std::size_t>(f)], start, count, data + displs_[r]),
           "writing a field");
      }
      write_seconds += MPI_Wtime() - t0;
    }
    if (root_) {
      const double t = static_cast<double>(step) * o_.timestep;
      nc(nc_put_var1_double(ncid_, time_var_, &record, &t), "writing time_counter");
    }
    bytes += static_cast<double>(o_.fields) * o_.levels * o_.nj * o_.ni * sizeof(double);
  }

  void finish() override {
    if (!root_) return;
    const double t0 = MPI_Wtime();
    nc(nc_close(ncid_), "nc_close");
    write_seconds += MPI_Wtime() - t0;
  }

  double bytes = 0;

 private:
  const HeavyOptions& o_;
  MPI_Comm comm_;
  bool root_ = true;
  int ncid_ = -1, time_var_ = -1;
  std::vector<int> varids_, counts_, displs_;
  std::vector<double> gathered_;
};

int run(const HeavyOptions& o) {
  const double t0 = MPI_Wtime();
  MPI_Comm comm = MPI_COMM_NULL;
  if (o.output == "foehn")
    must(foehn_init("miniapp_heavy", o.iodef.c_str(), MPI_COMM_WORLD, &comm), "foehn_init");
  else
    MPI_Comm_dup(o.alone ? MPI_COMM_SELF : MPI_COMM_WORLD, &comm);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  if (o.nj < ranks) throw std::runtime_error("more model ranks than latitudes");
  Model model(o, rank, ranks);
  const double model_rss = rss_now();  // the model's own memory, before any output scheme allocates
  std::unique_ptr<HeavyOutput> out;
  NetcdfOutput* netcdf = nullptr;
  if (o.output == "foehn")
    out = std::make_unique<FoehnOutput>(o, model, comm);
  else if (o.output == "netcdf")
    out.reset(netcdf = new NetcdfOutput(o, model, comm));
  else
    out = std::make_unique<NoOutput>();
  const double init = MPI_Wtime() - t0;

  double in_output = 0;
  const double loop0 = MPI_Wtime();
  for (int step = 1; step <= o.steps; ++step) {
    model.step();
    const double w0 = MPI_Wtime();
    out->write(step, model);
    in_output += MPI_Wtime() - w0;
  }
  const double loop = MPI_Wtime() - loop0, fin0 = MPI_Wtime();
  out->finish();
  const double finish = MPI_Wtime() - fin0, total = MPI_Wtime() - t0;

  double local[4] = {rss_peak(), rss_peak() - model_rss, in_output, cpu_seconds()}, worst[4] = {0, 0, 0, 0};
  MPI_Reduce(local, worst, 4, MPI_DOUBLE, MPI_MAX, 0, comm);
  if (rank == 0) {
    const double record = static_cast<double>(o.fields) * o.levels * o.nj * o.ni * sizeof(double);
    std::printf(
        "miniapp_heavy: %d x %d x %d, %d float64 fields, %d rank%s, %d steps (output every %d), work %d, "
        "output %s: total %.2f s (init %.2f, loop %.2f, in output calls %.2f, finish %.2f); "
        "model rank memory %.0f MiB, growth %.0f MiB (%.2f records)\n",
        o.ni, o.nj, o.levels, o.fields, ranks, ranks == 1 ? "" : "s", o.steps, o.every, o.work, o.output.c_str(), total,
        init, loop, worst[2], finish, worst[0] / 1048576, worst[1] / 1048576, worst[1] / record);
    if (!o.summary.empty()) {
      nlohmann::json j = {{"output", o.output},
                          {"ni", o.ni},
                          {"nj", o.nj},
                          {"levels", o.levels},
                          {"fields", o.fields},
                          {"steps", o.steps},
                          {"every", o.every},
                          {"work", o.work},
                          {"model_ranks", ranks},
                          {"total_seconds", total},
                          {"init_seconds", init},
                          {"loop_seconds", loop},
                          {"output_call_seconds_max", worst[2]},
                          {"finish_seconds", finish},
                          {"model_max_rss_bytes", worst[0]},
                          {"model_rss_growth_bytes", worst[1]},
                          {"record_bytes", record},
                          {"model_cpu_seconds_max", worst[3]}};
      if (netcdf) {
        j["bytes_written"] = netcdf->bytes;
        j["write_seconds"] = netcdf->write_seconds;
      }
      std::ofstream(o.summary) << j.dump(2) << "\n";
    }
  }
  out.reset();
  MPI_Comm_free(&comm);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int world_rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  HeavyOptions o;
  CLI::App app{
      "miniapp_heavy: the output-heavy benchmark configuration (rectilinear grid, float64 fields, "
      "every field written every few steps)"};
  app.name("miniapp_heavy");
  app.add_option("--ni", o.ni, "longitudes")->check(CLI::Range(1, 100000))->capture_default_str();
  app.add_option("--nj", o.nj, "latitudes")->check(CLI::Range(1, 100000))->capture_default_str();
  app.add_option("--levels", o.levels, "levels")->check(CLI::Range(1, 10000))->capture_default_str();
  app.add_option("--fields", o.fields, "3-D float64 fields (at most 12)")
      ->check(CLI::Range(1, miniapp::kNumFields3d))
      ->capture_default_str();
  app.add_option("--steps", o.steps, "time steps")->check(CLI::Range(0, 10000000))->capture_default_str();
  app.add_option("--every", o.every, "netcdf scheme: write every this many steps (foehn: the iodef says)")
      ->check(CLI::Range(1, 10000000))
      ->capture_default_str();
  app.add_option("--work", o.work, "advection sweeps per step (the model's CPU cost)")
      ->check(CLI::Range(0, 100000))
      ->capture_default_str();
  app.add_option("--output", o.output, "none | foehn | netcdf")
      ->check(CLI::IsMember({"none", "foehn", "netcdf"}))
      ->capture_default_str();
  app.add_option("--iodef", o.iodef, "foehn's XML configuration")->capture_default_str();
  app.add_option("--file", o.file, "netcdf scheme: file name without .nc")->capture_default_str();
  app.add_option("--summary", o.summary, "rank 0 writes its timings and memory here as JSON");
  app.add_flag("--alone", o.alone,
               "none/netcdf: run on MPI_COMM_SELF, e.g. the plain writer beside a computing "
               "model in one MPMD job (the conditions a server writes in)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    std::ostringstream quiet;
    const int code = world_rank == 0 ? app.exit(e) : app.exit(e, quiet, quiet);
    MPI_Finalize();
    return code;
  }
  int status = 0;
  try {
    status = run(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "miniapp_heavy (rank %d): %s\n", world_rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return status;
}
