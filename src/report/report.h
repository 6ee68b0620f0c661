// The performance report printed at finalize: for each client the time
// spent inside foehn and waiting for send buffers, for each server the busy
// ratio and the bytes written. Gathered to the first rank of each group.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace foehn::report {

struct ClientFigures {
  double wall_seconds = 0;    // from init to finalize
  double inside_seconds = 0;  // inside foehn API calls
  double wait_seconds = 0;    // blocked on a full send buffer
  double close_seconds = 0;   // waiting for the last buffers at context close
  double bytes_sent = 0;
  double messages_sent = 0;
};

struct ServerFigures {
  double wall_seconds = 0;
  double busy_seconds = 0;  // decoding, assembling, writing
  double cpu_seconds = 0;   // process CPU time (shows spinning, if any)
  double bytes_written = 0;
  double messages_received = 0;
};

// Collective over comm; rank 0 returns every rank's figures, the others an empty vector.
std::vector<ClientFigures> gather(const ClientFigures& mine, MPI_Comm comm);
std::vector<ServerFigures> gather(const ServerFigures& mine, MPI_Comm comm);

void print_clients(std::ostream& out, const std::string& code, const std::vector<ClientFigures>& all);
void print_servers(std::ostream& out, const std::vector<ServerFigures>& all);

double process_cpu_seconds();

}  // namespace foehn::report
