// miniapp: the IFS-like proxy model of foehn's demo and benchmarks (see
// README.md). It runs a time loop of real work on an octahedral reduced
// Gaussian grid and writes the thesis' output with the scheme chosen by
// --output, timing what each scheme costs the model.
#include <mpi.h>
#include <omp.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numeric>
#include <vector>

#include "foehn/foehn.h"
#include "geometry.h"
#include "options.h"
#include "output.h"
#include "state.h"

namespace {

using miniapp::Options;

// Peak memory and CPU time of this process: CPU time well below the wall
// time means the rank waited or was descheduled (a busy machine).
void usage(double& max_rss_bytes, double& cpu_seconds) {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  max_rss_bytes = static_cast<double>(u.ru_maxrss) * 1024.0;  // Linux reports KiB
  cpu_seconds = static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
                1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

struct Timings {
  double init = 0, loop = 0, output = 0, finish = 0, total = 0;
  std::vector<double> steps, step_output;  // per step: all of it, and the part in output calls
};

int run(const Options& opt) {
  const double t0 = MPI_Wtime();
  Timings t;
  MPI_Comm comm = MPI_COMM_NULL;
  if (opt.output == "foehn") {
    if (foehn_init("miniapp", opt.iodef.c_str(), MPI_COMM_WORLD, &comm) != FOEHN_OK) {
      std::fprintf(stderr, "miniapp: foehn_init failed: %s\n", foehn_last_error());
      return 1;
    }
  } else {
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  }
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  const miniapp::Geometry geometry = miniapp::make_geometry(opt.grid, comm);
  const miniapp::HaloPlan halo = miniapp::make_halo_plan(geometry);
  miniapp::State state(geometry, halo, opt.levels, opt.nproma);
  std::unique_ptr<miniapp::Output> output = opt.output == "none" ? miniapp::make_no_output()
                                            : opt.output == "foehn"
                                                ? miniapp::make_foehn_output(opt, geometry, opt.levels, comm)
                                                : miniapp::make_netcdf_output(opt, geometry, opt.levels, comm);
  t.init = MPI_Wtime() - t0;

  const double loop_start = MPI_Wtime();
  for (int step = 1; step <= opt.steps; ++step) {
    const double step_start = MPI_Wtime(), output_before = t.output;
    state.dynamics(opt.work, comm);
    double mark = MPI_Wtime();
    output->before_physics(step);
    t.output += MPI_Wtime() - mark;
    state.physics(opt.work, static_cast<double>(step) * opt.timestep);
    mark = MPI_Wtime();
    output->end_of_step(step, state);
    t.output += MPI_Wtime() - mark;
    t.steps.push_back(MPI_Wtime() - step_start);
    t.step_output.push_back(t.output - output_before);
  }
  t.loop = MPI_Wtime() - loop_start;
  const double finish_start = MPI_Wtime();
  output->finish();
  t.finish = MPI_Wtime() - finish_start;
  t.total = MPI_Wtime() - t0;

  // Memory and output time of the worst rank; the time loop is in step.
  double local[3] = {0, t.output, 0}, worst[3] = {0, 0, 0}, rss_sum = 0;
  usage(local[0], local[2]);
  MPI_Reduce(local, worst, 3, MPI_DOUBLE, MPI_MAX, 0, comm);
  MPI_Reduce(&local[0], &rss_sum, 1, MPI_DOUBLE, MPI_SUM, 0, comm);
  const long long bytes = output->bytes_written();
  if (rank == 0) {
    const double per_step = opt.steps ? t.loop / opt.steps : 0.0;
    std::printf(
        "miniapp: O%d L%d NPROMA %d, %d rank%s x %d thread%s, %d steps of %d s, work %d, output %s: "
        "total %.2f s (init %.2f, loop %.2f = %.4f s/step, in output calls %.2f, finish %.2f)\n",
        opt.grid, opt.levels, opt.nproma, ranks, ranks == 1 ? "" : "s", omp_get_max_threads(),
        omp_get_max_threads() == 1 ? "" : "s", opt.steps, opt.timestep, opt.work, output->mode().c_str(), t.total,
        t.init, t.loop, per_step, worst[1], t.finish);
    if (!opt.summary.empty()) {
      nlohmann::json j = {
          {"output", output->mode()},
          {"integration", opt.integration},
          {"grid", "O" + std::to_string(opt.grid)},
          {"points", geometry.global_size()},
          {"levels", opt.levels},
          {"nproma", opt.nproma},
          {"model_ranks", ranks},
          {"threads", omp_get_max_threads()},
          {"steps", opt.steps},
          {"timestep_seconds", opt.timestep},
          {"work", opt.work},
          {"total_seconds", t.total},
          {"init_seconds", t.init},
          {"loop_seconds", t.loop},
          {"step_seconds_mean", per_step},
          {"step_seconds_max", t.steps.empty() ? 0.0 : *std::max_element(t.steps.begin(), t.steps.end())},
          {"output_call_seconds_max", worst[1]},
          {"finish_seconds", t.finish},
          {"model_max_rss_bytes", worst[0]},
          {"model_rss_sum_bytes", rss_sum},
          {"model_cpu_seconds_max", worst[2]},
          {"step_seconds", t.steps},
          {"step_output_seconds", t.step_output}};
      if (bytes >= 0) j["bytes_written"] = bytes;
      std::ofstream(opt.summary) << j.dump(2) << "\n";
    }
  }
  MPI_Comm_free(&comm);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  // One thread calls MPI at a time: the master, or the overlapped foehn
  // scheme's helper while the master computes the physics (no MPI there).
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  int world_rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  Options opt;
  int status = 0;
  if (!miniapp::parse_options(argc, argv, world_rank == 0, opt, status)) {
    MPI_Finalize();
    return status;
  }
  try {
    status = run(opt);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "miniapp (rank %d): %s\n", world_rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return status;
}
