// Whether every point of a domain has exactly one owner among the model
// ranks, found without gathering the domain anywhere (issue 19 item 3):
// each rank sends its points' global indices to the rank that checks their
// range (an all-to-all by blocks of global indices), so a rank holds its
// own points and one block of the domain, never the whole domain. The
// message is the one output::assemble_domain gives for the same parts
// (the first clash in rank order, then the first point no rank holds).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace foehn::client {

struct OwnershipRules {
  std::string domain;          // its id, for the message
  std::int64_t ni_glo = 0;     // points are (i, j) = (g % ni_glo, g / ni_glo)
  std::int64_t size = 0;       // ni_glo x nj_glo
  bool shared = false;         // points may have several holders (grids that split an axis)
  bool holes_allowed = false;  // healpix: cells no rank holds are fill
};

// Collective over comm; the same answer on every rank: "" or the error.
// owned: this rank's points (global indices in [0, size), each once), in
// its own order, the order a clash is reported in.
std::string check_ownership(MPI_Comm comm, const OwnershipRules& rules, const std::vector<std::int64_t>& owned);

}  // namespace foehn::client
