// Tests of DomainLayout: the global index of every local point and every
// data value, for blocks, index lists, halos, compressed data and masks,
// and the errors a model gets for a wrong description.
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "grid/domain_layout.h"

namespace foehn::grid {
namespace {

using Index = std::vector<std::int64_t>;

DomainLayout block(std::int64_t ni_glo, std::int64_t nj_glo, std::int64_t ibegin, std::int64_t ni, std::int64_t jbegin,
                   std::int64_t nj) {
  DomainLayout d;
  d.ni_glo = ni_glo;
  d.nj_glo = nj_glo;
  d.ibegin = ibegin;
  d.ni = ni;
  d.jbegin = jbegin;
  d.nj = nj;
  return d;
}

std::string error_of(const DomainLayout& d) {
  try {
    data_points(d, owned_points(d));
  } catch (const std::invalid_argument& e) { return e.what(); }
  return "";
}

TEST(DomainLayout, BlockPointsAreRowsOfTheGlobalIndex) {
  const DomainLayout d = block(10, 4, 2, 3, 1, 2);
  EXPECT_EQ(owned_points(d), (Index{12, 13, 14, 22, 23, 24}));
  EXPECT_EQ(data_size(d), 6);
  EXPECT_EQ(data_points(d, owned_points(d)), owned_points(d));
  const Extent e = extent_of(owned_points(d), 10);
  EXPECT_EQ(e.ibegin, 2);
  EXPECT_EQ(e.ni, 3);
  EXPECT_EQ(e.jbegin, 1);
  EXPECT_EQ(e.nj, 2);
}

TEST(DomainLayout, IndexListKeepsItsOrder) {
  DomainLayout d;
  d.ni_glo = 5;
  d.nj_glo = 3;
  d.by_index = true;
  d.i_index = {4, 0, 2};
  d.j_index = {2, 0, 1};
  EXPECT_EQ(owned_points(d), (Index{14, 0, 7}));
  const Extent e = extent_of(owned_points(d), 5);
  EXPECT_EQ(e.size(), 15);
  // 1-D domain: no j_index.
  DomainLayout u;
  u.ni_glo = 9;
  u.by_index = true;
  u.i_index = {8, 3, 5};
  EXPECT_EQ(owned_points(u), (Index{8, 3, 5}));
}

TEST(DomainLayout, HaloOfTwoDimensionalData) {
  // A 3 x 2 block with a halo of one point on each side: data 5 x 4.
  DomainLayout d = block(10, 5, 4, 3, 2, 2);
  d.data_dim = 2;
  d.data_ibegin = -1;
  d.data_ni = 5;
  d.data_jbegin = -1;
  d.data_nj = 4;
  EXPECT_EQ(data_size(d), 20);
  const Index g = data_points(d, owned_points(d));
  const Index want{-1, -1, -1, -1, -1,  //
                   -1, 24, 25, 26, -1,  //
                   -1, 34, 35, 36, -1,  //
                   -1, -1, -1, -1, -1};
  EXPECT_EQ(g, want);
}

TEST(DomainLayout, OneDimensionalHaloAndMask) {
  DomainLayout d;
  d.ni_glo = 20;
  d.by_index = true;
  d.i_index = {10, 11, 12, 13};
  d.data_dim = 1;
  d.data_ibegin = -2;
  d.data_ni = 7;  // two halo values before, one after
  d.mask = {1, 0, 1, 1};
  EXPECT_EQ(data_points(d, owned_points(d)), (Index{-1, -1, 10, -1, 12, 13, -1}));
}

TEST(DomainLayout, CompressedData) {
  // Ocean points only: 1-D flat indices into a 3 x 2 block.
  DomainLayout d = block(6, 4, 3, 3, 2, 2);  // points 15 16 17 / 21 22 23
  d.data_dim = 1;
  d.compressed = true;
  d.data_i_index = {5, 0, 4};
  EXPECT_EQ(data_size(d), 3);
  EXPECT_EQ(data_points(d, owned_points(d)), (Index{23, 15, 22}));
  // The same points by (i, j) pairs.
  d.data_dim = 2;
  d.data_i_index = {2, 0, 1};
  d.data_j_index = {1, 0, 1};
  EXPECT_EQ(data_points(d, owned_points(d)), (Index{23, 15, 22}));
}

TEST(DomainLayout, ErrorsSayWhatIsWrong) {
  EXPECT_NE(error_of(block(10, 4, 8, 3, 0, 1)).find("outside the global 10 x 4"), std::string::npos);
  DomainLayout dup;
  dup.ni_glo = 5;
  dup.by_index = true;
  dup.i_index = {1, 2, 1};
  EXPECT_NE(error_of(dup).find("twice"), std::string::npos);
  DomainLayout out = dup;
  out.i_index = {1, 7};
  EXPECT_NE(error_of(out).find("(i 7, j 0) outside"), std::string::npos);
  DomainLayout twice = block(6, 4, 0, 3, 0, 2);
  twice.data_dim = 1;
  twice.compressed = true;
  twice.data_i_index = {1, 1};
  EXPECT_NE(error_of(twice).find("already holds"), std::string::npos);
  DomainLayout mask = block(6, 4, 0, 3, 0, 2);
  mask.mask = {1, 1};
  EXPECT_NE(error_of(mask).find("expected one per local point (6)"), std::string::npos);
  DomainLayout dim2 = dup;
  dim2.i_index = {1, 2};
  dim2.data_dim = 2;
  EXPECT_NE(error_of(dim2).find("data_dim 2 needs a block"), std::string::npos);
}

}  // namespace
}  // namespace foehn::grid
