// src/grid/healpix.h against values worked out by hand: the base cells'
// centres (latitudes asin(2/3), 0, -asin(2/3)), the nested bit layout, the
// ring numbering's first and last cells, corners shared by neighbours, and
// refusals. (Every cell of levels 0..4 is checked against healpy in
// tests/python/test_healpix.py.)
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <stdexcept>
#include <vector>

#include "grid/healpix.h"

using namespace foehn::grid;

namespace {

constexpr double kDeg = 180.0 / std::numbers::pi;

TEST(Healpix, SizesOfALevel) {
  EXPECT_EQ(healpix_nside(0), 1);
  EXPECT_EQ(healpix_nside(6), 64);
  EXPECT_EQ(healpix_cells(0), 12);
  EXPECT_EQ(healpix_cells(6), 49152);
  EXPECT_EQ(healpix_cells(29), 12 * (std::int64_t{1} << 58));
}

TEST(Healpix, BaseCellsCentresAndCorners) {
  const double north = std::asin(2.0 / 3.0) * kDeg;
  for (int face = 0; face < 12; ++face) {
    double lon, lat, clon[4], clat[4];
    healpix_cell(0, true, face, lon, lat, clon, clat);
    const int row = face / 4;
    EXPECT_NEAR(lat, row == 0 ? north : row == 1 ? 0.0 : -north, 1e-12) << face;
    EXPECT_NEAR(lon, row == 1 ? 90.0 * (face % 4) : 45.0 + 90.0 * (face % 4), 1e-12) << face;
    // north corner: the pole for the northern faces; south corner: the pole for the southern ones
    const double north_corner = row == 0 ? 90.0 : row == 1 ? north : 0.0;
    const double south_corner = row == 2 ? -90.0 : row == 1 ? -north : 0.0;
    EXPECT_NEAR(clat[0], north_corner, 1e-12) << face;
    EXPECT_NEAR(clat[2], south_corner, 1e-12) << face;
    // ring and nested agree at level 0 (one cell per face)
    double rlon, rlat, rclon[4], rclat[4];
    healpix_cell(0, false, face, rlon, rlat, rclon, rclat);
    EXPECT_DOUBLE_EQ(rlat, lat);
    EXPECT_DOUBLE_EQ(rlon, lon);
  }
}

TEST(Healpix, NestedIndicesInterleaveTheFaceBits) {
  // level 2: 16 cells per face; index = face * 16 + bits (iy1 ix1 iy0 ix0)
  const HealpixXyf c = healpix_nest_to_xyf(2, 5 * 16 + 0b1011);
  EXPECT_EQ(c.face, 5);
  EXPECT_EQ(c.ix, 1);  // the even bits 0 and 2: 1, 0
  EXPECT_EQ(c.iy, 3);  // the odd bits 1 and 3: 1, 1
  // the children 4i..4i+3 of cell i lie between its southern and northern corners
  double lon, lat, clon[4], clat[4], plon, plat, pclon[4], pclat[4];
  healpix_cell(1, true, 7, plon, plat, pclon, pclat);
  for (int k = 0; k < 4; ++k) {
    healpix_cell(2, true, 4 * 7 + k, lon, lat, clon, clat);
    EXPECT_GT(lat, pclat[2]);
    EXPECT_LT(lat, pclat[0]);
  }
}

TEST(Healpix, RingNumberingStartsAtThePoleGoingEast) {
  // level 1 (nside 2): the first ring holds 4 cells at z = 1 - 1/12, longitudes 45, 135, 225, 315
  for (int k = 0; k < 4; ++k) {
    double lon, lat, clon[4], clat[4];
    healpix_cell(1, false, k, lon, lat, clon, clat);
    EXPECT_NEAR(lat, std::asin(1.0 - 1.0 / 12.0) * kDeg, 1e-12);
    EXPECT_NEAR(lon, 45.0 + 90.0 * k, 1e-12);
  }
  double lon, lat, clon[4], clat[4];
  healpix_cell(1, false, 47, lon, lat, clon, clat);  // the last cell: the southern ring's last
  EXPECT_NEAR(lat, -std::asin(1.0 - 1.0 / 12.0) * kDeg, 1e-12);
  EXPECT_NEAR(lon, 315.0, 1e-12);
}

TEST(Healpix, RingAndNestedIndicesMapOneToOne) {
  // every cell of levels 0..6 goes to the other scheme and back, to the same
  // centre; the maps are bijections (each index reached once)
  for (int level = 0; level <= 6; ++level) {
    const std::int64_t n = healpix_cells(level);
    std::vector<int> seen(static_cast<std::size_t>(n), 0);
    for (std::int64_t r = 0; r < n; ++r) {
      const std::int64_t nest = healpix_ring_to_nest(level, r);
      ASSERT_GE(nest, 0);
      ASSERT_LT(nest, n);
      ++seen[static_cast<std::size_t>(nest)];
      ASSERT_EQ(healpix_nest_to_ring(level, nest), r) << "level " << level;
      double lon_r, lat_r, lon_n, lat_n, clon[4], clat[4];
      healpix_cell(level, false, r, lon_r, lat_r, clon, clat);
      healpix_cell(level, true, nest, lon_n, lat_n, clon, clat);
      ASSERT_DOUBLE_EQ(lat_r, lat_n);
      ASSERT_DOUBLE_EQ(lon_r, lon_n);
    }
    for (int c : seen) ASSERT_EQ(c, 1);
  }
  // level 1: ring cell 0 (the first northern cell, face 0) is nested 3 (face 0's northern child)
  EXPECT_EQ(healpix_ring_to_nest(1, 0), 3);
  EXPECT_EQ(healpix_nest_to_ring(1, 3), 0);
}

TEST(Healpix, RefusesLevelsAndCellsOutsideTheGrid) {
  double lon, lat, clon[4], clat[4];
  EXPECT_THROW(healpix_cell(30, true, 0, lon, lat, clon, clat), std::invalid_argument);
  EXPECT_THROW(healpix_cell(-1, true, 0, lon, lat, clon, clat), std::invalid_argument);
  EXPECT_THROW(healpix_cell(1, false, 48, lon, lat, clon, clat), std::invalid_argument);
  EXPECT_THROW(healpix_cell(1, true, -1, lon, lat, clon, clat), std::invalid_argument);
}

}  // namespace
