// Error reporting of the XML reader: the malformed-config corpus (exact
// file, line, element path and message for each of tests/data/config/bad),
// and files with several errors, all of which are reported
// (tests/data/config/bad_many).
#include <gtest/gtest.h>

#include <string>

#include "config/config.h"

using namespace foehn::config;

namespace {

const std::string kDir = std::string(FOEHN_TEST_DATA_DIR) + "/config/";

template <typename F>
ConfigError error_of(F&& f) {
  try {
    f();
  } catch (const ConfigError& e) { return e; }
  ADD_FAILURE() << "no ConfigError thrown";
  return ConfigError(Location{}, "none");
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

// ---- malformed configs: exact file:line and message ------------------------

struct BadConfig {
  const char* file;
  int line;
  const char* path;  // the element path, "" when the error is outside the tree
  const char* fragment;
};

class ConfigBadFiles : public ::testing::TestWithParam<BadConfig> {};

TEST_P(ConfigBadFiles, ReportsFileLineAndMessage) {
  const BadConfig& c = GetParam();
  const std::string path = kDir + "bad/" + c.file;
  const ConfigError e = error_of([&] { parse_file(path); });
  const std::string prefix =
      path + ":" + std::to_string(c.line) + ": " + (*c.path ? std::string(c.path) + ": " : std::string());
  const std::string what = e.what();
  EXPECT_EQ(what.substr(0, prefix.size()), prefix) << what;
  EXPECT_NE(what.find(c.fragment), std::string::npos) << what;
}

INSTANTIATE_TEST_SUITE_P(
    Table, ConfigBadFiles,
    ::testing::Values(
        BadConfig{"duplicate_field_id.xml", 6, "context[id=atm]/field_definition/field_group[id=g]/field[id=t]",
                  "duplicate field id 't' (first defined at "},
        BadConfig{"unknown_grid_ref.xml", 11, "context[id=atm]/field_definition/field[id=q]",
                  "grid_ref refers to unknown grid 'grid_3x'; did you mean 'grid_3d'?"},
        BadConfig{"unknown_attribute.xml", 4, "context[id=atm]/field_definition/field[id=t]",
                  "unknown attribute 'freq_opp' on <field>; did you mean 'freq_op'?"},
        BadConfig{"unknown_element.xml", 5, "context[id=atm]/field_definition/fiel[id=q]",
                  "unknown element <fiel> in <field_definition>; did you mean <field>?"},
        BadConfig{"prec_2.xml", 6, "context[id=atm]/field_definition/field[id=q]",
                  "bad prec '2' on <field>: 16-bit packed output is not supported; use 4 or 8"},
        BadConfig{"bad_bool.xml", 4, "context[id=atm]/field_definition/field_group[id=g]",
                  "bad enabled 'yes' on <field_group>: expected true or false"},
        BadConfig{"bad_operation.xml", 4, "context[id=atm]/field_definition/field[id=t]",
                  "bad operation 'avrage' on <field>: expected one of instant, average, "
                  "accumulate, minimum, maximum, once; did you mean 'average'?"},
        BadConfig{"bad_duration.xml", 4, "context[id=atm]/file_definition/file[id=out]",
                  "bad output_freq '3x' on <file>: "},
        BadConfig{"zero_frequency.xml", 4, "context[id=atm]/file_definition/file[id=out]",
                  "bad output_freq '0h' on <file>: a frequency must be positive"},
        BadConfig{"bad_date.xml", 3, "context[id=atm]/calendar", "bad start_date 'yesterday' on <calendar>: "},
        BadConfig{"syntax_error.xml", 5, "", "XML syntax error: Start-end tags mismatch"},
        BadConfig{"field_ref_cycle.xml", 6, "context[id=atm]/field_definition/field[id=c]",
                  "field_ref cycle: a -> b -> c -> a"},
        BadConfig{"unknown_field_ref.xml", 9, "context[id=atm]/file_definition/file[id=out]/field[field_ref=tmep]",
                  "field_ref refers to unknown field 'tmep'; did you mean 'temp'?"},
        BadConfig{"unknown_group_ref.xml", 8,
                  "context[id=atm]/file_definition/file[id=out]/field_group[group_ref=fields_2d]",
                  "group_ref refers to unknown field_group 'fields_2d'"},
        BadConfig{"grid_unknown_axis.xml", 7, "context[id=atm]/grid_definition/grid[id=g]/axis[axis_ref=levels]",
                  "axis_ref refers to unknown axis 'levels'"},
        BadConfig{"bad_variable_int.xml", 5, "context[id=xios]/variable_definition/variable[id=buffer_size_factor]",
                  "bad value '1.5' for int variable 'buffer_size_factor': expected an integer"},
        BadConfig{"bad_file_type.xml", 3, "context[id=atm]/file_definition",
                  "bad type 'one_fil' on <file_definition>: expected one of one_file, "
                  "multiple_file; did you mean 'one_file'?"},
        BadConfig{"missing_output_freq.xml", 5, "context[id=atm]/file_definition/file[id=monthly]",
                  "file 'monthly' has no output_freq"},
        BadConfig{"cdi_multiple_file.xml", 4, "context[id=atm]/file_definition/file[id=parts]",
                  "file 'parts': convention=\"CDI\" needs type=\"one_file\""},
        BadConfig{"include_missing.xml", 3, "context[id=atm]/field_definition", "cannot read included file "},
        BadConfig{"domain_ref_cycle.xml", 4, "context[id=atm]/domain_definition/domain[id=d]",
                  "domain_ref cycle: d -> d"},
        BadConfig{"duplicate_attribute.xml", 4, "context[id=atm]/field_definition/field[id=t]",
                  "attribute 'unit' appears twice on <field>"},
        BadConfig{"text_in_file.xml", 5, "context[id=atm]/file_definition/file[id=out]",
                  "unexpected text 't, q' in <file>"},
        BadConfig{"transformation.xml", 5, "context[id=atm]/domain_definition/domain[id=regular]/compute_connectivity_domain",
                  "spatial transformation <compute_connectivity_domain> in <domain> is not supported yet"},
        BadConfig{"bad_calendar_type.xml", 3, "context[id=atm]/calendar", "bad type 'Gregorain' on <calendar>: "},
        BadConfig{"duplicate_output_name.xml", 9, "context[id=atm]/file_definition/file[id=out]/field[field_ref=t]",
                  "file 'out' already has a field named 't'"},
        BadConfig{"wrong_root.xml", 2, "context[id=atm]", "the root element must be <simulation>, not <context>"},
        BadConfig{"duplicate_context.xml", 7, "context[id=atm]/field_definition/field[id=t]",
                  "duplicate field id 't' (first defined at "},
        BadConfig{"compression_level.xml", 3, "context[id=atm]/field_definition",
                  "bad compression_level '12' on <field_definition>: expected an "
                  "integer from 0 to 9"},
        BadConfig{"group_ref_in_definition.xml", 5, "context[id=atm]/field_definition/field_group[id=b]",
                  "group_ref is allowed only on a <field_group> inside a <file>"},
        BadConfig{"axis_values_count.xml", 4, "context[id=atm]/axis_definition/axis[id=plev]",
                  "axis 'plev' has n_glo=3 but 4 values"},
        BadConfig{"expression_and_expr.xml", 5, "context[id=atm]/field_definition/field[id=c]",
                  "<field> has both an expr attribute and an expression as text"}),
    [](const ::testing::TestParamInfo<BadConfig>& info) {
      std::string name = info.param.file;
      name = name.substr(0, name.find('.'));
      return name;
    });

// ---- every error of a file --------------------------------------------------

// XIOS skips an element it does not know in a context (issue 21, item 9):
// a warning with file, line and a suggestion, and reading goes on.
TEST(ConfigSkippedElements, UnknownContextChildIsAWarning) {
  const Simulation sim = parse_file(kDir + "skipped_context_child.xml");
  ASSERT_EQ(sim.warnings.size(), 1u);
  EXPECT_EQ(sim.warnings[0].where.line, 3);
  EXPECT_EQ(sim.warnings[0].where.file, kDir + "skipped_context_child.xml");
  EXPECT_TRUE(contains(sim.warnings[0].message, "element <field_definitions> in <context> is ignored, as XIOS ignores "
                                                "it; did you mean <field_definition>?"))
      << sim.warnings[0].message;
}

TEST(ConfigSeveralErrors, EveryErrorWithItsLineAndPath) {
  const std::string file = kDir + "bad_many/several_errors.xml";
  const ConfigError e = error_of([&] { parse_file(file); });
  const std::string f = file + ":";
  const std::vector<std::string> expected = {
      f + "8: context[id=atm]/field_definition/field[id=tas]: unknown attribute 'unti' on <field>; did you mean "
          "'unit'?",
      f + "9: context[id=atm]/field_definition/field[id=pr]: bad operation 'avrage' on <field>: expected one of "
          "instant, average, accumulate, minimum, maximum, once; did you mean 'average'?",
      f + "10: context[id=atm]/field_definition/field[id=tas]: duplicate field id 'tas' (first defined at " + f + "8)",
      f + "11: context[id=atm]/field_definition/fiel[id=huss]: unknown element <fiel> in <field_definition>; "
          "did you mean <field>?",
      f + "15: context[id=atm]/file_definition/file[id=daily]/field[field_ref=tas]: unknown attribute 'freq_opp' "
          "on <field>; did you mean 'freq_op'?",
      f + "16: context[id=atm]/file_definition/file[id=daily]/field[field_ref=psl]: field_ref refers to unknown "
          "field 'psl'",
  };
  ASSERT_EQ(e.errors.size(), expected.size()) << e.what();
  for (std::size_t i = 0; i < expected.size(); ++i)
    EXPECT_EQ(e.errors[i].str().substr(0, expected[i].size()), expected[i]) << i;
  // what() lists them all, one per line, the first one first.
  const std::string what = e.what();
  EXPECT_EQ(what.substr(0, expected[0].size()), expected[0]);
  for (const std::string& line : expected) EXPECT_TRUE(contains(what, "\n" + line) || what.rfind(line, 0) == 0) << line;
  EXPECT_EQ(e.where.line, 8);
  EXPECT_EQ(e.omitted, 0u);
}

TEST(ConfigSeveralErrors, FatalErrorAfterCollectedOnes) {
  // The second context has no id: reading stops there, after reporting the
  // first context's error too.
  const std::string file = kDir + "bad_many/fatal_after_errors.xml";
  const ConfigError e = error_of([&] { parse_file(file); });
  ASSERT_EQ(e.errors.size(), 2u) << e.what();
  EXPECT_EQ(e.errors[0].where.line, 4);
  EXPECT_TRUE(contains(e.errors[0].message, "unknown attribute 'unti'"));
  EXPECT_EQ(e.errors[1].where.line, 7);
  EXPECT_EQ(e.errors[1].message, "a <context> needs an id");
}

TEST(ConfigSeveralErrors, CappedWithACountOfTheRest) {
  std::string xml = "<simulation><context id='a'><field_definition>\n";
  const std::size_t n = kMaxReportedErrors + 7;
  for (std::size_t i = 0; i < n; ++i) xml += "<field id='f" + std::to_string(i) + "' prec='3'/>\n";
  xml += "</field_definition></context></simulation>\n";
  const ConfigError e = error_of([&] { parse_string(xml, "many.xml", kDir); });
  EXPECT_EQ(e.errors.size(), kMaxReportedErrors);
  EXPECT_EQ(e.omitted, 7u);
  EXPECT_EQ(e.errors.back().where.line, static_cast<int>(kMaxReportedErrors) + 1);
  const std::string what = e.what();
  const std::string tail = "\n... and 7 more errors";
  EXPECT_TRUE(what.size() > tail.size() && what.substr(what.size() - tail.size()) == tail)
      << what.substr(what.size() - 60);
}

TEST(ConfigSeveralErrors, ReadingGoesOnPastRecoverableErrors) {
  // After a bad attribute, a bad reference and a duplicate id, the rest of
  // the file is still checked: the error at the last line is found.
  const ConfigError e = error_of([] {
    parse_string(R"(<simulation><context id="a">
<field_definition>
  <field id="x" enabled="maybe"/>
  <field id="y" field_ref="nope"/>
  <field id="x"/>
</field_definition>
<file_definition><file id="f" output_freq="1d"><field field_ref="x" operation="mean"/></file></file_definition>
</context></simulation>)",
                 "inline.xml", kDir);
  });
  ASSERT_EQ(e.errors.size(), 4u) << e.what();
  EXPECT_EQ(e.errors[0].where.line, 3);
  EXPECT_EQ(e.errors[1].where.line, 5);  // duplicate id, found while collecting
  EXPECT_EQ(e.errors[2].where.line, 7);  // bad operation, found while collecting
  EXPECT_EQ(e.errors[3].where.line, 4);  // dangling field_ref, found while resolving
  EXPECT_EQ(e.errors[3].where.path, "context[id=a]/field_definition/field[id=y]");
}

TEST(ConfigSeveralErrors, PathInsideIncludedFile) {
  // An element of an included file has the path of the including context.
  const ConfigError e = error_of([] {
    parse_string(
        R"(<simulation><context id="inc"><field_definition src="include/bad_field_def.xml"/></context></simulation>)",
        "inline.xml", kDir);
  });
  EXPECT_EQ(e.where.path, "context[id=inc]/field_definition/field_group[id=g]/field[id=t]") << e.what();
  EXPECT_TRUE(contains(e.where.file, "include/bad_field_def.xml")) << e.what();
}
