// The foehn-server main loop: receive definitions and event buffers from the
// clients, hand them to one OutputEngine per context, and exit once every
// client has finalized. Idle waiting sleeps (bounded back-off) instead of
// spinning, so a server never steals a core from the model.
#pragma once

#include <mpi.h>

namespace foehn::server {

struct ServerOptions {
  // Benchmarks only (bench/throughput.cpp): assemble every record but do
  // not write it, so that the transport alone is measured.
  bool discard_output = false;
};

// Collective over `world` with the clients' foehn_init. Returns the process
// exit code (0 on success).
int run_server(MPI_Comm world, const ServerOptions& options = {});

}  // namespace foehn::server
