// src/transform: the per-step maps against values worked out here, the
// builders' index maps and their refusals (at the transformation's line),
// and the chains the reader's definitions give, inline ones included.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "config/config.h"
#include "transform/build.h"
#include "transform/chain.h"
#include "transform/transform.h"

using namespace foehn;
using transform::Component;
using transform::Operation;
using transform::Transform;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

config::TransformationDef def(const std::string& kind, const std::string& target,
                              std::map<std::string, std::string, std::less<>> attrs) {
  config::TransformationDef t;
  t.kind = kind;
  t.target = target;
  t.attrs = std::move(attrs);
  t.where.file = "t.xml";
  t.where.line = 7;
  return t;
}

// A rank holding rows [j0, j1) of an ni x nj domain, i fastest.
Component rows(std::int64_t ni, std::int64_t nj, std::int64_t j0, std::int64_t j1) {
  Component c = transform::whole_component(Component::Kind::domain, ni, nj);
  c.owned.clear();
  c.data_owner.clear();
  for (std::int64_t g = j0 * ni; g < j1 * ni; ++g) {
    c.data_owner.push_back(static_cast<std::int64_t>(c.owned.size()));
    c.owned.push_back(g);
  }
  c.lon.assign(c.owned.size(), 0.0);
  c.lat.assign(c.owned.size(), 0.0);
  c.area.assign(c.owned.size(), 1.0);
  for (std::size_t k = 0; k < c.owned.size(); ++k) c.lat[k] = 10.0 * static_cast<double>(c.owned[k] / ni);
  return c;
}

std::string error_of(const config::TransformationDef& t, const Component& source) {
  try {
    transform::build_step(t, source);
  } catch (const config::ConfigError& e) {
    EXPECT_EQ(e.where.line, 7);
    return e.message;
  }
  return "";
}

}  // namespace

TEST(TransformApply, GatherWithInnerAndOuterAndMissingPositions) {
  Transform t;
  t.outer = 2, t.inner = 2, t.n_source = 3, t.n_target = 2;
  t.start = {0, 1, 2};
  t.source = {2, -1};
  const std::vector<double> in = {0, 1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 15};
  std::vector<double> out(t.output_size());
  t.apply(in.data(), out.data());
  EXPECT_EQ(out[0], 4);
  EXPECT_EQ(out[1], 5);
  EXPECT_TRUE(std::isnan(out[2]) && std::isnan(out[3]));
  EXPECT_EQ(out[4], 14);
  EXPECT_EQ(out[5], 15);
}

TEST(TransformApply, ReductionsSkipMissingAndGiveNaNWithoutValidInput) {
  Transform t;
  t.n_source = 5, t.n_target = 2;
  t.start = {0, 3, 5};
  t.source = {0, 1, 2, 3, 4};
  const std::vector<double> in = {1.5, kNaN, 4.0, kNaN, kNaN};
  std::vector<double> out(2);
  for (auto [op, want] :
       {std::pair{Operation::sum, 5.5}, {Operation::min, 1.5}, {Operation::max, 4.0}, {Operation::average, 2.75}}) {
    t.op = op;
    t.apply(in.data(), out.data());
    EXPECT_EQ(out[0], want) << transform::operation_name(op);
    EXPECT_TRUE(std::isnan(out[1])) << transform::operation_name(op);
  }
  t.op = Operation::average;
  t.weight = {1.0, 5.0, 3.0, 1.0, 1.0};
  t.apply(in.data(), out.data());
  EXPECT_EQ(out[0], (1.5 + 3.0 * 4.0) / 4.0);  // the missing value's weight does not count
}

TEST(TransformBuild, ZoomOfABandKeepsItsPointsInOrder) {
  const Component band = rows(6, 4, 1, 3);  // rows 1 and 2
  const auto s = transform::build_step(
      def("zoom_domain", "domain", {{"ibegin", "2"}, {"ni", "3"}, {"jbegin", "2"}, {"nj", "2"}}), band);
  EXPECT_EQ(s.target.ni_glo, 3);
  EXPECT_EQ(s.target.nj_glo, 2);
  EXPECT_EQ(s.target.owned, (std::vector<std::int64_t>{0, 1, 2}));  // row 2 of the source is row 0 of the box
  EXPECT_EQ(s.map.source, (std::vector<std::int64_t>{8, 9, 10}));   // (2..4, 2) in the band's data
  EXPECT_EQ(s.text, "zoom_domain 6x4 -> 3x2");
  // The older spelling, and the whole domain by default.
  const auto old = transform::build_step(
      def("zoom_domain", "domain", {{"zoom_ibegin", "0"}, {"zoom_ni", "1"}, {"zoom_jbegin", "1"}, {"zoom_nj", "1"}}),
      band);
  EXPECT_EQ(old.map.source, (std::vector<std::int64_t>{0}));
  EXPECT_EQ(transform::build_step(def("extract_domain", "domain", {}), band).target.owned.size(), 12u);
}

TEST(TransformBuild, AxisSelectionsAndInverse) {
  const Component lev = transform::whole_component(Component::Kind::axis, 6, 1);
  auto picked = transform::build_step(def("extract_axis", "axis", {{"index", "4 1"}}), lev);
  EXPECT_EQ(picked.map.source, (std::vector<std::int64_t>{1, 4}));
  auto zoomed = transform::build_step(def("zoom_axis", "axis", {{"index", "4 1"}}), lev);  // the range 1..4
  EXPECT_EQ(zoomed.map.source, (std::vector<std::int64_t>{1, 2, 3, 4}));
  auto inverse = transform::build_step(def("inverse_axis", "axis", {}), lev);
  EXPECT_EQ(inverse.map.source, (std::vector<std::int64_t>{5, 4, 3, 2, 1, 0}));
  auto level = transform::build_step(def("extract_axis", "scalar", {{"position", "3"}}), lev);
  EXPECT_EQ(level.map.source, (std::vector<std::int64_t>{3}));
}

TEST(TransformBuild, ReorderDomainMovesEachPointWithItsCoordinates) {
  Component band = rows(8, 4, 1, 3);  // rows 1 and 2 of 8 x 4
  for (std::size_t k = 0; k < band.owned.size(); ++k) band.lon[k] = 45.0 * static_cast<double>(band.owned[k] % 8);
  band.nvertex = 2;
  for (double lon : band.lon) band.bounds_lon.insert(band.bounds_lon.end(), {lon - 22.5, lon + 22.5});
  const auto s = transform::build_step(def("reorder_domain", "domain",
                                           {{"invert_lat", "true"},
                                            {"shift_lon_fraction", "0.5"},
                                            {"min_lon", "-185"},
                                            {"max_lon", "175"}}),
                                       band);
  ASSERT_EQ(s.target.owned.size(), 16u);
  // Source (i, j) is target ((i + 4) % 8, 3 - j); the data stay in place.
  for (std::size_t k = 0; k < 16; ++k) {
    const std::int64_t i = band.owned[k] % 8, j = band.owned[k] / 8;
    EXPECT_EQ(s.target.owned[k], (3 - j) * 8 + (i + 4) % 8) << k;
    EXPECT_EQ(s.map.source[k], static_cast<std::int64_t>(k));
    EXPECT_EQ(s.target.lat[k], 10.0 * static_cast<double>(j));
    const double lon = 45.0 * static_cast<double>(i);
    EXPECT_EQ(s.target.lon[k], lon > 175.0 ? lon - 360.0 : lon) << k;
  }
  EXPECT_EQ(s.target.bounds_lon[2 * 4], -202.5);  // i = 4: 180 is -180, its corners follow it
  EXPECT_EQ(s.target.bounds_lon[2 * 4 + 1], -157.5);
  EXPECT_EQ(s.target.bounds_lon[2 * 3 + 1], 157.5);
  // A negative fraction turns the other way (truncated: 8 * -0.3 is -2 columns).
  const auto back = transform::build_step(def("reorder_domain", "domain", {{"shift_lon_fraction", "-0.3"}}), band);
  EXPECT_EQ(back.target.owned[0], 8 + 6);
  EXPECT_EQ(back.target.lon, band.lon);
  EXPECT_NE(error_of(def("reorder_domain", "domain", {{"min_lon", "0"}}), band).find("give both min_lon and max_lon"),
            std::string::npos);
  EXPECT_NE(error_of(def("reorder_domain", "domain", {{"min_lon", "0"}, {"max_lon", "0"}}), band)
                .find("must be greater than min_lon"),
            std::string::npos);
  band.type = "curvilinear";
  EXPECT_NE(error_of(def("reorder_domain", "domain", {}), band).find("rectilinear domains only"), std::string::npos);
  // expand_domain writes the source's domain as it is.
  const auto same = transform::build_step(def("expand_domain", "domain", {{"type", "node"}}), rows(8, 4, 1, 3));
  EXPECT_EQ(same.target.owned, rows(8, 4, 1, 3).owned);
  EXPECT_EQ(same.map.source, rows(8, 4, 1, 3).data_owner);
}

TEST(TransformBuild, ZonalReductionOfWholeRowsListsEachRowInGlobalOrder) {
  const Component band = rows(3, 4, 1, 3);
  const auto s =
      transform::build_step(def("reduce_domain", "axis", {{"operation", "average"}, {"direction", "jDir"}}), band);
  EXPECT_EQ(s.target.owned, (std::vector<std::int64_t>{1, 2}));
  EXPECT_EQ(s.target.lon, (std::vector<double>{10.0, 20.0}));  // the rows' latitudes
  EXPECT_EQ(s.map.start, (std::vector<std::int64_t>{0, 3, 6}));
  EXPECT_EQ(s.map.source, (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5}));
}

// A HEALPix pyramid level: each level-1 cell averages its 4 nested
// children of level 2 (a rank holding cells 16..39: level-1 cells 4..9);
// from level 0 a rank holding part of a base cell's 16 children is refused.
TEST(TransformBuild, CoarsenHealpixAveragesTheNestedChildren) {
  Component hp = transform::whole_component(Component::Kind::domain, 192, 1);
  hp.type = "healpix", hp.healpix_level = 2;
  hp.owned.clear(), hp.data_owner.clear();
  for (std::int64_t g = 39; g >= 16; --g) {  // in reverse order
    hp.data_owner.push_back(static_cast<std::int64_t>(hp.owned.size()));
    hp.owned.push_back(g);
  }
  hp.lon.assign(hp.owned.size(), 0.0), hp.lat.assign(hp.owned.size(), 0.0);
  const auto s = transform::build_step(def("coarsen_healpix", "domain", {{"refinement_level", "1"}}), hp);
  EXPECT_EQ(s.target.type, "healpix");
  EXPECT_EQ(s.target.healpix_level, 1);
  EXPECT_EQ(s.target.ni_glo, 48);
  EXPECT_EQ(s.target.owned, (std::vector<std::int64_t>{4, 5, 6, 7, 8, 9}));
  EXPECT_EQ(s.map.op, Operation::average);
  EXPECT_EQ(s.map.start[1], 4);
  EXPECT_EQ(s.map.source[0], 23);  // cell 16, the last of the rank's data, comes first (increasing index)
  std::vector<double> in(24), out(6);
  for (std::size_t k = 0; k < in.size(); ++k) in[k] = static_cast<double>(hp.owned[k]);
  in[0] = kNaN;  // cell 39 missing: cell 9 averages 36, 37, 38
  s.map.apply(in.data(), out.data());
  EXPECT_EQ(out[0], (16.0 + 17.0 + 18.0 + 19.0) / 4);
  EXPECT_EQ(out[5], (36.0 + 37.0 + 38.0) / 3);
  EXPECT_NE(error_of(def("coarsen_healpix", "domain", {{"refinement_level", "0"}}), hp)
                .find("combining across ranks is not supported yet"),
            std::string::npos);  // a rank's own step; build_reduction gathers split cells first
  EXPECT_NE(error_of(def("coarsen_healpix", "domain", {{"refinement_level", "2"}}), hp).find("coarser than"),
            std::string::npos);
}

TEST(TransformBuild, CoarsenHealpixRingTakesTheNestedChildrenInNestedOrder) {
  Component hr = transform::whole_component(Component::Kind::domain, 192, 1);
  hr.type = "healpix", hr.healpix_level = 2, hr.healpix_nested = false;
  hr.lon.assign(hr.owned.size(), 0.0), hr.lat.assign(hr.owned.size(), 0.0);
  const auto s = transform::build_step(def("coarsen_healpix", "domain", {{"refinement_level", "1"}}), hr);
  EXPECT_EQ(s.target.type, "healpix");
  EXPECT_FALSE(s.target.healpix_nested);  // a ring level from a ring source
  ASSERT_EQ(s.target.owned.size(), 48u);
  EXPECT_EQ(s.target.owned[20], 20);
  // healpy: ring cell 0 of nside 2 is nested 3, whose children 12..15 are
  // ring cells 13, 5, 4, 0 of nside 4; ring 20 -> nested 17 -> 105, 89, 88, 73.
  const auto members = [&](std::size_t k) {
    return std::vector<std::int64_t>(s.map.source.begin() + s.map.start[k], s.map.source.begin() + s.map.start[k + 1]);
  };
  EXPECT_EQ(members(0), (std::vector<std::int64_t>{13, 5, 4, 0}));
  EXPECT_EQ(members(20), (std::vector<std::int64_t>{105, 89, 88, 73}));
  EXPECT_EQ(members(47), (std::vector<std::int64_t>{191, 187, 186, 178}));
}

TEST(TransformBuild, RefusalsNameTheReason) {
  const Component band = rows(6, 4, 1, 3);
  EXPECT_NE(error_of(def("zoom_domain", "domain", {{"ibegin", "4"}, {"ni", "3"}, {"jbegin", "0"}, {"nj", "1"}}), band)
                .find("is not inside the source domain of 6x4 points"),
            std::string::npos);
  EXPECT_NE(
      error_of(def("zoom_domain", "domain", {{"ibegin", "1"}}), band).find("give all of ibegin, ni, jbegin and nj"),
      std::string::npos);
  // Columns are split between ranks: a meridional reduction would combine across them.
  EXPECT_NE(error_of(def("reduce_domain", "axis", {{"operation", "sum"}, {"direction", "iDir"}}), band)
                .find("combining across ranks is not supported yet"),
            std::string::npos);
  EXPECT_NE(error_of(def("reduce_domain", "scalar", {{"operation", "min"}, {"weights", "area"}}), band)
                .find("applies to sum and average"),
            std::string::npos);
  const Component lev = transform::whole_component(Component::Kind::axis, 6, 1);
  EXPECT_NE(error_of(def("zoom_axis", "axis", {{"begin", "4"}, {"n", "3"}}), lev).find("is not inside the source axis"),
            std::string::npos);
  EXPECT_NE(error_of(def("zoom_domain", "domain", {}), lev).find("is axis, not a domain"), std::string::npos);
}

namespace {

const char* kXml = R"(<simulation><context id="c">
<domain_definition>
  <domain id="globe"/>
  <domain id="box" domain_ref="globe"><zoom_domain ibegin="1" ni="2" jbegin="0" nj="1"/></domain>
  <domain id="inner" domain_ref="box"><extract_domain ibegin="0" ni="1" jbegin="0" nj="1"/></domain>
  <domain id="other"/>
</domain_definition>
<axis_definition><axis id="lev" n_glo="3"/></axis_definition>
<grid_definition>
  <grid id="g"><domain domain_ref="globe"/><axis axis_ref="lev"/></grid>
  <grid id="g_inline"><domain domain_ref="inner"/><scalar><reduce_axis operation="sum"/></scalar></grid>
  <grid id="g_other"><domain domain_ref="other"/><axis axis_ref="lev"/></grid>
</grid_definition>
</context></simulation>)";

}  // namespace

TEST(TransformChain, ChainsThroughReferencesAndInlineComponents) {
  const config::Simulation sim = config::parse_string(kXml, "chain.xml", ".");
  const config::ContextDef& ctx = *sim.find_context("c");
  const auto source = ctx.find_grid("g")->components;
  const auto target = ctx.find_grid("g_inline")->components;
  const auto chains = transform::chains_between(ctx, source, target, ctx.where, "f");
  ASSERT_EQ(chains.size(), 2u);
  ASSERT_EQ(chains[0].size(), 2u);  // zoom_domain (box), then extract_domain (inner)
  EXPECT_EQ(chains[0][0]->kind, "zoom_domain");
  EXPECT_EQ(chains[0][1]->kind, "extract_domain");
  ASSERT_EQ(chains[1].size(), 1u);
  EXPECT_EQ(chains[1][0]->kind, "reduce_axis");
  EXPECT_EQ(target[1].ref, "scalar_g_inline_2");  // the inline scalar's generated id
  // A transformed domain made from another domain than the source's.
  try {
    transform::chains_between(ctx, ctx.find_grid("g_other")->components, target, ctx.where, "f");
    FAIL() << "no error";
  } catch (const config::ConfigError& e) {
    EXPECT_EQ(e.where.line, 4);
    EXPECT_NE(e.message.find("transforms domain 'globe', but the source field's grid has domain 'other'"),
              std::string::npos)
        << e.message;
  }
}

TEST(TransformConfig, UnknownAttributesAndUnsupportedTransformationsAtTheirLine) {
  const auto error = [](const std::string& body) {
    try {
      config::parse_string("<simulation><context id=\"c\">\n" + body + "\n</context></simulation>", "x.xml", ".");
    } catch (const config::ConfigError& e) { return std::to_string(e.where.line) + ": " + e.message; }
    return std::string("no error");
  };
  EXPECT_EQ(error("<domain_definition><domain id=\"d\"><zoom_domain ibegn=\"1\"/></domain></domain_definition>"),
            "2: unknown attribute 'ibegn' on <zoom_domain> in <domain>; did you mean 'ibegin'?");
  EXPECT_EQ(error("<axis_definition><axis id=\"a\"><reduce_axis operation=\"mean\"/></axis></axis_definition>"),
            "2: bad value 'mean' for operation on <reduce_axis>: expected one of sum|min|max|average; did you mean "
            "'min'?");
  EXPECT_NE(error("<scalar_definition><scalar id=\"s\"><reduce_axis operation=\"mean\"/></scalar></scalar_definition>")
                .find("bad value 'mean' for operation on <reduce_axis>: expected one of sum|min|max|average"),
            std::string::npos);
  EXPECT_EQ(error("<domain_definition><domain id=\"d\"><compute_connectivity_domain/></domain></domain_definition>"),
            "2: spatial transformation <compute_connectivity_domain> in <domain> is not supported yet");
  EXPECT_EQ(error("<domain_definition><domain id=\"d\"><expand_domain type=\"face\"/></domain></domain_definition>"),
            "2: bad value 'face' for type on <expand_domain>: expected one of node|edge");
  EXPECT_EQ(error("<domain_definition><domain id=\"d\"><reorder_domain invert_lat=\"yes\"/></domain></domain_definition>"),
            "2: bad value 'yes' for invert_lat on <reorder_domain>: expected true or false");
  EXPECT_EQ(error("<domain_definition><domain id=\"d\"/><domain id=\"r\" domain_ref=\"d\"><reorder_domain "
                  "invert_lat=\"true\" shift_lon_fraction=\"0.25\" min_lon=\"0\" max_lon=\"360\"/></domain>"
                  "<domain id=\"e\" domain_ref=\"d\"><expand_domain order=\"1\" type=\"edge\" i_periodic=\"true\" "
                  "j_periodic=\"false\"/></domain></domain_definition>"),
            "no error");
  EXPECT_EQ(
      error("<domain_definition><domain id=\"d\"><interpolate_domain order=\"one\"/></domain></domain_definition>"),
      "2: bad value 'one' for order on <interpolate_domain>: expected an integer");
  EXPECT_EQ(error("<scalar_definition><scalar id=\"s\"><duplicate_scalar/></scalar></scalar_definition>"),
            "2: spatial transformation <duplicate_scalar> in <scalar> is not supported yet");
  EXPECT_EQ(error("<axis_definition><axis id=\"a\"/></axis_definition><grid_definition><grid id=\"g\">\n"
                  "<axis axis_ref=\"a\"><redistribute_axis/></axis></grid></grid_definition>"),
            "3: spatial transformation <redistribute_axis> in <axis> is not supported yet");
}
