#include "restart/by_global_index.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace foehn::restart {

namespace {

std::int64_t slab_start(std::int64_t global_size, int rank, int ranks) { return global_size * rank / ranks; }

std::vector<int> displacements(const std::vector<int>& counts) {
  std::vector<int> d(counts.size(), 0);
  for (std::size_t r = 1; r < counts.size(); ++r) d[r] = d[r - 1] + counts[r - 1];
  return d;
}

}  // namespace

ByGlobalIndex::ByGlobalIndex(MPI_Comm comm, const std::vector<std::int64_t>& global, std::int64_t global_size)
    : comm_(comm) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  slab_begin_ = slab_start(global_size, rank, ranks);
  slab_count_ = slab_start(global_size, rank + 1, ranks) - slab_begin_;
  std::vector<std::int64_t> begins(ranks + 1);
  for (int r = 0; r <= ranks; ++r) begins[r] = slab_start(global_size, r, ranks);
  // The owner of each value, then the values ordered by owner (stable: in
  // local order within an owner).
  std::vector<int> owner(global.size(), -1);
  send_counts_.assign(ranks, 0);
  for (std::size_t i = 0; i < global.size(); ++i) {
    const std::int64_t g = global[i];
    if (g < 0) continue;
    if (g >= global_size)
      throw std::logic_error("global index " + std::to_string(g) + " beyond " + std::to_string(global_size));
    owner[i] = static_cast<int>(std::upper_bound(begins.begin(), begins.end(), g) - begins.begin()) - 1;
    ++send_counts_[owner[i]];
  }
  send_displs_ = displacements(send_counts_);
  std::vector<int> next = send_displs_;
  order_.resize(global.size() - std::count(owner.begin(), owner.end(), -1));
  std::vector<std::int64_t> sent(order_.size());
  for (std::size_t i = 0; i < global.size(); ++i) {
    if (owner[i] < 0) continue;
    const int k = next[owner[i]]++;
    order_[k] = static_cast<std::int64_t>(i);
    sent[k] = global[i];
  }
  recv_counts_.assign(ranks, 0);
  MPI_Alltoall(send_counts_.data(), 1, MPI_INT, recv_counts_.data(), 1, MPI_INT, comm);
  recv_displs_ = displacements(recv_counts_);
  slab_offset_.resize(static_cast<std::size_t>(recv_displs_.back() + recv_counts_.back()));
  MPI_Alltoallv(sent.data(), send_counts_.data(), send_displs_.data(), MPI_INT64_T, slab_offset_.data(),
                recv_counts_.data(), recv_displs_.data(), MPI_INT64_T, comm);
  for (std::int64_t& g : slab_offset_) g -= slab_begin_;
}

void ByGlobalIndex::to_slab(const double* local, double* slab) const {
  sent_.resize(order_.size());
  received_.resize(slab_offset_.size());
  for (std::size_t k = 0; k < order_.size(); ++k) sent_[k] = local[order_[k]];
  MPI_Alltoallv(sent_.data(), send_counts_.data(), send_displs_.data(), MPI_DOUBLE, received_.data(),
                recv_counts_.data(), recv_displs_.data(), MPI_DOUBLE, comm_);
  for (std::size_t k = 0; k < received_.size(); ++k) slab[slab_offset_[k]] = received_[k];
}

void ByGlobalIndex::from_slab(const double* slab, double* local) const {
  sent_.resize(slab_offset_.size());
  received_.resize(order_.size());
  for (std::size_t k = 0; k < sent_.size(); ++k) sent_[k] = slab[slab_offset_[k]];
  MPI_Alltoallv(sent_.data(), recv_counts_.data(), recv_displs_.data(), MPI_DOUBLE, received_.data(),
                send_counts_.data(), send_displs_.data(), MPI_DOUBLE, comm_);
  for (std::size_t k = 0; k < received_.size(); ++k) local[order_[k]] = received_[k];
}

}  // namespace foehn::restart
