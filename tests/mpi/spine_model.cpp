// An MPI test model for the spine: each rank describes an uneven block of a
// rectilinear domain, writes an analytic 3-D float field and 2-D double
// field for several steps, checks that bad input gives the right errors,
// and after closing the context rank 0 reads the files back (C++ check)
// and compares them with the analytic function exactly.
//
// usage: spine_model <config.xml> <steps> <ni_glo> <nj_glo> <nlev>
#include <netcdf.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "foehn/foehn.h"
#include "spine_values.h"

namespace {

int failures = 0;

void expect(bool ok, const std::string& what) {
  if (!ok) {
    std::fprintf(stderr, "CHECK FAILED: %s\n", what.c_str());
    ++failures;
  }
}

void must(int status, const char* call) {
  if (status != FOEHN_OK) {
    std::fprintf(stderr, "%s failed (%d): %s\n", call, status, foehn_last_error());
    std::exit(2);
  }
}

// Reads a whole variable from a finished file; false if it cannot.
template <class T>
bool read_all(const std::string& path, const char* var, std::vector<T>& out, std::vector<size_t>& shape) {
  int nc = -1, v = -1, ndims = 0;
  if (nc_open(path.c_str(), NC_NOWRITE, &nc) != NC_NOERR) return false;
  bool ok = nc_inq_varid(nc, var, &v) == NC_NOERR && nc_inq_varndims(nc, v, &ndims) == NC_NOERR;
  std::vector<int> dims(ndims);
  ok = ok && nc_inq_vardimid(nc, v, dims.data()) == NC_NOERR;
  shape.assign(ndims, 0);
  size_t n = 1;
  for (int d = 0; ok && d < ndims; ++d) {
    ok = nc_inq_dimlen(nc, dims[d], &shape[d]) == NC_NOERR;
    n *= shape[d];
  }
  out.resize(n);
  if (ok) {
    if constexpr (sizeof(T) == 4)
      ok = nc_get_var_float(nc, v, reinterpret_cast<float*>(out.data())) == NC_NOERR;
    else
      ok = nc_get_var_double(nc, v, reinterpret_cast<double*>(out.data())) == NC_NOERR;
  }
  nc_close(nc);
  return ok;
}

void check_one_file(int steps, int ni_glo, int nj_glo, int nlev) {
  std::vector<float> t;
  std::vector<double> ps, time;
  std::vector<size_t> st, sp, stime;
  expect(read_all("spine_one.nc", "ta", t, st), "read ta from spine_one.nc");
  expect(read_all("spine_one.nc", "ps", ps, sp), "read ps from spine_one.nc");
  expect(read_all("spine_one.nc", "time_counter", time, stime), "read time_counter");
  const size_t records = steps / 2;
  expect(st == std::vector<size_t>{records, size_t(nlev), size_t(nj_glo), size_t(ni_glo)}, "ta shape");
  expect(sp == std::vector<size_t>{records, size_t(nj_glo), size_t(ni_glo)}, "ps shape");
  if (failures) return;
  for (size_t r = 0; r < records; ++r) {
    const int step = static_cast<int>(2 * (r + 1));
    expect(time[r] == 86400.0 + 600.0 * step, "time value of record " + std::to_string(r));
    for (int k = 0; k < nlev; ++k)
      for (int j = 0; j < nj_glo; ++j)
        for (int i = 0; i < ni_glo; ++i) {
          const size_t at = ((r * nlev + k) * nj_glo + j) * ni_glo + i;
          if (t[at] != spine::t_value(step, i, j, k)) {
            expect(false, "ta[" + std::to_string(r) + "," + std::to_string(k) + "," + std::to_string(j) + "," +
                              std::to_string(i) + "]");
            return;
          }
        }
    for (int j = 0; j < nj_glo; ++j)
      for (int i = 0; i < ni_glo; ++i)
        if (ps[(r * nj_glo + j) * ni_glo + i] != spine::ps_value(step, i, j)) {
          expect(false, "ps value at record " + std::to_string(r));
          return;
        }
  }
}

}  // namespace

int main(int argc, char** argv) {
  // FOEHN_TEST_THREAD_MULTIPLE=1: as a model that allows foehn a progress thread.
  const char* multiple = std::getenv("FOEHN_TEST_THREAD_MULTIPLE");
  int provided = 0;
  MPI_Init_thread(&argc, &argv, multiple && *multiple == '1' ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided);
  if (argc < 6) {
    std::fprintf(stderr, "usage: %s config.xml steps ni_glo nj_glo nlev\n", argv[0]);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int steps = std::atoi(argv[2]), ni_glo = std::atoi(argv[3]), nj_glo = std::atoi(argv[4]),
            nlev = std::atoi(argv[5]);
  MPI_Comm comm;
  must(foehn_init("spine", argv[1], MPI_COMM_WORLD, &comm), "foehn_init");
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const spine::Block b = spine::block_of(rank, size, ni_glo, nj_glo);

  foehn_context ctx;
  must(foehn_context_open("test", comm, &ctx), "foehn_context_open");
  std::vector<double> lon(b.ni), lat(b.nj), levels(nlev);
  for (int i = 0; i < b.ni; ++i) lon[i] = spine::lon_value(b.ibegin + i, ni_glo);
  for (int j = 0; j < b.nj; ++j) lat[j] = spine::lat_value(b.jbegin + j, nj_glo);
  for (int k = 0; k < nlev; ++k) levels[k] = k + 1;
  must(foehn_set_domain_rectilinear(ctx, "dom", ni_glo, nj_glo, b.ibegin, b.ni, b.jbegin, b.nj, lon.data(), lat.data()),
       "foehn_set_domain_rectilinear");
  must(foehn_set_axis(ctx, "lev", nlev, levels.data(), nullptr, nullptr), "foehn_set_axis");

  // Bad input before close of definition: writing is refused, not crashed.
  std::vector<float> t(static_cast<size_t>(b.ni) * b.nj * nlev);
  expect(foehn_write_float(ctx, "t", t.data(), t.size()) == FOEHN_ERR_STATE, "write before close_definition");
  must(foehn_close_definition(ctx), "foehn_close_definition");

  int h_t = -1;
  must(foehn_field_handle(ctx, "t", &h_t), "foehn_field_handle");
  std::vector<double> ps(static_cast<size_t>(b.ni) * b.nj);
  for (int step = 1; step <= steps; ++step) {
    must(foehn_update_calendar(ctx, step), "foehn_update_calendar");
    int active = -1;
    must(foehn_field_is_active(ctx, "t", &active), "foehn_field_is_active");
    expect(active == (step % 2 == 0 || step % 3 == 0), "t active at step " + std::to_string(step));
    for (int k = 0; k < nlev; ++k)
      for (int j = 0; j < b.nj; ++j)
        for (int i = 0; i < b.ni; ++i)
          t[(static_cast<size_t>(k) * b.nj + j) * b.ni + i] = spine::t_value(step, b.ibegin + i, b.jbegin + j, k);
    for (int j = 0; j < b.nj; ++j)
      for (int i = 0; i < b.ni; ++i)
        ps[static_cast<size_t>(j) * b.ni + i] = spine::ps_value(step, b.ibegin + i, b.jbegin + j);
    must(foehn_write_float_h(ctx, h_t, t.data(), t.size()), "foehn_write_float_h t");
    must(foehn_write_double(ctx, "ps", ps.data(), ps.size()), "foehn_write_double ps");
    must(foehn_write_double(ctx, "unused", ps.data(), ps.size()), "foehn_write_double unused");

    if (step == 2) {  // bad input: wrong size, unknown field, second write in a step
      const int st = foehn_write_float(ctx, "t", t.data(), t.size() - 1);
      const std::string msg = foehn_last_error();
      expect(st == FOEHN_ERR_ARGUMENT, "wrong size is an argument error");
      expect(msg.find("'t'") != std::string::npos &&
                 msg.find("expected " + std::to_string(t.size())) != std::string::npos &&
                 msg.find("given " + std::to_string(t.size() - 1)) != std::string::npos,
             "wrong-size message names field and sizes: " + msg);
      expect(foehn_write_float(ctx, "nosuch", t.data(), t.size()) == FOEHN_ERR_ARGUMENT, "unknown field");
      const std::string msg2 = foehn_last_error();
      expect(msg2.find("'nosuch'") != std::string::npos && msg2.find("'test'") != std::string::npos,
             "unknown-field message names field and context: " + msg2);
      expect(foehn_write_float(ctx, "t", t.data(), t.size()) == FOEHN_ERR_ARGUMENT, "second write in one step");
    }
  }
  must(foehn_context_close(ctx), "foehn_context_close");
  must(foehn_finalize(), "foehn_finalize");
  if (rank == 0) check_one_file(steps, ni_glo, nj_glo, nlev);
  int all = failures;
  MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_SUM, comm);
  if (rank == 0) std::printf("spine_model: %s (%d failed checks)\n", all ? "FAILED" : "OK", all);
  MPI_Comm_free(&comm);
  MPI_Finalize();
  return all ? 1 : 0;
}
