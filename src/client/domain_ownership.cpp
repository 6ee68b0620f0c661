// Distributed ownership check of a domain: see domain_ownership.h.
#include "client/domain_ownership.h"

#include <algorithm>
#include <array>
#include <limits>
#include <numeric>
#include <utility>

#include "output/output_plan.h"

namespace foehn::client {

std::string check_ownership(MPI_Comm comm, const OwnershipRules& rules, const std::vector<std::int64_t>& owned) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  // Rank b checks the global indices [b·block, (b+1)·block).
  const std::int64_t block = std::max<std::int64_t>(1, (rules.size + size - 1) / size);
  const std::int64_t lo = std::min(rules.size, rank * block), hi = std::min(rules.size, lo + block);
  auto checker = [&](std::int64_t g) { return static_cast<int>(g / block); };

  // Each point goes to its checker as (global index, position in this rank's list).
  std::vector<int> send_n(size, 0), recv_n(size, 0), send_at(size, 0), recv_at(size, 0);
  for (const std::int64_t g : owned) send_n[checker(g)] += 2;
  MPI_Alltoall(send_n.data(), 1, MPI_INT, recv_n.data(), 1, MPI_INT, comm);
  std::partial_sum(send_n.begin(), send_n.end() - 1, send_at.begin() + 1);
  std::partial_sum(recv_n.begin(), recv_n.end() - 1, recv_at.begin() + 1);
  std::vector<std::int64_t> out(owned.size() * 2), in(static_cast<std::size_t>(recv_at.back() + recv_n.back()));
  {
    std::vector<int> next = send_at;
    for (std::size_t k = 0; k < owned.size(); ++k) {
      int& at = next[checker(owned[k])];
      out[at] = owned[k], out[at + 1] = static_cast<std::int64_t>(k);
      at += 2;
    }
  }
  MPI_Alltoallv(out.data(), send_n.data(), send_at.data(), MPI_INT64_T, in.data(), recv_n.data(), recv_at.data(),
                MPI_INT64_T, comm);
  std::vector<std::int64_t>().swap(out);

  // The gathered check goes through the ranks in order and, in each, its
  // points in order: the clash it reports is the least (second holder, its
  // position) over all points, named with the point's first holder.
  constexpr std::int64_t kNone = std::numeric_limits<std::int64_t>::max();
  std::array<std::int64_t, 5> mine{kNone, kNone, -1, -1, kNone};  // clash rank, position, point, first holder; hole
  std::vector<int> first(static_cast<std::size_t>(hi - lo), -1);
  for (int r = 0; r < size; ++r)  // received in rank order
    for (int k = recv_at[r]; k < recv_at[r] + recv_n[r]; k += 2) {
      const std::int64_t g = in[k], at = in[k + 1];
      int& f = first[static_cast<std::size_t>(g - lo)];
      if (f < 0) {
        f = r;
      } else if (!rules.shared && std::pair<std::int64_t, std::int64_t>(r, at) < std::pair(mine[0], mine[1])) {
        mine = {r, at, g, f, kNone};
      }
    }
  if (auto hole = std::find(first.begin(), first.end(), -1); hole != first.end()) mine[4] = lo + (hole - first.begin());

  std::vector<std::int64_t> all(static_cast<std::size_t>(size) * mine.size());
  MPI_Allgather(mine.data(), static_cast<int>(mine.size()), MPI_INT64_T, all.data(), static_cast<int>(mine.size()),
                MPI_INT64_T, comm);
  std::array<std::int64_t, 5> clash{kNone, kNone, -1, -1, kNone};
  std::int64_t hole = kNone;
  for (int r = 0; r < size; ++r) {
    const std::int64_t* a = &all[static_cast<std::size_t>(r) * mine.size()];
    if (std::make_pair(a[0], a[1]) < std::make_pair(clash[0], clash[1])) clash = {a[0], a[1], a[2], a[3], kNone};
    hole = std::min(hole, a[4]);
  }
  if (clash[0] != kNone) return output::clash_message(rules.domain, rules.ni_glo, clash[2], clash[3], clash[0]);
  if (hole != kNone && !rules.holes_allowed) return output::hole_message(rules.domain, rules.ni_glo, hole);
  return "";
}

}  // namespace foehn::client
