// Benchmark: the cost of adding one sample of a field to a temporal average
// (filters::Accumulator::add, what a client does at every step for every
// averaged field), against a plain memcpy of the sample's bytes in the same
// run, and against the kernel foehn had before (issue 19 item 2), kept here
// as the baseline: a weight per point and branches for NaN and missing
// values, which kept the loop scalar.
//
// Kernels, timed in turn within each run (interleaved, so that a change in
// the machine's load hits them alike), medians over --runs:
//   memcpy        the sample's bytes copied (float32)
//   triad         a[i] = b[i] + s * c[i] over doubles: the memory bandwidth
//                 one core gets (STREAM's triad; 24 bytes moved per point)
//   add           Accumulator::add, average, no missing value in the window,
//                 of float32 and of float64 samples (12 and 16 bytes moved
//                 per point: the sample read, the sum read and written)
//   add_missing   Accumulator::add, average, a missing value in every sample
//                 (per-point weights, as for a masked ocean field)
//   previous      the previous kernel (per-point weights, branches)
// Memory kept per point: 8 bytes (add) against 16 (previous, add_missing).
// The target (issue 19): add at >= 60 % of the triad's bandwidth.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iostream>
#include <limits>
#include <vector>

#include "bench_stats.h"

#include "filters/temporal.h"

namespace {
using foehn::bench::Clock;
using foehn::bench::median;
const auto seconds = foehn::bench::seconds_since;
using foehn::filters::Accumulator;
using foehn::filters::TemporalOp;

// The kernel before issue 19: per-point weights, a branch per point.
struct PreviousAverage {
  std::vector<double> value, weight;
  explicit PreviousAverage(std::size_t n) : value(n), weight(n) {}
  void add(const float* in, std::size_t n, double w, double missing) {
    const double m = static_cast<double>(static_cast<float>(missing));
    for (std::size_t i = 0; i < n; ++i) {
      const double x = static_cast<double>(in[i]);
      if (std::isnan(x) || x == m) continue;
      value[i] += w * x;
      weight[i] += w;
    }
  }
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"foehn temporal-average benchmark: Accumulator::add against memcpy and the previous kernel"};
  std::size_t points = 360 * 180 * 50;  // xbench's 3-D field on one client
  int runs = 21;
  std::string out_path = "accumulate.json";
  app.add_option("--points", points, "points per sample");
  app.add_option("--runs", runs, "runs per figure (the median is reported)");
  app.add_option("--out", out_path, "JSON result file");
  CLI11_PARSE(app, argc, argv);

  std::vector<float> sample(points), with_missing(points), copy(points);
  for (std::size_t i = 0; i < points; ++i) sample[i] = static_cast<float>(std::sin(0.001 * static_cast<double>(i)));
  std::vector<double> sample64(sample.begin(), sample.end()), ta(points), tb(sample64), tc(sample64);
  with_missing = sample;
  for (std::size_t i = 0; i < points; i += 97) with_missing[i] = -999.0f;  // land points, say
  constexpr double kNoMissing = std::numeric_limits<double>::quiet_NaN();

  Accumulator clean(TemporalOp::average, points), clean64(TemporalOp::average, points),
      masked(TemporalOp::average, points);
  PreviousAverage previous(points);
  std::vector<double> t_memcpy, t_triad, t_add, t_add64, t_missing, t_previous;
  double* __restrict a_ = ta.data();
  const double* __restrict b_ = tb.data();
  const double* __restrict c_ = tc.data();
  // One warm-up round, then the timed ones; each accumulator restarts its
  // window every 24 samples, as a daily mean of hourly steps would.
  for (int r = -1; r < runs; ++r) {
    if (r % 24 == 23) clean.reset(), clean64.reset(), masked.reset();
    auto t0 = Clock::now();
    std::memcpy(copy.data(), sample.data(), points * sizeof(float));
    const double a = seconds(t0);
    t0 = Clock::now();
    for (std::size_t i = 0; i < points; ++i) a_[i] = b_[i] + 0.5 * c_[i];
    const double triad = seconds(t0);
    t0 = Clock::now();
    clean.add(0, sample.data(), points, 1.0, kNoMissing);
    const double b = seconds(t0);
    t0 = Clock::now();
    clean64.add(0, sample64.data(), points, 1.0, kNoMissing);
    const double b64 = seconds(t0);
    t0 = Clock::now();
    masked.add(0, with_missing.data(), points, 1.0, -999.0);
    const double c = seconds(t0);
    t0 = Clock::now();
    previous.add(sample.data(), points, 1.0, kNoMissing);
    const double d = seconds(t0);
    if (r < 0) continue;
    t_memcpy.push_back(a), t_triad.push_back(triad), t_add.push_back(b), t_add64.push_back(b64);
    t_missing.push_back(c), t_previous.push_back(d);
  }
  // The mean of equal samples is the sample: the timed loop did the work.
  std::vector<double> got(points);
  clean.result(0, got.data(), points);
  for (std::size_t i = 0; i < points; i += points / 7 + 1)
    if (std::abs(got[i] - static_cast<double>(sample[i])) > 1e-12) {
      std::cerr << "accumulate: point " << i << " averages to " << got[i] << ", not " << sample[i] << "\n";
      return 1;
    }
  double load = -1;  // a busy machine explains noisy figures
  if (std::ifstream proc("/proc/loadavg"); proc) proc >> load;
  const double m = median(t_memcpy), add = median(t_add), miss = median(t_missing), prev = median(t_previous);
  const double triad = median(t_triad), add64 = median(t_add64);
  const double n = static_cast<double>(points);
  const double bw_triad = 24 * n / triad, bw_add = 12 * n / add, bw_add64 = 16 * n / add64;  // bytes per second
  if (ta[points / 2] != tb[points / 2] + 0.5 * tc[points / 2]) return 1;                     // the triad ran
  std::ofstream json(out_path);
  json << "{\n  \"benchmark\": \"accumulate\",\n  \"load_average_1min\": " << load << ",\n  \"points\": " << points
       << ",\n  \"runs\": " << runs << ",\n  \"statistic\": \"median seconds per sample of one float32 field\",\n"
       << "  \"memcpy_s\": " << m << ",\n  \"add_s\": " << add << ",\n  \"add_missing_s\": " << miss
       << ",\n  \"previous_s\": " << prev << ",\n  \"triad_s\": " << triad << ",\n  \"add_float64_s\": " << add64
       << ",\n  \"triad_gb_per_s\": " << bw_triad / 1e9
       << ",\n  \"add_float32_of_triad_bandwidth\": " << bw_add / bw_triad
       << ",\n  \"add_float64_of_triad_bandwidth\": " << bw_add64 / bw_triad << ",\n  \"add_over_memcpy\": " << add / m
       << ",\n  \"add_missing_over_memcpy\": " << miss / m << ",\n  \"previous_over_memcpy\": " << prev / m
       << ",\n  \"bytes_per_point_add\": 8,\n  \"bytes_per_point_previous\": 16\n}\n";
  std::cout << "points " << points << ", load average " << load << "\n"
            << "memcpy       " << m * 1e3 << " ms\n"
            << "add          " << add * 1e3 << " ms  (" << add / m << " x memcpy, 8 bytes kept per point)\n"
            << "add_missing  " << miss * 1e3 << " ms  (" << miss / m << " x memcpy, 16 bytes per point)\n"
            << "previous     " << prev * 1e3 << " ms  (" << prev / m << " x memcpy, 16 bytes per point)\n"
            << "triad        " << triad * 1e3 << " ms  (" << bw_triad / 1e9 << " GB/s)\n"
            << "add float32  " << 100 * bw_add / bw_triad << " % of the triad's bandwidth\n"
            << "add float64  " << add64 * 1e3 << " ms, " << 100 * bw_add64 / bw_triad
            << " % of the triad's bandwidth\n";
  return 0;
}
