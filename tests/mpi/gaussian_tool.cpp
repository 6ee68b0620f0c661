// Prints what the reduced Gaussian geometry helper computes, for
// tests/python/test_gaussian.py to check against numpy:
//   gaussian_tool latitudes N      the 2N Gaussian latitudes, one per line
//   gaussian_tool octahedral N     the points per row, then "total <n>"
//   gaussian_tool partition N P    points per EQ_REGIONS region of O<N>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "grid/gaussian.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s latitudes|octahedral|partition N [P]\n", argv[0]);
    return 2;
  }
  const std::string what = argv[1];
  const int n = std::atoi(argv[2]);
  try {
    if (what == "latitudes") {
      for (const double lat : foehn::grid::gaussian_latitudes(n)) std::printf("%.17g\n", lat);
    } else if (what == "octahedral") {
      const auto g = foehn::grid::ReducedGaussianGrid::octahedral(n);
      for (const int p : g.points_per_row()) std::printf("%d\n", p);
      std::printf("total %lld\n", static_cast<long long>(g.size()));
    } else if (what == "partition" && argc > 3) {
      const auto g = foehn::grid::ReducedGaussianGrid::octahedral(n);
      const int p = std::atoi(argv[3]);
      std::vector<long long> count(static_cast<std::size_t>(p), 0);
      for (const int r : foehn::grid::eq_partition(g, p)) ++count[static_cast<std::size_t>(r)];
      for (const long long c : count) std::printf("%lld\n", c);
    } else {
      std::fprintf(stderr, "unknown request '%s'\n", what.c_str());
      return 2;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
