// The reader's side of HEALPix output (docs/kmscale.md): healpix domains'
// attributes, and healpix_pyramid expanded into one field per level with
// the <coarsen_healpix> domains and grids they need; bad values refused at
// their line.
#include <gtest/gtest.h>

#include <string>

#include "config/config.h"

using namespace foehn::config;

namespace {

const std::string kHead = R"(<simulation><context id="a"><axis_definition><axis id="lev" n_glo="2"/></axis_definition>
<domain_definition><domain id="hp" type="healpix" refinement_level="3" indexing_scheme="nested"/>
<domain id="rg" type="healpix" refinement_level="2" indexing_scheme="ring"/></domain_definition>
<grid_definition><grid id="g3"><domain domain_ref="hp"/><axis axis_ref="lev"/></grid></grid_definition>
<field_definition><field id="tas" domain_ref="hp"/><field id="ta" grid_ref="g3"/><field id="r" domain_ref="rg"/>
</field_definition><file_definition><file id="f" output_freq="1ts">
)";
const std::string kTail = "\n</file></file_definition></context></simulation>";

Simulation parse(const std::string& fields) { return parse_string(kHead + fields + kTail, "inline.xml", "."); }

std::string error_of(const std::string& fields) {
  try {
    parse(fields);
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.where.line, 7) << e.what();  // the file's field line
    return e.what();
  }
  return "";
}

TEST(ConfigHealpix, DomainAttributes) {
  const Simulation s = parse(R"(<field field_ref="tas"/>)");
  const DomainDef* d = s.contexts.at(0).find_domain("rg");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->type, "healpix");
  EXPECT_EQ(d->refinement_level, 2);
  EXPECT_EQ(d->indexing_scheme, "ring");
}

TEST(ConfigHealpix, PyramidBecomesOneFieldPerLevel) {
  const Simulation s = parse(R"(<field field_ref="tas" healpix_pyramid="3..1"/><field field_ref="ta" healpix_pyramid="3..2"/>)");
  const ContextDef& c = s.contexts.at(0);
  const FileDef& f = c.files.at(0);
  ASSERT_EQ(f.fields.size(), 5u);
  EXPECT_EQ(f.fields[0].name, "tas_z3");
  EXPECT_EQ(f.fields[0].domain_ref, "hp");  // the finest: the field's own domain
  EXPECT_EQ(f.fields[2].name, "tas_z1");
  EXPECT_EQ(f.fields[2].domain_ref, "hp_z1");
  EXPECT_EQ(f.fields[2].field_ref, "tas");
  EXPECT_EQ(f.fields[4].name, "ta_z2");
  EXPECT_EQ(f.fields[4].grid_ref, "g3_z2");
  const DomainDef* z1 = c.find_domain("hp_z1");
  ASSERT_NE(z1, nullptr);
  EXPECT_EQ(z1->ref, "hp");
  ASSERT_EQ(z1->transformations.size(), 1u);
  EXPECT_EQ(z1->transformations[0].kind, "coarsen_healpix");
  EXPECT_EQ(*z1->transformations[0].attr("refinement_level"), "1");
  const GridDef* g = c.find_grid("g3_z2");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->components.at(0).ref, "hp_z2");
  EXPECT_EQ(g->components.at(1).ref, "lev");
}

TEST(ConfigHealpix, PyramidRefusals) {
  EXPECT_NE(error_of(R"(<field field_ref="tas" healpix_pyramid="0..3"/>)").find("expected <finest>..<coarsest>"),
            std::string::npos);
  EXPECT_NE(error_of(R"(<field field_ref="tas" healpix_pyramid="4..0"/>)").find("has refinement_level 3, not 4"),
            std::string::npos);
}

TEST(ConfigHealpix, RingPyramidLevelsKeepTheRingScheme) {
  const Simulation s = parse(R"(<field field_ref="r" healpix_pyramid="2..0"/>)");
  const ContextDef& c = s.contexts.at(0);
  for (const char* id : {"rg_z1", "rg_z0"}) {
    const DomainDef* d = c.find_domain(id);
    ASSERT_NE(d, nullptr) << id;
    EXPECT_EQ(d->indexing_scheme, "ring");
    ASSERT_EQ(d->transformations.size(), 1u);
    EXPECT_EQ(d->transformations[0].kind, "coarsen_healpix");
  }
}

}  // namespace
