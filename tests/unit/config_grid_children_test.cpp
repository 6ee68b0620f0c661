// Tests of a grid's <domain>/<axis>/<scalar> children (src/config/grid_children.cpp):
// as in XIOS, a child with a new id or with attributes defines an element of
// the context, usable by id everywhere; a child whose id names an existing
// element is that element, its attributes set on it.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "config/config.h"

using namespace foehn::config;

namespace {

Simulation parse(const std::string& xml) { return parse_string(xml, "inline.xml", "."); }

template <typename Defs>
std::size_t count_id(const Defs& defs, const std::string& id) {
  return static_cast<std::size_t>(std::count_if(defs.begin(), defs.end(), [&](const auto& d) { return d.id == id; }));
}

std::string error_of(const std::string& xml) {
  try {
    parse(xml);
  } catch (const ConfigError& e) { return e.what(); }
  ADD_FAILURE() << "no ConfigError thrown";
  return {};
}

TEST(ConfigGridChildren, AxisWithValuesDefinedInAGridIsUsableEverywhere) {
  // XIOS's test_diurnal_cycle: grid_B defines axis_B in place.
  const Simulation sim = parse(R"(<simulation><context id="a">
    <axis_definition>
      <axis id="pressure" n_glo="3" value="(0,2)[9 8 7]"/>
      <axis id="axis_B_zoomed" axis_ref="axis_B"><zoom_axis begin="1" n="2"/></axis>
    </axis_definition>
    <grid_definition>
      <grid id="grid_B">
        <axis axis_ref="pressure"/>
        <axis id="axis_B" n_glo="4" value="(0,3)[6 12 18 24]" unit="h"/>
      </grid>
      <grid id="grid_C"><axis id="axis_B"/></grid>
    </grid_definition>
    <field_definition><field id="f" axis_ref="axis_B"/></field_definition>
  </context></simulation>)");
  const ContextDef& c = sim.contexts.at(0);
  const AxisDef* b = c.find_axis("axis_B");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->n_glo, 4);
  EXPECT_EQ(b->value, (std::vector<double>{6, 12, 18, 24}));
  EXPECT_EQ(b->unit, "h");
  EXPECT_EQ(b->name, "");  // written under its id
  EXPECT_EQ(b->where.line, 9);
  EXPECT_EQ(count_id(c.axes, "axis_B"), 1u);  // grid_C's child is the same axis
  const GridDef* g = c.find_grid("grid_B");
  ASSERT_EQ(g->components.size(), 2u);
  EXPECT_EQ(g->components[0].ref, "pressure");
  EXPECT_EQ(g->components[1].ref, "axis_B");
  EXPECT_EQ(c.find_grid("grid_C")->components.at(0).ref, "axis_B");
  // An axis_ref to it inherits its values; a field's axis_ref finds it.
  const AxisDef* zoomed = c.find_axis("axis_B_zoomed");
  EXPECT_EQ(zoomed->value, (std::vector<double>{6, 12, 18, 24}));
  EXPECT_EQ(zoomed->transformations.size(), 1u);
  EXPECT_EQ(c.find_field("f")->axis_ref, "axis_B");
}

TEST(ConfigGridChildren, ScalarsDefinedInAGrid) {
  // XIOS's test_client: <grid id="grid_Scalar"><scalar id="scalar_A"/></grid>.
  const Simulation sim = parse(R"(<simulation><context id="a"><grid_definition>
      <grid id="grid_Scalar"><scalar id="scalar_A"/></grid>
      <grid id="grid_S2"><scalar id="s2" value="3.5" unit="K" long_name="two metres"/></grid>
      <grid id="grid_anon"><scalar/></grid>
    </grid_definition></context></simulation>)");
  const ContextDef& c = sim.contexts.at(0);
  ASSERT_NE(c.find_scalar("scalar_A"), nullptr);
  EXPECT_FALSE(c.find_scalar("scalar_A")->value.has_value());
  const ScalarDef* s2 = c.find_scalar("s2");
  ASSERT_NE(s2, nullptr);
  EXPECT_EQ(s2->value, 3.5);
  EXPECT_EQ(s2->unit, "K");
  EXPECT_EQ(s2->long_name, "two metres");
  EXPECT_EQ(c.find_grid("grid_Scalar")->components.at(0).ref, "scalar_A");
  EXPECT_EQ(c.find_grid("grid_anon")->components.at(0).ref, "");  // an anonymous scalar stays one
  EXPECT_EQ(c.scalars.size(), 2u);
}

TEST(ConfigGridChildren, DomainDefinedInAGridLeavesTheRestToTheModel) {
  // XIOS's test_basic_2D: <axis id="x"/> in a grid, its size set later from code.
  const Simulation sim = parse(R"(<simulation><context id="a"><grid_definition>
      <grid id="g"><domain id="d" type="curvilinear" long_name="ocean"/><axis id="x"/></grid>
    </grid_definition></context></simulation>)");
  const ContextDef& c = sim.contexts.at(0);
  const DomainDef* d = c.find_domain("d");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->type, "curvilinear");
  EXPECT_EQ(d->long_name, "ocean");
  EXPECT_FALSE(d->ni_glo.has_value());
  const AxisDef* x = c.find_axis("x");
  ASSERT_NE(x, nullptr);
  EXPECT_FALSE(x->n_glo.has_value());
  EXPECT_TRUE(x->value.empty());
}

TEST(ConfigGridChildren, IdWithReferenceInheritsAndOverrides) {
  const Simulation sim = parse(R"(<simulation><context id="a">
    <axis_definition><axis id="plev" name="lev" n_glo="2" value="850 500" unit="Pa" positive="down"/></axis_definition>
    <grid_definition><grid id="g"><axis id="plev_hpa" axis_ref="plev" unit="hPa"/></grid></grid_definition>
  </context></simulation>)");
  const ContextDef& c = sim.contexts.at(0);
  const AxisDef* p = c.find_axis("plev_hpa");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->value, (std::vector<double>{850, 500}));
  EXPECT_EQ(p->unit, "hPa");
  EXPECT_EQ(p->positive, "down");
  EXPECT_EQ(p->name, "lev");  // inherited, as XIOS does
  EXPECT_EQ(p->ref, "plev");
  EXPECT_EQ(p->origins.at("value").via, "axis_ref 'plev'");
  EXPECT_EQ(c.find_axis("plev")->unit, "Pa");  // the referenced axis is untouched
}

TEST(ConfigGridChildren, AnonymousReferenceWithAttributesIsANewElementNamedAfterItsReference) {
  // XIOS's test_new_features: <axis axis_ref="axis_C" positive="up"/>.
  const Simulation sim = parse(R"(<simulation><context id="a">
    <axis_definition><axis id="axis_C" n_glo="3" positive="down"/></axis_definition>
    <domain_definition><domain id="domain_A"/></domain_definition>
    <grid_definition><grid id="grid_A"><domain domain_ref="domain_A"/><axis axis_ref="axis_C" positive="up"/></grid>
    </grid_definition></context></simulation>)");
  const ContextDef& c = sim.contexts.at(0);
  const GridDef* g = c.find_grid("grid_A");
  EXPECT_EQ(g->components.at(0).ref, "domain_A");
  const std::string id = g->components.at(1).ref;
  EXPECT_EQ(id, "axis_C_grid_A_2");
  const AxisDef* a = c.find_axis(id);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->positive, "up");
  EXPECT_EQ(a->n_glo, 3);
  EXPECT_EQ(a->name, "axis_C");  // XIOS's output name of an anonymous axis
  EXPECT_EQ(c.find_axis("axis_C")->positive, "down");
  EXPECT_EQ(c.domains.size(), 1u);  // a bare domain_ref stays a reference
}

TEST(ConfigGridChildren, IdOfAnExistingElementIsThatElementWithTheChildsAttributes) {
  const Simulation sim = parse(R"(<simulation><context id="a">
    <axis_definition><axis id="z" n_glo="2" unit="m"/></axis_definition>
    <grid_definition>
      <grid id="g1"><axis id="z"/></grid>
      <grid id="g2"><axis id="z" positive="up" unit="km"/></grid>
    </grid_definition></context></simulation>)");
  const ContextDef& c = sim.contexts.at(0);
  EXPECT_EQ(count_id(c.axes, "z"), 1u);
  const AxisDef* z = c.find_axis("z");
  EXPECT_EQ(z->positive, "up");  // set on the axis itself, as XIOS does
  EXPECT_EQ(z->unit, "km");
  EXPECT_EQ(z->n_glo, 2);
  EXPECT_EQ(c.find_grid("g1")->components.at(0).ref, "z");
  ASSERT_EQ(sim.warnings.size(), 1u);  // the replaced unit, at the grid's child
  EXPECT_EQ(sim.warnings[0].where.line, 5);
  EXPECT_NE(sim.warnings[0].message.find("unit='km'"), std::string::npos) << sim.warnings[0].message;
  EXPECT_NE(sim.warnings[0].message.find("replacing 'm'"), std::string::npos) << sim.warnings[0].message;
}

TEST(ConfigGridChildren, ProblemsAreReportedAtTheChildsLine) {
  const std::string transformed_existing = error_of(R"(<simulation><context id="a">
<axis_definition><axis id="z" n_glo="4"/></axis_definition>
<grid_definition><grid id="g">
<axis id="z"><zoom_axis begin="1" n="2"/></axis>
</grid></grid_definition></context></simulation>)");
  EXPECT_NE(transformed_existing.find("inline.xml:4:"), std::string::npos) << transformed_existing;
  EXPECT_NE(transformed_existing.find("give this axis a new id"), std::string::npos) << transformed_existing;

  const std::string anonymous = error_of(R"(<simulation><context id="a"><grid_definition><grid id="g">
<axis/>
</grid></grid_definition></context></simulation>)");
  EXPECT_NE(anonymous.find("inline.xml:2:"), std::string::npos) << anonymous;
  EXPECT_NE(anonymous.find("needs an id"), std::string::npos) << anonymous;

  const std::string misspelt = error_of(R"(<simulation><context id="a"><grid_definition><grid id="g">
<axis id="x" n_gl="3"/>
</grid></grid_definition></context></simulation>)");
  EXPECT_NE(misspelt.find("inline.xml:2:"), std::string::npos) << misspelt;
  EXPECT_NE(misspelt.find("unknown attribute 'n_gl' on <axis>; did you mean 'n_glo'?"), std::string::npos)
      << misspelt;

  const std::string dangling = error_of(R"(<simulation><context id="a"><grid_definition><grid id="g">
<axis id="x" axis_ref="nowhere" unit="m"/>
</grid></grid_definition></context></simulation>)");
  EXPECT_NE(dangling.find("inline.xml:2:"), std::string::npos) << dangling;
  EXPECT_NE(dangling.find("axis_ref refers to unknown axis 'nowhere'"), std::string::npos) << dangling;
}

}  // namespace
