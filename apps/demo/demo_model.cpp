// The first foehn demo: a small atmosphere-like model on a lon/lat grid.
// Each rank owns a band of latitudes, advances its fields with a cheap
// explicit update every step (real work, so output can overlap it), and
// hands them to foehn. Run it MPMD beside foehn-server (scripts/demo.sh).
//
// usage: demo_model [iodef.xml] [steps] [ni] [nj] [nlev] [work]
// `work` is the number of advection sweeps per step (the model's cost).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "foehn/foehn.h"

namespace {

void must(int status, const char* call) {
  if (status != FOEHN_OK) {
    std::fprintf(stderr, "demo_model: %s failed: %s\n", call, foehn_last_error());
    std::exit(1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const char* xml = argc > 1 ? argv[1] : "iodef.xml";
  const int steps = argc > 2 ? std::atoi(argv[2]) : 144;
  const int ni = argc > 3 ? std::atoi(argv[3]) : 360, nj = argc > 4 ? std::atoi(argv[4]) : 180;
  const int nlev = argc > 5 ? std::atoi(argv[5]) : 10;
  const int work = argc > 6 ? std::atoi(argv[6]) : 10;

  MPI_Comm comm;
  must(foehn_init("demo_atmosphere", xml, MPI_COMM_WORLD, &comm), "foehn_init");
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int jbegin = static_cast<int>(static_cast<long>(nj) * rank / size);
  const int local_nj = static_cast<int>(static_cast<long>(nj) * (rank + 1) / size) - jbegin;

  foehn_context ctx;
  must(foehn_context_open("atm", comm, &ctx), "foehn_context_open");
  std::vector<double> lon(ni), lat(local_nj), lev(nlev);
  for (int i = 0; i < ni; ++i) lon[i] = (i + 0.5) * 360.0 / ni;
  for (int j = 0; j < local_nj; ++j) lat[j] = -90.0 + (jbegin + j + 0.5) * 180.0 / nj;
  for (int k = 0; k < nlev; ++k) lev[k] = k + 1;
  must(foehn_set_domain_rectilinear(ctx, "globe", ni, nj, 0, ni, jbegin, local_nj, lon.data(), lat.data()),
       "foehn_set_domain_rectilinear");
  must(foehn_set_axis(ctx, "lev", nlev, lev.data(), nullptr, nullptr), "foehn_set_axis");
  must(foehn_close_definition(ctx), "foehn_close_definition");

  const size_t n3 = static_cast<size_t>(ni) * local_nj * nlev, n2 = static_cast<size_t>(ni) * local_nj;
  std::vector<float> ta(n3), ua(n3), va(n3), next(n3);
  std::vector<double> ps(n2);
  for (int k = 0; k < nlev; ++k)
    for (int j = 0; j < local_nj; ++j)
      for (int i = 0; i < ni; ++i) {
        const size_t at = (static_cast<size_t>(k) * local_nj + j) * ni + i;
        const double phi = lat[j] * M_PI / 180, lam = lon[i] * M_PI / 180;
        ta[at] = static_cast<float>(288.0 - 6.5 * k + 20 * std::cos(phi) * std::cos(lam));
        ua[at] = static_cast<float>(20 * std::cos(phi));
        va[at] = static_cast<float>(5 * std::sin(2 * lam));
      }
  int h_ta, h_ua, h_va, h_ps;
  must(foehn_field_handle(ctx, "ta", &h_ta), "handle");
  must(foehn_field_handle(ctx, "ua", &h_ua), "handle");
  must(foehn_field_handle(ctx, "va", &h_va), "handle");
  must(foehn_field_handle(ctx, "ps", &h_ps), "handle");
  const double t0 = MPI_Wtime();
  for (int step = 1; step <= steps; ++step) {
    must(foehn_update_calendar(ctx, step), "foehn_update_calendar");
    // "Dynamics": upwind advection of temperature along latitude rows.
    for (int sweep = 0; sweep < work; ++sweep) {
      for (int k = 0; k < nlev; ++k)
        for (int j = 0; j < local_nj; ++j)
          for (int i = 0; i < ni; ++i) {
            const size_t row = (static_cast<size_t>(k) * local_nj + j) * ni;
            const float c = 0.1f * ua[row + i] / 20.0f;
            next[row + i] = ta[row + i] - c * (ta[row + i] - ta[row + (i + ni - 1) % ni]);
          }
      ta.swap(next);
    }
    for (int j = 0; j < local_nj; ++j)
      for (int i = 0; i < ni; ++i)
        ps[static_cast<size_t>(j) * ni + i] = 101325.0 + 100.0 * (ta[static_cast<size_t>(j) * ni + i] - 288.0);
    must(foehn_write_float_h(ctx, h_ta, ta.data(), n3), "write ta");
    must(foehn_write_float_h(ctx, h_ua, ua.data(), n3), "write ua");
    must(foehn_write_float_h(ctx, h_va, va.data(), n3), "write va");
    must(foehn_write_double_h(ctx, h_ps, ps.data(), n2), "write ps");
  }
  const double elapsed = MPI_Wtime() - t0;
  must(foehn_context_close(ctx), "foehn_context_close");
  if (rank == 0)
    std::printf("demo_model: %d ranks, %d steps of a %d x %d x %d grid in %.2f s\n", size, steps, ni, nj, nlev,
                elapsed);
  must(foehn_finalize(), "foehn_finalize");
  MPI_Comm_free(&comm);
  MPI_Finalize();
  return 0;
}
