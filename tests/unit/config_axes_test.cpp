// Tests of the axis and scalar parts of the XML reader: axis bounds (two per
// value, errors at their line), axis_type, and scalars in grids and on fields.
#include <gtest/gtest.h>

#include <string>

#include "config/config.h"

using namespace foehn::config;

namespace {

Simulation parse(const std::string& xml) { return parse_string(xml, "inline.xml", "."); }

TEST(ConfigAxes, BoundsAreTwoPerValue) {
  const Simulation sim = parse(R"(<simulation><context id="a">
    <axis_definition>
      <axis id="plev" value="850 500" bounds="1000 700 700 300" axis_type="Z"/>
    </axis_definition>
    <scalar_definition><scalar id="h" value="2" unit="m" positive="up"/></scalar_definition>
    <grid_definition><grid id="g"><axis axis_ref="plev"/><scalar scalar_ref="h"/></grid></grid_definition>
  </context></simulation>)");
  const ContextDef& c = sim.contexts.at(0);
  const AxisDef* plev = c.find_axis("plev");
  ASSERT_NE(plev, nullptr);
  EXPECT_EQ(plev->bounds, (std::vector<double>{1000, 700, 700, 300}));
  EXPECT_EQ(plev->extra.at("axis_type"), "Z");
  EXPECT_EQ(c.find_scalar("h")->value, 2.0);
  ASSERT_EQ(c.find_grid("g")->components.size(), 2u);
  EXPECT_EQ(c.find_grid("g")->components[1].kind, GridComponent::Kind::scalar);
}

TEST(ConfigAxes, WrongNumberOfBoundsIsRefusedAtItsLine) {
  try {
    parse(
        "<simulation><context id=\"a\">\n<axis_definition>\n"
        "<axis id=\"plev\" value=\"850 500\" bounds=\"1000 700 700\"/>\n"
        "</axis_definition></context></simulation>");
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.where.line, 3);
    EXPECT_NE(std::string(e.what()).find("inline.xml:3"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("axis 'plev' has 3 bounds; it needs 2 per value (2 x n_glo = 4)"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
