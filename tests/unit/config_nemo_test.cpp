// The NEMO-like corpus (tests/data/config/nemo): a context in its own file
// that includes one file per kind of definition, nested field groups that
// carry the grid, files built from group_ref and field_ref. Checks resolved
// values and that errors name the included file and its line.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "config/config.h"

using namespace foehn::config;

namespace {

const std::string kNemo = std::string(FOEHN_TEST_DATA_DIR) + "/config/nemo/";

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

class Nemo : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { sim_ = new Simulation(parse_file(kNemo + "iodef.xml")); }
  static void TearDownTestSuite() { delete sim_; }

  static const ContextDef& ctx() { return *sim_->find_context("nemo"); }
  static const FieldDef& field(std::string_view id) {
    const FieldDef* f = ctx().find_field(id);
    if (!f) throw std::runtime_error("no field " + std::string(id));
    return *f;
  }
  static const FileDef& file(std::string_view id) {
    const FileDef* f = ctx().find_file(id);
    if (!f) throw std::runtime_error("no file " + std::string(id));
    return *f;
  }
  static std::vector<std::string> names(const FileDef& f) {
    std::vector<std::string> out;
    for (const FieldDef& field : f.fields) out.push_back(field.output_name());
    return out;
  }

  static Simulation* sim_;
};
Simulation* Nemo::sim_ = nullptr;

}  // namespace

TEST_F(Nemo, ContextsAndIncludes) {
  ASSERT_EQ(sim_->contexts.size(), 2u);
  EXPECT_TRUE(ctx().calendar.present);
  EXPECT_EQ(ctx().calendar.type, "noleap");
  EXPECT_EQ(ctx().calendar.timestep, "5400s");
  EXPECT_EQ(ctx().fields.size(), 18u);
  EXPECT_EQ(ctx().files.size(), 6u);
  EXPECT_EQ(ctx().grids.size(), 8u);
  EXPECT_EQ(variable_int(ctx(), "ref_year", 0), 1990);
  EXPECT_TRUE(variable_bool(*sim_->find_context("xios"), "using_server", false));
  // Every element remembers the included file and line it was written on.
  EXPECT_TRUE(ends_with(field("e3t").where.file, "nemo/field_def.xml")) << field("e3t").where.file;
  EXPECT_EQ(field("e3t").where.line, 6);
  EXPECT_TRUE(ends_with(ctx().find_domain("grid_U")->where.str(), "nemo/domain_def.xml:6"));
  // The context is where it is included; what the included file adds, there.
  EXPECT_TRUE(ends_with(ctx().where.str(), "nemo/iodef.xml:6")) << ctx().where.str();
  EXPECT_TRUE(ends_with(ctx().calendar.where.str(), "nemo/context_nemo.xml:3")) << ctx().calendar.where.str();
  EXPECT_TRUE(ends_with(file("file1").where.str(), "nemo/file_def.xml:13"));
}

TEST_F(Nemo, FieldGroupInheritance) {
  // Root attributes reach every field.
  for (const char* id : {"e3t", "toce", "sst", "mldkz5", "uoce", "siconc"}) {
    EXPECT_EQ(field(id).prec, 4) << id;
    EXPECT_EQ(field(id).default_value, 1.e20) << id;
    EXPECT_TRUE(field(id).enabled) << id;
  }
  EXPECT_EQ(field("sst").operation, "average");
  EXPECT_EQ(field("sst").grid_ref, "grid_T_2D");   // from the outer group
  EXPECT_EQ(field("e3t").grid_ref, "grid_T_3D");   // own beats group
  EXPECT_EQ(field("toce").grid_ref, "grid_T_3D");  // nested group beats outer group
  EXPECT_EQ(field("toce").unit, "degC");           // from the nested group
  EXPECT_EQ(field("soce").unit, "1e-3");           // own beats nested group
  EXPECT_EQ(field("sst").level, 1);                // root
  EXPECT_EQ(field("mldr10_1").level, 2);           // innermost group
  EXPECT_EQ(field("mldkz5").level, 3);             // own
  EXPECT_EQ(field("mldr10_1").unit, "m");
  EXPECT_EQ(field("avt").prec, 8);
  EXPECT_EQ(field("woce").grid_ref, "grid_W_3D");
  EXPECT_EQ(field("heat_content").expression, "toce * e3t");
}

TEST_F(Nemo, FieldRefInsideFieldDefinition) {
  const FieldDef& sst_max = field("sst_max");
  EXPECT_EQ(sst_max.field_ref, "sst");
  EXPECT_EQ(sst_max.operation, "maximum");                                   // own
  EXPECT_EQ(sst_max.long_name, "daily maximum of sea surface temperature");  // own
  EXPECT_EQ(sst_max.standard_name, "sea_surface_temperature");               // from sst
  EXPECT_EQ(sst_max.unit, "degC");                                           // from sst
}

TEST_F(Nemo, DomainAndAxisGroupsAndRefs) {
  for (const char* id : {"grid_T", "grid_U", "grid_V", "grid_W"}) {
    const DomainDef* d = ctx().find_domain(id);
    ASSERT_NE(d, nullptr) << id;
    EXPECT_EQ(d->ni_glo, 182) << id;
    EXPECT_EQ(d->nj_glo, 149) << id;
    EXPECT_EQ(d->type, "curvilinear") << id;
  }
  const DomainDef* copy = ctx().find_domain("grid_T_copy");
  EXPECT_EQ(copy->ni_glo, 182);  // through domain_ref
  EXPECT_EQ(copy->long_name, "grid T, referenced");
  EXPECT_EQ(ctx().find_axis("depthw")->n_glo, 31);
  EXPECT_EQ(ctx().find_axis("depthw")->positive, "down");
  EXPECT_EQ(ctx().find_axis("ncatice")->n_glo, 5);  // from the values
  const GridDef* g = ctx().find_grid("grid_T_ncatice");
  ASSERT_EQ(g->components.size(), 2u);
  EXPECT_EQ(g->components[1].ref, "ncatice");
}

TEST_F(Nemo, FilesFromGroupsWithFieldRefsAndGroupRefs) {
  const FileDef& f1 = file("file1");
  EXPECT_EQ(f1.output_freq, "1d");  // file_group
  EXPECT_EQ(f1.sync_freq, "10d");   // file_definition root
  EXPECT_EQ(f1.type, "one_file");   // root
  EXPECT_EQ(f1.output_level, 10);   // file_group
  EXPECT_EQ(f1.min_digits, 4);      // root
  EXPECT_EQ(f1.output_name(), "@expname@_@freq@");
  EXPECT_EQ(f1.name_suffix, "_grid_T");
  EXPECT_EQ(names(f1), (std::vector<std::string>{"e3t", "thetao", "so", "tos", "tos_max", "mldr10_1", "mldkz5"}));
  const FieldDef& thetao = f1.fields[1];
  EXPECT_EQ(thetao.field_ref, "toce");
  EXPECT_EQ(thetao.operation, "instant");   // own beats the referenced field
  EXPECT_EQ(thetao.grid_ref, "grid_T_3D");  // inherited through field_ref
  EXPECT_EQ(thetao.standard_name, "sea_water_potential_temperature");
  EXPECT_EQ(f1.fields[4].operation, "maximum");  // chain tos_max -> sst_max -> sst
  EXPECT_EQ(f1.fields[4].unit, "degC");
  // group_ref expands to the group's fields, each a field_ref, at the
  // line of the group_ref.
  EXPECT_EQ(f1.fields[5].field_ref, "mldr10_1");
  EXPECT_EQ(f1.fields[5].level, 2);
  EXPECT_TRUE(ends_with(f1.fields[5].where.str(), "nemo/file_def.xml:19")) << f1.fields[5].where.str();
  ASSERT_EQ(f1.variables.size(), 1u);
  EXPECT_EQ(f1.variables[0].value, "19900101");

  EXPECT_EQ(names(file("file2")), (std::vector<std::string>{"uoce", "utau"}));
  EXPECT_EQ(file("file2").fields[0].operation, "average");
  // Attributes on the group_ref element beat those of the referenced fields.
  const FileDef& f3 = file("file3");
  EXPECT_EQ(names(f3), (std::vector<std::string>{"voce", "vtau"}));
  EXPECT_EQ(f3.fields[0].operation, "instant");
  EXPECT_EQ(f3.fields[0].grid_ref, "grid_V_3D");

  const FileDef& f4 = file("file4");
  EXPECT_EQ(f4.output_freq, "5d");
  EXPECT_EQ(f4.output_level, 1);
  EXPECT_EQ(names(f4), (std::vector<std::string>{"sst", "zos", "mldr10_1", "mldkz5", "siconc", "siconc_cat"}));
  EXPECT_EQ(f4.fields[0].freq_op, "1d");  // from the anonymous field_group in the file
  EXPECT_EQ(f4.fields[1].unit, "m");

  EXPECT_FALSE(file("file_hourly").enabled);  // from its file_group
  EXPECT_FALSE(file("file5").enabled);        // own
  EXPECT_EQ(file("file5").fields.size(), 2u);
}

TEST(NemoErrors, NameTheIncludedFileAndLine) {
  struct Case {
    std::string file, where, message;
  };
  const std::vector<Case> cases = {
      {"iodef_field_typo.xml", "nemo/bad/field_def_typo.xml:5",
       "unknown attribute 'unti' on <field>; did you mean 'unit'?"},
      {"iodef_group_ref.xml", "nemo/bad/file_def_group_ref.xml:5",
       "group_ref refers to unknown field_group 'grid_Tt' (of field_definition); did you mean 'grid_T'?"},
  };
  for (const Case& c : cases) {
    try {
      parse_file(kNemo + "bad/" + c.file);
      ADD_FAILURE() << c.file << ": no error";
    } catch (const ConfigError& e) {
      EXPECT_TRUE(ends_with(e.where.str(), c.where)) << c.file << ": " << e.what();
      EXPECT_EQ(e.message, c.message) << c.file;
    }
  }
}
