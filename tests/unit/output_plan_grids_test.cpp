// Tests of the output plan's grid parts: 1-D domains split by cells, the
// layout of a variable around its domain, the points a client sends, the
// encoding of the new domain fields, and the assembly of a domain from the
// clients' parts (coordinates in place, one owner per point).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "output/output_plan.h"

namespace foehn::output {
namespace {

using grid::Box;
using Index = std::vector<std::int64_t>;

Dim dim(std::int32_t kind, std::int32_t index) {
  Dim d;
  d.kind = kind;
  d.index = index;
  return d;
}

// Domain 0: unstructured, 10 cells; domain 1: curvilinear 4 x 3. Axis 0: 2 levels.
ContextPlan plan() {
  ContextPlan p;
  DomainInfo u;
  u.id = "cells";
  u.type = "unstructured";
  u.ni_glo = 10;
  u.nj_glo = 1;
  u.clients = {LocalBlock{0, 6, 0, 1}, LocalBlock{3, 7, 0, 1}};
  u.points = {ClientPoints{false, {5, 0, 2}, {}}, ClientPoints{false, {9, 3}, {}}};
  DomainInfo c;
  c.id = "curv";
  c.type = "curvilinear";
  c.ni_glo = 4;
  c.nj_glo = 3;
  c.clients = {LocalBlock{0, 4, 0, 2}, LocalBlock{0, 4, 2, 1}};
  AxisInfo lev;
  lev.id = "lev";
  lev.values = {1, 2};
  p.domains = {u, c};
  p.axes = {lev};
  return p;
}

TEST(PlanGrids, OneDimensionalDomainsSplitByCells) {
  const ContextPlan p = plan();
  VariableInfo v;  // (lev, cell)
  v.dims = {dim(Dim::axis, 0), dim(Dim::domain_i, 0)};
  EXPECT_EQ(p.split_dim(v), 1);
  EXPECT_EQ(p.server_block(v, 0, 3), (Box{{0, 0}, {2, 4}}));
  EXPECT_EQ(p.server_block(v, 2, 3), (Box{{0, 7}, {2, 3}}));
  const LocalBlock e = p.server_extent(0, 1, 3);
  EXPECT_EQ(e.ibegin, 4);
  EXPECT_EQ(e.ni, 3);
  EXPECT_EQ(e.nj, 1);
  const LocalBlock band = p.server_extent(1, 1, 2);  // rows 2..2 of 3
  EXPECT_EQ(band.jbegin, 2);
  EXPECT_EQ(band.nj, 1);
  EXPECT_EQ(band.ni, 4);
}

TEST(PlanGrids, SplitByServerKeepsDataOrder) {
  const ContextPlan p = plan();  // cells 0-3, 4-6, 7-9 on three servers
  const auto split = p.split_by_server(0, {5, -1, 0, 9, 3, 7}, 3);
  ASSERT_EQ(split.size(), 3u);
  EXPECT_EQ(split[0], (Index{2, 4}));
  EXPECT_EQ(split[1], (Index{0}));
  EXPECT_EQ(split[2], (Index{3, 5}));
  // Rows of a 2-D domain: 4 x 3 points on 5 servers, the last two own nothing.
  const auto rows = p.split_by_server(1, {11, 0, 4, 8}, 5);
  EXPECT_EQ(rows[0], (Index{1}));
  EXPECT_EQ(rows[1], (Index{2}));
  EXPECT_EQ(rows[2], (Index{0, 3}));
  EXPECT_TRUE(rows[3].empty() && rows[4].empty());
}

TEST(PlanGrids, LayoutAroundTheDomain) {
  const ContextPlan p = plan();
  VariableInfo outside, inside, axes;
  outside.dims = {dim(Dim::axis, 0), dim(Dim::domain_j, 1), dim(Dim::domain_i, 1)};
  inside.dims = {dim(Dim::domain_i, 0), dim(Dim::axis, 0)};
  axes.dims = {dim(Dim::axis, 0), dim(Dim::axis, 0)};
  EXPECT_EQ(p.layout(outside).domain, 1);
  EXPECT_EQ(p.layout(outside).outer, 2);
  EXPECT_EQ(p.layout(outside).inner, 1);
  EXPECT_EQ(p.layout(inside).outer, 1);
  EXPECT_EQ(p.layout(inside).inner, 2);
  EXPECT_EQ(p.layout(axes).domain, -1);
  EXPECT_EQ(p.layout(axes).inner, 4);
}

TEST(PlanGrids, SentPointsExplicitOrBlock) {
  const ContextPlan p = plan();
  EXPECT_EQ(p.sent_points(0, 0), (Index{5, 0, 2}));
  EXPECT_EQ(p.sent_points(1, 1), (Index{8, 9, 10, 11}));  // dense: the block row by row
}

TEST(PlanGrids, EncodingKeepsDomainFields) {
  ContextPlan p = plan();
  p.domains[0].nvertex = 3;
  p.domains[0].bounds_lon = {1, 2, 3};
  p.domains[0].bounds_lat = {4, 5, 6};
  p.domains[0].needs_fill = true;
  p.domains[0].points[0].owned = {1, 2};  // never encoded
  const auto bytes = encode(p);
  const ContextPlan q = decode_plan(bytes.data(), bytes.size());
  ASSERT_EQ(q.domains.size(), 2u);
  EXPECT_EQ(q.domains[0].type, "unstructured");
  EXPECT_EQ(q.domains[0].nvertex, 3);
  EXPECT_EQ(q.domains[0].bounds_lat, (std::vector<double>{4, 5, 6}));
  EXPECT_TRUE(q.domains[0].needs_fill);
  ASSERT_EQ(q.domains[0].points.size(), 2u);
  EXPECT_FALSE(q.domains[0].points[1].dense);
  EXPECT_EQ(q.domains[0].points[1].sent, (Index{9, 3}));
  EXPECT_TRUE(q.domains[0].points[0].owned.empty());
  EXPECT_TRUE(q.domains[1].points.empty());
  EXPECT_EQ(encode(q), encode([&] {
              ContextPlan r = p;
              r.domains[0].points[0].owned.clear();
              return r;
            }()));
}

TEST(PlanGrids, AssembleDomainPlacesCoordinatesAndChecksOwners) {
  DomainInfo d;
  d.id = "cells";
  d.type = "unstructured";
  d.ni_glo = 5;
  d.nj_glo = 1;
  d.nvertex = 1;
  const Index owned1{4, 1};
  const double lon0[3] = {0, 10, 20}, lat0[3] = {-1, -2, -3}, b0[3] = {0.5, 10.5, 20.5};
  const double lon1[2] = {40, 10}, lat1[2] = {-5, -2}, b1[2] = {40.5, 10.5};
  std::vector<ClientPart> parts(2);
  parts[0].extent = {0, 3, 0, 1};  // a block: cells 0..2 (dense)
  parts[0].lon = lon0, parts[0].lat = lat0, parts[0].bounds_lon = b0, parts[0].bounds_lat = b0;
  parts[0].n_lon = parts[0].n_lat = 3;
  parts[1].by_index = true, parts[1].dense = false;
  parts[1].owned = owned1.data(), parts[1].n_owned = 2;
  parts[1].sent = owned1.data(), parts[1].n_sent = 1;  // cell 1 masked
  parts[1].lon = lon1, parts[1].lat = lat1, parts[1].bounds_lon = b1, parts[1].bounds_lat = b1;
  parts[1].n_lon = parts[1].n_lat = 2;
  d.clients = {parts[0].extent, LocalBlock{1, 4, 0, 1}};
  // Cells 1 and 3: cell 1 held twice, cell 3 by nobody.
  EXPECT_NE(assemble_domain(d, parts).find("(i 1, j 0) is held by model ranks 0 and 1"), std::string::npos);
  const Index owned_ok{4, 3};
  parts[1].owned = owned_ok.data();
  parts[1].sent = owned_ok.data();
  EXPECT_EQ(assemble_domain(d, parts), "");
  EXPECT_EQ(d.lon, (std::vector<double>{0, 10, 20, 10, 40}));
  EXPECT_EQ(d.bounds_lon, (std::vector<double>{0.5, 10.5, 20.5, 10.5, 40.5}));
  ASSERT_EQ(d.points.size(), 2u);
  EXPECT_TRUE(d.points[0].dense);
  EXPECT_EQ(d.points[1].sent, (Index{4}));
  EXPECT_EQ(d.points[1].owned, owned_ok);
  const Index three{3};
  parts[1].owned = three.data(), parts[1].n_owned = 1, parts[1].n_lon = parts[1].n_lat = 1;
  EXPECT_NE(assemble_domain(d, parts).find("no model rank holds the point (i 4, j 0)"), std::string::npos);
}

// Axes decomposed among 2 clients: a (3 values) by list, b (2 values) whole.
ContextPlan axes_plan() {
  ContextPlan p;
  p.client_ranks = {0, 1};
  AxisInfo a;
  a.id = "a";
  a.values = {1, 2, 3};
  a.bounds = {0.5, 1.5, 1.5, 2.5, 2.5, 3.5};
  a.axis_type = "X";
  a.parts = {{2, 0}, {1}};
  AxisInfo b;
  b.id = "b";
  b.values = {10, 20};
  p.axes = {a, b};
  ScalarInfo s;
  s.id = "h";
  s.has_value = true;
  s.value = 2.5;
  s.units = "m";
  p.scalars = {s};
  VariableInfo v;  // grid (a, b): dims (b, a) in C order
  v.field_id = "f";
  v.dims = {dim(Dim::axis, 1), dim(Dim::axis, 0)};
  v.scalars = {0};
  p.variables = {v};
  return p;
}

// convention="CDI": the rows of a gaussian domain are the runs of equal
// latitude, north to south, in an even number.
TEST(PlanGrids, ReducedRowsFromThePointsLatitudes) {
  DomainInfo d;
  d.id = "atm", d.type = "gaussian", d.nj_glo = 1;
  d.lat = {50, 50, 50, 10, 10, 10, 10, -10, -10, -10, -10, -50, -50, -50};
  d.ni_glo = static_cast<std::int64_t>(d.lat.size());
  ReducedRows rows;
  ASSERT_EQ(reduced_rows(d, rows), "");
  EXPECT_EQ(rows.lat, (std::vector<double>{50, 10, -10, -50}));
  EXPECT_EQ(rows.points, (std::vector<std::int32_t>{3, 4, 4, 3}));

  d.lat[5] = 20;  // rises within the second row
  EXPECT_NE(reduced_rows(d, rows).find("domain 'atm': convention=\"CDI\" needs the points row by row from the "
                                       "north (rows of equal latitude), but the latitude rises from 10.000000 to "
                                       "20.000000 at point 5"),
            std::string::npos)
      << reduced_rows(d, rows);
  d.lat = {50, 50, 10, -10, -10};
  d.ni_glo = 5;
  EXPECT_NE(reduced_rows(d, rows).find("an even number of latitude rows (2N), the points have 3"), std::string::npos);
  d.lat.pop_back();  // one latitude short
  EXPECT_NE(reduced_rows(d, rows).find("needs the latitude of each of its 5 points, has 4"), std::string::npos);
}

TEST(AxesPlan, PositionsFollowEachClientsPartFirstAxisFastest) {
  const ContextPlan p = axes_plan();
  const auto& v = p.variables[0];
  EXPECT_TRUE(p.decomposed_axes(v));
  const Box whole{{0, 0}, {2, 3}};
  // Client 0 holds a = 2, 0 (in that order) for b = 0, 1.
  EXPECT_EQ(p.axis_positions(v, 0, whole), (Index{2, 0, 5, 3}));
  EXPECT_EQ(p.axis_positions(v, 1, whole), (Index{1, 4}));
  EXPECT_EQ(p.client_box(v, 0), (Box{{0, 0}, {2, 3}}));  // the bounding box of a = {0, 2}
  EXPECT_EQ(p.client_box(v, 1), (Box{{0, 1}, {2, 1}}));
  EXPECT_EQ(p.server_block(v, 1, 2).size(), 0);
  EXPECT_EQ(check_axes_cover(p, v), "");
}

TEST(AxesPlan, CoverNamesAValueHeldTwiceOrByNobody) {
  ContextPlan p = axes_plan();
  p.axes[0].parts = {{2, 0}, {0}};
  EXPECT_NE(check_axes_cover(p, p.variables[0]).find("the value (a 0, b 0) is held by model ranks 0 and 1"),
            std::string::npos);
  p.axes[0].parts = {{2, 0}, {}};
  EXPECT_NE(check_axes_cover(p, p.variables[0]).find("no model rank holds the value (a 1, b 0)"), std::string::npos);
}

TEST(AxesPlan, ScalarOnlyVariableIsOneValueOnServerZero) {
  ContextPlan p = axes_plan();
  VariableInfo s;
  s.scalars = {0};
  EXPECT_EQ(p.server_block(s, 0, 2).size(), 1);
  EXPECT_TRUE(p.server_block(s, 1, 2).empty());
  EXPECT_TRUE(p.client_box(s, 1).empty());
}

TEST(AxesPlan, EncodingKeepsPartsBoundsAndScalars) {
  const ContextPlan p = axes_plan();
  const auto bytes = encode(p);
  const ContextPlan q = decode_plan(bytes.data(), bytes.size());
  ASSERT_EQ(q.axes.size(), 2u);
  EXPECT_EQ(q.axes[0].parts, p.axes[0].parts);
  EXPECT_EQ(q.axes[0].bounds, p.axes[0].bounds);
  EXPECT_EQ(q.axes[0].axis_type, "X");
  EXPECT_FALSE(q.axes[1].decomposed());
  ASSERT_EQ(q.scalars.size(), 1u);
  EXPECT_EQ(q.scalars[0].value, 2.5);
  EXPECT_TRUE(q.scalars[0].has_value);
  EXPECT_EQ(q.scalars[0].units, "m");
  EXPECT_EQ(q.variables[0].scalars, (std::vector<std::int32_t>{0}));
}

TEST(AxesPlan, SharedPointsMustSplitTheAxes) {
  ContextPlan p = axes_plan();
  DomainInfo d;
  d.id = "cells";
  d.type = "unstructured";
  d.ni_glo = 2;
  d.nj_glo = 1;
  p.domains = {d};
  VariableInfo v;  // grid (cells, a): dims (a, cell)
  v.field_id = "t";
  v.dims = {dim(Dim::axis, 0), dim(Dim::domain_i, 0)};
  EXPECT_TRUE(p.decomposed_axes(v));
  // Point 0 held by both clients, whose parts of a are {2, 0} and {1}.
  EXPECT_EQ(check_shared_points(p, v, {{0, 1}, {0, 1}}), "");
  EXPECT_NE(check_shared_points(p, v, {{0, 1}, {0}}).find("at the point (i 1, j 0), no model rank holds some values"),
            std::string::npos);
  p.axes[0].parts = {{0, 1}, {1, 2}};
  EXPECT_NE(check_shared_points(p, v, {{0, 1}, {0, 1}}).find("model ranks 0 and 1 hold the same values"),
            std::string::npos);
}

}  // namespace
}  // namespace foehn::output
