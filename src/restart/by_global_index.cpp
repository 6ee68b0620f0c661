#include "restart/by_global_index.h"

#include <algorithm>
#include <limits>
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

// Whether the values of each peer (counts, displs) are at consecutive
// places of `place`, in order; if so, where each peer's run starts.
bool one_run_per_peer(const std::vector<std::int64_t>& place, const std::vector<int>& counts,
                      const std::vector<int>& displs, std::vector<int>& starts) {
  starts.assign(counts.size(), 0);
  for (std::size_t r = 0; r < counts.size(); ++r) {
    if (counts[r] == 0) continue;
    const std::int64_t first = place[static_cast<std::size_t>(displs[r])];
    if (first > std::numeric_limits<int>::max() - counts[r]) return false;
    for (int k = 1; k < counts[r]; ++k)
      if (place[static_cast<std::size_t>(displs[r] + k)] != first + k) return false;
    starts[r] = static_cast<int>(first);
  }
  return true;
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
  local_in_runs_ = one_run_per_peer(order_, send_counts_, send_displs_, local_displs_);
  slab_in_runs_ = one_run_per_peer(slab_offset_, recv_counts_, recv_displs_, slab_displs_);
  rank_ = rank;
  int own = local_in_runs_ && slab_in_runs_ && fills_slab() && send_counts_[rank] == static_cast<int>(order_.size()) &&
            recv_counts_[rank] == slab_count_ && (slab_count_ == 0 || slab_displs_[rank] == 0);
  MPI_Allreduce(MPI_IN_PLACE, &own, 1, MPI_INT, MPI_LAND, comm);
  in_place_ = own != 0;
}

// A side in runs is read or written in place (MPI's own copy is then the
// only one); otherwise through sent_ or received_, in the peers' order.
void ByGlobalIndex::exchange(const double* in, const Side& from, double* out, const Side& to) const {
  const double* send = in;
  if (!from.in_runs) {
    sent_.resize(from.place.size());
    for (std::size_t k = 0; k < sent_.size(); ++k) sent_[k] = in[from.place[k]];
    send = sent_.data();
  }
  double* receive = out;
  if (!to.in_runs) {
    received_.resize(to.place.size());
    receive = received_.data();
  }
  MPI_Alltoallv(send, from.counts.data(), from.displs().data(), MPI_DOUBLE, receive, to.counts.data(),
                to.displs().data(), MPI_DOUBLE, comm_);
  if (!to.in_runs)
    for (std::size_t k = 0; k < received_.size(); ++k) out[to.place[k]] = received_[k];
}

void ByGlobalIndex::to_slab(const double* local, double* slab) const {
  exchange(local, local_side(), slab, slab_side());
}

void ByGlobalIndex::from_slab(const double* slab, double* local) const {
  exchange(slab, slab_side(), local, local_side());
}

}  // namespace foehn::restart
