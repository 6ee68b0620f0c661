#include "transform/interp/mpi_exchange.h"

#include <limits>
#include <stdexcept>
#include <string>

namespace foehn::transform::interp {

MpiExchange::MpiExchange(MPI_Comm comm, std::vector<std::int64_t> send_points, std::vector<std::int64_t> recv_points)
    : comm_(comm),
      send_points_(std::move(send_points)),
      recv_points_(std::move(recv_points)),
      send_counts_(send_points_.size()),
      send_displs_(send_points_.size()),
      recv_counts_(recv_points_.size()),
      recv_displs_(recv_points_.size()) {}

void MpiExchange::exchange(const double* send, double* recv, std::size_t block) const {
  if (block != block_) {  // once per field: the counts in values
    std::int64_t sent = 0, received = 0;
    for (std::size_t q = 0; q < send_points_.size(); ++q) {
      const auto b = static_cast<std::int64_t>(block);
      if ((sent + send_points_[q]) * b > std::numeric_limits<int>::max() ||
          (received + recv_points_[q]) * b > std::numeric_limits<int>::max())
        throw std::runtime_error("interpolate_domain: more than 2^31 values to exchange in one step");
      send_counts_[q] = static_cast<int>(send_points_[q] * b);
      send_displs_[q] = static_cast<int>(sent * b);
      recv_counts_[q] = static_cast<int>(recv_points_[q] * b);
      recv_displs_[q] = static_cast<int>(received * b);
      sent += send_points_[q];
      received += recv_points_[q];
    }
    block_ = block;
  }
  MPI_Alltoallv(send, send_counts_.data(), send_displs_.data(), MPI_DOUBLE, recv, recv_counts_.data(),
                recv_displs_.data(), MPI_DOUBLE, comm_);
}

}  // namespace foehn::transform::interp
