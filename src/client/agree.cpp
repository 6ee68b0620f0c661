#include "client/agree.h"

#include <climits>
#include <vector>

namespace foehn::client {

void agree(MPI_Comm comm, const LocalFailure& mine) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  int first = mine.failed ? rank : INT_MAX;
  MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first == INT_MAX) return;
  int header[2] = {static_cast<int>(mine.status), static_cast<int>(mine.message.size())};
  MPI_Bcast(header, 2, MPI_INT, first, comm);
  std::vector<char> text(mine.message.begin(), mine.message.end());
  text.resize(header[1]);
  MPI_Bcast(text.data(), header[1], MPI_CHAR, first, comm);
  std::string message(text.begin(), text.end());
  if (rank != first) message += " (reported by model rank " + std::to_string(first) + ")";
  throw ApiError(static_cast<foehn_status>(header[0]), message);
}

}  // namespace foehn::client
