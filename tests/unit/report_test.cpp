// The run report: the text tables, the advice thresholds and the JSON
// document, from figures set here.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sstream>

#include "report/report.h"

namespace foehn::report {
namespace {

ServerFigures server(double wall, double busy) {
  ServerFigures s;
  s.wall_seconds = wall;
  s.busy_seconds = busy;
  s.cpu_seconds = busy;
  s.write_seconds = 0.25;
  s.bytes_written = 12.5e6;
  s.peak_buffer_bytes = 83.0e6;
  s.peak_rss_bytes = 95.5e6;
  s.messages_received = 42;
  return s;
}

TEST(Report, ServerTableHasEveryFigure) {
  std::ostringstream out;
  print_servers(out, {server(10, 2), server(10, 7)});
  const std::string text = out.str();
  for (const char* word : {"write s", "MB written", "peak mem MB", "buffers MB", "messages"})
    EXPECT_NE(text.find(word), std::string::npos) << word;
  // rank, wall, busy, cpu, busy ratio, write s, MB written, peak MB (RSS), buffers MB, messages
  EXPECT_NE(
      text.find(
          "1     10.000      7.000      7.000   0.7000      0.250        12.50        95.50       83.00         42"),
      std::string::npos)
      << text;
}

TEST(Report, AdviceOnlyWhenAThresholdIsCrossed) {
  RunReport r;
  r.clients.resize(1);
  r.clients[0].wall_seconds = 100;
  r.clients[0].wait_seconds = 0.5;  // 0.5 %: fine
  r.servers = {server(10, 5)};      // busy 50 %: fine
  EXPECT_TRUE(advice(r).empty());
  r.clients[0].wait_seconds = 2;  // 2 %
  r.servers = {server(10, 7)};    // 70 %
  const auto said = advice(r);
  ASSERT_EQ(said.size(), 2u);
  EXPECT_NE(said[0].find("waited 2.0 %"), std::string::npos) << said[0];
  EXPECT_NE(said[1].find("busy 70 %"), std::string::npos) << said[1];
  // A run of a fraction of a second: its ratios are set-up noise.
  r.clients[0].wall_seconds = 0.05, r.clients[0].wait_seconds = 0.02;
  r.servers = {server(0.05, 0.04)};
  EXPECT_TRUE(advice(r).empty());
}

TEST(Report, JsonHoldsTheFigures) {
  RunReport r;
  r.code = "model";
  r.clients.resize(2);
  r.clients[1].wall_seconds = 4;
  r.clients[1].wait_seconds = 1;
  r.servers = {server(10, 2)};
  const auto doc = nlohmann::json::parse(to_json(r));
  EXPECT_EQ(doc["code"], "model");
  EXPECT_EQ(doc["mode"], "server");
  EXPECT_DOUBLE_EQ(doc["clients"][1]["wait_ratio"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(doc["servers"][0]["peak_buffer_bytes"].get<double>(), 83.0e6);
  EXPECT_DOUBLE_EQ(doc["servers"][0]["peak_rss_bytes"].get<double>(), 95.5e6);
  EXPECT_DOUBLE_EQ(doc["servers"][0]["write_seconds"].get<double>(), 0.25);
  r.servers.clear();
  EXPECT_EQ(nlohmann::json::parse(to_json(r))["mode"], "attached");
}

}  // namespace
}  // namespace foehn::report
