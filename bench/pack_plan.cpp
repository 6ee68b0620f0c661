// Benchmark: the cost of packing one field on a client with the pack plans
// foehn builds at close of definition (grid::StreamMap, as context_plan.cpp
// builds them), against a plain memcpy of the same bytes measured in the
// same run. Cases: a contiguous block, and a shuffled 1-D decomposition (the
// client's points a random subset of the domain, in random order) sent to
// 1, 4 and 16 servers, alone and with levels. For comparison, the same
// shuffled plans walked as plain runs (one memcpy per run, which is what a
// memcpy-only walker does with scattered points).
//
// Each figure is the median over --runs runs of the time per pack, with the
// field hot (in cache, as right after the model computed it) and cold (the
// caches flushed first, as for a field computed a while ago, or one larger
// than the cache). The target is judged on cold fields: hot, a scalar gather
// moves about one value per cycle while memcpy streams 16 or more from L3.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iostream>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "grid/box.h"
#include "grid/stream_map.h"

namespace {

using Clock = std::chrono::steady_clock;
constexpr std::int64_t kFragment = 16384;  // values per event: a 64 KiB float payload

struct Case {
  std::string name;
  bool shuffled = true;
  int servers = 1;
  std::int64_t levels = 1;
  bool headline = false;  // the case the target is judged on
};

// Evicts the caches by streaming over a buffer larger than them.
void flush_caches() {
  static std::vector<char> junk(std::size_t{256} << 20, 1);
  static volatile char sink = 0;
  char sum = 0;
  for (std::size_t k = 0; k < junk.size(); k += 64) sum = static_cast<char>(sum + junk[k]++);
  sink = sum;
}

// Median seconds per call of f, cold: over `runs` calls each after a flush.
template <class F>
double median_cold_seconds(int runs, F&& f) {
  std::vector<double> t;
  for (int k = 0; k < runs; ++k) {
    flush_caches();
    const auto t0 = Clock::now();
    f();
    t.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
  }
  std::nth_element(t.begin(), t.begin() + runs / 2, t.end());
  return t[static_cast<std::size_t>(runs / 2)];
}

// Median seconds per call of f, hot: over `runs` runs of enough calls to last ~20 ms.
template <class F>
double median_seconds(int runs, F&& f) {
  f();  // warm up
  int reps = 1;
  for (;;) {
    const auto t0 = Clock::now();
    for (int r = 0; r < reps; ++r) f();
    if (std::chrono::duration<double>(Clock::now() - t0).count() > 0.02 || reps > (1 << 20)) break;
    reps *= 2;
  }
  std::vector<double> t;
  for (int k = 0; k < runs; ++k) {
    const auto t0 = Clock::now();
    for (int r = 0; r < reps; ++r) f();
    t.push_back(std::chrono::duration<double>(Clock::now() - t0).count() / reps);
  }
  std::nth_element(t.begin(), t.begin() + runs / 2, t.end());
  return t[static_cast<std::size_t>(runs / 2)];
}

struct Result {
  Case c;
  std::int64_t values = 0;
  double memcpy_s = 0, pack_s = 0, runs_s = 0, memcpy_cold_s = 0, pack_cold_s = 0;
  std::size_t gathered = 0, runs = 0;
};

Result measure(const Case& c, std::int64_t points, int runs) {
  // The domain is 16 times the client's share; the client holds `points` of it.
  const std::int64_t n_glo = 16 * points;
  std::mt19937_64 rng(42);
  std::vector<std::int64_t> mine(static_cast<std::size_t>(points));
  if (c.shuffled) {
    std::vector<std::int64_t> all(static_cast<std::size_t>(n_glo));
    std::iota(all.begin(), all.end(), 0);
    std::shuffle(all.begin(), all.end(), rng);
    std::copy_n(all.begin(), points, mine.begin());
  } else {
    std::iota(mine.begin(), mine.end(), 5 * points);
  }
  // Pack plans as context_plan.cpp builds them: per server, the data
  // positions whose points lie in its slab, in data order.
  std::vector<std::vector<std::int64_t>> positions(static_cast<std::size_t>(c.servers));
  for (std::int64_t p = 0; p < points; ++p) {
    const std::int64_t s = mine[static_cast<std::size_t>(p)] * c.servers / n_glo;
    positions[static_cast<std::size_t>(s)].push_back(p);
  }
  std::vector<foehn::grid::StreamMap> maps;
  std::vector<std::vector<foehn::grid::Run>> run_lists;
  Result r{c, points * c.levels};
  for (const auto& pos : positions) {
    maps.emplace_back(pos, points, c.levels, 1);
    run_lists.push_back(maps.back().runs());
    r.gathered += maps.back().gather_points();
    r.runs += run_lists.back().size();
  }
  std::vector<float> data(static_cast<std::size_t>(r.values)), out(data.size()), copy(data.size());
  std::iota(data.begin(), data.end(), 0.0f);

  auto copy_all = [&] { std::memcpy(copy.data(), data.data(), data.size() * sizeof(float)); };
  auto pack_all = [&] {
    float* dst = out.data();
    for (const auto& m : maps) {
      for (std::int64_t off = 0; off < m.size(); off += kFragment)
        m.gather(data.data(), off, std::min(kFragment, m.size() - off), dst + off);
      dst += m.size();
    }
  };
  r.memcpy_s = median_seconds(runs, copy_all);
  r.pack_s = median_seconds(runs, pack_all);
  r.memcpy_cold_s = median_cold_seconds(runs, copy_all);
  r.pack_cold_s = median_cold_seconds(runs, pack_all);
  r.runs_s = median_seconds(runs, [&] {
    float* dst = out.data();
    for (const auto& list : run_lists) {
      std::int64_t n = 0;
      for (const auto& run : list) {
        std::memcpy(dst + run.to, data.data() + run.from, static_cast<std::size_t>(run.length) * sizeof(float));
        n += run.length;
      }
      dst += n;
    }
  });
  // The packed streams hold every value once: check a checksum.
  double a = 0, b = 0;
  for (std::size_t k = 0; k < data.size(); ++k) a += data[k], b += out[k];
  if (a != b) std::cerr << "pack_plan: checksum mismatch in " << c.name << "\n";
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"foehn pack-plan benchmark"};
  std::int64_t points = 1 << 20;
  int runs = 11;
  std::string out_path = "pack_plan.json";
  app.add_option("--points", points, "points the client holds");
  app.add_option("--runs", runs, "runs per figure (the median is reported)");
  app.add_option("--out", out_path, "JSON result file");
  CLI11_PARSE(app, argc, argv);

  const std::vector<Case> cases = {{"contiguous_4_servers", false, 4, 1},
                                   {"shuffled_1_server", true, 1, 1},
                                   {"shuffled_4_servers", true, 4, 1, true},
                                   {"shuffled_16_servers", true, 16, 1},
                                   {"shuffled_4_servers_10_levels", true, 4, 10}};
  std::ofstream json(out_path);
  json << "{\n  \"benchmark\": \"pack_plan\",\n  \"points\": " << points << ",\n  \"runs\": " << runs
       << ",\n  \"statistic\": \"median seconds per pack\",\n  \"target\": \"pack <= 3 x memcpy of the same bytes\",\n"
       << "  \"cases\": [\n";
  bool ok = true;
  for (std::size_t k = 0; k < cases.size(); ++k) {
    const Result r = measure(cases[k], points, runs);
    const double ratio = r.pack_s / r.memcpy_s, runs_ratio = r.runs_s / r.memcpy_s;
    const double cold = r.pack_cold_s / r.memcpy_cold_s;
    if (cases[k].headline) ok = ok && cold <= 3.0;
    std::printf("%-29s %9lld values | hot: memcpy %7.3f ms pack %7.3f ms %5.2fx, runs-only %5.2fx | cold: memcpy %7.3f ms "
                "pack %7.3f ms %5.2fx\n",
                r.c.name.c_str(), static_cast<long long>(r.values), r.memcpy_s * 1e3, r.pack_s * 1e3, ratio, runs_ratio,
                r.memcpy_cold_s * 1e3, r.pack_cold_s * 1e3, cold);
    json << "    {\"case\": \"" << r.c.name << "\", \"servers\": " << r.c.servers << ", \"levels\": " << r.c.levels
         << ", \"values\": " << r.values << ", \"bytes\": " << r.values * 4 << ",\n     \"hot\": {\"memcpy_s\": "
         << r.memcpy_s << ", \"pack_s\": " << r.pack_s << ", \"pack_over_memcpy\": " << ratio
         << ", \"runs_only_s\": " << r.runs_s << ", \"runs_only_over_memcpy\": " << runs_ratio
         << "},\n     \"cold\": {\"memcpy_s\": " << r.memcpy_cold_s << ", \"pack_s\": " << r.pack_cold_s
         << ", \"pack_over_memcpy\": " << cold << "},\n     \"gathered_points\": " << r.gathered
         << ", \"memcpy_runs\": " << r.runs << ", \"headline\": " << (cases[k].headline ? "true" : "false") << "}"
         << (k + 1 < cases.size() ? "," : "") << "\n";
  }
  json << "  ],\n  \"headline_within_target\": " << (ok ? "true" : "false") << "\n}\n";
  std::printf("shuffled 1-D decomposition, cold: pack <= 3 x memcpy: %s\n", ok ? "yes" : "no");
  return 0;
}
