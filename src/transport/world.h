// Who is who in an MPMD run: at init every rank of the world tells its code
// id (model ranks their model's id, server ranks a reserved one); the world
// is then split into one communicator per model and one for the servers,
// and foehn talks over a private duplicate of the world so its messages
// never mix with the model's.
#pragma once

#include <mpi.h>

#include <memory>
#include <string>
#include <vector>

#include "transport/credit_board.h"

namespace foehn::transport {

constexpr const char* kServerCodeId = "\x01foehn-server";
constexpr int kMaxCodeIdLength = 63;

struct World {
  MPI_Comm comm = MPI_COMM_NULL;    // private duplicate of the world
  MPI_Comm direct = MPI_COMM_NULL;  // another one, for direct payloads only (event.h)
  MPI_Comm local = MPI_COMM_NULL;   // this rank's model (or the server pool)
  int rank = 0, size = 0;           // in comm
  int code_index = 0;               // index of this rank's code among the model codes
  std::vector<int> server_ranks;    // world ranks of the servers, ascending
  std::vector<int> client_ranks;    // world ranks of all model ranks
  std::vector<int> model_roots;     // the first world rank of each model
  bool is_server = false;
  std::shared_ptr<CreditBoard> credits;  // clients with servers: the credit of their send channels
  bool attached() const { return server_ranks.empty(); }
};

// Collective over `world`. Throws std::invalid_argument for a bad code id.
World join_world(MPI_Comm world, const std::string& code_id);
void leave_world(World& w);

}  // namespace foehn::transport
