// Tests of the output plan: its binary encoding (round trip, truncation) and
// the geometry it derives for each variable (shape, split dimension, client
// blocks, server blocks).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "output/output_plan.h"
#include "transport/wire.h"

namespace foehn::output {
namespace {

using grid::Box;
using Shape = std::vector<std::int64_t>;

Dim dim(std::int32_t kind, std::int32_t index) {
  Dim d;
  d.kind = kind;
  d.index = index;
  return d;
}

// Two domains, two axes, variables of different dimensions, two files.
//   domain 0 "grid_T": 6 x 5 (ni x nj), clients 0 and 1 hold different blocks
//   domain 1 "grid_U": 4 x 2
//   axis 0 "depth": 3 levels, axis 1 "plev": 2 levels
//   variable 0 thetao (depth, grid_T j, grid_T i)     prec 4, file 0
//   variable 1 tauuo  (grid_U j, grid_U i)            prec 8, file 1
//   variable 2 prof   (plev)                          axis only, file 0
ContextPlan sample_plan() {
  ContextPlan p;
  p.context_id = "ocean";
  p.key = 0xdeadbeefu;
  p.calendar = "noleap";
  p.time_units = "seconds since 1850-01-01 00:00:00";
  p.start_date = "1850-01-01 00:00:00";
  p.client_ranks = {3, 7};
  p.level2_ranks = 2;
  p.level2_pools = 2;
  p.level1_forward_bytes = 5000000000;  // beyond 32 bits

  DomainInfo t;
  t.id = "grid_T";
  t.name = "T";
  t.long_name = "tracer grid";
  t.ni_glo = 6;
  t.nj_glo = 5;
  t.lon = {0.0, 60.0, 120.0, 180.0, 240.0, 300.0};
  t.lat = {-80.0, -40.0, -0.0, 40.0, 80.0};
  t.clients = {LocalBlock{0, 4, 0, 3}, LocalBlock{2, 4, 3, 2}};  // ibegin, ni, jbegin, nj
  DomainInfo u;
  u.id = "grid_U";
  u.name = "U";
  u.long_name = "";
  u.ni_glo = 4;
  u.nj_glo = 2;
  u.lon = {1.5, 2.5, 3.5, 4.5};
  u.lat = {10.25, 20.125};
  u.clients = {LocalBlock{0, 4, 0, 1}, LocalBlock{0, 4, 1, 1}};
  p.domains = {t, u};

  AxisInfo depth;
  depth.id = "depth";
  depth.name = "olevel";
  depth.long_name = "depth below sea surface";
  depth.standard_name = "depth";
  depth.units = "m";
  depth.positive = "down";
  depth.values = {5.0, 15.5, 1e4};
  AxisInfo plev;
  plev.id = "plev";
  plev.name = "plev";
  plev.units = "Pa";
  plev.positive = "";
  plev.values = {100000.0, 85000.0};
  p.axes = {depth, plev};

  VariableInfo v0;
  v0.field_id = "toce";
  v0.name = "thetao";
  v0.long_name = "sea water potential temperature";
  v0.standard_name = "sea_water_potential_temperature";
  v0.units = "degC";
  v0.operation = "average";
  v0.cell_methods = "time: mean";
  v0.prec = 4;
  v0.file = 0;
  v0.dims = {dim(Dim::axis, 0), dim(Dim::domain_j, 0), dim(Dim::domain_i, 0)};
  VariableInfo v1;
  v1.field_id = "utau";
  v1.name = "tauuo";
  v1.units = "N m-2";
  v1.operation = "instant";
  v1.cell_methods = "time: point";
  v1.prec = 8;
  v1.file = 1;
  v1.compression_level = 6;
  v1.attributes = {{"valid_min", "data", "-3.5"}, {"ensemble_member", "int", "7"}};
  v1.dims = {dim(Dim::domain_j, 1), dim(Dim::domain_i, 1)};
  VariableInfo v2;
  v2.field_id = "prof";
  v2.name = "profile";
  v2.operation = "once";
  v2.prec = 8;
  v2.file = 0;
  v2.dims = {dim(Dim::axis, 1)};
  p.variables = {v0, v1, v2};

  FileInfo f0;
  f0.id = "ocean_1d";
  f0.base_path = "out/ocean_1d";
  f0.title = "daily ocean";
  f0.output_freq = "1d";
  f0.one_file = true;
  f0.convention = "CDI";
  f0.variables = {0, 2};
  f0.attributes = {{"institution", "string", "somewhere"},
                   {"comment", "string", ""},
                   {"source", "string", "foehn unit test"},
                   {"members", "int", "12"}};
  FileInfo f1;
  f1.id = "ocean_1h";
  f1.base_path = "out/ocean_1h";
  f1.title = "";
  f1.output_freq = "1h";
  f1.one_file = false;
  f1.convention = "UGRID";
  f1.variables = {1};
  f1.attributes = {{"frequency", "string", "1hr"}};
  f1.format = "netcdf4_classic";
  f1.append = true;
  f1.min_digits = 4;
  p.files = {f0, f1};
  return p;
}

void expect_same(const LocalBlock& a, const LocalBlock& b) {
  EXPECT_EQ(a.ibegin, b.ibegin);
  EXPECT_EQ(a.ni, b.ni);
  EXPECT_EQ(a.jbegin, b.jbegin);
  EXPECT_EQ(a.nj, b.nj);
}

void expect_same(const ContextPlan& a, const ContextPlan& b) {
  EXPECT_EQ(a.context_id, b.context_id);
  EXPECT_EQ(a.key, b.key);
  EXPECT_EQ(a.calendar, b.calendar);
  EXPECT_EQ(a.time_units, b.time_units);
  EXPECT_EQ(a.start_date, b.start_date);
  EXPECT_EQ(a.client_ranks, b.client_ranks);
  EXPECT_EQ(a.level2_ranks, b.level2_ranks);
  EXPECT_EQ(a.level2_pools, b.level2_pools);
  EXPECT_EQ(a.level1_forward_bytes, b.level1_forward_bytes);

  ASSERT_EQ(a.domains.size(), b.domains.size());
  for (size_t k = 0; k < a.domains.size(); ++k) {
    SCOPED_TRACE(::testing::Message() << "domain " << k);
    const auto &x = a.domains[k], &y = b.domains[k];
    EXPECT_EQ(x.id, y.id);
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.long_name, y.long_name);
    EXPECT_EQ(x.ni_glo, y.ni_glo);
    EXPECT_EQ(x.nj_glo, y.nj_glo);
    EXPECT_EQ(x.lon, y.lon);
    EXPECT_EQ(x.lat, y.lat);
    ASSERT_EQ(x.clients.size(), y.clients.size());
    for (size_t c = 0; c < x.clients.size(); ++c) {
      SCOPED_TRACE(::testing::Message() << "client " << c);
      expect_same(x.clients[c], y.clients[c]);
    }
  }

  ASSERT_EQ(a.axes.size(), b.axes.size());
  for (size_t k = 0; k < a.axes.size(); ++k) {
    SCOPED_TRACE(::testing::Message() << "axis " << k);
    const auto &x = a.axes[k], &y = b.axes[k];
    EXPECT_EQ(x.id, y.id);
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.long_name, y.long_name);
    EXPECT_EQ(x.standard_name, y.standard_name);
    EXPECT_EQ(x.units, y.units);
    EXPECT_EQ(x.positive, y.positive);
    EXPECT_EQ(x.values, y.values);
  }

  ASSERT_EQ(a.variables.size(), b.variables.size());
  for (size_t k = 0; k < a.variables.size(); ++k) {
    SCOPED_TRACE(::testing::Message() << "variable " << k);
    const auto &x = a.variables[k], &y = b.variables[k];
    EXPECT_EQ(x.field_id, y.field_id);
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.long_name, y.long_name);
    EXPECT_EQ(x.standard_name, y.standard_name);
    EXPECT_EQ(x.units, y.units);
    EXPECT_EQ(x.operation, y.operation);
    EXPECT_EQ(x.cell_methods, y.cell_methods);
    EXPECT_EQ(x.prec, y.prec);
    EXPECT_EQ(x.file, y.file);
    EXPECT_EQ(x.compression_level, y.compression_level);
    EXPECT_EQ(x.attributes, y.attributes);
    ASSERT_EQ(x.dims.size(), y.dims.size());
    for (size_t d = 0; d < x.dims.size(); ++d) {
      EXPECT_EQ(x.dims[d].kind, y.dims[d].kind) << "dim " << d;
      EXPECT_EQ(x.dims[d].index, y.dims[d].index) << "dim " << d;
    }
  }

  ASSERT_EQ(a.files.size(), b.files.size());
  for (size_t k = 0; k < a.files.size(); ++k) {
    SCOPED_TRACE(::testing::Message() << "file " << k);
    const auto &x = a.files[k], &y = b.files[k];
    EXPECT_EQ(x.id, y.id);
    EXPECT_EQ(x.base_path, y.base_path);
    EXPECT_EQ(x.title, y.title);
    EXPECT_EQ(x.output_freq, y.output_freq);
    EXPECT_EQ(x.one_file, y.one_file);
    EXPECT_EQ(x.format, y.format);
    EXPECT_EQ(x.convention, y.convention);
    EXPECT_EQ(x.append, y.append);
    EXPECT_EQ(x.min_digits, y.min_digits);
    EXPECT_EQ(x.variables, y.variables);
    EXPECT_EQ(x.attributes, y.attributes);
  }
}

// ---------------------------------------------------------------------------
// Encoding

TEST(PlanEncoding, RoundTripKeepsEveryField) {
  const ContextPlan p = sample_plan();
  const std::vector<char> bytes = encode(p);
  ASSERT_FALSE(bytes.empty());
  const ContextPlan q = decode_plan(bytes.data(), bytes.size());
  expect_same(q, p);
  // Spot checks against the literal values, so that a field lost on both
  // sides (or a broken sample) would still be caught.
  EXPECT_EQ(q.key, 0xdeadbeefu);
  EXPECT_EQ(q.level1_forward_bytes, 5000000000);
  ASSERT_EQ(q.domains.size(), 2u);
  EXPECT_EQ(q.domains[0].clients[1].jbegin, 3);
  EXPECT_EQ(q.domains[0].clients[1].ibegin, 2);
  EXPECT_TRUE(std::signbit(q.domains[0].lat[2]));
  ASSERT_EQ(q.axes.size(), 2u);
  EXPECT_EQ(q.axes[0].values, (std::vector<double>{5.0, 15.5, 1e4}));
  ASSERT_EQ(q.variables.size(), 3u);
  EXPECT_EQ(q.variables[1].prec, 8);
  EXPECT_EQ(q.variables[0].cell_methods, "time: mean");
  EXPECT_EQ(q.variables[2].cell_methods, "");
  EXPECT_EQ(q.variables[0].dims.size(), 3u);
  EXPECT_EQ(q.variables[0].dims[1].kind, Dim::domain_j);
  ASSERT_EQ(q.files.size(), 2u);
  EXPECT_TRUE(q.files[0].one_file);
  EXPECT_FALSE(q.files[1].one_file);
  EXPECT_EQ(q.files[0].attributes[2].value, "foehn unit test");
  EXPECT_EQ(q.files[0].attributes[3].type, "int");
  EXPECT_EQ(q.variables[1].compression_level, 6);
  EXPECT_EQ(q.variables[1].attributes[0].value, "-3.5");
  EXPECT_TRUE(q.files[0].has_convention("CDI") && !q.files[0].has_convention("UGRID"));
  EXPECT_TRUE(q.files[1].has_convention("UGRID") && !q.files[1].has_convention("CDI"));
  EXPECT_EQ(q.files[0].format, "netcdf4");
  EXPECT_TRUE(q.files[1].format == "netcdf4_classic" && q.files[1].append && !q.files[0].append);
  EXPECT_EQ(q.files[1].min_digits, 4);
  // Encoding is deterministic: re-encoding the decoded plan gives the same bytes.
  EXPECT_EQ(encode(q), bytes);
}

TEST(PlanEncoding, EmptyPlanRoundTrip) {
  const ContextPlan empty;
  const auto bytes = encode(empty);
  const ContextPlan q = decode_plan(bytes.data(), bytes.size());
  expect_same(q, empty);
  EXPECT_TRUE(q.domains.empty());
  EXPECT_TRUE(q.files.empty());
}

TEST(PlanEncoding, EveryTruncationThrowsWireError) {
  const auto bytes = encode(sample_plan());
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    // An exact-size heap copy, so any read past the prefix is a real overrun
    // (caught by the sanitizer build).
    const std::vector<char> prefix(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n));
    EXPECT_THROW(decode_plan(prefix.data(), prefix.size()), transport::WireError)
        << "prefix of " << n << " of " << bytes.size() << " bytes";
    if (HasFailure()) return;
  }
}

TEST(PlanEncoding, TrailingBytesThrowWireError) {
  auto bytes = encode(sample_plan());
  bytes.push_back('\0');
  EXPECT_THROW(decode_plan(bytes.data(), bytes.size()), transport::WireError);
}

// ---------------------------------------------------------------------------
// Geometry

TEST(PlanGeometry, ShapeFollowsDimensions) {
  const ContextPlan p = sample_plan();
  EXPECT_EQ(p.shape(p.variables[0]), (Shape{3, 5, 6}));  // depth, nj, ni
  EXPECT_EQ(p.shape(p.variables[1]), (Shape{2, 4}));
  EXPECT_EQ(p.shape(p.variables[2]), (Shape{2}));
}

TEST(PlanGeometry, SplitDimIsFirstDomainJ) {
  ContextPlan p = sample_plan();
  EXPECT_EQ(p.split_dim(p.variables[0]), 1);
  EXPECT_EQ(p.split_dim(p.variables[1]), 0);
  EXPECT_EQ(p.split_dim(p.variables[2]), 0);
  VariableInfo v4;  // (depth, plev, j, i)
  v4.dims = {dim(Dim::axis, 0), dim(Dim::axis, 1), dim(Dim::domain_j, 0), dim(Dim::domain_i, 0)};
  EXPECT_EQ(p.split_dim(v4), 2);
  EXPECT_EQ(p.shape(v4), (Shape{3, 2, 5, 6}));
  VariableInfo vi;  // (depth, i): a domain but no j, split along the slowest
  vi.dims = {dim(Dim::axis, 0), dim(Dim::domain_i, 0)};
  EXPECT_EQ(p.split_dim(vi), 0);
  EXPECT_TRUE(p.has_domain(vi));
}

TEST(PlanGeometry, HasDomain) {
  const ContextPlan p = sample_plan();
  EXPECT_TRUE(p.has_domain(p.variables[0]));
  EXPECT_TRUE(p.has_domain(p.variables[1]));
  EXPECT_FALSE(p.has_domain(p.variables[2]));
  VariableInfo two_axes;
  two_axes.dims = {dim(Dim::axis, 0), dim(Dim::axis, 1)};
  EXPECT_FALSE(p.has_domain(two_axes));
}

TEST(PlanGeometry, ClientBoxOfDomainVariable) {
  const ContextPlan p = sample_plan();
  const VariableInfo& v = p.variables[0];  // (depth, j, i)
  // Client 0: ibegin 0, ni 4, jbegin 0, nj 3; client 1: ibegin 2, ni 4, jbegin 3, nj 2.
  EXPECT_EQ(p.client_box(v, 0), (Box{{0, 0, 0}, {3, 3, 4}}));
  EXPECT_EQ(p.client_box(v, 1), (Box{{0, 3, 2}, {3, 2, 4}}));
  const VariableInfo& w = p.variables[1];  // (j, i) on grid_U
  EXPECT_EQ(p.client_box(w, 0), (Box{{0, 0}, {1, 4}}));
  EXPECT_EQ(p.client_box(w, 1), (Box{{1, 0}, {1, 4}}));
}

TEST(PlanGeometry, ServerBlockOfDomainVariableIsBalancedBandOfJ) {
  const ContextPlan p = sample_plan();
  const VariableInfo& v = p.variables[0];  // shape {3, 5, 6}, split along j (5)
  EXPECT_EQ(p.server_block(v, 0, 1), (Box{{0, 0, 0}, {3, 5, 6}}));
  EXPECT_EQ(p.server_block(v, 0, 2), (Box{{0, 0, 0}, {3, 3, 6}}));
  EXPECT_EQ(p.server_block(v, 1, 2), (Box{{0, 3, 0}, {3, 2, 6}}));
  // More servers than rows: the last two own nothing.
  for (int s = 0; s < 7; ++s) {
    const Box b = p.server_block(v, s, 7);
    SCOPED_TRACE(::testing::Message() << "server " << s);
    if (s < 5) {
      EXPECT_EQ(b, (Box{{0, s, 0}, {3, 1, 6}}));
    } else {
      EXPECT_TRUE(b.empty());
      EXPECT_EQ(b.count[1], 0);
    }
  }
  const VariableInfo& w = p.variables[1];  // shape {2, 4}, split along dim 0
  EXPECT_EQ(p.server_block(w, 0, 2), (Box{{0, 0}, {1, 4}}));
  EXPECT_EQ(p.server_block(w, 1, 2), (Box{{1, 0}, {1, 4}}));
}

TEST(PlanGeometry, AxisOnlyVariableComesFromClientZeroAndGoesToServerZero) {
  const ContextPlan p = sample_plan();
  const VariableInfo& v = p.variables[2];  // (plev), 2 values
  EXPECT_EQ(p.client_box(v, 0), (Box{{0}, {2}}));
  for (int c : {1, 2, 5}) {  // every other client (even beyond the domains' client lists) sends nothing
    const Box b = p.client_box(v, c);
    SCOPED_TRACE(::testing::Message() << "client " << c);
    EXPECT_EQ(b.start, (Shape{0}));
    EXPECT_EQ(b.count, (Shape{0}));
    EXPECT_TRUE(b.empty());
  }
  for (int n : {1, 2, 3, 8}) {
    SCOPED_TRACE(::testing::Message() << "nservers " << n);
    EXPECT_EQ(p.server_block(v, 0, n), (Box{{0}, {2}}));
    for (int s = 1; s < n; ++s) {
      const Box b = p.server_block(v, s, n);
      EXPECT_EQ(b.count, (Shape{0})) << "server " << s;
      EXPECT_TRUE(b.empty()) << "server " << s;
    }
  }
  // A two-axis profile: whole on server 0, empty (all counts zero) elsewhere.
  VariableInfo two;
  two.dims = {dim(Dim::axis, 0), dim(Dim::axis, 1)};
  EXPECT_EQ(p.server_block(two, 0, 3), (Box{{0, 0}, {3, 2}}));
  EXPECT_EQ(p.server_block(two, 2, 3), (Box{{0, 0}, {0, 0}}));
  EXPECT_EQ(p.client_box(two, 0), (Box{{0, 0}, {3, 2}}));
  EXPECT_EQ(p.client_box(two, 1), (Box{{0, 0}, {0, 0}}));
}

TEST(PlanGeometry, ClientBoxesAndServerBlocksAgree) {
  // With clients that tile grid_T, the clients' parts of each server block
  // add up to the server block.
  ContextPlan p = sample_plan();
  p.domains[0].clients = {LocalBlock{0, 4, 0, 3}, LocalBlock{4, 2, 0, 3}, LocalBlock{0, 6, 3, 2}};
  const VariableInfo& v = p.variables[0];
  for (int n = 1; n <= 6; ++n) {
    for (int s = 0; s < n; ++s) {
      const Box blk = p.server_block(v, s, n);
      std::int64_t sum = 0;
      for (int c = 0; c < 3; ++c) sum += grid::intersect(p.client_box(v, c), blk).size();
      EXPECT_EQ(sum, blk.size()) << "server " << s << " of " << n;
    }
  }
}

}  // namespace
}  // namespace foehn::output
