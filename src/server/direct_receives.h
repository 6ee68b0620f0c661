// Direct payloads in flight to a server (transport/event.h, kDirect): the
// receive of each is posted when its event is read, straight into the
// record or into a staging buffer, and completes while the server goes on
// with other messages. A payload can be late (the client's MPI moves it on
// only inside the client's calls), and a server that waited for it would
// keep every other client waiting too.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "transport/event.h"

namespace foehn::server {

class DirectReceives {
 public:
  struct Receive {
    int source = 0;             // world rank of the client
    std::uint16_t channel = 0;  // its channel, for credit
    int client = 0;             // index of the client in its context
    bool usable = true;         // false: the context failed, drop the values
    transport::EventHeader header{};
    std::byte* target = nullptr;  // in the record, or null: in `staged`
    std::vector<std::byte> staged;
    std::size_t bytes() const { return static_cast<std::size_t>(header.count) * header.elem_size; }
  };

  explicit DirectReceives(MPI_Comm direct) : comm_(direct) {}

  // Posts the receive of the next payload from r.source (payloads of one
  // source match in the order they are posted). Throws if MPI refuses.
  void post(Receive r);
  // Calls done(receive) for every receive that has completed, in no
  // particular order; never blocks.
  template <class Done>
  void complete(Done&& done);
  bool empty() const { return receives_.empty(); }
  bool pending_from(int source) const;
  // Staging memory held: the buffers in flight and the spare ones.
  std::size_t staging_bytes() const;

 private:
  MPI_Comm comm_;
  std::vector<Receive> receives_;              // posted, in posting order
  std::vector<MPI_Request> requests_;          // one per receive, same order
  std::vector<int> completed_;                 // MPI_Testsome's output
  std::vector<std::vector<std::byte>> spare_;  // staging buffers to reuse
};

template <class Done>
void DirectReceives::complete(Done&& done) {
  if (receives_.empty()) return;
  int count = 0;
  completed_.resize(requests_.size());
  MPI_Testsome(static_cast<int>(requests_.size()), requests_.data(), &count, completed_.data(), MPI_STATUSES_IGNORE);
  if (count <= 0 || count == MPI_UNDEFINED) return;
  for (int k = 0; k < count; ++k) done(receives_[static_cast<std::size_t>(completed_[static_cast<std::size_t>(k)])]);
  // Keep the others in order; give the staging buffers back to the pool.
  std::size_t kept = 0;
  for (std::size_t i = 0; i < receives_.size(); ++i) {
    if (requests_[i] == MPI_REQUEST_NULL) {
      if (receives_[i].staged.capacity()) spare_.push_back(std::move(receives_[i].staged));
      continue;
    }
    if (kept != i) {
      receives_[kept] = std::move(receives_[i]);
      requests_[kept] = requests_[i];
    }
    ++kept;
  }
  receives_.resize(kept);
  requests_.resize(kept);
}

}  // namespace foehn::server
