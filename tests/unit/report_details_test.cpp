// The report's per-file and per-field lines (report/details.h): merging by
// name (a file written by several writers adds up), the text that carries
// them between ranks, the ratio, the tables and the JSON document.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sstream>

#include "report/report.h"

namespace foehn::report {
namespace {

TEST(ReportDetails, MergeAddsTheSameFileAndField) {
  Details a{{{"atm", "hf", 0, 1000, 400}, {"atm", "daily", 0, 50, 60}}, {{"atm", "t", 2, 1, 0}}};
  Details b{{{"atm", "hf", 0, 3000, 100}, {"ocean", "hf", 1, 8, 8}}, {{"atm", "t", 1, 0, 5}, {"atm", "q", 3, 0, 0}}};
  merge(a, b);
  ASSERT_EQ(a.files.size(), 3u);
  EXPECT_EQ(a.files[0].raw_bytes, 4000);
  EXPECT_EQ(a.files[0].disk_bytes, 500);
  EXPECT_EQ(compression_ratio(a.files[0]), 8.0);
  EXPECT_EQ(a.files[2].context, "ocean");  // same file id, another context: its own line
  EXPECT_EQ(a.files[2].code, 1);
  ASSERT_EQ(a.fields.size(), 2u);
  EXPECT_EQ(a.fields[0].nan, 3);
  EXPECT_EQ(a.fields[0].pos_inf, 1);
  EXPECT_EQ(a.fields[0].neg_inf, 5);
  EXPECT_EQ(a.fields[1].field, "q");
}

TEST(ReportDetails, TextCarriesEverythingExactly) {
  const Details d{{{"atm", "f \"q\"", 2, 123456789012.0, 9876543.0}}, {{"atm", "t", 9007199254740992.0, 1, 2}}};
  const Details back = from_text(to_text(d));
  ASSERT_EQ(back.files.size(), 1u);
  EXPECT_EQ(back.files[0].file, "f \"q\"");
  EXPECT_EQ(back.files[0].code, 2);
  EXPECT_EQ(back.files[0].raw_bytes, 123456789012.0);
  EXPECT_EQ(back.files[0].disk_bytes, 9876543.0);
  ASSERT_EQ(back.fields.size(), 1u);
  EXPECT_EQ(back.fields[0].nan, 9007199254740992.0);
  EXPECT_THROW(from_text("{\"files\": 3}"), std::runtime_error);
}

TEST(ReportDetails, TablesAndJson) {
  RunReport r;
  r.code = "m";
  r.details = {{{"atm", "hf", 0, 4e6, 1e6}, {"atm", "empty", 0, 0, 0}}, {{"atm", "t", 3, 1, 2}}};
  std::ostringstream files, fields, none;
  print_files(files, r.details.files);
  print_non_finite(fields, r.details.fields);
  print_non_finite(none, {});
  EXPECT_NE(files.str().find("atm          hf                                4.000          1.000    4.000"),
            std::string::npos)
      << files.str();
  EXPECT_NE(fields.str().find("t                                     3              1              2"),
            std::string::npos)
      << fields.str();
  EXPECT_EQ(none.str(), "foehn report: non-finite values written: none\n");
  const auto doc = nlohmann::json::parse(to_json(r));
  EXPECT_EQ(doc["files"][0]["compression_ratio"], 4.0);
  EXPECT_EQ(doc["files"][1]["compression_ratio"], 0.0);  // nothing on disk: no ratio
  EXPECT_EQ(doc["non_finite"][0]["field"], "t");
  EXPECT_EQ(doc["non_finite"][0]["neg_inf"], 2);
}

}  // namespace
}  // namespace foehn::report
