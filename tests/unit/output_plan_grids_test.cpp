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

}  // namespace
}  // namespace foehn::output
