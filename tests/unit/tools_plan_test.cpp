// Tests of `foehn plan` (src/tools/plan*.cpp): grid sizes from the XML and
// from options, records from the calendar, byte totals, and the errors that
// say which option to pass.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "config/config.h"
#include "tools/plan.h"

using namespace foehn;
using namespace foehn::tools;

namespace {

const std::string kDir = std::string(FOEHN_TEST_DATA_DIR) + "/config/";

config::Simulation parse(const std::string& xml) { return config::parse_string(xml, "inline.xml", kDir); }

// A context with one file of `fields` (XML), output every `freq`.
std::string one_file(const std::string& calendar, const std::string& freq, const std::string& fields) {
  return "<simulation><context id='c'>" + calendar +
         "<axis_definition><axis id='lev' n_glo='10'/><axis id='free'/></axis_definition>"
         "<domain_definition><domain id='g' ni_glo='4' nj_glo='3'/><domain id='u' type='unstructured' ni_glo='7'/>"
         "<domain id='open'/></domain_definition>"
         "<scalar_definition><scalar id='s'/></scalar_definition>"
         "<grid_definition><grid id='g3'><domain domain_ref='g'/><axis axis_ref='lev'/></grid>"
         "<grid id='gs'><scalar scalar_ref='s'/></grid></grid_definition>"
         "<file_definition><file id='f' output_freq='" +
         freq + "'>" + fields + "</file></file_definition></context></simulation>";
}
const std::string kGreg = "<calendar type='gregorian' start_date='2000-01-31' timestep='600s'/>";

std::string error_of(const config::Simulation& sim, const PlanOptions& o) {
  try {
    make_plan(sim, o);
  } catch (const std::exception& e) { return e.what(); }
  ADD_FAILURE() << "no error";
  return "";
}

}  // namespace

TEST(Plan, IfsThesisT1279) {
  // The thesis run: 12 3-D fields on 137 levels and 1 2-D field on O1280,
  // float32, every 3 hours for 10 days (80 records).
  const config::Simulation sim = config::parse_file(kDir + "iodef_ifs.xml");
  PlanOptions o;
  o.domain_points["reduced_Gaussian"] = 6'599'680;
  o.duration = "10d";
  const Plan plan = make_plan(sim, o);
  ASSERT_EQ(plan.contexts.size(), 1u);  // the xios context has no files
  const ContextPlan& ifs = plan.contexts[0];
  ASSERT_EQ(ifs.files.size(), 2u);
  EXPECT_EQ(ifs.files[0].records, 80);
  EXPECT_EQ(ifs.files[1].records, 80);
  EXPECT_EQ(ifs.files[0].fields.size(), 12u);
  EXPECT_EQ(ifs.files[0].fields[0].points, 6'599'680LL * 137);
  EXPECT_EQ(ifs.files[1].bytes_per_record, 6'599'680LL * 4);
  EXPECT_EQ(plan.total_bytes, 6'599'680LL * (12 * 137 + 1) * 4 * 80);
  EXPECT_EQ(human_bytes(plan.total_bytes), "3.47 TB");
  EXPECT_EQ(ifs.start, "2020-01-01 00:00:00");
  EXPECT_EQ(ifs.end, "2020-01-11 00:00:00");
  EXPECT_DOUBLE_EQ(ifs.simulated_days, 10.0);
  const std::string text = format_plan(plan);
  EXPECT_NE(text.find("total: 3474071552000 bytes (3.47 TB, 3.16 TiB) in 2 files over 10d"), std::string::npos) << text;
}

TEST(Plan, OptionsOverrideXmlSizes) {
  const config::Simulation sim = config::parse_file(kDir + "iodef_ifs.xml");
  PlanOptions o;
  o.domain_points["reduced_Gaussian"] = 100;
  o.axis_points["model_levels"] = 2;    // XML says 137
  const Plan plan = make_plan(sim, o);  // default duration 1d: 8 records
  EXPECT_EQ(plan.contexts[0].files[0].records, 8);
  EXPECT_EQ(plan.total_bytes, 100LL * (12 * 2 + 1) * 4 * 8);
}

TEST(Plan, MissingSizesNameTheOptionToPass) {
  const config::Simulation ifs = config::parse_file(kDir + "iodef_ifs.xml");
  const std::string e = error_of(ifs, PlanOptions{});
  EXPECT_NE(e.find("iodef_ifs.xml:"), std::string::npos) << e;
  EXPECT_NE(e.find("domain 'reduced_Gaussian' has no size"), std::string::npos) << e;
  EXPECT_NE(e.find("--domain reduced_Gaussian=NPOINTS"), std::string::npos) << e;

  const auto sim = parse(one_file(kGreg, "1d", "<field id='x' domain_ref='open'/>"));
  EXPECT_NE(error_of(sim, {}).find("--domain open=NI,NJ"), std::string::npos);
  const auto axis = parse(one_file(kGreg, "1d", "<field id='x' axis_ref='free'/>"));
  EXPECT_EQ(error_of(axis, {}).rfind("inline.xml:1: ", 0), 0u) << error_of(axis, {});
  EXPECT_NE(error_of(axis, {}).find("/axis[id=free]: axis 'free' has no size"), std::string::npos)
      << error_of(axis, {});
  EXPECT_NE(error_of(axis, {}).find("--axis free=N"), std::string::npos);
}

TEST(Plan, GridsFromRefsScalarsAndExpressions) {
  const auto sim = parse(one_file(kGreg, "1d",
                                  "<field id='a' grid_ref='g3'/>"                  // 4*3*10
                                  "<field id='b' domain_ref='g' axis_ref='lev'/>"  // same
                                  "<field id='c' domain_ref='u' prec='8'/>"        // 7, doubles
                                  "<field id='d' grid_ref='gs'/>"                  // 1
                                  "<field id='e' axis_ref='lev' enabled='false'/>"
                                  "<field id='f' operation='once' domain_ref='g'/>"));
  const Plan plan = make_plan(sim, {});
  const FilePlan& f = plan.contexts[0].files[0];
  ASSERT_EQ(f.fields.size(), 5u);  // e is disabled
  EXPECT_EQ(f.fields[0].points, 120);
  EXPECT_EQ(f.fields[1].grid, "domain:g axis:lev");
  EXPECT_EQ(f.fields[1].points, 120);
  EXPECT_EQ(f.fields[2].bytes_per_record, 56);
  EXPECT_EQ(f.fields[3].points, 1);
  EXPECT_EQ(f.records, 1);
  EXPECT_EQ(f.bytes_per_record, 480 + 480 + 56 + 4);
  EXPECT_EQ(f.once_bytes, 48);
  EXPECT_EQ(f.total_bytes, 480 + 480 + 56 + 4 + 48);
}

TEST(Plan, RecordsFollowTheCalendar) {
  struct Case {
    std::string calendar, freq, duration;
    std::int64_t records;
  };
  const std::string noleap = "<calendar type='noleap' start_date='2001-01-01' timestep='1h'/>";
  const std::string d360 = "<calendar type='360_day' start_date='2001-01-01'/>";
  const std::vector<Case> cases = {
      {kGreg, "3h", "10d", 80},  {kGreg, "7h", "1d", 3},        {kGreg, "1d", "0s", 0},
      {kGreg, "1mo", "1y", 12},  {kGreg, "1mo", "29d", 1},  // Jan 31 + 1mo = Feb 29 (2000)
      {kGreg, "1mo", "28d", 0},  {kGreg, "6ts", "1d", 24},      {kGreg, "1y", "10y", 10},
      {noleap, "1d", "1y", 365}, {noleap, "1mo", "1y 6mo", 18}, {noleap, "5ts", "1d", 4},
      {d360, "1d", "1y", 360},   {d360, "1mo", "59d", 1},       {d360, "1mo", "60d", 2},
  };
  for (const Case& c : cases) {
    const auto sim = parse(one_file(c.calendar, c.freq, "<field id='x' domain_ref='g'/>"));
    PlanOptions o;
    o.duration = c.duration;
    const Plan plan = make_plan(sim, o);
    EXPECT_EQ(plan.contexts[0].files[0].records, c.records)
        << c.calendar << " every " << c.freq << " for " << c.duration;
  }
}

TEST(Plan, CalendarFromOptions) {
  const auto sim = parse(one_file("", "1mo", "<field id='x' domain_ref='g'/>"));
  EXPECT_NE(error_of(sim, {}).find("has no calendar type; set <calendar type=...> or pass --calendar"),
            std::string::npos);
  PlanOptions o;
  o.calendar_type = "noleap";
  EXPECT_NE(error_of(sim, o).find("--start-date"), std::string::npos);
  o.start_date = "2001-02-28";
  o.duration = "1y";
  const Plan plan = make_plan(sim, o);
  EXPECT_EQ(plan.contexts[0].calendar, "noleap");
  EXPECT_EQ(plan.contexts[0].files[0].records, 12);
  EXPECT_EQ(plan.contexts[0].end, "2002-02-28 00:00:00");

  const auto ts =
      parse(one_file("<calendar type='gregorian' start_date='2000-01-01'/>", "2ts", "<field id='x' domain_ref='g'/>"));
  EXPECT_NE(error_of(ts, {}).find("pass --timestep"), std::string::npos) << error_of(ts, {});
  PlanOptions with_step;
  with_step.timestep = "30mi";
  EXPECT_EQ(make_plan(ts, with_step).contexts[0].files[0].records, 24);
}

TEST(Plan, BadOptions) {
  const auto sim = parse(one_file(kGreg, "1d", "<field id='x' domain_ref='g'/>"));
  const auto error_with = [&](auto set) {
    PlanOptions o;
    set(o);
    return error_of(sim, o);
  };
  EXPECT_NE(error_with([](PlanOptions& o) { o.context = "atm"; }).find("no context 'atm' (contexts: c)"),
            std::string::npos);
  EXPECT_NE(error_with([](PlanOptions& o) { o.domain_points["nope"] = 3; }).find("--domain: no domain 'nope'"),
            std::string::npos);
  EXPECT_NE(error_with([](PlanOptions& o) { o.axis_points["nope"] = 3; }).find("--axis: no axis 'nope'"),
            std::string::npos);
  EXPECT_NE(error_with([](PlanOptions& o) { o.duration = "-1d"; }).find("negative"), std::string::npos);
  EXPECT_NE(error_with([](PlanOptions& o) { o.duration = "10x"; }).find("--duration"), std::string::npos);
  EXPECT_NE(error_with([](PlanOptions& o) { o.calendar_type = "martian"; }).find("--calendar"), std::string::npos);
  EXPECT_NE(error_with([](PlanOptions& o) { o.start_date = "2001-02-29"; }).find("--start-date"), std::string::npos);
  EXPECT_NE(error_with([](PlanOptions& o) { o.timestep = "1mo"; }).find("--timestep"), std::string::npos);
  // A size that overflows 64 bits is an error, not a negative total.
  EXPECT_NE(error_with([](PlanOptions& o) { o.domain_points["g"] = INT64_MAX / 2; }).find("64 bits"),
            std::string::npos);
}

TEST(Plan, SizeOptions) {
  std::map<std::string, std::int64_t> sizes;
  parse_size_option("--domain", "globe=360,180", true, sizes);
  parse_size_option("--domain", "o1280=6599680", true, sizes);
  EXPECT_EQ(sizes.at("globe"), 64'800);
  EXPECT_EQ(sizes.at("o1280"), 6'599'680);
  for (const char* bad : {"globe", "=3", "g=", "g=0", "g=-4", "g=3x", "g=1,", "g=1,2,3", "g=99999999999,99999999999"})
    EXPECT_THROW(parse_size_option("--domain", bad, true, sizes), std::invalid_argument) << bad;
  EXPECT_THROW(parse_size_option("--domain", "globe=1", true, sizes), std::invalid_argument);  // twice
  EXPECT_THROW(parse_size_option("--axis", "lev=2,3", false, sizes), std::invalid_argument);
  try {
    parse_size_option("--axis", "lev=x", false, sizes);
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "--axis lev=x: 'x' is not a positive whole number");
  }
}

TEST(Plan, HumanBytes) {
  EXPECT_EQ(human_bytes(0), "0 B");
  EXPECT_EQ(human_bytes(999), "999 B");
  EXPECT_EQ(human_bytes(1000), "1.00 kB");
  EXPECT_EQ(human_bytes(26'398'720), "26.4 MB");
  EXPECT_EQ(human_bytes(347'407'155'200), "347 GB");
  EXPECT_EQ(human_bytes(999'999'999), "1.00 GB");
  EXPECT_EQ(human_bytes(3'474'071'552'000), "3.47 TB");
  EXPECT_EQ(human_bytes(INT64_MAX), "9.22 EB");
  EXPECT_EQ(human_bytes_binary(1023), "1023 B");
  EXPECT_EQ(human_bytes_binary(1024), "1.00 KiB");
  EXPECT_EQ(human_bytes_binary(3'474'071'552'000), "3.16 TiB");
}

TEST(Plan, SplitFilesFollowTheCalendar) {
  struct Case {
    std::string freq, split, duration;
    std::int64_t records, files;
  };
  // From 2000-01-31: monthly periods end on the 29th of February, the 31st
  // of March, ...; a record ending on a period's end is the last of its file.
  for (const Case& c : std::vector<Case>{{"1d", "1mo", "1y", 366, 12},
                                         {"6h", "1d", "1d", 4, 1},
                                         {"6h", "1d", "10d", 40, 10},  // counted by periods (fewer than records)
                                         {"1mo", "1d", "3mo", 3, 3},  // 3 records apart; days without one leave no file
                                         {"1d", "1mo", "0s", 0, 1}}) {
    const auto sim = parse(one_file(kGreg, c.freq + "' split_freq='" + c.split, "<field id='x' domain_ref='g'/>"));
    PlanOptions o;
    o.duration = c.duration;
    const auto plan = make_plan(sim, o);  // held: f refers into it
    const FilePlan& f = plan.contexts[0].files[0];
    EXPECT_EQ(f.records, c.records) << c.freq << " split " << c.split;
    EXPECT_EQ(f.files, c.files) << c.freq << " split " << c.split;
    EXPECT_EQ(f.split_freq, c.split);
    if (c.records > 1) {
      EXPECT_NE(format_plan(plan).find(": " + std::to_string(c.records) + " records in " + std::to_string(c.files) +
                                       (c.files == 1 ? " file" : " files") + " (split every " + c.split + ")"),
                std::string::npos);
    }
  }
}

TEST(Plan, TransformedFieldsShowTheirChainAndTheSizeAfterIt) {
  const std::string xml =
      "<simulation><context id='c'>" + kGreg +
      "<axis_definition><axis id='lev' n_glo='10'/><axis id='zm'><reduce_domain operation='average'/></axis>"
      "</axis_definition>"
      "<domain_definition><domain id='g' ni_glo='40' nj_glo='30'/>"
      "<domain id='box' domain_ref='g'><zoom_domain ibegin='1' ni='5' jbegin='2' nj='4'/></domain>"
      "</domain_definition>"
      "<grid_definition><grid id='g3'><domain domain_ref='g'/><axis axis_ref='lev'/></grid>"
      "<grid id='box3'><domain domain_ref='box'/><axis axis_ref='lev'><zoom_axis begin='2' n='3'/></axis></grid>"
      "<grid id='zonal'><axis axis_ref='zm'/><axis axis_ref='lev'/></grid></grid_definition>"
      "<field_definition><field id='t' grid_ref='g3'/></field_definition>"
      "<file_definition><file id='f' output_freq='1d'><field field_ref='t'/>"
      "<field field_ref='t' name='tb' grid_ref='box3'/><field field_ref='t' name='tz' grid_ref='zonal'/>"
      "</file></file_definition></context></simulation>";
  const Plan plan = make_plan(parse(xml), {});
  const FilePlan& f = plan.contexts[0].files[0];
  ASSERT_EQ(f.fields.size(), 3u);
  EXPECT_TRUE(f.fields[0].transformations.empty());
  EXPECT_EQ(f.fields[1].points, 5 * 4 * 3);  // not the 40 x 30 the zoomed domain inherits
  EXPECT_EQ(f.fields[1].transformations, (std::vector<std::string>{"zoom_domain 40x30 -> 5x4", "zoom_axis 10 -> 3"}));
  EXPECT_EQ(f.fields[2].points, 30 * 10);
  EXPECT_EQ(f.fields[2].transformations, (std::vector<std::string>{"reduce_domain 40x30 -> 30"}));
  EXPECT_NE(format_plan(plan).find("    tb: zoom_domain 40x30 -> 5x4\n        zoom_axis 10 -> 3\n"), std::string::npos);
  // --domain ID=NI,NJ gives the shape the transformations start from.
  PlanOptions o;
  parse_size_option("--domain", "g=20,10", true, o.domain_points, &o.domain_ni);
  EXPECT_EQ(make_plan(parse(xml), o).contexts[0].files[0].fields[2].points, 10 * 10);
}
