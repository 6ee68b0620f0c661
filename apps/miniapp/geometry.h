// Where the proxy model's points are: the octahedral reduced Gaussian grid
// O<N> (src/grid/gaussian.h), split among the model ranks by the
// EQ_REGIONS-style partition, and the neighbours along latitude rows that
// the dynamics needs (some held by other ranks: the halo).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "grid/gaussian.h"

namespace miniapp {

struct Geometry {
  foehn::grid::ReducedGaussianGrid grid;
  int rank = 0, ranks = 1;
  std::vector<int> owner;            // the rank of every global point
  std::vector<std::int64_t> global;  // this rank's points, ascending global index
  std::vector<double> lon, lat;      // degrees, per local point

  std::int64_t global_size() const { return grid.size(); }
  int local_size() const { return static_cast<int>(global.size()); }
  // Every rank's points in one pass (every rank can compute every other's:
  // the partition is a pure function of the grid): rank r holds
  // order[first[r]] .. order[first[r+1] - 1], ascending global indices.
  void points_of_all(std::vector<std::int64_t>& first, std::vector<std::int64_t>& order) const;
};

Geometry make_geometry(int n, MPI_Comm comm);

// The row neighbours of every local point and how to fill the halo: local
// point p has neighbours west[p] and east[p], each either a local point
// (< local_size) or halo slot h stored as local_size + h.
struct HaloPlan {
  std::vector<int> west, east;
  int halo_size = 0;
  std::vector<int> peers;                     // ranks exchanged with
  std::vector<std::vector<int>> send_points;  // per peer: local points it needs
  std::vector<std::vector<int>> recv_slots;   // per peer: halo slots it fills
};

// Built without communication: neighbours are symmetric along a row, so
// the points a peer needs from us are those whose neighbour it owns, and
// both sides list them in ascending global index.
HaloPlan make_halo_plan(const Geometry& g);

}  // namespace miniapp
