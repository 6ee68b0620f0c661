// Bad configurations must give a clear error on every model rank and let
// the servers exit, in attached and server mode: no crash, no hang.
//
// usage: bad_input_model <config.xml> <phase: init|close> <expected message part>...
// Exits 0 when the call of that phase fails with a message containing every
// expected part, on every rank.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "foehn/foehn.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s config.xml init|close expected...\n", argv[0]);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const std::string phase = argv[2];
  bool ok = true;
  std::string message;
  int status = FOEHN_OK;
  MPI_Comm comm = MPI_COMM_NULL;
  status = foehn_init("bad", argv[1], MPI_COMM_WORLD, &comm);
  if (phase == "init") {
    message = foehn_last_error();
    ok = status == FOEHN_ERR_CONFIG;
  } else {
    if (status != FOEHN_OK) {
      std::fprintf(stderr, "foehn_init failed unexpectedly: %s\n", foehn_last_error());
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    foehn_context ctx;
    if (foehn_context_open("bad", comm, &ctx) != FOEHN_OK) {
      std::fprintf(stderr, "context_open failed: %s\n", foehn_last_error());
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    // Rank 0 alone describes the domain: the others fail, all must agree.
    const double lon[4] = {0, 90, 180, 270}, lat[2] = {-45, 45};
    if (rank == 0) foehn_set_domain_rectilinear(ctx, "dom", 4, 2, 0, 4, 0, 2, lon, lat);
    status = foehn_close_definition(ctx);
    message = foehn_last_error();
    ok = status != FOEHN_OK;
    if (foehn_context_close(ctx) != FOEHN_OK) {
      std::fprintf(stderr, "context_close failed: %s\n", foehn_last_error());
      ok = false;
    }
    if (foehn_finalize() != FOEHN_OK) {
      std::fprintf(stderr, "finalize failed: %s\n", foehn_last_error());
      ok = false;
    }
    MPI_Comm_free(&comm);
  }
  for (int i = 3; i < argc; ++i)
    if (message.find(argv[i]) == std::string::npos) ok = false;
  int world_rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  std::printf("rank %d: status %d, message: %s -> %s\n", world_rank, status, message.c_str(),
              ok ? "as expected" : "UNEXPECTED");
  int all_ok = ok ? 1 : 0;
  // Only model ranks reach here; servers have exited their loop already.
  MPI_Finalize();
  return all_ok ? 0 : 1;
}
