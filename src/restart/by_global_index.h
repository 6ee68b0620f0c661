// Values held by ranks in any decomposition, moved to and from contiguous
// slabs of a global index space: what lets a checkpoint written by some
// number of ranks be read by another. Rank r of P owns the slab
// [G·r/P, G·(r+1)/P); each rank's values go to the slabs' owners in one
// all-to-all, and come back the same way. Collective over the communicator.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

namespace foehn::restart {

class ByGlobalIndex {
 public:
  // `global`: the global index (0 <= g < global_size) of each local value,
  // or -1 for a value this rank does not hand over (halo, masked, a copy
  // another rank gives).
  ByGlobalIndex(MPI_Comm comm, const std::vector<std::int64_t>& global, std::int64_t global_size);

  std::int64_t slab_begin() const { return slab_begin_; }
  std::int64_t slab_count() const { return slab_count_; }
  // Whether every place of this rank's slab receives a value (else the
  // caller fills the slab first: places no rank fills keep what they held).
  bool fills_slab() const { return static_cast<std::int64_t>(slab_offset_.size()) == slab_count_; }
  // Each local value to its place in its owner's slab (`slab`: slab_count()
  // values; places no rank fills keep what they held).
  void to_slab(const double* local, double* slab) const;
  // Each local value with a global index from its owner's slab; the others
  // keep what they held.
  void from_slab(const double* slab, double* local) const;
  // Where, in `local`, this rank's whole slab already is, in order, when
  // every rank's values are exactly its own slab (one rank; or a
  // decomposition that matches the slabs): then no exchange is needed and
  // the slab is written straight from the local values. Else nullptr.
  const double* slab_in_place(const double* local) const { return in_place_ ? local + local_displs_[rank_] : nullptr; }
  bool in_place() const { return in_place_; }  // the same on every rank

 private:
  MPI_Comm comm_;
  std::int64_t slab_begin_ = 0, slab_count_ = 0;
  std::vector<std::int64_t> order_;  // local positions with a global index, by owner
  std::vector<int> send_counts_, send_displs_;
  std::vector<int> recv_counts_, recv_displs_;
  std::vector<std::int64_t> slab_offset_;  // of each value received, in the slab
  // When each peer's values are one run, in order, of the local values (a
  // decomposition by blocks) or of the slab, MPI reads or writes them in
  // place at these displacements instead of through a copy.
  std::vector<int> local_displs_, slab_displs_;
  bool local_in_runs_ = false, slab_in_runs_ = false;
  bool in_place_ = false;  // on every rank: its values are its slab, in order (no exchange)
  int rank_ = 0;
  mutable std::vector<double> sent_, received_;  // kept: one allocation per checkpoint's grid, not per variable

  // One end of the exchange: the places of its values (local positions or
  // slab offsets), each peer's count, and the displacements in place (in
  // runs) or in the packed copy.
  struct Side {
    const std::vector<std::int64_t>& place;
    const std::vector<int>& counts;
    bool in_runs;
    const std::vector<int>& run_displs;
    const std::vector<int>& packed_displs;
    const std::vector<int>& displs() const { return in_runs ? run_displs : packed_displs; }
  };
  Side local_side() const { return {order_, send_counts_, local_in_runs_, local_displs_, send_displs_}; }
  Side slab_side() const { return {slab_offset_, recv_counts_, slab_in_runs_, slab_displs_, recv_displs_}; }
  // Values from `in` (laid out as side `from`) to `out` (as side `to`).
  void exchange(const double* in, const Side& from, double* out, const Side& to) const;
};

}  // namespace foehn::restart
