// The per-step exchange of an interpolation's source values among the
// model's ranks: one MPI_Alltoallv over the context's communicator, with
// counts fixed at close of definition (points per peer, scaled by the
// values per point of the field). No allocation per step.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "transform/transform.h"

namespace foehn::transform::interp {

class MpiExchange final : public HaloExchange {
 public:
  // send_points[q]: points this rank sends to rank q; recv_points[q]: points it gets from q.
  MpiExchange(MPI_Comm comm, std::vector<std::int64_t> send_points, std::vector<std::int64_t> recv_points);
  void exchange(const double* send, double* recv, std::size_t block) const override;

 private:
  MPI_Comm comm_;
  std::vector<std::int64_t> send_points_, recv_points_;
  mutable std::vector<int> send_counts_, send_displs_, recv_counts_, recv_displs_;
  mutable std::size_t block_ = 0;  // the block the counts were scaled for
};

}  // namespace foehn::transform::interp
