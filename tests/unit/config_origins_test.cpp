// Tests of where resolved attributes came from (AttributeOrigins on the
// structs of config.h) and of the warnings about attributes that hide a
// value set elsewhere (Simulation::warnings): src/config/origins.cpp.
#include <gtest/gtest.h>

#include <string>

#include "config/config.h"

using namespace foehn::config;

namespace {

const std::string kDir = std::string(FOEHN_TEST_DATA_DIR) + "/config/";

Simulation parse(const std::string& xml) { return parse_string(xml, "inline.xml", kDir); }

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

const AttributeOrigin& origin(const AttributeOrigins& o, const std::string& name) {
  const auto it = o.find(name);
  if (it == o.end()) throw std::runtime_error("no attribute " + name);
  return it->second;
}

}  // namespace

TEST(ConfigOrigins, OwnGroupRootAndReference) {
  const Simulation sim = parse(
      "<simulation><context id='c'>\n"                      // 1
      "<field_definition prec='8' unit='root'>\n"           // 2
      "  <field_group id='g' unit='grp' long_name='L'>\n"   // 3
      "    <field id='t' unit='K' operation='average'/>\n"  // 4
      "  </field_group>\n"                                  // 5
      "  <field id='r' field_ref='t' name='rr'/>\n"         // 6
      "</field_definition>\n"                               // 7
      "</context></simulation>\n");
  const ContextDef& c = sim.contexts.at(0);
  const FieldDef& t = *c.find_field("t");
  EXPECT_EQ(origin(t.origins, "unit").value, "K");
  EXPECT_EQ(origin(t.origins, "unit").where->line, 4);
  EXPECT_EQ(origin(t.origins, "unit").via, "");
  EXPECT_EQ(origin(t.origins, "long_name").where->line, 3);
  EXPECT_EQ(origin(t.origins, "long_name").via, "<field_group id='g'>");
  EXPECT_EQ(origin(t.origins, "prec").where->line, 2);
  EXPECT_EQ(origin(t.origins, "prec").via, "<field_definition>");
  EXPECT_EQ(origin(t.origins, "id").via, "");
  EXPECT_EQ(t.origins.count("enabled"), 0u);  // defaults are not listed

  const FieldDef& r = *c.find_field("r");
  EXPECT_EQ(origin(r.origins, "name").via, "");
  EXPECT_EQ(origin(r.origins, "operation").value, "average");
  EXPECT_EQ(origin(r.origins, "operation").where->line, 4);
  EXPECT_EQ(origin(r.origins, "operation").via, "field_ref 't'");
  EXPECT_EQ(origin(r.origins, "long_name").where->line, 3);
  EXPECT_EQ(origin(r.origins, "long_name").via, "field_ref 't' <- <field_group id='g'>");
  EXPECT_EQ(origin(r.origins, "unit").value, "root");  // the root wins over the target
  EXPECT_EQ(origin(r.origins, "unit").via, "<field_definition>");
  EXPECT_EQ(origin(r.origins, "id").value, "r");
  EXPECT_EQ(r.origins.size(), 7u);  // id name field_ref operation long_name unit prec
  // One Location per place, shared by the origins that point at it: t's own
  // attributes, and what r takes from t and from the group.
  EXPECT_EQ(&*origin(t.origins, "unit").where, &*origin(t.origins, "operation").where);
  EXPECT_EQ(&*origin(r.origins, "operation").where, &*origin(t.origins, "operation").where);
  EXPECT_EQ(&*origin(r.origins, "long_name").where, &*origin(t.origins, "long_name").where);
  EXPECT_NE(&*origin(r.origins, "name").where, &*origin(t.origins, "unit").where);
  EXPECT_EQ(origin(t.origins, "unit").where->path, "context[id=c]/field_definition/field_group[id=g]/field[id=t]");

  // The definition root's unit hides the target's: one warning, at r's line.
  ASSERT_EQ(sim.warnings.size(), 1u);
  EXPECT_EQ(sim.warnings[0].where.line, 6);
  EXPECT_EQ(sim.warnings[0].str(),
            "inline.xml:6: warning: field 'r': unit='root' from inline.xml:2, <field_definition> overrides "
            "unit='K' of its field_ref 't' (inline.xml:4); groups are applied before references");
}

TEST(ConfigOrigins, FilesDomainsAxesGridsAndGroupRef) {
  const Simulation sim = parse(
      "<simulation><context id='c'>\n"                                                                          // 1
      "<axis_definition><axis id='a' n_glo='3'/><axis id='b' axis_ref='a'/></axis_definition>\n"                // 2
      "<domain_definition type='gaussian'><domain id='d' ni_glo='5'/></domain_definition>\n"                    // 3
      "<grid_definition><grid id='g' description='x'><domain id='d'/></grid></grid_definition>\n"               // 4
      "<field_definition><field_group id='fg'><field id='t' grid_ref='g'/></field_group></field_definition>\n"  // 5
      "<file_definition output_freq='1d'>\n"                                                                    // 6
      "  <file id='f'><field_group group_ref='fg'/></file>\n"                                                   // 7
      "</file_definition></context></simulation>\n");
  const ContextDef& c = sim.contexts.at(0);
  EXPECT_EQ(origin(c.find_axis("b")->origins, "n_glo").via, "axis_ref 'a'");
  EXPECT_EQ(origin(c.find_axis("b")->origins, "n_glo").where->line, 2);
  EXPECT_EQ(origin(c.find_domain("d")->origins, "type").via, "<domain_definition>");
  EXPECT_EQ(origin(c.find_grid("g")->origins, "description").where->line, 4);
  const FileDef& f = *c.find_file("f");
  EXPECT_EQ(origin(f.origins, "output_freq").via, "<file_definition>");
  EXPECT_EQ(origin(f.origins, "output_freq").where->line, 6);
  ASSERT_EQ(f.fields.size(), 1u);
  EXPECT_EQ(origin(f.fields[0].origins, "field_ref").via, "<field_group group_ref='fg'>");
  EXPECT_EQ(origin(f.fields[0].origins, "field_ref").where->line, 7);
  EXPECT_EQ(origin(f.fields[0].origins, "grid_ref").via, "field_ref 't'");
  EXPECT_EQ(origin(f.fields[0].origins, "grid_ref").where->line, 5);
  EXPECT_TRUE(sim.warnings.empty());
}

TEST(ConfigOrigins, IncludedFiles) {
  const Simulation sim = parse_file(kDir + "include/main.xml");
  const ContextDef& atm = *sim.find_context("atm");
  const FieldDef& t = *atm.find_field("t");
  const AttributeOrigin& op = origin(t.origins, "operation");
  EXPECT_EQ(op.value, "average");
  EXPECT_TRUE(ends_with(op.where->file, "include/defs/field_def.xml")) << op.where->file;
  EXPECT_EQ(op.where->line, 4);
  EXPECT_EQ(op.via, "<field_definition> (root of included file)");
  const AttributeOrigin& prec = origin(t.origins, "prec");
  EXPECT_EQ(prec.value, "4");
  EXPECT_TRUE(ends_with(prec.where->file, "include/main.xml")) << prec.where->file;
  EXPECT_EQ(prec.where->line, 4);
  // main.xml sets prec="4" on the element that includes a root with prec="8".
  ASSERT_EQ(sim.warnings.size(), 1u);
  EXPECT_TRUE(ends_with(sim.warnings[0].where.file, "include/main.xml"));
  EXPECT_EQ(sim.warnings[0].where.line, 4);
  EXPECT_NE(sim.warnings[0].message.find("prec='4' on <field_definition> overrides prec='8' set on the root of "
                                         "the included file ("),
            std::string::npos)
      << sim.warnings[0].message;
  EXPECT_NE(sim.warnings[0].message.find("include/defs/field_def.xml:4)"), std::string::npos);
}

TEST(ConfigOrigins, NoWarningForOwnAttributesOrEqualValues) {
  const Simulation sim = parse(
      "<simulation><context id='c'><field_definition operation='average'>"
      "<field id='t' unit='K'/>"
      "<field id='a' field_ref='t' unit='C'/>"                                        // own: deliberate
      "<field id='b' field_ref='t'/>"                                                 // root says average, so does t's
      "<field_group operation='maximum'><field id='m' field_ref='t'/></field_group>"  // t's is the root's
      "</field_definition></context></simulation>");
  EXPECT_TRUE(sim.warnings.empty());
}

TEST(ConfigOrigins, GroupOverridingReferenceWarnsEachTime) {
  const Simulation sim = parse_file(kDir + "field_ref.xml");
  // temp_max2 -> temp_max (maximum) takes operation='instant' from the root;
  // in the file, the accumulate group hides temp_max's maximum.
  std::string all;
  for (const ConfigWarning& w : sim.warnings) all += w.str() + "\n";
  EXPECT_NE(all.find("field_ref.xml:32: warning: field 'temp_max2': operation='instant' from "), std::string::npos)
      << all;
  EXPECT_NE(all.find("overrides operation='maximum' of its field_ref 'temp_max'"), std::string::npos) << all;
  // temp's 'instant' is only its root's default: no warning for temp_avg.
  EXPECT_EQ(all.find("'temp_avg'"), std::string::npos) << all;
  EXPECT_EQ(sim.warnings.size(), 2u) << all;
  EXPECT_NE(all.find("field_ref.xml:45: warning: <field field_ref='temp_max'>: operation='accumulate'"),
            std::string::npos)
      << all;
}
