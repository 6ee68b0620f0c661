// The post-processing test model: every step it writes a (3-D float), b and
// m (2-D double) on an uneven decomposition; the files are checked by
// tests/python/test_operations.py against references computed with numpy.
//
// usage: ops_model <config.xml> <steps> <ni> <nj> <nlev> <regular|dynamic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "foehn/foehn.h"
#include "ops_values.h"
#include "spine_values.h"

namespace {
void must(int status, const char* call) {
  if (status != FOEHN_OK) {
    std::fprintf(stderr, "%s failed (%d): %s\n", call, status, foehn_last_error());
    std::exit(2);
  }
}
}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (argc < 7) {
    std::fprintf(stderr, "usage: %s config.xml steps ni nj nlev regular|dynamic\n", argv[0]);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int steps = std::atoi(argv[2]), ni = std::atoi(argv[3]), nj = std::atoi(argv[4]), nlev = std::atoi(argv[5]);
  const bool dynamic = std::string(argv[6]) == "dynamic";
  MPI_Comm comm;
  must(foehn_init("ops", argv[1], MPI_COMM_WORLD, &comm), "foehn_init");
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const spine::Block b = spine::block_of(rank, size, ni, nj);
  foehn_context ctx;
  must(foehn_context_open("ops", comm, &ctx), "foehn_context_open");
  std::vector<double> lon(b.ni), lat(b.nj), lev(nlev);
  for (int i = 0; i < b.ni; ++i) lon[i] = spine::lon_value(b.ibegin + i, ni);
  for (int j = 0; j < b.nj; ++j) lat[j] = spine::lat_value(b.jbegin + j, nj);
  for (int k = 0; k < nlev; ++k) lev[k] = k + 1;
  must(foehn_set_domain_rectilinear(ctx, "dom", ni, nj, b.ibegin, b.ni, b.jbegin, b.nj, lon.data(), lat.data()),
       "domain");
  must(foehn_set_axis(ctx, "lev", nlev, lev.data(), nullptr, nullptr), "axis");
  must(foehn_close_definition(ctx), "foehn_close_definition");

  std::vector<float> a(static_cast<size_t>(b.ni) * b.nj * nlev);
  std::vector<double> bv(static_cast<size_t>(b.ni) * b.nj), mv(bv.size());
  for (int step = 1; step <= steps; ++step) {
    if (dynamic)
      must(foehn_set_model_time(ctx, ops::dynamic_time(step)), "foehn_set_model_time");
    else
      must(foehn_update_calendar(ctx, step), "foehn_update_calendar");
    for (int k = 0; k < nlev; ++k)
      for (int j = 0; j < b.nj; ++j)
        for (int i = 0; i < b.ni; ++i)
          a[(static_cast<size_t>(k) * b.nj + j) * b.ni + i] = ops::a_value(step, b.ibegin + i, b.jbegin + j, k);
    for (int j = 0; j < b.nj; ++j)
      for (int i = 0; i < b.ni; ++i) {
        bv[static_cast<size_t>(j) * b.ni + i] = ops::b_value(step, b.ibegin + i, b.jbegin + j);
        mv[static_cast<size_t>(j) * b.ni + i] = ops::m_value(step, b.ibegin + i, b.jbegin + j);
      }
    must(foehn_write_float(ctx, "a", a.data(), a.size()), "write a");
    must(foehn_write_double(ctx, "b", bv.data(), bv.size()), "write b");
    must(foehn_write_double(ctx, "m", mv.data(), mv.size()), "write m");
  }
  must(foehn_context_close(ctx), "foehn_context_close");
  must(foehn_finalize(), "foehn_finalize");
  MPI_Comm_free(&comm);
  MPI_Finalize();
  return 0;
}
