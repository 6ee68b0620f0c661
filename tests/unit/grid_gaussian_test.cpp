// Tests of the reduced Gaussian geometry helper against known facts:
// points per row and totals of octahedral grids (O1280 = 6,599,680 points,
// O96 = 40,320), Gaussian latitudes (roots of the Legendre polynomial,
// symmetric, known values), cell corners, and the EQ_REGIONS partition.
// tests/python/test_gaussian.py checks the latitudes against numpy.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "grid/gaussian.h"

namespace foehn::grid {
namespace {

TEST(Gaussian, OctahedralPointsPerRow) {
  const auto pl = octahedral_points(4);
  EXPECT_EQ(pl, (std::vector<int>{20, 24, 28, 32, 32, 28, 24, 20}));
  EXPECT_EQ(ReducedGaussianGrid::octahedral(96).size(), 40320);
  EXPECT_EQ(ReducedGaussianGrid::octahedral(1280).size(), 6599680);
  for (int n : {1, 8, 96, 640, 1280}) {
    const auto p = octahedral_points(n);
    EXPECT_EQ(std::accumulate(p.begin(), p.end(), std::int64_t{0}), 4LL * n * n + 36LL * n) << "O" << n;
    EXPECT_EQ(p[static_cast<std::size_t>(n - 1)], 20 + 4 * (n - 1));  // the row next to the equator
  }
}

TEST(Gaussian, LatitudesAreLegendreRoots) {
  // N = 1: P_2(x) = (3x^2 - 1) / 2, x = +-1/sqrt(3).
  const auto one = gaussian_latitudes(1);
  ASSERT_EQ(one.size(), 2u);
  EXPECT_NEAR(one[0], std::asin(1.0 / std::sqrt(3.0)) * 180.0 / M_PI, 1e-13);
  EXPECT_EQ(one[1], -one[0]);
  // N = 2: P_4 roots x^2 = (3 +- 2 sqrt(6/5)) / 7.
  const auto two = gaussian_latitudes(2);
  const double x0 = std::sqrt((3.0 + 2.0 * std::sqrt(1.2)) / 7.0), x1 = std::sqrt((3.0 - 2.0 * std::sqrt(1.2)) / 7.0);
  EXPECT_NEAR(std::sin(two[0] * M_PI / 180.0), x0, 1e-15);
  EXPECT_NEAR(std::sin(two[1] * M_PI / 180.0), x1, 1e-15);
  // Large N: strictly decreasing, symmetric, inside (-90, 90).
  const auto lat = gaussian_latitudes(1280);
  ASSERT_EQ(lat.size(), 2560u);
  for (std::size_t k = 0; k + 1 < lat.size(); ++k) ASSERT_GT(lat[k], lat[k + 1]) << k;
  for (std::size_t k = 0; k < lat.size(); ++k) ASSERT_EQ(lat[k], -lat[lat.size() - 1 - k]);
  EXPECT_LT(lat.front(), 90.0);
  EXPECT_GT(lat.front(), 89.9);
  EXPECT_THROW(gaussian_latitudes(0), std::invalid_argument);
}

TEST(Gaussian, CentresAndCorners) {
  const auto g = ReducedGaussianGrid::octahedral(8);
  EXPECT_EQ(g.rows(), 16);
  EXPECT_EQ(g.row_start(1), 20);
  EXPECT_EQ(g.row_of(19), 0);
  EXPECT_EQ(g.row_of(20), 1);
  EXPECT_EQ(g.lon(20), 0.0);
  EXPECT_EQ(g.lon(21), 15.0);  // 24 points in row 1
  EXPECT_EQ(g.lat(21), g.latitudes()[1]);
  double lon4[4], lat4[4];
  g.corners(21, lon4, lat4);
  EXPECT_EQ(lon4[0], 7.5);
  EXPECT_EQ(lon4[1], 22.5);
  EXPECT_EQ(lat4[0], lat4[1]);  // south edge
  EXPECT_EQ(lat4[2], 0.5 * (g.latitudes()[0] + g.latitudes()[1]));
  g.corners(0, lon4, lat4);
  EXPECT_EQ(lat4[3], 90.0);
  g.corners(g.size() - 1, lon4, lat4);
  EXPECT_EQ(lat4[0], -90.0);
  EXPECT_THROW(g.row_of(g.size()), std::out_of_range);
  EXPECT_THROW(ReducedGaussianGrid(3, {20, 24}), std::invalid_argument);
}

TEST(Gaussian, ClassicReducedRowsAreFftFriendly) {
  const auto pl = classic_reduced_points(32);
  ASSERT_EQ(pl.size(), 64u);
  for (int p : pl) {
    int x = p;
    for (int f : {2, 3, 5})
      while (x % f == 0) x /= f;
    EXPECT_EQ(x, 1) << p;
    EXPECT_GE(p, 18);
  }
  EXPECT_EQ(pl[31], 128);  // near the equator: 4N
}

TEST(EqRegions, BandsOfKnownPartitions) {
  EXPECT_EQ(eq_regions(1), (std::vector<int>{1}));
  EXPECT_EQ(eq_regions(2), (std::vector<int>{1, 1}));
  EXPECT_EQ(eq_regions(4), (std::vector<int>{1, 2, 1}));
  EXPECT_EQ(eq_regions(6), (std::vector<int>{1, 4, 1}));
  for (int p = 1; p <= 2000; p += (p < 100 ? 1 : 37)) {
    const auto b = eq_regions(p);
    EXPECT_EQ(std::accumulate(b.begin(), b.end(), 0), p) << p;
    EXPECT_EQ(b.front(), 1);
    EXPECT_EQ(b.back(), 1);
    // Nearly symmetric about the equator (odd counts cannot be exactly).
    for (std::size_t k = 0; k < b.size(); ++k)
      EXPECT_LE(std::abs(b[k] - b[b.size() - 1 - k]), 1) << "p " << p << " band " << k;
  }
}

TEST(EqRegions, PartitionHasNearlyEqualRegions) {
  // Bands take whole rows, so a grid needs several rows per band for the
  // regions to come out even: O8 (16 rows) into up to 8, O96 into up to 64.
  for (int n : {8, 96}) {
    const auto g = ReducedGaussianGrid::octahedral(n);
    for (int p : {1, 2, 3, 5, 8, 16, 33, 64}) {
      if (n == 8 && p > 8) continue;
      const auto region = eq_partition(g, p);
      std::vector<std::int64_t> count(static_cast<std::size_t>(p), 0);
      for (int r : region) {
        ASSERT_GE(r, 0);
        ASSERT_LT(r, p);
        ++count[static_cast<std::size_t>(r)];
      }
      const auto [lo, hi] = std::minmax_element(count.begin(), count.end());
      const double ideal = static_cast<double>(g.size()) / p;
      SCOPED_TRACE(::testing::Message() << "O" << n << " into " << p << ": " << *lo << ".." << *hi);
      EXPECT_GT(*lo, 0);
      // Whole rows per band: a region is off by at most about one row's
      // share of its band.
      EXPECT_LE(static_cast<double>(*hi - *lo), std::max(2.0, 0.25 * ideal));
      // Within a row, each region's points are contiguous: west to east.
      for (int row = 0; row < g.rows(); ++row)
        for (std::int64_t i = g.row_start(row) + 1; i < g.row_start(row + 1); ++i)
          ASSERT_LE(region[static_cast<std::size_t>(i - 1)], region[static_cast<std::size_t>(i)]);
    }
  }
  EXPECT_EQ(eq_partition(ReducedGaussianGrid::octahedral(1280), 1).size(), 6599680u);
}

}  // namespace
}  // namespace foehn::grid
