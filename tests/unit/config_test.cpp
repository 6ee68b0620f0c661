// Tests of the XML configuration reader (src/config): inheritance, references,
// includes, validation and error locations. Data files are in
// tests/data/config; malformed ones in tests/data/config/bad.
#include <gtest/gtest.h>

#include <string>

#include "config/config.h"

using namespace foehn::config;

namespace {

const std::string kDir = std::string(FOEHN_TEST_DATA_DIR) + "/config/";

Simulation load(const std::string& relative) { return parse_file(kDir + relative); }

// Parses in-memory XML (named "inline.xml", includes relative to kDir).
Simulation parse(const std::string& xml) { return parse_string(xml, "inline.xml", kDir); }

// Runs `f`, expects a ConfigError and returns it.
template <typename F>
ConfigError error_of(F&& f) {
  try {
    f();
  } catch (const ConfigError& e) { return e; }
  ADD_FAILURE() << "no ConfigError thrown";
  return ConfigError(Location{}, "none");
}

// A copy, so that `const ContextDef& c = context(parse(...), "a")` is safe.
ContextDef context(const Simulation& sim, std::string_view id) {
  const ContextDef* c = sim.find_context(id);
  if (!c) throw std::runtime_error("no context " + std::string(id));
  return *c;
}

const FieldDef& field(const ContextDef& ctx, std::string_view id) {
  const FieldDef* f = ctx.find_field(id);
  if (!f) throw std::runtime_error("no field " + std::string(id));
  return *f;
}

const FieldDef& file_field(const FileDef& file, std::string_view output_name) {
  for (const FieldDef& f : file.fields)
    if (f.output_name() == output_name) return f;
  throw std::runtime_error("no field " + std::string(output_name) + " in file " + file.id);
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

// ---- basics ----------------------------------------------------------------

TEST(ConfigBasics, LocationAndErrorFormat) {
  EXPECT_EQ((Location{"iodef.xml", 12, {}}).str(), "iodef.xml:12");
  EXPECT_EQ((Location{"iodef.xml", 0, {}}).str(), "iodef.xml");
  const ConfigError e(Location{"iodef.xml", 12, {}}, "bad thing");
  EXPECT_STREQ(e.what(), "iodef.xml:12: bad thing");
  EXPECT_EQ(e.message, "bad thing");
  EXPECT_EQ(e.where.line, 12);
}

TEST(ConfigBasics, MissingFile) {
  const ConfigError e = error_of([] { load("no_such_file.xml"); });
  EXPECT_EQ(e.where.line, 0);
  EXPECT_TRUE(ends_with(e.where.file, "no_such_file.xml"));
}

TEST(ConfigBasics, IfsIodefParsesCleanly) {
  const Simulation sim = load("iodef_ifs.xml");
  ASSERT_EQ(sim.contexts.size(), 2u);
  const ContextDef& ifs = context(sim, "ifs");
  EXPECT_TRUE(ifs.calendar.present);
  EXPECT_EQ(ifs.calendar.type, "Gregorian");
  EXPECT_EQ(ifs.calendar.timestep, "600s");
  EXPECT_EQ(ifs.fields.size(), 13u);
  ASSERT_EQ(ifs.files.size(), 2u);

  const FileDef* f3d = ifs.find_file("file_3D_bench");
  ASSERT_NE(f3d, nullptr);
  EXPECT_EQ(f3d->fields.size(), 12u);
  EXPECT_EQ(f3d->type, "multiple_file");  // from file_definition
  EXPECT_EQ(f3d->output_freq, "3h");
  EXPECT_EQ(f3d->sync_freq, "1d");
  EXPECT_EQ(f3d->output_name(), "xios_output/ifs_3d");
  ASSERT_EQ(f3d->variables.size(), 1u);
  EXPECT_EQ(f3d->variables[0].id, "title");
  const FieldDef& t = file_field(*f3d, "t");
  EXPECT_EQ(t.grid_ref, "model_levels");
  EXPECT_EQ(t.unit, "K");
  EXPECT_EQ(t.prec, 4);
  EXPECT_EQ(t.freq_op, "3h");
  EXPECT_EQ(t.default_value, 9.999e20);

  const GridDef* levels = ifs.find_grid("model_levels");
  ASSERT_NE(levels, nullptr);
  ASSERT_EQ(levels->components.size(), 2u);
  EXPECT_EQ(levels->components[0].kind, GridComponent::Kind::domain);
  EXPECT_EQ(levels->components[0].ref, "reduced_Gaussian");
  EXPECT_EQ(levels->components[1].kind, GridComponent::Kind::axis);
  EXPECT_EQ(levels->extra.at("description"), "3D_output_fields_on_model_levels");
  EXPECT_EQ(ifs.find_domain("reduced_Gaussian")->type, "gaussian");
  EXPECT_EQ(ifs.find_axis("model_levels")->n_glo, 137);

  const ContextDef& xios = context(sim, "xios");
  EXPECT_EQ(variable_string(xios, "optimal_buffer_size", ""), "performance");
  EXPECT_TRUE(variable_bool(xios, "using_server", false));
  EXPECT_EQ(variable_int(xios, "info_level", 0), 50);
}

// ---- group inheritance -----------------------------------------------------

TEST(ConfigInheritance, RootThenGroupThenChildChildWins) {
  const ContextDef& ctx = context(load("inheritance.xml"), "atm");

  const FieldDef& root_only = field(ctx, "root_only");
  EXPECT_EQ(root_only.unit, "root_unit");
  EXPECT_EQ(root_only.freq_op, "1h");
  EXPECT_EQ(root_only.operation, "average");
  EXPECT_EQ(root_only.prec, 8);
  EXPECT_EQ(root_only.level, 1);

  const FieldDef& in_outer = field(ctx, "in_outer");
  EXPECT_EQ(in_outer.unit, "outer_unit");  // group beats root
  EXPECT_EQ(in_outer.freq_op, "2h");
  EXPECT_EQ(in_outer.prec, 8);  // root still applies

  const FieldDef& in_inner = field(ctx, "in_inner");
  EXPECT_EQ(in_inner.unit, "inner_unit");  // inner group beats outer group
  EXPECT_EQ(in_inner.freq_op, "2h");       // outer group, not overridden
  EXPECT_EQ(in_inner.long_name, "inner");

  const FieldDef& own = field(ctx, "own_wins");
  EXPECT_EQ(own.unit, "own");
  EXPECT_EQ(own.operation, "maximum");
  EXPECT_EQ(own.prec, 4);
  EXPECT_EQ(own.freq_op, "2h");

  // A group's id is never inherited.
  EXPECT_EQ(in_inner.id, "in_inner");
}

TEST(ConfigInheritance, FileGroups) {
  const ContextDef& ctx = context(load("inheritance.xml"), "atm");
  const FileDef* f1 = ctx.find_file("f1");
  const FileDef* f2 = ctx.find_file("f2");
  const FileDef* f3 = ctx.find_file("f3");
  ASSERT_TRUE(f1 && f2 && f3);
  EXPECT_EQ(f1->output_freq, "6h");  // file_group beats file_definition
  EXPECT_EQ(f1->type, "multiple_file");
  EXPECT_EQ(f1->sync_freq, "1d");
  EXPECT_EQ(f2->output_freq, "12h");  // own beats group
  EXPECT_EQ(f2->type, "one_file");
  EXPECT_EQ(f3->output_freq, "1d");
  EXPECT_FALSE(f3->enabled);
  EXPECT_TRUE(f1->enabled);
}

TEST(ConfigInheritance, Defaults) {
  const ContextDef& ctx = context(parse(R"(<simulation><context id="a">
      <field_definition><field id="t" /></field_definition>
      <domain_definition><domain id="d" /></domain_definition>
      <file_definition><file id="f" output_freq="1d" /></file_definition>
    </context></simulation>)"),
                                  "a");
  const FieldDef& t = field(ctx, "t");
  EXPECT_EQ(t.operation, "instant");
  EXPECT_EQ(t.prec, 4);
  EXPECT_TRUE(t.enabled);
  EXPECT_FALSE(t.detect_missing_value);
  EXPECT_FALSE(t.default_value.has_value());
  EXPECT_EQ(t.output_name(), "t");
  EXPECT_EQ(ctx.find_domain("d")->type, "rectilinear");
  const FileDef* f = ctx.find_file("f");
  EXPECT_EQ(f->type, "one_file");
  EXPECT_EQ(f->format, "netcdf4");
  EXPECT_EQ(f->par_access, "collective");
  EXPECT_FALSE(f->append);
  EXPECT_FALSE(ctx.calendar.present);
}

// ---- *_ref inheritance -----------------------------------------------------

TEST(ConfigFieldRef, ChainsInheritUnsetAttributes) {
  const ContextDef& ctx = context(load("field_ref.xml"), "atm");
  const FieldDef& max = field(ctx, "temp_max");
  EXPECT_EQ(max.field_ref, "temp");
  EXPECT_EQ(max.operation, "maximum");  // own
  EXPECT_EQ(max.unit, "K");             // from temp
  EXPECT_EQ(max.grid_ref, "g3d");
  EXPECT_EQ(max.prec, 8);
  EXPECT_EQ(max.long_name, "maximum temperature");

  const FieldDef& max2 = field(ctx, "temp_max2");  // temp_max2 -> temp_max -> temp
  // The field_definition root says operation="instant": group inheritance
  // comes before field_ref (as in XIOS), so the root beats temp_max's maximum.
  EXPECT_EQ(max2.operation, "instant");
  EXPECT_EQ(max2.standard_name, "air_temperature");
  EXPECT_EQ(max2.long_name, "maximum temperature");
  EXPECT_EQ(max2.output_name(), "tmax");
  EXPECT_EQ(max2.id, "temp_max2");  // the id is never inherited

  // The expression (text content) passes along field_ref too.
  EXPECT_EQ(field(ctx, "c").expression, "(temp - 273.15) * 2");
  EXPECT_EQ(field(ctx, "c_ref").expression, "(temp - 273.15) * 2");
}

TEST(ConfigFieldRef, GroupBeatsReferencedField) {
  // The documented order: own > groups > definition root > field_ref target.
  const ContextDef& ctx = context(load("field_ref.xml"), "atm");
  EXPECT_EQ(field(ctx, "temp_avg").operation, "average");
  EXPECT_EQ(field(ctx, "temp_avg").unit, "K");
}

TEST(ConfigFieldRef, FieldVariablesMergeAlongTheChain) {
  const ContextDef& ctx = context(load("field_ref.xml"), "atm");
  const FieldDef& max = field(ctx, "temp_max");
  ASSERT_EQ(max.variables.size(), 2u);
  EXPECT_EQ(max.variables[0].output_name(), "history");
  EXPECT_EQ(max.variables[0].value, "max");  // own wins
  EXPECT_EQ(max.variables[1].output_name(), "source");
  EXPECT_EQ(max.variables[1].value, "model");
}

TEST(ConfigFieldRef, FileFieldsInheritFromDefinitions) {
  const ContextDef& ctx = context(load("field_ref.xml"), "atm");
  const FileDef* daily = ctx.find_file("daily");
  ASSERT_NE(daily, nullptr);
  ASSERT_EQ(daily->fields.size(), 7u);

  const FieldDef& temp = daily->fields[0];
  EXPECT_TRUE(temp.id.empty());           // no id in the file
  EXPECT_EQ(temp.output_name(), "temp");  // written under the referenced id
  EXPECT_EQ(temp.field_ref, "temp");
  EXPECT_EQ(temp.operation, "average");
  EXPECT_EQ(temp.unit, "K");
  EXPECT_EQ(temp.prec, 8);
  EXPECT_EQ(temp.where.line, 41);

  EXPECT_EQ(daily->fields[1].output_name(), "tmax");  // name inherited along the chain
  EXPECT_EQ(daily->fields[1].operation, "instant");   // temp_max2's, see above
  EXPECT_EQ(daily->fields[1].long_name, "maximum temperature");

  const FieldDef& min = daily->fields[2];
  EXPECT_EQ(min.id, "temp_daily_min");
  EXPECT_EQ(min.output_name(), "temp_daily_min");
  EXPECT_EQ(min.operation, "minimum");

  // A field_group inside the file: its attributes beat the referenced field's.
  EXPECT_EQ(daily->fields[3].output_name(), "tmax_acc");
  EXPECT_EQ(daily->fields[3].operation, "accumulate");
  EXPECT_EQ(daily->fields[3].freq_op, "1d");
  EXPECT_EQ(daily->fields[4].operation, "once");  // own beats group
  EXPECT_EQ(daily->fields[4].expression, "(temp - 273.15) * 2");

  // An expression field with a name only.
  EXPECT_EQ(daily->fields[5].output_name(), "ave_daily_max");
  EXPECT_EQ(daily->fields[5].expression, "@temp_max");

  // A field with an id inside a file can itself be referenced.
  EXPECT_EQ(daily->fields[6].operation, "minimum");
  EXPECT_EQ(daily->fields[6].grid_ref, "g3d");
}

TEST(ConfigFieldRef, DomainAxisAndScalarRefs) {
  const ContextDef& ctx = context(load("field_ref.xml"), "atm");
  const DomainDef* d2 = ctx.find_domain("derived2");
  ASSERT_NE(d2, nullptr);
  EXPECT_EQ(d2->type, "gaussian");
  EXPECT_EQ(d2->ni_glo, 6599680);
  EXPECT_EQ(d2->long_name, "derived");  // the nearer domain in the chain wins

  const AxisDef* lev = ctx.find_axis("lev");
  ASSERT_NE(lev, nullptr);
  EXPECT_EQ(lev->value, (std::vector<double>{100000, 85000, 50000}));
  EXPECT_EQ(lev->n_glo, 3);  // from the number of values
  EXPECT_EQ(lev->positive, "down");
  const AxisDef* copy = ctx.find_axis("lev_copy");
  EXPECT_EQ(copy->unit, "Pa");
  EXPECT_EQ(copy->long_name, "copy");
  EXPECT_EQ(copy->value.size(), 3u);

  const GridDef* g3d = ctx.find_grid("g3d");
  ASSERT_EQ(g3d->components.size(), 3u);
  EXPECT_EQ(g3d->components[1].kind, GridComponent::Kind::axis);
  EXPECT_EQ(g3d->components[1].ref, "lev");  // <axis id="lev"/> refers to lev
  EXPECT_EQ(g3d->components[2].kind, GridComponent::Kind::scalar);
  EXPECT_EQ(g3d->components[2].ref, "");  // an anonymous scalar
  const GridDef* g2d = ctx.find_grid("g2d");
  EXPECT_EQ(g2d->components[0].ref, "derived2");
  EXPECT_EQ(g2d->components[1].ref, "height2m");
  EXPECT_EQ(ctx.find_scalar("height2m")->value, 2.0);
}

TEST(ConfigFieldRef, CycleIsAnError) {
  const ConfigError e = error_of([] {
    parse(R"(<simulation><context id="a"><field_definition>
<field id="x" field_ref="y" />
<field id="y" field_ref="x" />
</field_definition></context></simulation>)");
  });
  EXPECT_EQ(e.where.line, 3);
  EXPECT_NE(e.message.find("field_ref cycle: x -> y -> x"), std::string::npos) << e.what();
}

TEST(ConfigFieldRef, SelfReferenceIsACycle) {
  const ConfigError e = error_of([] {
    parse(R"(<simulation><context id="a"><field_definition>
<field id="x" field_ref="x" />
</field_definition></context></simulation>)");
  });
  EXPECT_EQ(e.where.line, 2);
  EXPECT_NE(e.message.find("cycle: x -> x"), std::string::npos) << e.what();
}

// ---- group_ref -------------------------------------------------------------

TEST(ConfigGroupRef, IncludesAllFieldsOfTheGroup) {
  const ContextDef& ctx = context(load("group_ref.xml"), "atm");
  const FileDef* out = ctx.find_file("out");
  ASSERT_NE(out, nullptr);
  std::vector<std::string> names;
  for (const FieldDef& f : out->fields) names.push_back(f.output_name());
  // Document order; nested groups included; the anonymous field skipped; the
  // group's own children after the included fields; the empty group adds nothing.
  EXPECT_EQ(names, (std::vector<std::string>{"sp", "t", "q", "clwc", "sp_avg"}));

  const FieldDef& q = file_field(*out, "q");
  EXPECT_EQ(q.field_ref, "q");
  EXPECT_EQ(q.operation, "average");  // the file's group_ref group
  EXPECT_EQ(q.freq_op, "1h");
  EXPECT_EQ(q.unit, "kg kg-1");  // the field_definition groups, via field_ref
  EXPECT_EQ(q.where.line, 18);   // where the group_ref is written
  EXPECT_EQ(file_field(*out, "clwc").operation, "average");
  EXPECT_EQ(file_field(*out, "sp_avg").operation, "average");

  const FileDef* moist = ctx.find_file("moist");
  ASSERT_EQ(moist->fields.size(), 2u);
  EXPECT_EQ(moist->fields[0].prec, 8);
  EXPECT_EQ(moist->fields[1].operation, "maximum");  // nothing overrides it here
}

// ---- includes --------------------------------------------------------------

TEST(ConfigInclude, RelativePathsAndRootAttributes) {
  const Simulation sim = load("include/main.xml");
  ASSERT_EQ(sim.contexts.size(), 2u);
  const ContextDef& atm = context(sim, "atm");
  const FieldDef& t = field(atm, "t");
  EXPECT_EQ(t.operation, "average");  // from the included root
  EXPECT_EQ(t.prec, 4);               // the including element wins over the included root
  EXPECT_TRUE(ends_with(t.where.file, "include/defs/field_def.xml")) << t.where.file;
  EXPECT_EQ(t.where.line, 5);

  // Nested include, relative to the included file's directory.
  const FieldDef& extra = field(atm, "extra");
  EXPECT_EQ(extra.unit, "1");
  EXPECT_TRUE(ends_with(extra.where.file, "include/defs/more_fields.xml")) << extra.where.file;
  EXPECT_EQ(extra.where.line, 2);
  EXPECT_EQ(atm.find_domain("dom")->ni_glo, 10);

  // A whole context from another file; the same field id in two contexts.
  const ContextDef& ocean = context(sim, "ocean");
  EXPECT_EQ(field(ocean, "t").long_name, "sea temperature");
}

TEST(ConfigInclude, ParseStringIncludesRelativeToBaseDir) {
  const Simulation sim = parse(R"(<simulation><context id="a">
      <field_definition src="include/defs/field_def.xml" />
    </context></simulation>)");
  EXPECT_EQ(field(context(sim, "a"), "t").prec, 8);
}

TEST(ConfigInclude, ErrorInIncludedFileNamesThatFile) {
  const ConfigError e = error_of([] { load("include/bad_main.xml"); });
  EXPECT_TRUE(ends_with(e.where.file, "include/defs/bad_fields.xml")) << e.what();
  EXPECT_EQ(e.where.line, 4);
  EXPECT_NE(e.message.find("bad operation 'mean'"), std::string::npos) << e.what();
}

TEST(ConfigInclude, CycleIsAnError) {
  const ConfigError e = error_of([] { load("include/cycle_main.xml"); });
  EXPECT_TRUE(ends_with(e.where.file, "include/cycle_g2.xml")) << e.what();
  EXPECT_EQ(e.where.line, 3);
  EXPECT_NE(e.message.find("include cycle:"), std::string::npos) << e.what();
  EXPECT_NE(e.message.find("cycle_g1.xml -> "), std::string::npos) << e.what();
}

TEST(ConfigInclude, IncludedRootMustMatch) {
  const ConfigError e = error_of([] { load("include/wrong_root_main.xml"); });
  EXPECT_TRUE(ends_with(e.where.file, "include/defs/domain_def.xml")) << e.what();
  EXPECT_EQ(e.where.line, 1);
  EXPECT_NE(e.message.find("must be <field_definition>"), std::string::npos) << e.what();
}

// ---- ids and references ----------------------------------------------------

TEST(ConfigIds, DuplicateIdNamesBothLines) {
  const ConfigError e = error_of([] {
    parse(R"(<simulation><context id="a">
<file_definition>
  <file id="out" output_freq="1d" />
  <file id="out" output_freq="1h" />
</file_definition></context></simulation>)");
  });
  EXPECT_EQ(e.where.line, 4);
  EXPECT_EQ(e.message, "duplicate file id 'out' (first defined at inline.xml:3)");
}

TEST(ConfigIds, SameIdInOtherKindOrContextIsFine) {
  const Simulation sim = parse(R"(<simulation>
<context id="a">
  <axis_definition><axis id="x" n_glo="2" /></axis_definition>
  <domain_definition><domain id="x" /></domain_definition>
  <grid_definition><grid id="x"><domain id="x" /><axis id="x" /></grid></grid_definition>
  <field_definition><field id="x" grid_ref="x" /></field_definition>
</context>
<context id="b">
  <field_definition><field id="x" /></field_definition>
</context></simulation>)");
  EXPECT_EQ(field(context(sim, "a"), "x").grid_ref, "x");
  EXPECT_NE(context(sim, "b").find_field("x"), nullptr);
}

TEST(ConfigIds, UnknownReferencesAtTheirLine) {
  const auto line_of = [](const std::string& xml) { return error_of([&] { parse(xml); }).where.line; };
  EXPECT_EQ(line_of(R"(<simulation><context id="a"><field_definition>
<field id="t"
   domain_ref="nowhere" /></field_definition></context></simulation>)"),
            2);
  EXPECT_EQ(line_of(R"(<simulation><context id="a">
<axis_definition><axis id="z" n_glo="1" /></axis_definition>
<field_definition>
<field id="t" axis_ref="z" />
<field id="u" axis_ref="zz" /></field_definition></context></simulation>)"),
            5);
  // A reference inherited from a group is reported where the group writes it.
  EXPECT_EQ(line_of(R"(<simulation><context id="a"><field_definition>
<field_group grid_ref="missing">
<field id="t" />
</field_group></field_definition></context></simulation>)"),
            2);
  EXPECT_EQ(line_of(R"(<simulation><context id="a"><grid_definition>
<grid id="g">
<scalar scalar_ref="s" />
</grid></grid_definition></context></simulation>)"),
            3);
}

// ---- validation ------------------------------------------------------------

TEST(ConfigValidation, UnknownAttributeWithSuggestion) {
  const ConfigError e = error_of([] { load("bad/unknown_attribute.xml"); });
  EXPECT_EQ(e.where.line, 4);
  EXPECT_EQ(e.message, "unknown attribute 'freq_opp' on <field>; did you mean 'freq_op'?");
}

TEST(ConfigValidation, UnknownAttributeWithoutCloseName) {
  const ConfigError e = error_of([] {
    parse(
        R"(<simulation><context id="a"><field_definition><field id="t" colour="red" /></field_definition></context></simulation>)");
  });
  EXPECT_EQ(e.message, "unknown attribute 'colour' on <field>");
}

TEST(ConfigValidation, OldSpellingHint) {
  const ConfigError e = error_of([] {
    parse(
        R"(<simulation><context id="a"><file_definition><file id="f" freq_output="1d" /></file_definition></context></simulation>)");
  });
  EXPECT_EQ(e.message, "unknown attribute 'freq_output' on <file>; did you mean 'output_freq'?");
}

TEST(ConfigValidation, UnknownElement) {
  const ConfigError e = error_of([] { load("bad/unknown_element.xml"); });
  EXPECT_EQ(e.where.line, 5);
  EXPECT_EQ(e.message, "unknown element <fiel> in <field_definition>; did you mean <field>?");
}

TEST(ConfigValidation, MisplacedElement) {
  const ConfigError e = error_of([] {
    parse(R"(<simulation><context id="a">
<field id="t" /></context></simulation>)");
  });
  EXPECT_EQ(e.where.line, 2);
  EXPECT_NE(e.message.find("element <field> in <context> is not allowed here"), std::string::npos) << e.what();
}

TEST(ConfigValidation, TypedValuesAccepted) {
  const ContextDef& ctx = context(parse(R"(<simulation><context id="a">
<field_definition>
  <field id="t" enabled=".FALSE." detect_missing_value="1" prec=" 8 " default_value="1.0d20"
         valid_min="-50" valid_max="+60.5" compression_level="4" level="2" add_offset="273.15"
         cell_methods="time: mean" cell_methods_mode="overwrite" check_if_active=".true."
         freq_op="1d12h" freq_offset="1ts" ts_enabled="false" />
</field_definition>
<file_definition>
  <file id="f" output_freq="1mo" split_freq="1y" append="true" type="multiple_file"
        format="netcdf4_classic" par_access="independent" min_digits="4" output_level="3"
        mode="write" convention="CF" time_counter="instant" time_units="days" timeseries="none"
        split_start_offset="1d" uuid_name="uuid" />
</file_definition></context></simulation>)"),
                                  "a");
  const FieldDef& t = field(ctx, "t");
  EXPECT_FALSE(t.enabled);
  EXPECT_TRUE(t.detect_missing_value);
  EXPECT_EQ(t.prec, 8);
  EXPECT_EQ(t.default_value, 1e20);
  EXPECT_EQ(t.valid_min, -50.0);
  EXPECT_EQ(t.valid_max, 60.5);
  EXPECT_EQ(t.compression_level, 4);
  EXPECT_EQ(t.level, 2);
  EXPECT_EQ(t.add_offset, 273.15);
  EXPECT_EQ(t.cell_methods, "time: mean");
  EXPECT_EQ(t.cell_methods_mode, "overwrite");
  EXPECT_TRUE(t.check_if_active);
  EXPECT_EQ(t.freq_offset, "1ts");
  EXPECT_EQ(t.extra, (ExtraAttributes{{"ts_enabled", "false"}}));
  const FileDef* f = ctx.find_file("f");
  EXPECT_TRUE(f->append);
  EXPECT_EQ(f->type, "multiple_file");
  EXPECT_EQ(f->format, "netcdf4_classic");
  EXPECT_EQ(f->par_access, "independent");
  EXPECT_EQ(f->min_digits, 4);
  EXPECT_EQ(f->output_level, 3);
  EXPECT_EQ(f->time_counter, "instant");
  EXPECT_EQ(f->time_units, "days");
  EXPECT_EQ(f->extra.at("split_start_offset"), "1d");
  EXPECT_EQ(f->extra.at("uuid_name"), "uuid");
}

TEST(ConfigValidation, BadTypedValues) {
  struct Case {
    const char* attributes;
    const char* fragment;
  };
  const Case cases[] = {
      {R"(prec="2")", "bad prec '2' on <field>: 16-bit packed output is not supported"},
      {R"(prec="16")", "bad prec '16' on <field>: expected 4 or 8"},
      {R"(enabled="yes")", "bad enabled 'yes' on <field>: expected true or false"},
      {R"(detect_missing_value="")", "bad detect_missing_value '' on <field>"},
      {R"(level="two")", "bad level 'two' on <field>: expected an integer"},
      {R"(level="-1")", "bad level '-1' on <field>: expected an integer >= 0"},
      {R"(default_value="1e400")", "bad default_value '1e400' on <field>: expected a number"},
      {R"(valid_min="nan")", "bad valid_min 'nan' on <field>: expected a number"},
      {R"(operation="mean")", "bad operation 'mean' on <field>: expected one of instant, average"},
      {R"(operation="Average")", "did you mean 'average'?"},
      {R"(freq_op="often")", "bad freq_op 'often' on <field>"},
      {R"(freq_op="0s")", "bad freq_op '0s' on <field>: a frequency must be positive"},
      {R"(cell_methods_mode="append")", "bad cell_methods_mode 'append'"},
  };
  for (const Case& c : cases) {
    const std::string xml = std::string(R"(<simulation><context id="a"><field_definition>
<field id="t" )") + c.attributes +
                            R"( /></field_definition></context></simulation>)";
    const ConfigError e = error_of([&] { parse(xml); });
    EXPECT_EQ(e.where.line, 2) << c.attributes;
    EXPECT_NE(e.message.find(c.fragment), std::string::npos) << c.attributes << " -> " << e.what();
  }
}

// convention: CF (default), UGRID, CDI, or CDI and UGRID together (they
// apply to different domain types); CDI needs one_file.
TEST(ConfigValidation, FileConventions) {
  auto file = [](const std::string& attributes) {
    return R"(<simulation><context id="a"><file_definition>
<file id="f" output_freq="1d" )" +
           attributes + R"( /></file_definition></context></simulation>)";
  };
  for (const char* c : {"CF", "UGRID", "CDI", "CDI UGRID", "UGRID CDI"})
    EXPECT_EQ(context(parse(file(std::string("convention=\"") + c + "\"")), "a").find_file("f")->convention, c);
  ConfigError e = error_of([&] { parse(file(R"(convention="CF UGRID")")); });
  EXPECT_EQ(e.where.line, 2);
  EXPECT_NE(e.message.find("bad convention 'CF UGRID' on <file>: expected one of CF, UGRID, CDI, CDI UGRID"),
            std::string::npos)
      << e.what();
  e = error_of([&] { parse(file(R"(convention="UGRID CDI" type="multiple_file")")); });
  EXPECT_EQ(e.where.line, 2);
  EXPECT_NE(e.message.find(R"(file 'f': convention="UGRID CDI" needs type="one_file")"), std::string::npos) << e.what();
}

TEST(ConfigValidation, CalendarChecks) {
  const ContextDef& ok = context(parse(R"(<simulation><context id="a">
<calendar type="Gregorian" timestep="30mi" start_date="2020-02-29 06:00:00" time_origin="1950-01-01" />
</context></simulation>)"),
                                 "a");
  EXPECT_TRUE(ok.calendar.present);
  EXPECT_EQ(ok.calendar.start_date, "2020-02-29 06:00:00");
  EXPECT_EQ(ok.calendar.time_origin, "1950-01-01");
  EXPECT_EQ(ok.calendar.where.line, 2);

  const ConfigError noleap = error_of([] {
    parse(R"(<simulation><context id="a">
<calendar type="NoLeap" start_date="2020-02-29" /></context></simulation>)");
  });
  EXPECT_EQ(noleap.where.line, 2);
  EXPECT_NE(noleap.message.find("bad start_date '2020-02-29' for a NoLeap calendar"), std::string::npos)
      << noleap.what();

  const ConfigError type =
      error_of([] { parse(R"(<simulation><context id="a"><calendar type="user_defined" /></context></simulation>)"); });
  EXPECT_NE(type.message.find("a user_defined calendar needs month_lengths"), std::string::npos) << type.what();

  const ConfigError two = error_of([] {
    parse(R"(<simulation><context id="a">
<calendar type="D360" />
<calendar type="D360" /></context></simulation>)");
  });
  EXPECT_EQ(two.where.line, 3);
}

TEST(ConfigValidation, XmlSyntaxErrorLine) {
  const ConfigError e = error_of([] {
    parse(
        "<simulation>\n  <context id=\"a\">\n    <field_definition>\n      <field id=\"t\" unit=\"K />\n"
        "    </field_definition>\n  </context>\n</simulation>\n");
  });
  EXPECT_EQ(e.where.file, "inline.xml");
  EXPECT_GE(e.where.line, 4);
  EXPECT_NE(e.message.find("XML syntax error"), std::string::npos) << e.what();

  const ConfigError e2 = error_of([] { parse("<simulation>\n<context id=\"a\">\n</contxt>\n</simulation>\n"); });
  EXPECT_EQ(e2.where.line, 3);
  EXPECT_NE(e2.message.find("XML syntax error"), std::string::npos) << e2.what();

  const ConfigError empty = error_of([] { parse("   "); });
  EXPECT_NE(empty.message.find("XML syntax error"), std::string::npos) << empty.what();
}

TEST(ConfigValidation, LineNumbersWithCrLfAndBom) {
  const ConfigError e = error_of([] {
    parse(
        "\xEF\xBB\xBF<simulation>\r\n<context id=\"a\">\r\n<field_definition>\r\n\r\n<field id=\"t\" prec=\"3\" />"
        "\r\n</field_definition></context></simulation>");
  });
  EXPECT_EQ(e.where.line, 5);
}

TEST(ConfigValidation, DeepNestingIsAnErrorNotACrash) {
  std::string xml = "<simulation><context id=\"a\"><field_definition>";
  for (int i = 0; i < 5000; ++i) xml += "<field_group>";
  for (int i = 0; i < 5000; ++i) xml += "</field_group>";
  xml += "</field_definition></context></simulation>";
  const ConfigError e = error_of([&] { parse(xml); });
  EXPECT_NE(e.message.find("nested more than"), std::string::npos) << e.what();
}

// ---- variables -------------------------------------------------------------

TEST(ConfigVariables, TypesAndTypedAccess) {
  const ContextDef& ctx = context(parse(R"(<simulation><context id="xios">
<variable_definition>
  <variable_group id="g">
    <variable id="b1" type="bool">true</variable>
    <variable id="b2" type="boolean">.FALSE.</variable>
    <variable id="b3" type="logical">1</variable>
    <variable id="i1" type="int">50</variable>
    <variable id="i2" type="integer"> -7 </variable>
    <variable id="d1" type="double">1.0</variable>
    <variable id="d2" type="float">2.5e3</variable>
    <variable id="s1" type="string">performance</variable>
    <variable id="s2" type="char">  padded  </variable>
    <variable id="s3">no type</variable>
  </variable_group>
</variable_definition></context></simulation>)"),
                                  "xios");
  EXPECT_EQ(ctx.find_variable("b2")->type, "bool");
  EXPECT_EQ(ctx.find_variable("i2")->type, "int");
  EXPECT_EQ(ctx.find_variable("d2")->type, "double");
  EXPECT_EQ(ctx.find_variable("s2")->type, "string");
  EXPECT_EQ(ctx.find_variable("s3")->type, "string");
  EXPECT_EQ(ctx.find_variable("i1")->where.line, 7);

  EXPECT_TRUE(variable_bool(ctx, "b1", false));
  EXPECT_FALSE(variable_bool(ctx, "b2", true));
  EXPECT_TRUE(variable_bool(ctx, "b3", false));
  EXPECT_EQ(variable_int(ctx, "i1", 0), 50);
  EXPECT_EQ(variable_int(ctx, "i2", 0), -7);
  EXPECT_DOUBLE_EQ(variable_double(ctx, "d1", 0), 1.0);
  EXPECT_DOUBLE_EQ(variable_double(ctx, "d2", 0), 2500.0);
  EXPECT_DOUBLE_EQ(variable_double(ctx, "i1", 0), 50.0);  // an int reads as a double
  EXPECT_EQ(variable_string(ctx, "s1", ""), "performance");
  EXPECT_EQ(variable_string(ctx, "s2", ""), "padded");

  // Absent: the fallback.
  EXPECT_TRUE(variable_bool(ctx, "missing", true));
  EXPECT_EQ(variable_int(ctx, "missing", 42), 42);
  EXPECT_DOUBLE_EQ(variable_double(ctx, "missing", 0.5), 0.5);
  EXPECT_EQ(variable_string(ctx, "missing", "fb"), "fb");

  // Present but not of the type asked for: an error at the variable's line.
  const ConfigError e = error_of([&] { variable_int(ctx, "s1", 0); });
  EXPECT_EQ(e.where.line, 11);
  EXPECT_NE(e.message.find("variable 's1'"), std::string::npos) << e.what();
  EXPECT_THROW(variable_bool(ctx, "d2", false), ConfigError);
  EXPECT_THROW(variable_int(ctx, "d1", 0), ConfigError);
}

TEST(ConfigVariables, ValueCheckedAgainstType) {
  const auto message_of = [](const std::string& variable) {
    return error_of([&] {
             parse(R"(<simulation><context id="a"><variable_definition>
)" + variable + "</variable_definition></context></simulation>");
           })
        .message;
  };
  EXPECT_EQ(message_of(R"(<variable id="using_server" type="bool">XIOS_USING_SERVER</variable>)"),
            "bad value 'XIOS_USING_SERVER' for bool variable 'using_server': expected true or false "
            "(.true., .false., 1 and 0 also work)");
  EXPECT_NE(message_of(R"(<variable id="n" type="int">1.5</variable>)").find("expected an integer"), std::string::npos);
  EXPECT_NE(message_of(R"(<variable id="x" type="double">fast</variable>)").find("expected a number"),
            std::string::npos);
  EXPECT_NE(message_of(R"(<variable id="x" type="complex">1</variable>)").find("bad type 'complex'"),
            std::string::npos);
  EXPECT_NE(message_of(R"(<variable type="int">1</variable>)").find("needs an id"), std::string::npos);
}

TEST(ConfigVariables, FileVariables) {
  const ContextDef& ctx = context(parse(R"(<simulation><context id="a">
<file_definition><file id="f" output_freq="1d">
  <variable name="title" type="string">My run</variable>
  <variable id="version" type="int">3</variable>
</file></file_definition></context></simulation>)"),
                                  "a");
  const FileDef* f = ctx.find_file("f");
  ASSERT_EQ(f->variables.size(), 2u);
  EXPECT_EQ(f->variables[0].output_name(), "title");
  EXPECT_EQ(f->variables[0].value, "My run");
  EXPECT_EQ(f->variables[1].output_name(), "version");
  EXPECT_EQ(f->variables[1].type, "int");
}

// The malformed-config corpus (tests/data/config/bad) and files with several
// errors are tested in config_errors_test.cpp.
