// The performance report at finalize: per client, the time inside foehn
// and the time waiting for send buffers; per server, the busy ratio, CPU
// time, bytes received and written, memory; plain advice when a threshold
// is crossed. Printed as text (stderr, rank 0 of each side) and written as
// JSON (docs/report.md has the schema).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "report/details.h"

namespace foehn::report {

// Plain doubles, so that a gather moves them as one MPI_DOUBLE array.
struct ClientFigures {
  double wall_seconds = 0;    // from init to finalize
  double inside_seconds = 0;  // inside foehn API calls
  double step_seconds = 0;    // of which inside the per-step calls (time, writes)
  double wait_seconds = 0;    // blocked on a full send buffer during the run
  double close_seconds = 0;   // waiting for the last buffers at context close
  double bytes_sent = 0;
  double messages_sent = 0;
  double waits = 0;                  // times a send buffer was not free
  double buffer_bytes = 0;           // send buffer memory allocated (peak)
  double largest_message_bytes = 0;  // the smallest buffer size that would have sufficed
  double credit_wait_seconds = 0;    // of wait_seconds: buffers held back until a server granted room
  double credit_waits = 0;           // of waits: how many were for credit
  double credit_bytes = 0;           // the most credit a channel held at once
  double progress_threads = 0;       // contexts that ran a progress thread
  double peak_rss_bytes = 0;         // the process's resident memory at its peak (VmHWM)
};

struct ServerFigures {
  double wall_seconds = 0;
  double busy_seconds = 0;  // decoding, assembling, writing
  double cpu_seconds = 0;   // process CPU time (shows spinning, if any)
  double bytes_received = 0;
  double bytes_written = 0;
  double messages_received = 0;
  double peak_rss_bytes = 0;  // the process's resident memory at its peak (VmHWM): everything, libraries too
  double peak_buffer_bytes =
      0;                    // of which foehn's buffers: receive buffer, records being assembled, blocks being forwarded
  double credit_bytes = 0;  // receive space granted to clients, at its peak
  double write_seconds = 0;  // inside netCDF data writes and file closes (part of busy)
  double direct_bytes = 0;   // direct payloads received straight into the records (of bytes_received)
  double staged_bytes = 0;   // direct payloads received apart and scattered (of bytes_received)
  // Level 1 of two-level servers: blocks forwarded to level 2 and not yet
  // sent, at their peak; the cap on them (the largest in force); the time
  // spent waiting for level 2 to take them (not part of busy).
  double forward_bytes = 0;
  double forward_cap_bytes = 0;
  double forward_wait_seconds = 0;
};

struct RunReport {
  std::string code;  // the model's code id
  std::vector<ClientFigures> clients;
  std::vector<ServerFigures> servers;  // empty when attached
  // Exact restarts: for each context that resumed, which state
  // ("context 'atm': state of <date> (<path>)").
  std::vector<std::string> resumed;
  Details details;  // per file: raw and on-disk bytes; per field: non-finite values
};

// Collective over comm; rank 0 returns every rank's figures, the others an empty vector.
std::vector<ClientFigures> gather(const ClientFigures& mine, MPI_Comm comm);
std::vector<ServerFigures> gather(const ServerFigures& mine, MPI_Comm comm);

void print_clients(std::ostream& out, const std::string& code, const std::vector<ClientFigures>& all);
void print_servers(std::ostream& out, const std::vector<ServerFigures>& all);
// Sentences a user can act on, one per crossed threshold (none when all is well).
std::vector<std::string> advice(const RunReport& report);
std::string to_json(const RunReport& report);

double process_cpu_seconds();
// The process's resident memory at its peak (getrusage's ru_maxrss, which is /proc's VmHWM).
double peak_rss_bytes();

}  // namespace foehn::report
