// foehn-server: the I/O server executable, started beside the model in an
// MPMD launch:  mpiexec -n 4 ./model : -n 1 foehn-server
// It needs no arguments: the clients send it everything at close of
// definition.
#include <mpi.h>

#include <cstring>
#include <iostream>

#include "server/server_loop.h"

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      std::cout << "usage: mpiexec -n N model : -n M foehn-server\n"
                   "Receives fields from the model ranks and writes the files its XML asks for.\n";
      return 0;
    }
    if (!std::strcmp(argv[i], "--version")) {
      std::cout << "foehn-server " << FOEHN_VERSION_TEXT << "\n";
      return 0;
    }
  }
  MPI_Init(&argc, &argv);
  const int code = foehn::server::run_server(MPI_COMM_WORLD);
  MPI_Finalize();
  return code;
}
