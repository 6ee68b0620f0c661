// Tests of `foehn check` (src/tools/check.cpp, field_grid.cpp) and of the
// command line itself (src/tools/cli.cpp), run in-process.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "config/config.h"
#include "config/refusals.h"
#include "tools/check.h"
#include "tools/cli.h"

using namespace foehn;
using namespace foehn::tools;

namespace {

const std::string kDir = std::string(FOEHN_TEST_DATA_DIR) + "/config/";

CheckResult check_text(const std::string& xml) {
  return check_simulation(config::parse_string(xml, "inline.xml", kDir));
}

std::vector<std::string> messages(const CheckResult& r) {
  std::vector<std::string> out;
  for (const config::ConfigError& e : r.problems) out.push_back(e.what());
  return out;
}

struct CliRun {
  int status;
  std::string out, err;
};
CliRun cli(std::vector<std::string> args) {
  args.insert(args.begin(), "foehn");
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  const int status = run_cli(static_cast<int>(argv.size()), argv.data(), out, err);
  return {status, out.str(), err.str()};
}

}  // namespace

TEST(Check, CountsContextsEnabledFilesAndFields) {
  const CheckResult ifs = check_file(kDir + "iodef_ifs.xml");
  EXPECT_TRUE(ifs.ok());
  EXPECT_EQ(ifs.contexts, 2u);
  EXPECT_EQ(ifs.files, 2u);
  EXPECT_EQ(ifs.fields, 13u);
  // NEMO-like: 2 disabled files; output_level 1 drops the 2 mixed-layer
  // fields of the 5-day file.
  const CheckResult nemo = check_file(kDir + "nemo/iodef.xml");
  EXPECT_TRUE(nemo.ok()) << (nemo.ok() ? "" : nemo.problems[0].what());
  EXPECT_EQ(nemo.files, 4u);
  EXPECT_EQ(nemo.fields, 7u + 2 + 2 + 4);
}

TEST(Check, ReaderErrorIsTheOneProblem) {
  const CheckResult r = check_file(kDir + "bad/unknown_attribute.xml");
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_EQ(r.problems[0].where.line, 4);
  EXPECT_EQ(r.problems[0].message, "unknown attribute 'freq_opp' on <field>; did you mean 'freq_op'?");
}

TEST(Check, EveryProblemAfterReadingIsReported) {
  const CheckResult r = check_file(kDir + "tools/no_grid.xml");
  const std::vector<std::string> m = messages(r);
  ASSERT_EQ(m.size(), 3u);
  const std::string file = kDir + "tools/no_grid.xml";
  const std::string in_file = "context[id=atm]/file_definition/file[id=out]";
  EXPECT_EQ(m[0], file + ":16: " + in_file +
                      ": output_freq '1mo' counts months or years, which the 'none' calendar does not have");
  EXPECT_EQ(m[1],
            file + ":18: " + in_file +
                "/field[field_ref=orphan]: field 'orphan' has no grid: set grid_ref, or domain_ref and/or axis_ref");
  EXPECT_EQ(m[2], file + ":20: " + in_file +
                      "/field[field_ref=nothing]: field 'nothing' has no grid: set grid_ref, or domain_ref and/or "
                      "axis_ref (its expression names no field with a grid)");
}

TEST(Check, WhatIsNotWrittenIsNotChecked) {
  // Disabled fields and files and fields above the file's output_level
  // need no grid.
  const CheckResult r = check_text(
      "<simulation><context id='c'><field_definition><field id='x'/><field id='y' level='3'/></field_definition>"
      "<file_definition><file id='a' output_freq='1d'><field field_ref='x' enabled='false'/></file>"
      "<file id='b' output_freq='1d' enabled='false'><field field_ref='x'/></file>"
      "<file id='l' output_freq='1d' output_level='2'><field field_ref='y'/></file>"
      "</file_definition></context></simulation>");
  EXPECT_TRUE(r.ok()) << messages(r)[0];
  EXPECT_EQ(r.files, 2u);
  EXPECT_EQ(r.fields, 0u);
}

TEST(Check, ReadFilesAreChecked) {
  // A read file's fields need a grid; what the reader does not do is
  // reported at its line, as close of definition refuses it.
  const CheckResult r = check_text(
      "<simulation><context id='c'><domain_definition><domain id='d'/></domain_definition>"
      "<file_definition><file id='r' mode='read' output_freq='1d' type='multiple_file'>"
      "<field id='x'/><field id='y' domain_ref='d' operation='average'/><field id='z' domain_ref='d'/></file>"
      "</file_definition></context></simulation>");
  const std::vector<std::string> m = messages(r);
  ASSERT_EQ(m.size(), 3u) << m[0];
  EXPECT_NE(m[0].find("file 'r' (mode=\"read\"): type=\"multiple_file\" is not supported"), std::string::npos) << m[0];
  EXPECT_NE(m[1].find("field 'x' has no grid"), std::string::npos) << m[1];
  EXPECT_NE(m[2].find("field 'y' of read file 'r': operation 'average' is not supported"), std::string::npos) << m[2];
  EXPECT_EQ(r.files, 1u);
  EXPECT_EQ(r.fields, 3u);
}

TEST(Check, WhatCloseOfDefinitionRefusesIsReported) {
  // Issue 21, item 10: foehn check reports what close of definition refuses.
  const CheckResult r = check_text(
      "<simulation><context id='c'><domain_definition><domain id='d'/></domain_definition>\n"
      "<file_definition><file id='a' output_freq='1d' format='zarr' time_counter='record'>"
      "<field id='x' domain_ref='d'/></file>\n"
      "<file id='b' output_freq='1d' format='zarr' time_counter_name='t'>"
      "<field id='y' domain_ref='d' add_offset='1'/></file>\n"
      "</file_definition></context></simulation>");
  const std::vector<std::string> m = messages(r);
  ASSERT_EQ(m.size(), 3u) << (m.empty() ? "" : m[0]);
  EXPECT_EQ(r.problems[0].where.line, 2);
  EXPECT_NE(m[0].find("file 'a': time_counter=\"record\" is not supported yet for a Zarr store"), std::string::npos) << m[0];
  EXPECT_EQ(r.problems[1].where.line, 3);
  EXPECT_NE(m[1].find("file 'b': attribute 'time_counter_name' is not supported yet for a Zarr store"), std::string::npos) << m[1];
  EXPECT_NE(m[2].find("field 'y': attribute 'add_offset' is not supported yet"), std::string::npos) << m[2];
}

TEST(Check, OutputFreqMustBeAWholeNumberOfSteps) {
  // Issue 21, item 10: 1 h output with 40-minute steps would give records at
  // 1h20, 2h, 3h20, 4h; refused at the file's line, as close of definition does.
  const CheckResult r = check_text(
      "<simulation><context id='c'><calendar type='gregorian' timestep='40mi'/>"
      "<domain_definition><domain id='d'/></domain_definition><file_definition>\n"
      "<file id='a' output_freq='1h'><field id='x' domain_ref='d'/></file>\n"
      "<file id='b' output_freq='2h'><field id='y' domain_ref='d'/></file>\n"
      "<file id='m' output_freq='1mo'><field id='z' domain_ref='d'/></file>\n"
      "<file id='t' output_freq='3ts'><field id='w' domain_ref='d'/></file>\n"
      "</file_definition></context></simulation>");
  const std::vector<std::string> m = messages(r);
  ASSERT_EQ(m.size(), 1u) << (m.empty() ? "" : m[0]);
  EXPECT_EQ(r.problems[0].where.line, 2);
  EXPECT_NE(m[0].find("file 'a': output_freq '1h' is not a whole number of time steps"), std::string::npos) << m[0];
  constexpr std::int64_t kMinute = 60 * 1000000LL;
  config::FileDef f;
  f.output_freq = "1d";
  EXPECT_EQ(config::output_freq_refusal(f, 8 * kMinute), "");  // 1440 min = 180 steps
  EXPECT_NE(config::output_freq_refusal(f, 7 * kMinute), "");
  f.output_freq = "1mo";  // months are whole days
  EXPECT_EQ(config::output_freq_refusal(f, 8 * kMinute), "");
  EXPECT_NE(config::output_freq_refusal(f, 7 * kMinute), "");
  EXPECT_EQ(config::output_freq_refusal(f, 0), "");  // no time step known: the model sets it
}

TEST(Check, ElementsXiosIgnoresAreWarnedAbout) {
  // Issue 21, item 9: XIOS's own iodef.xml misspells <scalar_defintion>, which
  // XIOS skips: foehn warns with its line and goes on.
  const CheckResult r = check_text(
      "<simulation><context id='c'>\n<scalar_defintion><scalar id='s'/></scalar_defintion>\n"
      "</context></simulation>");
  EXPECT_TRUE(r.ok()) << (r.problems.empty() ? "" : r.problems[0].message);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0].where.line, 2);
  EXPECT_NE(r.warnings[0].message.find("<scalar_defintion> in <context> is ignored, as XIOS ignores it"),
            std::string::npos)
      << r.warnings[0].message;
  EXPECT_NE(r.warnings[0].message.find("scalar_definition"), std::string::npos) << r.warnings[0].message;
  // An element foehn knows, misplaced, is still an error (XIOS would skip it too).
  EXPECT_THROW(check_text("<simulation><context id='c'><field id='t'/></context></simulation>"), config::ConfigError);
}

TEST(Check, CalendarTimestepMustBeAFixedTime) {
  for (const char* step : {"1mo", "1y", "2ts"}) {
    const CheckResult r = check_text(std::string("<simulation><context id='c'><calendar type='gregorian' timestep='") +
                                     step + "'/></context></simulation>");
    ASSERT_EQ(r.problems.size(), 1u) << step;
    EXPECT_NE(r.problems[0].message.find("must be a fixed time"), std::string::npos);
  }
  EXPECT_TRUE(
      check_text("<simulation><context id='c'><calendar type='gregorian' timestep='1.5h'/></context></simulation>")
          .ok());
}

TEST(Check, FrequenciesAgainstTheNoneCalendar) {
  const CheckResult r = check_text(
      "<simulation><context id='c'><calendar type='none'/><domain_definition><domain id='d'/></domain_definition>"
      "<file_definition><file id='a' output_freq='1d' split_freq='1y' sync_freq='2mo'>\n"
      "<field id='x' domain_ref='d' operation='average' freq_op='1mo' "
      "freq_offset='1y'/></file></file_definition></context></simulation>");
  const std::vector<std::string> m = messages(r);
  ASSERT_EQ(m.size(), 4u);
  EXPECT_NE(m[0].find("inline.xml:1: context[id=c]/file_definition/file[id=a]: split_freq '1y'"), std::string::npos)
      << m[0];
  EXPECT_NE(m[1].find("sync_freq '2mo'"), std::string::npos);
  EXPECT_NE(m[2].find("inline.xml:2: context[id=c]/file_definition/file[id=a]/field[id=x]: freq_op '1mo'"),
            std::string::npos)
      << m[2];
  EXPECT_NE(m[3].find("freq_offset '1y'"), std::string::npos);
}

TEST(Check, ExpressionFieldsTakeTheGridOfTheirOperands) {
  const CheckResult r = check_text(
      "<simulation><context id='c'><domain_definition><domain id='d'/></domain_definition>"
      "<field_definition><field id='t' domain_ref='d'/><field id='t2'>t * t</field>"
      "<field id='t3'>@t2 + 1</field><field id='loop_a'>loop_b</field><field "
      "id='loop_b'>loop_a</field></field_definition>"
      "<file_definition><file id='a' output_freq='1d'><field field_ref='t3'/><field name='k'>t2 - 273.15</field>"
      "<field field_ref='loop_a'/></file></file_definition></context></simulation>");
  const std::vector<std::string> m = messages(r);
  ASSERT_EQ(m.size(), 1u);  // a cycle of expressions has no grid, and does not hang
  EXPECT_NE(m[0].find("field 'loop_a' has no grid"), std::string::npos) << m[0];
}

TEST(Check, LongExpressionChainsGiveAnErrorNotAStackOverflow) {
  std::string fields = "<field id='e0' domain_ref='d'/>";
  for (int i = 1; i <= 5000; ++i)
    fields += "<field id='e" + std::to_string(i) + "'>e" + std::to_string(i - 1) + " + 1</field>";
  const std::string head =
      "<simulation><context id='c'><domain_definition><domain id='d'/></domain_definition>"
      "<field_definition>" +
      fields + "</field_definition><file_definition>";
  const CheckResult shallow = check_text(head +
                                         "<file id='a' output_freq='1d'><field field_ref='e200'/></file>"
                                         "</file_definition></context></simulation>");
  EXPECT_TRUE(shallow.ok());
  const CheckResult deep = check_text(head +
                                      "<file id='a' output_freq='1d'><field field_ref='e5000'/></file>"
                                      "</file_definition></context></simulation>");
  ASSERT_EQ(deep.problems.size(), 1u);
  EXPECT_NE(deep.problems[0].message.find("more than 256 deep"), std::string::npos) << deep.problems[0].message;
}

TEST(Cli, CheckOkAndErrors) {
  const CliRun ok = cli({"check", kDir + "iodef_ifs.xml"});
  EXPECT_EQ(ok.status, 0);
  EXPECT_EQ(ok.out, kDir + "iodef_ifs.xml: OK (2 contexts, 2 files, 13 fields)\n");
  EXPECT_EQ(ok.err, "");

  const CliRun bad = cli({"check", kDir + "nemo/bad/iodef_field_typo.xml"});
  EXPECT_EQ(bad.status, 1);
  EXPECT_EQ(bad.out, "");
  EXPECT_EQ(bad.err, kDir +
                         "nemo/bad/field_def_typo.xml:5: context[id=nemo]/field_definition/field_group[id=grid_T]/"
                         "field[id=soce]: unknown attribute 'unti' on <field>; did you mean 'unit'?\n");

  const CliRun several = cli({"check", kDir + "tools/no_grid.xml", kDir + "iodef_ifs.xml"});
  EXPECT_EQ(several.status, 1);
  EXPECT_NE(several.err.find("no_grid.xml: 3 problems\n"), std::string::npos);
  EXPECT_NE(several.out.find("iodef_ifs.xml: OK"), std::string::npos);

  const CliRun missing = cli({"check", kDir + "no_such.xml"});
  EXPECT_EQ(missing.status, 1);
  EXPECT_EQ(missing.err, kDir + "no_such.xml: cannot read file\n");
}

TEST(Cli, Plan) {
  const CliRun ifs = cli({"plan", kDir + "iodef_ifs.xml", "--domain", "reduced_Gaussian=6599680", "--duration", "10d"});
  EXPECT_EQ(ifs.status, 0) << ifs.err;
  EXPECT_NE(
      ifs.out.find("\ntotal: 3474071552000 bytes (3.47 TB, 3.16 TiB) in 2 files over 10d; 347 GB per simulated day\n"),
      std::string::npos)
      << ifs.out;
  EXPECT_NE(ifs.out.find("every 3h: 80 records"), std::string::npos);

  // Options before the file, --domain given twice, NI,NJ form.
  const CliRun nemo = cli({"plan", "--domain", "grid_T=10,10", "--domain", "grid_U=100", "--axis", "deptht=2",
                           "--context", "nemo", kDir + "nemo/iodef.xml"});
  EXPECT_EQ(nemo.status, 0) << nemo.err;
  EXPECT_NE(nemo.out.find("e3t       average    grid_T_3D  200"), std::string::npos) << nemo.out;

  const CliRun no_size = cli({"plan", kDir + "iodef_ifs.xml"});
  EXPECT_EQ(no_size.status, 1);
  EXPECT_NE(no_size.err.find("iodef_ifs.xml:56: context[id=ifs]/domain_definition/domain[id=reduced_Gaussian]: "
                             "domain 'reduced_Gaussian' has no size"),
            std::string::npos)
      << no_size.err;

  const CliRun bad_option = cli({"plan", kDir + "iodef_ifs.xml", "--domain", "reduced_Gaussian"});
  EXPECT_EQ(bad_option.status, 1);
  EXPECT_EQ(bad_option.err, "foehn plan: --domain reduced_Gaussian: expected ID=NI,NJ or ID=NPOINTS\n");
}

TEST(Cli, UsageErrorsAndHelp) {
  EXPECT_EQ(cli({}).status, 2);
  EXPECT_EQ(cli({"frobnicate"}).status, 2);
  EXPECT_EQ(cli({"check"}).status, 2);
  EXPECT_EQ(cli({"plan", "x.xml", "--bogus"}).status, 2);
  const CliRun help = cli({"plan", "--help"});
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.out.find("--domain"), std::string::npos);
}

TEST(Cli, CheckPrintsEveryReaderError) {
  const std::string file = kDir + "bad_many/several_errors.xml";
  const CliRun r = cli({"check", file});
  EXPECT_EQ(r.status, 1);
  const std::string in_defs = "context[id=atm]/field_definition/";
  const std::string in_file = "context[id=atm]/file_definition/file[id=daily]/";
  for (const std::string& line :
       {file + ":8: " + in_defs + "field[id=tas]: unknown attribute 'unti' on <field>; did you mean 'unit'?\n",
        file + ":9: " + in_defs + "field[id=pr]: bad operation 'avrage' on <field>: ",
        file + ":10: " + in_defs + "field[id=tas]: duplicate field id 'tas' (first defined at " + file + ":8)\n",
        file + ":11: " + in_defs +
            "fiel[id=huss]: unknown element <fiel> in <field_definition>; did you mean <field>?\n",
        file + ":15: " + in_file +
            "field[field_ref=tas]: unknown attribute 'freq_opp' on <field>; did you mean 'freq_op'?\n",
        file + ":16: " + in_file + "field[field_ref=psl]: field_ref refers to unknown field 'psl'",
        file + ": 6 problems\n"})
    EXPECT_NE(r.err.find(line), std::string::npos) << line << "\n--- got:\n" << r.err;
  // The check result lists them as separate problems, in the order found.
  const CheckResult result = check_file(file);
  ASSERT_EQ(result.problems.size(), 6u);
  EXPECT_EQ(result.problems[5].where.line, 16);
  EXPECT_EQ(result.omitted, 0u);
}

TEST(Check, FilePeriodsAndOffsets) {
  const CheckResult r = check_text(
      "<simulation><context id='c'><calendar type='gregorian'/><domain_definition><domain id='d'/></domain_definition>"
      "<file_definition><file id='a' output_freq='1d' split_freq='1mo' split_freq_format='%y%q'>\n"
      "<field id='x' domain_ref='d' freq_offset='1ts'/>\n"
      "<field id='y' domain_ref='d' operation='average' freq_op='2ts' freq_offset='1ts'/></file>\n"
      "<file id='b' output_freq='1d' split_freq_format='%y'><field id='z' domain_ref='d'/></file>"
      "</file_definition></context></simulation>");
  const std::vector<std::string> m = messages(r);
  ASSERT_EQ(m.size(), 3u) << (m.empty() ? "" : m[0]);
  EXPECT_NE(m[0].find("inline.xml:1: context[id=c]/file_definition/file[id=a]: split_freq_format '%y%q': "),
            std::string::npos)
      << m[0];
  EXPECT_NE(m[1].find("inline.xml:2: context[id=c]/file_definition/file[id=a]/field[id=x]: freq_offset '1ts' applies "
                      "to average, accumulate, minimum and maximum, not to operation 'instant'"),
            std::string::npos)
      << m[1];
  EXPECT_NE(m[2].find("inline.xml:4: context[id=c]/file_definition/file[id=b]: split_freq_format '%y' is set but "
                      "split_freq is not"),
            std::string::npos)
      << m[2];
}

TEST(Check, TwoFilesWithOneNameClashWithBothLines) {
  const CheckResult r = check_text(
      "<simulation>\n<context id='atm'><file_definition>\n<file id='a' name='out' output_freq='1d'/>\n"
      "<file id='b' name='other' output_freq='1d'/>\n<file id='c' name='ou' name_suffix='t' output_freq='6h'/>\n"
      "<file id='off' name='out' output_freq='1d' enabled='false'/>\n"
      "</file_definition></context>\n<context id='ocean'><file_definition>\n"
      "<file id='out' output_freq='1d'/>\n</file_definition></context></simulation>");
  const std::vector<std::string> m = messages(r);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(r.problems[0].where.line, 5);
  EXPECT_NE(m[0].find("file 'c' of context 'atm' writes 'out', as file 'a' of context 'atm' (inline.xml:3) does"),
            std::string::npos)
      << m[0];
  EXPECT_EQ(r.problems[1].where.line, 9);
  EXPECT_NE(m[1].find("file 'out' of context 'ocean' writes 'out', as file 'a' of context 'atm' (inline.xml:3)"),
            std::string::npos)
      << m[1];
}

TEST(Check, NamesOutsideTheRunDirectoryAreWarnedOf) {
  const CheckResult r = check_text(
      "<simulation><context id='c'><file_definition><file id='a' name='../up' output_freq='1d'/>"
      "<file id='b' name='/tmp/abs' output_freq='1d'/><file id='c' name='sub/dir' output_freq='1d'/>"
      "</file_definition></context></simulation>");
  EXPECT_TRUE(r.ok());
  ASSERT_EQ(r.warnings.size(), 2u);
  EXPECT_NE(r.warnings[0].message.find("'../up', outside the run directory"), std::string::npos);
  EXPECT_NE(r.warnings[1].message.find("'/tmp/abs', outside the run directory"), std::string::npos);
}

TEST(Check, TransformationChainsThatDoNotMatchAtTheirLine) {
  const auto r = check_text(
      "<simulation><context id='c'>\n"
      "<domain_definition><domain id='g'/><domain id='h'/>\n"
      "<domain id='box' domain_ref='h'><zoom_domain ibegin='1' ni='5' jbegin='2' nj='4'/></domain>\n"
      "</domain_definition><axis_definition><axis id='lev' n_glo='3'/></axis_definition>\n"
      "<grid_definition><grid id='g2'><domain domain_ref='g'/><axis axis_ref='lev'/></grid>\n"
      "<grid id='b1'><domain domain_ref='box'/></grid><grid id='b2'><domain domain_ref='box'/><axis "
      "axis_ref='lev'/></grid>"
      "</grid_definition>\n"
      "<field_definition><field id='t' grid_ref='g2'/></field_definition>\n"
      "<file_definition><file id='f' output_freq='1d'>\n"
      "<field field_ref='t' name='tb' grid_ref='b2'/>\n"
      "<field field_ref='t' name='tc' grid_ref='b1'/>\n"
      "</file></file_definition></context></simulation>");
  const auto m = messages(r);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_NE(m[0].find("inline.xml:3: "), std::string::npos) << m[0];
  EXPECT_NE(m[0].find("domain 'box' transforms domain 'h', but the source field's grid has domain 'g'"),
            std::string::npos)
      << m[0];
  EXPECT_NE(m[1].find("inline.xml:10: "), std::string::npos) << m[1];
  EXPECT_NE(m[1].find("its grid has 1 components and its source field's grid 2"), std::string::npos) << m[1];
}

TEST(Check, TransformationOutsideItsDomainWhenTheXmlGivesTheSizes) {
  const auto r = check_text(
      "<simulation><context id='c'>\n"
      "<domain_definition><domain id='g' ni_glo='10' nj_glo='5'/><domain id='open'/>\n"
      "<domain id='box' domain_ref='g'><zoom_domain ibegin='8' ni='5' jbegin='0' nj='2'/></domain>\n"
      "<domain id='obox' domain_ref='open'><zoom_domain ibegin='8' ni='5' jbegin='0' nj='2'/></domain>\n"
      "</domain_definition>\n"
      "<field_definition><field id='t' domain_ref='g'/><field id='u' domain_ref='open'/></field_definition>\n"
      "<file_definition><file id='f' output_freq='1d'>\n"
      "<field field_ref='t' name='tb' domain_ref='box'/><field field_ref='u' name='ub' domain_ref='obox'/>\n"
      "</file></file_definition></context></simulation>");
  const auto m = messages(r);
  ASSERT_EQ(m.size(), 1u);  // obox's domain has no size in the XML: the model's, checked at close of definition
  EXPECT_NE(m[0].find("inline.xml:3: "), std::string::npos) << m[0];
  EXPECT_NE(m[0].find("the box ibegin=8 ni=5 jbegin=0 nj=2 is not inside the source domain of 10x5 points"),
            std::string::npos)
      << m[0];
}
