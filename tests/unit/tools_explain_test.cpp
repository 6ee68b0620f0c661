// Tests of `foehn check --explain ID` (src/tools/explain.cpp) and of the
// reader's warnings as `foehn check` prints them.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "config/config.h"
#include "tools/cli.h"
#include "tools/explain.h"

using namespace foehn;
using namespace foehn::tools;

namespace {

const std::string kDir = std::string(FOEHN_TEST_DATA_DIR) + "/config/";

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

TEST(Explain, EveryAttributeWithItsOrigin) {
  const config::Simulation sim = config::parse_string(
      "<simulation><context id='c'>\n"
      "<field_definition prec='8'>\n"
      "  <field_group id='g' unit='K'><field id='t' operation='average'/></field_group>\n"
      "  <field id='r' field_ref='t'/>\n"
      "</field_definition></context></simulation>\n",
      "inline.xml", kDir);
  EXPECT_EQ(explain_id(sim, "r"),
            "context 'c': field 'r' (inline.xml:4)\n"
            "  field_ref  t        inline.xml:4\n"
            "  id         r        inline.xml:4\n"
            "  operation  average  inline.xml:3  field_ref 't'\n"
            "  prec       8        inline.xml:2  <field_definition>\n"
            "  unit       K        inline.xml:3  field_ref 't' <- <field_group id='g'>\n");
  EXPECT_EQ(explain_id(sim, "nothing"), "");
}

TEST(Explain, EveryContextAndKind) {
  const config::Simulation sim = config::parse_file(kDir + "include/main.xml");
  const std::string t = explain_id(sim, "t");
  // field t in atm (from an included file) and in ocean.
  EXPECT_NE(t.find("context 'atm': field 't' ("), std::string::npos) << t;
  EXPECT_NE(t.find("context 'ocean': field 't' ("), std::string::npos) << t;
  EXPECT_NE(t.find("<field_definition> (root of included file)"), std::string::npos) << t;
  const std::string out = explain_id(sim, "out");
  EXPECT_NE(out.find("context 'atm': file 'out' ("), std::string::npos) << out;
  EXPECT_NE(out.find("  output_freq  1d"), std::string::npos) << out;
  EXPECT_NE(explain_id(sim, "dom").find("context 'atm': domain 'dom' ("), std::string::npos);
}

TEST(Explain, CommandLine) {
  const CliRun r = cli({"check", kDir + "field_ref.xml", "--explain", "temp_max2"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("context 'atm': field 'temp_max2' ("), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("field_ref 'temp_max' <- field_ref 'temp'"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("field_ref.xml: OK"), std::string::npos) << r.out;

  const CliRun missing = cli({"check", kDir + "field_ref.xml", "--explain", "nope"});
  EXPECT_EQ(missing.status, 1);
  EXPECT_NE(missing.err.find("no field, file, domain, axis, scalar or grid has the id 'nope'"), std::string::npos)
      << missing.err;
}

TEST(Explain, CheckPrintsWarnings) {
  // Warnings alone do not fail a check (field_ref.xml has some); main.xml
  // fails for its fields without grids, and also has a warning.
  const CliRun ok = cli({"check", kDir + "field_ref.xml"});
  EXPECT_EQ(ok.status, 0) << ok.err;
  EXPECT_NE(ok.err.find("field_ref.xml:32: warning: field 'temp_max2': operation='instant'"), std::string::npos)
      << ok.err;
  EXPECT_NE(ok.out.find("field_ref.xml: OK"), std::string::npos) << ok.out;

  const CliRun r = cli({"check", kDir + "include/main.xml"});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("include/main.xml:4: warning: prec='4' on <field_definition> overrides prec='8'"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("main.xml: 2 problems"), std::string::npos) << r.err;
}
