#include "tools/report_summary.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace foehn::tools {

namespace {

using nlohmann::json;

// The few figures a user compares between two runs.
struct Summary {
  std::string mode, code;
  std::size_t clients = 0, servers = 0;
  double wall = 0, worst_wait = 0, inside = 0, busy = 0, cpu = 0, written = 0, memory = 0;
  std::vector<std::string> advice;
};

Summary load(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open");
  json doc;
  try {
    doc = json::parse(in);
  } catch (const json::parse_error& e) {
    // Not e.what(): it quotes the bytes read, which may not be text.
    throw std::runtime_error(path + ": not JSON (parse error at byte " + std::to_string(e.byte) + ")");
  }
  if (!doc.contains("foehn_report_version")) throw std::runtime_error(path + ": not a foehn report");
  Summary s;
  try {
    s.mode = doc.at("mode");
    s.code = doc.at("code");
    for (const auto& c : doc.at("clients")) {
      ++s.clients;
      s.wall = std::max(s.wall, c.at("wall_seconds").get<double>());
      s.worst_wait = std::max(s.worst_wait, c.at("wait_ratio").get<double>());
      s.inside = std::max(s.inside, c.at("inside_seconds").get<double>());
    }
    for (const auto& v : doc.at("servers")) {
      ++s.servers;
      s.busy = std::max(s.busy, v.at("busy_ratio").get<double>());
      s.cpu += v.at("cpu_seconds").get<double>();
      s.written += v.at("bytes_written").get<double>();
      // Reports before version 2 have only foehn's buffers (peak_memory_bytes).
      const char* memory = v.contains("peak_rss_bytes") ? "peak_rss_bytes" : "peak_memory_bytes";
      s.memory = std::max(s.memory, v.at(memory).get<double>());
    }
    for (const auto& a : doc.at("advice")) s.advice.push_back(a);
  } catch (const json::exception& e) { throw std::runtime_error(path + ": missing or bad figure: " + e.what()); }
  return s;
}

std::string row(const char* label, const std::vector<double>& values, const char* format) {
  char buf[64];
  std::string line = "  ";
  line += label;
  line.resize(34, ' ');
  for (double v : values) {
    std::snprintf(buf, sizeof buf, format, v);
    std::string cell = buf;
    line += std::string(cell.size() < 16 ? 16 - cell.size() : 1, ' ') + cell;
  }
  if (values.size() == 2 && values[0] != 0) {
    std::snprintf(buf, sizeof buf, "%+15.1f %%", 100.0 * (values[1] - values[0]) / values[0]);
    line += buf;
  }
  return line + "\n";
}

}  // namespace

std::string summarise_reports(const std::vector<std::string>& paths) {
  if (paths.empty() || paths.size() > 2) throw std::runtime_error("give one report, or two to compare");
  std::vector<Summary> all;
  for (const auto& p : paths) all.push_back(load(p));
  auto pick = [&](double Summary::*field) {
    std::vector<double> v;
    for (const auto& s : all) v.push_back(s.*field);
    return v;
  };
  std::string out;
  for (size_t k = 0; k < all.size(); ++k)
    out += (all.size() == 2 ? (k == 0 ? "A: " : "B: ") : "") + paths[k] + ": model '" + all[k].code + "', " +
           std::to_string(all[k].clients) + " client(s), " +
           (all[k].mode == "attached" ? std::string("attached") : std::to_string(all[k].servers) + " server(s)") + "\n";
  out += row("wall time of the run, s", pick(&Summary::wall), "%.3f");
  out += row("most time inside foehn, s", pick(&Summary::inside), "%.3f");
  out += row("worst client waiting ratio", pick(&Summary::worst_wait), "%.4f");
  out += row("busiest server busy ratio", pick(&Summary::busy), "%.4f");
  out += row("server CPU time, s", pick(&Summary::cpu), "%.3f");
  out += row("bytes written", pick(&Summary::written), "%.0f");
  out += row("largest server memory, bytes", pick(&Summary::memory), "%.0f");
  for (size_t k = 0; k < all.size(); ++k)
    for (const auto& a : all[k].advice)
      out += std::string(all.size() == 2 ? (k == 0 ? "A" : "B") : "") + " advice: " + a + "\n";
  return out;
}

}  // namespace foehn::tools
