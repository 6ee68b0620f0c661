#include "transport/world.h"

#include "transport/liveness.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <stdexcept>

namespace foehn::transport {

World join_world(MPI_Comm world, const std::string& code_id) {
  // Every rank takes part in the collectives below even with a bad id, so
  // that no rank hangs; the error is raised after.
  const bool bad = code_id.empty() || code_id.size() > kMaxCodeIdLength;
  World w;
  MPI_Comm_dup(world, &w.comm);
  MPI_Comm_rank(w.comm, &w.rank);
  MPI_Comm_size(w.comm, &w.size);
  std::array<char, kMaxCodeIdLength + 1> mine{};
  if (!bad) std::memcpy(mine.data(), code_id.data(), code_id.size());
  std::vector<char> all(static_cast<size_t>(w.size) * mine.size());
  MPI_Allgather(mine.data(), static_cast<int>(mine.size()), MPI_CHAR, all.data(), static_cast<int>(mine.size()),
                MPI_CHAR, w.comm);
  std::vector<std::string> codes;
  std::vector<std::string> per_rank;
  for (int r = 0; r < w.size; ++r) {
    std::string c(all.data() + static_cast<size_t>(r) * mine.size());
    per_rank.push_back(c);
    if (c == kServerCodeId)
      w.server_ranks.push_back(r);
    else {
      w.client_ranks.push_back(r);
      if (std::find(codes.begin(), codes.end(), c) == codes.end()) codes.push_back(c);
    }
  }
  std::sort(codes.begin(), codes.end());
  const std::string me = per_rank[w.rank];
  w.is_server = me == kServerCodeId;
  w.code_index = w.is_server ? static_cast<int>(codes.size())
                             : static_cast<int>(std::find(codes.begin(), codes.end(), me) - codes.begin());
  MPI_Comm_split(w.comm, w.code_index, w.rank, &w.local);
  // Errors on foehn's communicator come back as codes, so that a failure
  // becomes a message instead of an abort.
  MPI_Comm_set_errhandler(w.comm, MPI_ERRORS_RETURN);
  // Direct payloads travel apart, so that the server's probe for any
  // message on comm never takes one for a buffer (event.h, kDirect).
  MPI_Comm_dup(w.comm, &w.direct);
  std::vector<std::string> descriptions(w.size);
  for (int r = 0, servers = 0; r < w.size; ++r) {
    if (per_rank[r] == kServerCodeId) {
      descriptions[r] = "foehn-server " + std::to_string(servers++) + " (world rank " + std::to_string(r) + ")";
      continue;
    }
    int before = 0;
    for (int q = 0; q < r; ++q) before += per_rank[q] == per_rank[r];
    if (before == 0) w.model_roots.push_back(r);
    descriptions[r] =
        "model rank " + std::to_string(before) + " of '" + per_rank[r] + "' (world rank " + std::to_string(r) + ")";
  }
  record_peers(w.comm, descriptions, descriptions[w.rank]);
  if (!w.is_server && !w.server_ranks.empty()) w.credits = std::make_shared<CreditBoard>(w.comm);
  install_termination_report();
  if (bad)
    throw std::invalid_argument("code id '" + code_id + "' must have 1 to " + std::to_string(kMaxCodeIdLength) +
                                " characters");
  return w;
}

void leave_world(World& w) {
  w.credits.reset();
  if (w.local != MPI_COMM_NULL) MPI_Comm_free(&w.local);
  if (w.direct != MPI_COMM_NULL) MPI_Comm_free(&w.direct);
  if (w.comm != MPI_COMM_NULL) MPI_Comm_free(&w.comm);
}

}  // namespace foehn::transport
