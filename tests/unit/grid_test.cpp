// Tests of the grid module: balanced server slabs, box intersection and the
// run lists that copy one box's layout into another's (pack and scatter).
#include <gtest/gtest.h>

#include <cstdint>
#include <iostream>
#include <numeric>
#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

#include "grid/box.h"

namespace foehn::grid {
namespace {

using Shape = std::vector<std::int64_t>;

// ---------------------------------------------------------------------------
// Helpers

// Linear C-order index of `idx` in a space of shape `shape` whose origin is
// `origin` (the global space when origin is all zeros).
std::int64_t linear(const Shape& origin, const Shape& shape, const Shape& idx) {
  std::int64_t off = 0;
  for (size_t d = 0; d < idx.size(); ++d) off = off * shape[d] + (idx[d] - origin[d]);
  return off;
}

// Calls f(global index vector) for every element of `box` in C order.
template <class F>
void for_each_index(const Box& box, F f) {
  if (box.empty()) return;
  Shape idx = box.start;
  const int rank = static_cast<int>(box.start.size());
  for (;;) {
    f(idx);
    int d = rank - 1;
    for (; d >= 0; --d) {
      if (++idx[d] < box.start[d] + box.count[d]) break;
      idx[d] = box.start[d];
    }
    if (d < 0) return;
  }
}

bool inside(const Box& box, const Shape& idx) {
  for (size_t d = 0; d < idx.size(); ++d)
    if (idx[d] < box.start[d] || idx[d] >= box.start[d] + box.count[d]) return false;
  return true;
}

// A buffer laid out as `box` whose every element holds its global linear
// index in the space `global`.
std::vector<std::int64_t> filled_with_global_index(const Box& box, const Shape& global) {
  std::vector<std::int64_t> buf;
  buf.reserve(static_cast<size_t>(box.size()));
  const Shape zero(global.size(), 0);
  for_each_index(box, [&](const Shape& idx) { buf.push_back(linear(zero, global, idx)); });
  return buf;
}

// Applies `runs` after checking each one stays inside both buffers.
::testing::AssertionResult apply_runs(const std::vector<Run>& runs, const std::vector<std::int64_t>& src,
                                      std::vector<std::int64_t>& dst) {
  for (const Run& r : runs) {
    if (r.length <= 0 || r.from < 0 || r.to < 0 || r.from + r.length > static_cast<std::int64_t>(src.size()) ||
        r.to + r.length > static_cast<std::int64_t>(dst.size()))
      return ::testing::AssertionFailure() << "run {from " << r.from << ", to " << r.to << ", length " << r.length
                                           << "} outside buffers of " << src.size() << " and " << dst.size();
    std::copy(src.begin() + r.from, src.begin() + r.from + r.length, dst.begin() + r.to);
  }
  return ::testing::AssertionSuccess();
}

// No two consecutive runs could have been merged into one.
::testing::AssertionResult runs_are_merged(const std::vector<Run>& runs) {
  for (size_t k = 1; k < runs.size(); ++k) {
    const Run& a = runs[k - 1];
    const Run& b = runs[k];
    if (a.from + a.length == b.from && a.to + a.length == b.to)
      return ::testing::AssertionFailure() << "runs " << k - 1 << " and " << k << " are contiguous on both sides";
  }
  return ::testing::AssertionSuccess();
}

std::int64_t total_length(const std::vector<Run>& runs) {
  std::int64_t n = 0;
  for (const Run& r : runs) n += r.length;
  return n;
}

// A random box inside [0, global): whole extents are common (to exercise
// merging), and about one box in twenty is empty.
Box random_box(std::mt19937& rng, const Shape& global) {
  Box b;
  for (auto g : global) {
    if (std::uniform_int_distribution<int>(0, 3)(rng) == 0) {
      b.start.push_back(0);
      b.count.push_back(g);
      continue;
    }
    const auto s = std::uniform_int_distribution<std::int64_t>(0, g - 1)(rng);
    b.start.push_back(s);
    b.count.push_back(std::uniform_int_distribution<std::int64_t>(1, g - s)(rng));
  }
  if (std::uniform_int_distribution<int>(0, 19)(rng) == 0) {
    b.count[std::uniform_int_distribution<size_t>(0, global.size() - 1)(rng)] = 0;
  }
  return b;
}

// Copies a from_box buffer into a to_box buffer with make_runs and checks
// the result element by element. Returns the runs for further checks.
std::vector<Run> check_copy(const Box& from_box, const Box& to_box, const Shape& global) {
  const auto src = filled_with_global_index(from_box, global);
  std::vector<std::int64_t> dst(static_cast<size_t>(to_box.size()), -1);
  const auto runs = make_runs(from_box, to_box);
  EXPECT_TRUE(apply_runs(runs, src, dst));
  const Box region = intersect(from_box, to_box);
  EXPECT_EQ(total_length(runs), region.size());
  EXPECT_TRUE(runs_are_merged(runs));

  const Shape zero(global.size(), 0);
  std::int64_t pos = 0, wrong = 0;
  for_each_index(to_box, [&](const Shape& idx) {
    const auto want = inside(region, idx) ? linear(zero, global, idx) : -1;
    if (dst[static_cast<size_t>(pos)] != want && ++wrong <= 5)
      ADD_FAILURE() << "destination offset " << pos << ": want " << want << ", got " << dst[static_cast<size_t>(pos)];
    ++pos;
  });
  EXPECT_EQ(wrong, 0);

  // The runs visit the intersection in C order: their source values, read in
  // run order, are the intersection's global indices in increasing order.
  std::vector<std::int64_t> stream;
  for (const Run& r : runs)
    for (std::int64_t k = 0; k < r.length && r.from + k < static_cast<std::int64_t>(src.size()); ++k)
      stream.push_back(src[static_cast<size_t>(r.from + k)]);
  EXPECT_EQ(stream, filled_with_global_index(region, global));
  return runs;
}

// ---------------------------------------------------------------------------
// server_slab

TEST(ServerSlab, BalancedBandsTileTheDimension) {
  for (std::int64_t n = 0; n <= 40; ++n) {
    for (int nservers = 1; nservers <= 13; ++nservers) {
      SCOPED_TRACE(::testing::Message() << "n=" << n << " nservers=" << nservers);
      std::int64_t next = 0, lo = n + 1, hi = -1;
      for (int s = 0; s < nservers; ++s) {
        const Box b = server_slab({n}, 0, s, nservers);
        ASSERT_EQ(b.start.size(), 1u);
        ASSERT_EQ(b.count.size(), 1u);
        ASSERT_GE(b.count[0], 0);
        if (b.count[0] > 0) {
          EXPECT_EQ(b.start[0], next) << "server " << s << " does not continue where server " << s - 1 << " ended";
          next = b.start[0] + b.count[0];
        }
        lo = std::min(lo, b.count[0]);
        hi = std::max(hi, b.count[0]);
      }
      EXPECT_EQ(next, n) << "bands do not cover the dimension";
      EXPECT_LE(hi - lo, 1) << "band sizes differ by more than one";
      // The band sizes sum to n, so each is n / nservers or one more.
      EXPECT_EQ(lo, n / nservers);
      EXPECT_EQ(hi, n % nservers == 0 ? n / nservers : n / nservers + 1);
    }
  }
}

TEST(ServerSlab, EveryIndexOwnedByExactlyOneServer) {
  for (std::int64_t n : {1, 2, 5, 7, 16, 31, 100}) {
    for (int nservers : {1, 2, 3, 4, 6, 8, 11, 64, 101}) {
      SCOPED_TRACE(::testing::Message() << "n=" << n << " nservers=" << nservers);
      std::vector<int> owners(static_cast<size_t>(n), 0);
      std::int64_t sum = 0;
      for (int s = 0; s < nservers; ++s) {
        const Box b = server_slab({n}, 0, s, nservers);
        sum += b.count[0];
        for (std::int64_t i = b.start[0]; i < b.start[0] + b.count[0]; ++i) {
          ASSERT_GE(i, 0);
          ASSERT_LT(i, n);
          ++owners[static_cast<size_t>(i)];
        }
      }
      EXPECT_EQ(sum, n);
      for (std::int64_t i = 0; i < n; ++i) EXPECT_EQ(owners[static_cast<size_t>(i)], 1) << "index " << i;
    }
  }
}

TEST(ServerSlab, ServersBeyondTheExtentGetEmptyBands) {
  // n < nservers: the first n servers own one row each, the rest none.
  for (std::int64_t n : {0, 1, 3, 5}) {
    const int nservers = 8;
    for (int s = 0; s < nservers; ++s) {
      const Box b = server_slab({4, n, 6}, 1, s, nservers);
      SCOPED_TRACE(::testing::Message() << "n=" << n << " server=" << s);
      EXPECT_EQ(b.count[1], s < n ? 1 : 0);
      if (s < n) { EXPECT_EQ(b.start[1], s); }
      EXPECT_EQ(b.empty(), s >= n);
      EXPECT_EQ(b.size(), s < n ? 4 * 6 : 0);
    }
  }
}

TEST(ServerSlab, OtherDimensionsHaveFullExtent) {
  const Shape shape{3, 10, 7, 2};
  for (int split = 0; split < 4; ++split) {
    for (int s = 0; s < 3; ++s) {
      const Box b = server_slab(shape, split, s, 3);
      SCOPED_TRACE(::testing::Message() << "split=" << split << " server=" << s);
      ASSERT_EQ(b.start.size(), shape.size());
      for (int d = 0; d < 4; ++d) {
        if (d == split) continue;
        EXPECT_EQ(b.start[d], 0);
        EXPECT_EQ(b.count[d], shape[d]);
      }
    }
  }
  // Split of 10 in 3: 4, 3, 3.
  EXPECT_EQ(server_slab(shape, 1, 0, 3), (Box{{0, 0, 0, 0}, {3, 4, 7, 2}}));
  EXPECT_EQ(server_slab(shape, 1, 1, 3), (Box{{0, 4, 0, 0}, {3, 3, 7, 2}}));
  EXPECT_EQ(server_slab(shape, 1, 2, 3), (Box{{0, 7, 0, 0}, {3, 3, 7, 2}}));
}

TEST(ServerSlab, RejectsBadArguments) {
  EXPECT_THROW(server_slab({4, 5}, 2, 0, 2), std::invalid_argument);
  EXPECT_THROW(server_slab({4, 5}, -1, 0, 2), std::invalid_argument);
  EXPECT_THROW(server_slab({4, 5}, 0, 0, 0), std::invalid_argument);
  EXPECT_THROW(server_slab({}, 0, 0, 1), std::invalid_argument);
}

// ---------------------------------------------------------------------------
// intersect

TEST(Intersect, Overlap) {
  const Box a{{2, 0, 5}, {4, 10, 3}};  // [2,6) x [0,10) x [5,8)
  const Box b{{4, 3, 1}, {10, 2, 6}};  // [4,14) x [3,5) x [1,7)
  const Box r = intersect(a, b);
  EXPECT_EQ(r, (Box{{4, 3, 5}, {2, 2, 2}}));
  EXPECT_EQ(r.size(), 8);
  EXPECT_EQ(intersect(b, a), r);
}

TEST(Intersect, ContainedBoxIsItself) {
  const Box outer{{0, 0}, {10, 10}};
  const Box inner{{3, 4}, {2, 5}};
  EXPECT_EQ(intersect(outer, inner), inner);
  EXPECT_EQ(intersect(inner, outer), inner);
  EXPECT_EQ(intersect(inner, inner), inner);
}

TEST(Intersect, Disjoint) {
  const Box a{{0, 0}, {3, 3}};
  const Box b{{5, 1}, {2, 2}};  // disjoint along dimension 0 only
  const Box r = intersect(a, b);
  ASSERT_EQ(r.count.size(), 2u);
  EXPECT_EQ(r.count[0], 0);
  EXPECT_EQ(r.count[1], 2);  // the other dimension still overlaps
  EXPECT_TRUE(r.empty());
  EXPECT_EQ(r.size(), 0);
  const Box far{{10, 10}, {1, 1}};
  const Box r2 = intersect(a, far);
  EXPECT_EQ(r2.count, (Shape{0, 0}));
  EXPECT_TRUE(intersect(far, a).empty());
}

TEST(Intersect, TouchingBoxesDoNotOverlap) {
  const Box a{{0, 0}, {5, 4}};  // rows [0,5)
  const Box b{{5, 0}, {3, 4}};  // rows [5,8): touches a at row 5
  EXPECT_TRUE(intersect(a, b).empty());
  EXPECT_EQ(intersect(a, b).count[0], 0);
  EXPECT_TRUE(intersect(b, a).empty());
  // Shifted by one they share exactly one row.
  const Box c{{4, 0}, {3, 4}};
  EXPECT_EQ(intersect(a, c), (Box{{4, 0}, {1, 4}}));
}

TEST(Intersect, EmptyBoxIntersectsToEmpty) {
  const Box a{{0, 0}, {5, 5}};
  const Box e{{2, 2}, {0, 3}};
  EXPECT_TRUE(intersect(a, e).empty());
  EXPECT_TRUE(intersect(e, a).empty());
}

TEST(Intersect, RankMismatchThrows) {
  EXPECT_THROW(intersect(Box{{0}, {3}}, Box{{0, 0}, {3, 3}}), std::invalid_argument);
}

// ---------------------------------------------------------------------------
// make_runs

TEST(MakeRuns, FullRowsBecomeOneRun) {
  // Rows 2..5 of an 8 x 10 grid, copied into the whole grid: one copy of
  // 4 * 10 values to offset 2 * 10.
  const Box rows{{2, 0}, {4, 10}};
  const Box whole{{0, 0}, {8, 10}};
  const auto runs = check_copy(rows, whole, {8, 10});
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].from, 0);
  EXPECT_EQ(runs[0].to, 20);
  EXPECT_EQ(runs[0].length, 40);

  // And the other way round (extracting the rows).
  const auto back = check_copy(whole, rows, {8, 10});
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].from, 20);
  EXPECT_EQ(back[0].to, 0);
  EXPECT_EQ(back[0].length, 40);
}

TEST(MakeRuns, FullPlanesBecomeOneRun) {
  // Levels 1..2 of a 4 x 5 x 6 field (a band of the slowest dimension) into
  // a box holding levels 0..2: whole planes, one run.
  const Box band{{1, 0, 0}, {2, 5, 6}};
  const Box dest{{0, 0, 0}, {3, 5, 6}};
  const auto runs = check_copy(band, dest, {4, 5, 6});
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].from, 0);
  EXPECT_EQ(runs[0].to, 30);
  EXPECT_EQ(runs[0].length, 60);
}

TEST(MakeRuns, IdenticalBoxesAreOneRun) {
  const Box b{{1, 2, 3}, {2, 3, 4}};
  const auto runs = check_copy(b, b, {5, 6, 8});
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].from, 0);
  EXPECT_EQ(runs[0].to, 0);
  EXPECT_EQ(runs[0].length, 24);
}

TEST(MakeRuns, PartialRowsAreOneRunPerRow) {
  // Columns 2..4 of rows 1..3 of a 6 x 8 grid into the whole grid.
  const Box block{{1, 2}, {3, 3}};
  const Box whole{{0, 0}, {6, 8}};
  const auto runs = check_copy(block, whole, {6, 8});
  ASSERT_EQ(runs.size(), 3u);
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(runs[k].from, 3 * k);
    EXPECT_EQ(runs[k].to, (1 + k) * 8 + 2);
    EXPECT_EQ(runs[k].length, 3);
  }
}

TEST(MakeRuns, RowsContiguousOnOneSideOnlyAreNotMerged) {
  // The source holds full rows (contiguous), the destination only part of
  // each row: one run per row.
  const Box src{{0, 0}, {4, 10}};
  const Box dst{{0, 3}, {4, 5}};
  const auto runs = check_copy(src, dst, {4, 10});
  ASSERT_EQ(runs.size(), 4u);
  for (int k = 0; k < 4; ++k) {
    EXPECT_EQ(runs[k].from, 10 * k + 3);
    EXPECT_EQ(runs[k].to, 5 * k);
    EXPECT_EQ(runs[k].length, 5);
  }
}

TEST(MakeRuns, DisjointBoxesGiveNoRuns) {
  EXPECT_TRUE(make_runs(Box{{0, 0}, {3, 3}}, Box{{3, 0}, {3, 3}}).empty());
  EXPECT_TRUE(make_runs(Box{{0, 0}, {3, 3}}, Box{{7, 7}, {1, 1}}).empty());
  EXPECT_TRUE(make_runs(Box{{0, 0}, {0, 3}}, Box{{0, 0}, {3, 3}}).empty());
}

TEST(MakeRuns, OneDimensional) {
  const auto runs = check_copy(Box{{3}, {10}}, Box{{7}, {20}}, {30});
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].from, 4);
  EXPECT_EQ(runs[0].to, 0);
  EXPECT_EQ(runs[0].length, 6);
}

class MakeRunsRandom : public ::testing::TestWithParam<int> {};

TEST_P(MakeRunsRandom, CopiesExactlyTheIntersection) {
  const int rank = GetParam();
  std::mt19937 rng(12345u + static_cast<unsigned>(rank));
  std::int64_t nonempty = 0, multi_run = 0;
  for (int trial = 0; trial < 1000; ++trial) {
    Shape global;
    for (int d = 0; d < rank; ++d) global.push_back(std::uniform_int_distribution<std::int64_t>(1, 7)(rng));
    const Box from_box = random_box(rng, global);
    const Box to_box = random_box(rng, global);
    SCOPED_TRACE(::testing::Message() << "trial " << trial);
    const auto runs = check_copy(from_box, to_box, global);
    if (!intersect(from_box, to_box).empty()) ++nonempty;
    if (runs.size() > 1) ++multi_run;
    if (HasFailure()) return;  // the trace above names the trial
  }
  // The random cases must actually exercise copies (and, beyond 1-D, copies
  // made of several runs).
  EXPECT_GT(nonempty, 200);
  if (rank > 1) { EXPECT_GT(multi_run, 100); }
  std::cout << "[ info     ] " << nonempty << " non-empty intersections, " << multi_run << " multi-run copies\n";
}

INSTANTIATE_TEST_SUITE_P(Ranks, MakeRunsRandom, ::testing::Values(1, 2, 3, 4),
                         [](const auto& info) { return std::to_string(info.param) + "d"; });

// ---------------------------------------------------------------------------
// Pack then unpack: clients tile a domain, servers own balanced slabs; each
// client packs its part of each slab into a stream, each server unpacks the
// streams into its slab. Every slab ends up holding the right values.

struct PackCase {
  Shape global;
  int split_dim;
  std::vector<Box> clients;  // tile the global space
  int nservers;
};

// Clients on a px x py grid of blocks over dimensions (dy, dx) of `global`
// (uneven block sizes), full extent in the other dimensions.
std::vector<Box> block_decomposition(const Shape& global, int dy, int dx, int py, int px) {
  auto cuts = [](std::int64_t n, int p) {
    std::vector<std::int64_t> c{0};
    for (int k = 1; k < p; ++k) c.push_back(n * k / p + (k % 2));  // deliberately uneven
    c.push_back(n);
    return c;
  };
  const auto cy = cuts(global[dy], py), cx = cuts(global[dx], px);
  std::vector<Box> out;
  for (int j = 0; j < py; ++j)
    for (int i = 0; i < px; ++i) {
      Box b{Shape(global.size(), 0), global};
      b.start[dy] = cy[j];
      b.count[dy] = cy[j + 1] - cy[j];
      b.start[dx] = cx[i];
      b.count[dx] = cx[i + 1] - cx[i];
      out.push_back(b);
    }
  return out;
}

void check_pack_unpack(const PackCase& pc) {
  // The clients tile the space exactly (a precondition of the test itself).
  std::int64_t covered = 0;
  for (const Box& c : pc.clients) covered += c.size();
  const Box whole{Shape(pc.global.size(), 0), pc.global};
  ASSERT_EQ(covered, whole.size());

  for (int s = 0; s < pc.nservers; ++s) {
    SCOPED_TRACE(::testing::Message() << "server " << s);
    const Box slab = server_slab(pc.global, pc.split_dim, s, pc.nservers);
    std::vector<std::int64_t> slab_buf(static_cast<size_t>(slab.size()), -1);
    for (size_t c = 0; c < pc.clients.size(); ++c) {
      SCOPED_TRACE(::testing::Message() << "client " << c);
      const Box& local = pc.clients[c];
      const Box region = intersect(local, slab);
      const auto local_buf = filled_with_global_index(local, pc.global);
      // Pack: the stream is exactly the region's values in C order.
      std::vector<std::int64_t> packed(static_cast<size_t>(region.size()), -1);
      const auto pack = make_runs(local, region);
      ASSERT_TRUE(apply_runs(pack, local_buf, packed));
      EXPECT_EQ(total_length(pack), region.size());
      EXPECT_EQ(packed, filled_with_global_index(region, pc.global));
      // Unpack into the slab.
      const auto unpack = make_runs(region, slab);
      EXPECT_EQ(total_length(unpack), region.size());
      ASSERT_TRUE(apply_runs(unpack, packed, slab_buf));
    }
    EXPECT_EQ(slab_buf, filled_with_global_index(slab, pc.global));
  }
}

TEST(PackUnpack, TwoDimensionalBlocks) {
  const Shape g{13, 17};
  for (int ns : {1, 2, 3, 5, 13, 20}) {
    SCOPED_TRACE(::testing::Message() << "nservers " << ns);
    check_pack_unpack({g, 0, block_decomposition(g, 0, 1, 3, 4), ns});
  }
}

TEST(PackUnpack, ThreeDimensionalWithLevelsOutermost) {
  // (level, j, i) split along j as the output plan does.
  const Shape g{4, 11, 9};
  for (int ns : {1, 2, 4, 7, 12}) {
    SCOPED_TRACE(::testing::Message() << "nservers " << ns);
    check_pack_unpack({g, 1, block_decomposition(g, 1, 2, 2, 3), ns});
  }
}

TEST(PackUnpack, FourDimensionalRandomBlocks) {
  // A fixed-seed random 4-D case: blocks over dimensions 1 and 3.
  std::mt19937 rng(2024);
  for (int trial = 0; trial < 20; ++trial) {
    Shape g;
    for (int d = 0; d < 4; ++d) g.push_back(std::uniform_int_distribution<std::int64_t>(2, 6)(rng));
    const int py = std::uniform_int_distribution<int>(1, static_cast<int>(g[1]) / 2)(rng);
    const int px = std::uniform_int_distribution<int>(1, static_cast<int>(g[3]) / 2)(rng);
    const int split = std::uniform_int_distribution<int>(0, 3)(rng);
    const int ns = std::uniform_int_distribution<int>(1, 8)(rng);
    SCOPED_TRACE(::testing::Message() << "trial " << trial);
    check_pack_unpack({g, split, block_decomposition(g, 1, 3, py, px), ns});
    if (HasFailure()) return;
  }
}

}  // namespace
}  // namespace foehn::grid
