// Tests of `foehn plan --json` (src/tools/plan_json.cpp): the JSON parses and
// holds the same figures as the text report.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "config/config.h"
#include "tools/cli.h"
#include "tools/plan.h"

using namespace foehn;
using namespace foehn::tools;

namespace {

const std::string kDir = std::string(FOEHN_TEST_DATA_DIR) + "/config/";
constexpr std::int64_t kIfsBytes = 3474071552000LL;  // 6599680 * (12 * 137 + 1) * 4 * 80

Plan ifs_plan() {
  PlanOptions o;
  o.domain_points["reduced_Gaussian"] = 6'599'680;
  o.duration = "10d";
  return make_plan(config::parse_file(kDir + "iodef_ifs.xml"), o);
}

}  // namespace

TEST(PlanJson, IfsThesisT1279SameFiguresAsText) {
  const Plan plan = ifs_plan();
  const nlohmann::json j = nlohmann::json::parse(format_plan_json(plan));
  EXPECT_EQ(j["total_bytes"].get<std::int64_t>(), kIfsBytes);
  EXPECT_EQ(j["total_human"], "3.47 TB");
  EXPECT_EQ(j["total_human_binary"], "3.16 TiB");
  EXPECT_EQ(j["duration"], "10d");
  EXPECT_EQ(j["files"], 2);
  EXPECT_EQ(j["bytes_per_day"].get<std::int64_t>(), kIfsBytes / 10);
  ASSERT_EQ(j["contexts"].size(), 1u);
  const auto& ctx = j["contexts"][0];
  EXPECT_EQ(ctx["id"], "ifs");
  EXPECT_EQ(ctx["calendar"], plan.contexts[0].calendar);
  EXPECT_EQ(ctx["start"], "2020-01-01 00:00:00");
  EXPECT_EQ(ctx["end"], "2020-01-11 00:00:00");
  EXPECT_DOUBLE_EQ(ctx["simulated_days"].get<double>(), 10.0);
  EXPECT_EQ(ctx["total_bytes"].get<std::int64_t>(), kIfsBytes);
  ASSERT_EQ(ctx["files"].size(), 2u);
  std::int64_t sum = 0;
  for (std::size_t i = 0; i < 2; ++i) {
    const auto& f = ctx["files"][i];
    const FilePlan& fp = plan.contexts[0].files[i];
    EXPECT_EQ(f["id"], fp.id);
    EXPECT_EQ(f["name"], fp.name);
    EXPECT_EQ(f["type"], "multiple_file");
    EXPECT_EQ(f["output_freq"], "3h");
    EXPECT_EQ(f["records"], 80);
    EXPECT_EQ(f["xml_file"], fp.where.file);
    EXPECT_EQ(f["xml_line"], fp.where.line);
    EXPECT_EQ(f["bytes_per_record"].get<std::int64_t>(), fp.bytes_per_record);
    EXPECT_EQ(f["once_bytes"], 0);
    EXPECT_EQ(f["total_bytes"].get<std::int64_t>(), fp.total_bytes);
    ASSERT_EQ(f["fields"].size(), fp.fields.size());
    for (std::size_t k = 0; k < fp.fields.size(); ++k) {
      const auto& x = f["fields"][k];
      EXPECT_EQ(x["name"], fp.fields[k].name);
      EXPECT_EQ(x["operation"], "instant");
      EXPECT_EQ(x["grid"], fp.fields[k].grid);
      EXPECT_EQ(x["points"].get<std::int64_t>(), fp.fields[k].points);
      EXPECT_EQ(x["prec"], 4);
      EXPECT_EQ(x["bytes_per_record"].get<std::int64_t>(), fp.fields[k].bytes_per_record);
    }
    sum += f["total_bytes"].get<std::int64_t>();
  }
  EXPECT_EQ(sum, kIfsBytes);
  EXPECT_EQ(ctx["files"][0]["fields"].size(), 12u);
  EXPECT_EQ(ctx["files"][0]["fields"][0]["points"].get<std::int64_t>(), 6'599'680LL * 137);
  EXPECT_EQ(ctx["files"][1]["bytes_per_record"].get<std::int64_t>(), 6'599'680LL * 4);
}

TEST(PlanJson, CommandLineFlag) {
  const std::string file = kDir + "iodef_ifs.xml";
  const char* argv[] = {"foehn",      "plan", file.c_str(), "--domain", "reduced_Gaussian=6599680",
                        "--duration", "10d",  "--json"};
  std::ostringstream out, err;
  ASSERT_EQ(run_cli(8, argv, out, err), 0) << err.str();
  const nlohmann::json j = nlohmann::json::parse(out.str());
  EXPECT_EQ(j["total_bytes"].get<std::int64_t>(), kIfsBytes);
  EXPECT_EQ(out.str(), format_plan_json(ifs_plan()));
}

TEST(PlanJson, ErrorsStayOnStandardError) {
  const std::string file = kDir + "iodef_ifs.xml";
  const char* argv[] = {"foehn", "plan", file.c_str(), "--json"};
  std::ostringstream out, err;
  EXPECT_EQ(run_cli(4, argv, out, err), 1);
  EXPECT_EQ(out.str(), "");
  EXPECT_NE(err.str().find("has no size"), std::string::npos) << err.str();
}

TEST(PlanJson, EmptyPlan) {
  Plan plan;
  plan.duration = "1d";
  const nlohmann::json j = nlohmann::json::parse(format_plan_json(plan));
  EXPECT_EQ(j["total_bytes"], 0);
  EXPECT_TRUE(j["contexts"].is_array());
  EXPECT_TRUE(j["contexts"].empty());
}
