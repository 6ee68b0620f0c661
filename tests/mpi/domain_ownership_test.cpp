// client::check_ownership (the distributed one-owner-per-point check of
// close of definition) under mpiexec on 1 to 4 ranks: on random
// decompositions with points held twice, by nobody, in shuffled order, its
// answer on every rank must be the message output::assemble_domain (the
// gathered check it replaces) gives for the same parts, and a few messages
// are checked word for word.
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "client/domain_ownership.h"
#include "output/output_plan.h"

namespace {

int failures = 0, rank = 0, ranks = 1;

void expect(bool ok, const std::string& what) {
  if (ok) return;
  std::fprintf(stderr, "domain_ownership_test rank %d: %s\n", rank, what.c_str());
  ++failures;
}

// The gathered reference: every rank's list on every rank, then assemble_domain.
std::string gathered(const foehn::client::OwnershipRules& rules, std::int64_t nj_glo,
                     const std::vector<std::int64_t>& owned) {
  const int n = static_cast<int>(owned.size());
  std::vector<int> counts(ranks), first(ranks, 0);
  MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  for (int r = 1; r < ranks; ++r) first[r] = first[r - 1] + counts[r - 1];
  std::vector<std::int64_t> all(static_cast<std::size_t>(first.back() + counts.back()));
  MPI_Allgatherv(owned.data(), n, MPI_INT64_T, all.data(), counts.data(), first.data(), MPI_INT64_T, MPI_COMM_WORLD);
  foehn::output::DomainInfo d;
  d.id = rules.domain, d.type = nj_glo > 1 ? "curvilinear" : "unstructured";
  d.ni_glo = rules.ni_glo, d.nj_glo = nj_glo;
  std::vector<foehn::output::ClientPart> parts(ranks);
  for (int r = 0; r < ranks; ++r) {
    parts[r].by_index = true;
    parts[r].owned = all.data() + first[r], parts[r].n_owned = counts[r];
  }
  std::string e = foehn::output::assemble_domain(d, parts, rules.shared);
  if (rules.holes_allowed && e.find("no model rank holds") != std::string::npos) e.clear();
  return e;
}

void check(const std::string& name, const foehn::client::OwnershipRules& rules, std::int64_t nj_glo,
           const std::vector<std::int64_t>& owned, const std::string* exact = nullptr) {
  const std::string got = foehn::client::check_ownership(MPI_COMM_WORLD, rules, owned);
  const std::string want = gathered(rules, nj_glo, owned);
  expect(got == want, name + ": distributed says '" + got + "', gathered says '" + want + "'");
  if (exact) expect(got == *exact, name + ": '" + got + "', expected '" + *exact + "'");
}

// Each point to one rank (or, with the given odds, to none or to two), in a shuffled order per rank.
std::vector<std::int64_t> random_parts(std::int64_t size, double none, double twice, unsigned seed) {
  std::mt19937 gen(seed);  // the same on every rank: every rank draws every point
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::uniform_int_distribution<int> pick(0, ranks - 1);
  std::vector<std::int64_t> mine;
  for (std::int64_t g = 0; g < size; ++g) {
    const double x = u(gen);
    const int a = pick(gen), b = pick(gen);
    if (x < none) continue;
    if (a == rank || (x < none + twice && b == rank)) mine.push_back(g);
  }
  std::shuffle(mine.begin(), mine.end(), std::mt19937(seed * 31 + static_cast<unsigned>(rank)));
  return mine;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  using foehn::client::OwnershipRules;

  // A 7 x 5 curvilinear domain in row blocks (rank r: rows r, r + P, ...): one owner each.
  const OwnershipRules curv{"curv", 7, 35, false, false};
  std::vector<std::int64_t> rows;
  for (std::int64_t j = rank; j < 5; j += ranks)
    for (std::int64_t i = 0; i < 7; ++i) rows.push_back(j * 7 + i);
  const std::string ok;
  check("rows", curv, 5, rows, &ok);
  // The last rank also takes point (i 3, j 0), first listed: held by ranks 0 and P-1.
  if (ranks > 1) {
    std::vector<std::int64_t> more = rows;
    if (rank == ranks - 1) more.insert(more.begin(), 3);
    const std::string clash = "domain 'curv': the point (i 3, j 0) is held by model ranks 0 and " +
                              std::to_string(ranks - 1) +
                              "; every point needs one owner (halo points belong in the data layout)";
    check("clash", curv, 5, more, &clash);
  }
  // Rank 0 leaves out (i 6, j 4) and (i 2, j 1): the first by global index is named.
  {
    std::vector<std::int64_t> fewer = rows;
    std::erase_if(fewer, [](std::int64_t g) { return g == 34 || g == 9; });
    const std::string hole = "domain 'curv': no model rank holds the point (i 2, j 1); every point needs one owner "
                             "(a mask marks points without data)";
    check("hole", curv, 5, fewer, &hole);
    check("hole allowed", {"curv", 7, 35, false, true}, 5, fewer, &ok);
  }
  // Random 1-D decompositions, sizes that split unevenly (and fewer points than ranks).
  unsigned seed = 1;
  for (const std::int64_t size : {1, 2, 3, 97, 1000, 4099})
    for (const double none : {0.0, 0.002})
      for (const double twice : {0.0, 0.003, 0.3})
        for (const bool shared : {false, true})
          for (const bool holes : {false, true}) {
            const OwnershipRules rules{"mesh", size, size, shared, holes};
            check("random size " + std::to_string(size) + " seed " + std::to_string(seed), rules, 1,
                  random_parts(size, none, twice, seed));
            ++seed;
          }
  int bad = 0;
  MPI_Allreduce(&failures, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) std::printf(bad ? "domain_ownership_test: %d FAILED\n" : "domain_ownership_test: OK\n", bad);
  MPI_Finalize();
  return bad ? 1 : 0;
}
