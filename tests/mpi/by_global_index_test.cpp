// restart::ByGlobalIndex under mpiexec (1 to 3 ranks): values of several
// decompositions to the slabs of their global index and back. Each value is
// a function of its global index, so every place of a slab is checked
// against what it must hold; the round trip gives every local value back.
// Also: the exchange is skipped (slab_in_place) exactly when each rank's
// values are its own slab.
#include <mpi.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "restart/by_global_index.h"

namespace {

int failures = 0;

void expect(bool ok, const std::string& what, int rank) {
  if (ok) return;
  std::fprintf(stderr, "by_global_index_test rank %d: %s\n", rank, what.c_str());
  ++failures;
}

double value_of(std::int64_t g) { return 0.5 * static_cast<double>(g) + 1e-3 * std::sin(static_cast<double>(g)); }

void check(const char* name, const std::vector<std::int64_t>& global, std::int64_t size, bool expect_in_place,
           int rank) {
  const foehn::restart::ByGlobalIndex by(MPI_COMM_WORLD, global, size);
  std::vector<double> local(global.size());
  for (std::size_t i = 0; i < global.size(); ++i) local[i] = global[i] < 0 ? -7.0 : value_of(global[i]);
  std::vector<double> slab(static_cast<std::size_t>(by.slab_count()), std::nan(""));
  by.to_slab(local.data(), slab.data());
  const std::string at = std::string(name) + ": ";
  for (std::int64_t k = 0; k < by.slab_count(); ++k)
    expect(slab[static_cast<std::size_t>(k)] == value_of(by.slab_begin() + k),
           at + "slab place " + std::to_string(by.slab_begin() + k) + " holds " +
               std::to_string(slab[static_cast<std::size_t>(k)]),
           rank);
  const double* in_place = by.slab_in_place(local.data());
  expect((in_place != nullptr) == expect_in_place, at + "slab_in_place", rank);
  if (in_place)
    for (std::int64_t k = 0; k < by.slab_count(); ++k)
      expect(in_place[k] == slab[static_cast<std::size_t>(k)], at + "the slab in place differs", rank);
  std::vector<double> back(global.size(), -7.0);
  by.from_slab(slab.data(), back.data());
  for (std::size_t i = 0; i < global.size(); ++i)
    expect(back[i] == local[i], at + "local value " + std::to_string(i) + " not given back", rank);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  // Blocks matching the slabs: [G·r/P, G·(r+1)/P) each: in place.
  const std::int64_t g = 101;
  std::vector<std::int64_t> block;
  for (std::int64_t i = g * rank / ranks; i < g * (rank + 1) / ranks; ++i) block.push_back(i);
  check("slab blocks", block, g, true, rank);
  // A 3-D field (lev, j, i) split in j: each rank's rows of every level, so
  // a slab takes interleaved runs from every rank (in place on one rank).
  const std::int64_t nlev = 4, nj = 7, ni = 5;
  std::vector<std::int64_t> rows;
  for (std::int64_t l = 0; l < nlev; ++l)
    for (std::int64_t j = nj * rank / ranks; j < nj * (rank + 1) / ranks; ++j)
      for (std::int64_t i = 0; i < ni; ++i) rows.push_back((l * nj + j) * ni + i);
  check("levels of rows", rows, nlev * nj * ni, ranks == 1, rank);
  // Round-robin points in reverse, with a halo value (-1) between each:
  // no runs at all.
  std::vector<std::int64_t> scattered;
  for (std::int64_t i = g - 1 - rank; i >= 0; i -= ranks) {
    scattered.push_back(i);
    scattered.push_back(-1);
  }
  check("scattered with halos", scattered, g, false, rank);
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) std::printf("by_global_index_test on %d ranks: %d failure(s)\n", ranks, total);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
