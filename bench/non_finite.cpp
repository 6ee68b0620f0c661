// Benchmark: the cost of counting the NaN and infinities of a field at each
// write foehn takes (client::count_non_finite, the report's per-field
// non-finite values), against a memcpy of the same bytes measured in the
// same run: the least a write costs (foehn copies each field it takes at
// least once: packing it for the servers, or into the source of an
// expression). Float and double fields of finite values (the usual case: one
// vectorised pass of integer tests) and fields with a non-finite value in
// every block (the second pass runs everywhere), hot (in cache, right after
// the copy) and cold (caches flushed first).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "bench_stats.h"

#include "client/non_finite.h"

namespace {

using foehn::bench::median_seconds;

volatile std::uint64_t g_sink = 0;

struct Result {
  std::string name;
  double memcpy_s = 0, count_s = 0;
};

template <class T>
Result measure(const char* name, std::size_t points, bool spoiled, bool cold, int runs) {
  std::vector<T> data(points), copy(points);
  for (std::size_t k = 0; k < points; ++k) data[k] = static_cast<T>(280.0 + std::sin(0.001 * static_cast<double>(k)));
  std::uint64_t expected = 0;
  if (spoiled)  // one NaN per 1000 values: every block of the first pass finds one
    for (std::size_t k = 0; k < points; k += 1000, ++expected) data[k] = std::numeric_limits<T>::quiet_NaN();
  foehn::client::NonFiniteCounts c;
  foehn::client::count_non_finite(data.data(), points, c);
  if (c.nan != expected || c.pos_inf + c.neg_inf != 0) {
    std::fprintf(stderr, "non_finite: %s: counted %llu NaN, expected %llu\n", name,
                 static_cast<unsigned long long>(c.nan), static_cast<unsigned long long>(expected));
    std::exit(1);
  }
  Result r{std::string(name) + (cold ? "_cold" : "_hot")};
  r.memcpy_s = median_seconds(runs, cold, [&] { std::memcpy(copy.data(), data.data(), points * sizeof(T)); });
  r.count_s = median_seconds(runs, cold, [&] {
    foehn::client::NonFiniteCounts n;
    foehn::client::count_non_finite(data.data(), points, n);
    g_sink = g_sink + n.nan;
  });
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"foehn non-finite count benchmark"};
  std::size_t points = 1 << 20;
  int runs = 11;
  std::string out_path = "non_finite.json";
  app.add_option("--points", points, "values per field");
  app.add_option("--runs", runs, "runs per figure (the median is reported)");
  app.add_option("--out", out_path, "JSON result file");
  CLI11_PARSE(app, argc, argv);
  double load = -1;
  if (std::ifstream proc("/proc/loadavg"); proc) proc >> load;
  std::vector<Result> results;
  for (bool cold : {false, true}) {
    results.push_back(measure<float>("float_finite", points, false, cold, runs));
    results.push_back(measure<double>("double_finite", points, false, cold, runs));
    results.push_back(measure<float>("float_nan_every_1000", points, true, cold, runs));
  }
  std::ofstream json(out_path);
  json << "{\n  \"benchmark\": \"non_finite\",\n  \"load_average_1min\": " << load << ",\n  \"points\": " << points
       << ",\n  \"runs\": " << runs << ",\n  \"statistic\": \"median seconds per field\",\n  \"cases\": {\n";
  for (std::size_t k = 0; k < results.size(); ++k) {
    const Result& r = results[k];
    std::printf("%-32s count %8.3f ms, memcpy %8.3f ms: count / memcpy %5.2f\n", r.name.c_str(), r.count_s * 1e3,
                r.memcpy_s * 1e3, r.count_s / r.memcpy_s);
    json << "    \"" << r.name << "\": {\"count_s\": " << r.count_s << ", \"memcpy_s\": " << r.memcpy_s
         << ", \"count_over_memcpy\": " << r.count_s / r.memcpy_s << "}" << (k + 1 < results.size() ? "," : "") << "\n";
  }
  json << "  }\n}\n";
  return 0;
}
