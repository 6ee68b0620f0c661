// Client cost of a write on an output step, against a plain memcpy of the
// same bytes in the same process (issue 4's target: <= 1.5x). Run as the
// model beside one foehn-server (bench/write_cost.sh):
//   mpiexec -n 1 bench_write_cost iodef.xml --points N --steps S : -n 1 foehn-server
// Every step is an output step; the time inside foehn_write_float_h is the
// client's whole cost of handing the field over (packing into the send
// buffer; the send itself leaves at the next update_calendar). Between
// steps the model "computes" (--pause-ms) so that the server keeps up: a
// wait for a full buffer is backpressure, reported separately by foehn.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <vector>

#include <unistd.h>

#include "foehn/foehn.h"
#include "bench_stats.h"

namespace {
using foehn::bench::median;
void must(int status, const char* what) {
  if (status != FOEHN_OK) {
    std::fprintf(stderr, "%s: %s\n", what, foehn_last_error());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}
}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  CLI::App app{"client write cost vs memcpy"};
  std::string xml, out = "write_cost.json";
  int ni = 2048, nj = 1024, steps = 20;
  double pause_ms = 30;  // the model's compute between steps, so the server keeps up
  app.add_option("config", xml)->required();
  app.add_option("--ni", ni);
  app.add_option("--nj", nj);
  app.add_option("--steps", steps);
  app.add_option("--out", out);
  app.add_option("--pause-ms", pause_ms, "model time between steps (the server writes meanwhile)");
  CLI11_PARSE(app, argc, argv);

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
  const size_t n = static_cast<size_t>(ni) * nj;
  std::vector<float> field(n, 1.0f), copy(n);
  std::vector<double> write_s, memcpy_s;
  for (int step = 1; step <= steps; ++step) {
    must(foehn_update_calendar(ctx, step), "update_calendar");
    for (size_t i = 0; i < n; i += 4096) field[i] = static_cast<float>(step);
    double t0 = MPI_Wtime();
    must(foehn_write_float_h(ctx, h, field.data(), n), "write");
    write_s.push_back(MPI_Wtime() - t0);
    t0 = MPI_Wtime();
    std::memcpy(copy.data(), field.data(), n * sizeof(float));
    memcpy_s.push_back(MPI_Wtime() - t0);
    // The model computes; the previous step's data travels and is written.
    const double until = MPI_Wtime() + pause_ms / 1e3;
    while (MPI_Wtime() < until) usleep(500);
  }
  must(foehn_context_close(ctx), "context_close");
  must(foehn_finalize(), "finalize");
  // The first steps touch fresh buffers; the medians leave them out.
  const double w = median(write_s), m = median(memcpy_s);
  std::printf("field of %zu bytes: write %.3f ms, memcpy %.3f ms, ratio %.2f (target <= 1.5)\n", n * sizeof(float),
              1e3 * w, 1e3 * m, w / m);
  std::ofstream(out) << "{\"bytes\": " << n * sizeof(float) << ", \"steps\": " << steps << ", \"write_median_s\": " << w
                     << ", \"memcpy_median_s\": " << m << ", \"ratio\": " << w / m << ", \"target\": 1.5}\n";
  MPI_Comm_free(&comm);
  MPI_Finalize();
  return 0;
}
