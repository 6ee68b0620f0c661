// coarsen_healpix across model ranks under mpiexec (1 to 3 ranks), through
// interp::build_reduction: a level-3 nested domain whose value at cell g is
// g (one child missing), coarsened to levels 2..0 for three decompositions.
// Each coarse cell c must hold the mean of its valid children (analytic:
// the children 4^s c .. 4^s (c+1) - 1), once, on one rank; with whole nested
// blocks per rank no values are exchanged (no gather stage), and with split
// blocks they are.
#include <mpi.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "transform/chain.h"
#include "transform/interp/reduce_across_ranks.h"

namespace {

constexpr int kLevel = 3;
constexpr std::int64_t kCells = 12 * 64, kMissing = 101;  // cell 101 is NaN
int failures = 0;

void expect(bool ok, const std::string& what, int rank) {
  if (ok) return;
  std::fprintf(stderr, "coarsen_healpix_ranks_test rank %d: %s\n", rank, what.c_str());
  ++failures;
}

// The mean of the valid children of coarse cell c, 4^shift of them.
double expected_mean(std::int64_t c, int shift) {
  const std::int64_t n = std::int64_t{1} << (2 * shift), first = c * n;
  double sum = 0;
  std::int64_t valid = 0;
  for (std::int64_t g = first; g < first + n; ++g)
    if (g != kMissing) sum += static_cast<double>(g), ++valid;
  return sum / static_cast<double>(valid);
}

void check(const char* name, const std::vector<std::int64_t>& mine, bool expect_exchange, int rank, int size) {
  using foehn::transform::Component;
  Component hp = foehn::transform::whole_component(Component::Kind::domain, kCells, 1);
  hp.type = "healpix", hp.healpix_level = kLevel, hp.healpix_nested = true, hp.decomposed = true;
  hp.owned = mine;
  hp.data_owner.clear();
  for (std::size_t p = 0; p < mine.size(); ++p) hp.data_owner.push_back(static_cast<std::int64_t>(p));
  hp.lon.assign(mine.size(), 0.0), hp.lat.assign(mine.size(), 0.0);
  std::vector<double> in(mine.size());
  for (std::size_t p = 0; p < mine.size(); ++p)
    in[p] = mine[p] == kMissing ? std::nan("") : static_cast<double>(mine[p]);
  for (int level = kLevel - 1; level >= 0; --level) {
    foehn::config::TransformationDef t;
    t.kind = "coarsen_healpix", t.target = "domain", t.attrs["refinement_level"] = std::to_string(level);
    const std::string at = std::string(name) + " level " + std::to_string(level) + ": ";
    auto step = foehn::transform::interp::build_reduction(t, hp, {}, MPI_COMM_WORLD, "tas");
    step.map.prepare();
    expect((step.map.gather_first != nullptr) == (expect_exchange && size > 1), at + "gather stage", rank);
    std::vector<double> out(step.target.data_size(), -1.0);
    step.map.apply(in.data(), out.data());  // collective when gathering
    const int shift = kLevel - level;
    std::int64_t held = static_cast<std::int64_t>(step.target.owned.size());
    for (std::size_t k = 0; k < step.target.owned.size(); ++k) {
      const std::int64_t c = step.target.owned[k];
      const double v = out[static_cast<std::size_t>(step.target.data_owner[k])];
      expect(v == expected_mean(c, shift), at + "cell " + std::to_string(c) + " holds " + std::to_string(v), rank);
    }
    MPI_Allreduce(MPI_IN_PLACE, &held, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    expect(held == (std::int64_t{12} << (2 * level)), at + std::to_string(held) + " cells held in all", rank);
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<std::int64_t> blocks, strided, uneven;
  for (std::int64_t g = 0; g < kCells; ++g) {
    if (g / 64 % size == rank) blocks.push_back(g);  // whole level-0 blocks
    if (g % size == rank) strided.push_back(g);
  }
  // uneven contiguous ranges ending off block boundaries, listed in reverse
  const std::int64_t begin = rank == 0 ? 0 : rank * kCells / size + 3,
                     end = rank + 1 == size ? kCells : (rank + 1) * kCells / size + 3;
  for (std::int64_t g = end - 1; g >= begin; --g) uneven.push_back(g);
  check("blocks", blocks, false, rank, size);
  check("strided", strided, true, rank, size);
  check("uneven", uneven, true, rank, size);
  int total = failures;
  MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) std::printf("coarsen_healpix_ranks_test: %s\n", total ? "FAILED" : "OK");
  MPI_Finalize();
  return total ? 1 : 0;
}
