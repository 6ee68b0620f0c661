/* The minimal foehn model in C: each rank holds a band of rows of an 8 x 4
 * lon/lat grid and writes tas every step. mpiexec -n 2 ./minimal_model */
#include <foehn/foehn.h>

enum { NI = 8, NJ_GLO = 4, NSTEPS = 4 };

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm comm;
  if (foehn_init("minimal", "iodef.xml", MPI_COMM_WORLD, &comm) != FOEHN_OK) MPI_Abort(MPI_COMM_WORLD, 1);
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int jbegin = rank * NJ_GLO / size, nj = (rank + 1) * NJ_GLO / size - jbegin; /* my rows */
  double lon[NI], lat[NJ_GLO], tas[NJ_GLO][NI];
  for (int i = 0; i < NI; ++i) lon[i] = i * 45.0;
  for (int j = 0; j < nj; ++j) lat[j] = -67.5 + (jbegin + j) * 45.0;
  foehn_context ctx;
  foehn_context_open("atm", comm, &ctx);
  foehn_set_domain_rectilinear(ctx, "globe", NI, NJ_GLO, 0, NI, jbegin, nj, lon, lat);
  foehn_close_definition(ctx);
  for (int step = 1; step <= NSTEPS; ++step) {
    foehn_update_calendar(ctx, step);
    for (int j = 0; j < nj; ++j)
      for (int i = 0; i < NI; ++i) tas[j][i] = 273.0 + step + i + 10.0 * (jbegin + j);
    if (foehn_write_double(ctx, "tas", &tas[0][0], (size_t)NI * nj) != FOEHN_OK) MPI_Abort(comm, 1);
  }
  foehn_context_close(ctx);
  foehn_finalize();
  MPI_Comm_free(&comm);
  MPI_Finalize();
  return 0;
}
