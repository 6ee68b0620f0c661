// Two-level servers: files to pools by bytes, pool ranges, block messages.
#include <gtest/gtest.h>

#include <cstring>
#include <stdexcept>

#include "server/two_level.h"

namespace foehn::server {
namespace {

// One file per variable, each variable one axis of `n` values.
output::ContextPlan plan_of(const std::vector<std::int64_t>& sizes, std::int32_t prec) {
  output::ContextPlan plan;
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    output::AxisInfo a;
    a.values.assign(static_cast<std::size_t>(sizes[k]), 0.0);
    plan.axes.push_back(a);
    output::VariableInfo v;
    v.prec = prec;
    v.file = static_cast<std::int32_t>(k);
    v.dims = {output::Dim{output::Dim::axis, static_cast<std::int32_t>(k)}};
    plan.variables.push_back(v);
    plan.files.push_back(output::FileInfo{});
  }
  return plan;
}

TEST(TwoLevel, FilesGoLargestFirstToTheLightestPool) {
  // 400, 240, 200, 160 bytes: 400 -> 0, 240 -> 1, 200 -> 1 (440), 160 -> 0 (560).
  EXPECT_EQ(assign_files_to_pools(plan_of({100, 60, 50, 40}, 4), 2), (std::vector<int>{0, 1, 1, 0}));
  EXPECT_EQ(assign_files_to_pools(plan_of({10, 30, 20}, 8), 3), (std::vector<int>{2, 0, 1}));
  EXPECT_EQ(assign_files_to_pools(plan_of({10, 30}, 4), 1), (std::vector<int>{0, 0}));
}

TEST(TwoLevel, PoolsAreBalancedRanges) {
  EXPECT_EQ(pool_starts(5, 2), (std::vector<int>{0, 3, 5}));
  EXPECT_EQ(pool_starts(2, 2), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(pool_starts(4, 1), (std::vector<int>{0, 4}));
}

TEST(TwoLevel, BlockMessageCarriesThePartOfTheBlock) {
  const grid::Box block{{2, 0}, {3, 4}};  // rows 2-4, columns 0-3
  std::vector<float> values(12);
  for (std::size_t k = 0; k < values.size(); ++k) values[k] = static_cast<float>(k);
  const grid::Box part{{3, 1}, {2, 2}};  // rows 3-4, columns 1-2
  BlockHeader h;
  h.context = 7, h.var = 1, h.record = 5, h.ndims = 2, h.elem = 4;
  const auto msg = encode_block(h, part, block, reinterpret_cast<const std::byte*>(values.data()));
  BlockHeader got;
  grid::Box box;
  const std::byte* data = decode_block(msg.data(), msg.size(), got, box);
  EXPECT_EQ(box, part);
  EXPECT_EQ(got.var, 1);
  EXPECT_EQ(got.record, 5);
  float out[4];
  std::memcpy(out, data, sizeof out);
  EXPECT_EQ(std::vector<float>(out, out + 4), (std::vector<float>{5, 6, 9, 10}));
  EXPECT_THROW(decode_block(msg.data(), msg.size() - 4, got, box), std::runtime_error);
}

}  // namespace
}  // namespace foehn::server
