// End-to-end transport throughput and server buffer memory (issue 4).
// Two ranks: world rank 0 is the model, rank 1 a foehn server started from
// this program with a writer that assembles every record and discards it
// (a benchmark-only option), so that only the transport is measured.
//   mpiexec -n 2 bench_throughput iodef.xml --mib 16 --steps 40 --out run.json
// In the same run, before foehn starts and again after it ends, rank 0
// streams 16 MiB messages to rank 1 with plain MPI: the loopback bandwidth
// the transport is held to (target: foehn >= 80 % of it; the mean of the
// two, as the load of a shared machine drifts). The server's peak buffer memory comes in
// foehn's JSON report (variable report_file); the server rank adds its peak
// resident memory here.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "foehn/foehn.h"
#include "server/server_loop.h"

namespace {
void must(int status, const char* what) {
  if (status != FOEHN_OK) {
    std::fprintf(stderr, "%s: %s\n", what, foehn_last_error());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

// Peak resident memory of this process, from /proc (bytes).
double peak_rss_bytes() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmHWM:", 0) == 0) return 1024.0 * std::stod(line.substr(6));
  return 0;
}

// Rank 0 streams `reps` messages of `bytes` to rank 1, one at a time; the
// clock stops when rank 1 confirms the last one.
double loopback_bandwidth(std::size_t bytes, int reps, int rank) {
  std::vector<char> buf(bytes, 1);
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (int k = 0; k < reps; ++k) {
    if (rank == 0)
      MPI_Send(buf.data(), static_cast<int>(bytes), MPI_BYTE, 1, 0, MPI_COMM_WORLD);
    else if (rank == 1)
      MPI_Recv(buf.data(), static_cast<int>(bytes), MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  if (rank == 1) MPI_Send(nullptr, 0, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
  if (rank == 0) MPI_Recv(nullptr, 0, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return static_cast<double>(bytes) * reps / (MPI_Wtime() - t0);
}
}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"foehn transport throughput (1 client -> 1 discarding server) vs MPI loopback"};
  std::string xml, out = "throughput.json";
  double mib = 16;
  int steps = 40, loopback_reps = 20;
  bool thread_multiple = false;
  app.add_option("config", xml)->required();
  app.add_option("--mib", mib, "field size per step (MiB)");
  app.add_option("--steps", steps, "output steps (every step writes the field)");
  app.add_option("--loopback-reps", loopback_reps, "messages of the MPI baseline");
  app.add_flag("--thread-multiple", thread_multiple, "MPI_Init_thread with MPI_THREAD_MULTIPLE (progress_thread)");
  app.add_option("--out", out);
  CLI11_PARSE(app, argc, argv);

  int provided = 0;
  MPI_Init_thread(&argc, &argv, thread_multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (rank == 0) std::fprintf(stderr, "run with 2 ranks (model and server)\n");
    MPI_Finalize();
    return 1;
  }
  const int nj = 1024;
  const int ni = std::max(1, static_cast<int>(mib * 1024 * 1024 / 4 / nj));
  const std::size_t bytes = static_cast<std::size_t>(ni) * nj * sizeof(float);
  const double mpi_before = loopback_bandwidth(bytes, loopback_reps, rank);

  if (rank == 1) {
    foehn::server::ServerOptions options;
    options.discard_output = true;
    const int code = foehn::server::run_server(MPI_COMM_WORLD, options);
    const double rss = peak_rss_bytes();
    loopback_bandwidth(bytes, loopback_reps, rank);
    MPI_Send(&rss, 1, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD);
    MPI_Finalize();
    return code;
  }

  MPI_Comm comm;
  must(foehn_init("bench", xml.c_str(), MPI_COMM_WORLD, &comm), "init");
  foehn_context ctx;
  must(foehn_context_open("bench", comm, &ctx), "context");
  std::vector<double> lon(ni), lat(nj);
  for (int i = 0; i < ni; ++i) lon[i] = 360.0 * i / ni;
  for (int j = 0; j < nj; ++j) lat[j] = -90.0 + 180.0 * (j + 0.5) / nj;
  must(foehn_set_domain_rectilinear(ctx, "dom", ni, nj, 0, ni, 0, nj, lon.data(), lat.data()), "domain");
  must(foehn_close_definition(ctx), "close_definition");
  int h = -1;
  must(foehn_field_handle(ctx, "f", &h), "handle");
  std::vector<float> field(static_cast<std::size_t>(ni) * nj, 1.0f);
  const double t0 = MPI_Wtime();
  for (int step = 1; step <= steps; ++step) {
    must(foehn_update_calendar(ctx, step), "update_calendar");
    field[static_cast<std::size_t>(step) % field.size()] = static_cast<float>(step);
    must(foehn_write_float_h(ctx, h, field.data(), field.size()), "write");
  }
  // Closing waits until the server has taken in and assembled every record.
  must(foehn_context_close(ctx), "context_close");
  const double seconds = MPI_Wtime() - t0;
  must(foehn_finalize(), "finalize");
  const double mpi_after = loopback_bandwidth(bytes, loopback_reps, rank);
  const double mpi_bw = 0.5 * (mpi_before + mpi_after);
  double server_rss = 0;
  MPI_Recv(&server_rss, 1, MPI_DOUBLE, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  const double foehn_bw = static_cast<double>(bytes) * steps / seconds;
  std::printf("%zu-byte field x %d steps: foehn %.2f GB/s, MPI loopback %.2f GB/s, ratio %.2f (target >= 0.8)\n", bytes,
              steps, foehn_bw / 1e9, mpi_bw / 1e9, foehn_bw / mpi_bw);
  std::ofstream(out) << "{\"field_bytes\": " << bytes << ", \"steps\": " << steps << ", \"seconds\": " << seconds
                     << ", \"foehn_bytes_per_s\": " << foehn_bw << ", \"mpi_loopback_bytes_per_s\": " << mpi_bw
                     << ", \"mpi_before_bytes_per_s\": " << mpi_before << ", \"mpi_after_bytes_per_s\": " << mpi_after
                     << ", \"ratio\": " << foehn_bw / mpi_bw << ", \"server_peak_rss_bytes\": " << server_rss
                     << ", \"thread_level\": " << provided << "}\n";
  MPI_Comm_free(&comm);
  MPI_Finalize();
  return 0;
}
