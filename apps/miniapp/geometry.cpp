#include "geometry.h"

#include <algorithm>
#include <map>

namespace miniapp {

Geometry make_geometry(int n, MPI_Comm comm) {
  Geometry g{foehn::grid::ReducedGaussianGrid::octahedral(n), 0, 1, {}, {}, {}, {}};
  MPI_Comm_rank(comm, &g.rank);
  MPI_Comm_size(comm, &g.ranks);
  g.owner = foehn::grid::eq_partition(g.grid, g.ranks);
  for (std::int64_t p = 0; p < g.global_size(); ++p)
    if (g.owner[static_cast<std::size_t>(p)] == g.rank) g.global.push_back(p);
  g.lon.reserve(g.global.size());
  g.lat.reserve(g.global.size());
  for (const std::int64_t p : g.global) {
    g.lon.push_back(g.grid.lon(p));
    g.lat.push_back(g.grid.lat(p));
  }
  return g;
}

void Geometry::points_of_all(std::vector<std::int64_t>& first, std::vector<std::int64_t>& order) const {
  first.assign(static_cast<std::size_t>(ranks) + 1, 0);
  for (const int r : owner) ++first[static_cast<std::size_t>(r) + 1];
  for (int r = 0; r < ranks; ++r) first[static_cast<std::size_t>(r) + 1] += first[static_cast<std::size_t>(r)];
  std::vector<std::int64_t> next(first.begin(), first.end() - 1);
  order.resize(owner.size());
  for (std::int64_t p = 0; p < global_size(); ++p) {
    std::int64_t& at = next[static_cast<std::size_t>(owner[static_cast<std::size_t>(p)])];
    order[static_cast<std::size_t>(at++)] = p;
  }
}

namespace {

// The west and east neighbours of global point p along its row (periodic).
std::pair<std::int64_t, std::int64_t> row_neighbours(const foehn::grid::ReducedGaussianGrid& grid, std::int64_t p) {
  const int row = grid.row_of(p);
  const std::int64_t start = grid.row_start(row), n = grid.points_per_row()[static_cast<std::size_t>(row)];
  const std::int64_t i = p - start;
  return {start + (i + n - 1) % n, start + (i + 1) % n};
}

}  // namespace

HaloPlan make_halo_plan(const Geometry& g) {
  const int nloc = g.local_size();
  HaloPlan h;
  h.west.resize(static_cast<std::size_t>(nloc));
  h.east.resize(static_cast<std::size_t>(nloc));
  // Halo points by owner, then global index: the order both sides agree on.
  std::map<std::pair<int, std::int64_t>, int> halo;
  std::map<int, std::vector<int>> sends;
  auto local_of = [&](std::int64_t p) {
    return static_cast<int>(std::lower_bound(g.global.begin(), g.global.end(), p) - g.global.begin());
  };
  for (int p = 0; p < nloc; ++p) {
    const auto [w, e] = row_neighbours(g.grid, g.global[static_cast<std::size_t>(p)]);
    bool needed_elsewhere[2] = {false, false};
    int k = 0;
    for (const std::int64_t q : {w, e}) {
      const int who = g.owner[static_cast<std::size_t>(q)];
      if (who != g.rank) {
        halo.emplace(std::make_pair(who, q), 0);
        // A neighbour's owner needs this point back (rows are symmetric);
        // once per peer even when both neighbours belong to it.
        if (!(k == 1 && needed_elsewhere[0] && g.owner[static_cast<std::size_t>(w)] == who)) sends[who].push_back(p);
        needed_elsewhere[k] = true;
      }
      ++k;
    }
  }
  int slot = 0;
  std::map<int, std::vector<int>> recvs;
  for (auto& [key, s] : halo) {
    s = slot++;
    recvs[key.first].push_back(s);
  }
  h.halo_size = slot;
  for (int p = 0; p < nloc; ++p) {
    const auto [w, e] = row_neighbours(g.grid, g.global[static_cast<std::size_t>(p)]);
    auto index = [&](std::int64_t q) {
      const int who = g.owner[static_cast<std::size_t>(q)];
      return who == g.rank ? local_of(q) : nloc + halo.at({who, q});
    };
    h.west[static_cast<std::size_t>(p)] = index(w);
    h.east[static_cast<std::size_t>(p)] = index(e);
  }
  for (auto& [peer, slots] : recvs) {
    h.peers.push_back(peer);
    h.recv_slots.push_back(slots);
    h.send_points.push_back(sends[peer]);
  }
  return h;
}

}  // namespace miniapp
