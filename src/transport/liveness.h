// Knowing when a peer died. MPI (without fault tolerance) cannot say, and
// would hang or abort; so at init every rank records the process id and
// host of every other, and foehn checks peers on its own host through
// /proc when a wait lasts, and when the launcher terminates the job
// (SIGTERM) it names the rank that is gone before exiting.
#pragma once

#include <mpi.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace foehn::transport {

struct PeerLost : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Collective over comm (foehn's world). `describe(rank)` names a world rank
// ("foehn-server 0 (world rank 2)"); `me` names this rank in messages.
void record_peers(MPI_Comm comm, const std::vector<std::string>& descriptions, const std::string& me);

// Throws PeerLost naming the first of `world_ranks` (on this host) whose
// process is gone. Cheap enough to call about once a second.
void check_alive(const std::vector<int>& world_ranks);

// Waits for a message (MPI_Iprobe with a growing sleep, so the core is
// yielded) from `source` (or MPI_ANY_SOURCE) with `tag`, checking about
// once a second that the ranks in `watch` live. Throws PeerLost.
void wait_for_message(MPI_Comm comm, int source, int tag, MPI_Status& status, const std::vector<int>& watch);

// Prints, on SIGTERM, which recorded peers on this host are gone, then
// exits non-zero.
void install_termination_report();

}  // namespace foehn::transport
