// Benchmark: the cost of adding one sample of a field to a temporal
// operation (filters::Accumulator::add, what a client does at every step for
// every reduced field) and of a period's end, against a plain memcpy and a
// STREAM triad in the same run, and against the kernel foehn had before
// (issue 19 item 2), kept here as the baseline: a weight per point and
// branches for NaN and missing values, which kept the loop scalar.
//
// Kernels, timed in turn within each run (interleaved, so that a change in
// the machine's load hits them alike), medians over --runs:
//   memcpy        the sample's bytes copied (float32)
//   triad         a[i] = b[i] + s * c[i] over doubles: the memory bandwidth
//                 one core gets (STREAM's triad; 24 bytes moved per point)
//   add           Accumulator::add of average, accumulate, minimum and
//                 maximum, no missing value in the window, of float32 and of
//                 float64 samples (12 and 16 bytes moved per point: the
//                 sample read, the running value read and written)
//   add_missing   Accumulator::add, average, a missing value in every sample
//                 (per-point weights, as for a masked ocean field)
//   previous      the previous kernel (per-point weights, branches)
//   period end    the mean packed into a float64 send buffer (a contiguous
//                 StreamMap, as one server receives a field): before, three
//                 passes (result into a staging vector, reset, pack); now one
//                 (the running values converted while packing, the reset
//                 deferred to the next window's first sample)
// And, to decide whether float32 fields could accumulate in less memory,
// the error of a mean of --error-samples float32 samples summed in float32
// (4 bytes per point), in float32 with Kahan compensation (8 bytes, as one
// double) and in float64 (what foehn does), against a long double sum.
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
#include <numeric>
#include <string>
#include <vector>

#include "bench_stats.h"

#include "filters/temporal.h"
#include "grid/stream_map.h"

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

// The largest relative error of the mean of `samples` float32 samples per
// point, summed in float32, in float32 with Kahan compensation and in
// float64, against long double sums.
struct SumErrors {
  double float32 = 0, kahan32 = 0, float64 = 0;
};
SumErrors sum_errors(std::size_t points, int samples) {
  std::vector<float> s32(points, 0.0f), c32(points, 0.0f), k32(points, 0.0f);
  std::vector<double> s64(points, 0.0);
  std::vector<long double> exact(points, 0.0L);
  for (int t = 0; t < samples; ++t)
    for (std::size_t i = 0; i < points; ++i) {
      // A temperature-like field: 280 K, a daily cycle and a spatial pattern.
      const auto x = static_cast<float>(280.0 + 10.0 * std::sin(0.2618 * t + 0.001 * static_cast<double>(i)) +
                                        0.37 * std::cos(0.017 * static_cast<double>(i * (t + 1))));
      s32[i] += x;
      const float y = x - c32[i], z = k32[i] + y;  // Kahan
      c32[i] = (z - k32[i]) - y;
      k32[i] = z;
      s64[i] += static_cast<double>(x);
      exact[i] += static_cast<long double>(x);
    }
  SumErrors e;
  for (std::size_t i = 0; i < points; ++i) {
    const long double ref = exact[i] / samples;
    auto rel = [&](long double mean) { return static_cast<double>(std::fabs(mean - ref) / std::fabs(ref)); };
    // What is written is a float32 mean: the error that matters is beyond its rounding.
    e.float32 = std::max(e.float32, rel(static_cast<float>(s32[i] / static_cast<float>(samples))));
    e.kahan32 = std::max(e.kahan32, rel(static_cast<float>(k32[i] / static_cast<float>(samples))));
    e.float64 = std::max(e.float64, rel(static_cast<float>(s64[i] / samples)));
  }
  return e;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"foehn temporal-operation benchmark: Accumulator::add and a period's end against memcpy and a triad"};
  std::size_t points = 360 * 180 * 50;  // xbench's 3-D field on one client
  int runs = 21, error_samples = 744;   // a monthly mean of hourly steps
  std::string out_path = "accumulate.json";
  app.add_option("--points", points, "points per sample");
  app.add_option("--runs", runs, "runs per figure (the median is reported)");
  app.add_option("--error-samples", error_samples, "samples per mean in the float32 error measurement");
  app.add_option("--out", out_path, "JSON result file");
  CLI11_PARSE(app, argc, argv);

  std::vector<float> sample(points), with_missing(points), copy(points);
  for (std::size_t i = 0; i < points; ++i) sample[i] = static_cast<float>(std::sin(0.001 * static_cast<double>(i)));
  std::vector<double> sample64(sample.begin(), sample.end()), ta(points), tb(sample64), tc(sample64);
  with_missing = sample;
  for (std::size_t i = 0; i < points; i += 97) with_missing[i] = -999.0f;  // land points, say
  constexpr double kNoMissing = std::numeric_limits<double>::quiet_NaN();

  // The reductions without missing values, of float32 (f) and float64 (d) samples.
  const TemporalOp ops[4] = {TemporalOp::average, TemporalOp::accumulate, TemporalOp::minimum, TemporalOp::maximum};
  const char* op_names[4] = {"average", "accumulate", "minimum", "maximum"};
  std::vector<Accumulator> acc32, acc64;
  for (TemporalOp op : ops) acc32.emplace_back(op, points), acc64.emplace_back(op, points);
  std::vector<std::vector<double>> t_add32(4), t_add64(4);
  Accumulator masked(TemporalOp::average, points);
  PreviousAverage previous(points);
  // Period end: a separate average per way, so that each packs a window of its own.
  Accumulator end_before(TemporalOp::average, points), end_fused(TemporalOp::average, points);
  std::vector<double> staging(points), send(points);
  std::vector<std::int64_t> all(points);
  std::iota(all.begin(), all.end(), std::int64_t{0});
  const foehn::grid::StreamMap to_server(all, static_cast<std::int64_t>(points));
  std::vector<double> t_memcpy, t_triad, t_missing, t_previous, t_end_before, t_end_fused;
  double* __restrict a_ = ta.data();
  const double* __restrict b_ = tb.data();
  const double* __restrict c_ = tc.data();
  const auto n64 = static_cast<std::int64_t>(points);
  // One warm-up round, then the timed ones; each accumulator restarts its
  // window every 24 samples, as a daily mean of hourly steps would.
  for (int r = -1; r < runs; ++r) {
    if (r % 24 == 23) {
      for (auto& a : acc32) a.reset();
      for (auto& a : acc64) a.reset();
      masked.reset();
    }
    auto t0 = Clock::now();
    std::memcpy(copy.data(), sample.data(), points * sizeof(float));
    const double mc = seconds(t0);
    t0 = Clock::now();
    for (std::size_t i = 0; i < points; ++i) a_[i] = b_[i] + 0.5 * c_[i];
    const double triad = seconds(t0);
    double add32[4], add64[4];
    for (int k = 0; k < 4; ++k) {
      t0 = Clock::now();
      acc32[k].add(0, sample.data(), points, 1.0, kNoMissing);
      add32[k] = seconds(t0);
      t0 = Clock::now();
      acc64[k].add(0, sample64.data(), points, 1.0, kNoMissing);
      add64[k] = seconds(t0);
    }
    t0 = Clock::now();
    masked.add(0, with_missing.data(), points, 1.0, -999.0);
    const double miss = seconds(t0);
    t0 = Clock::now();
    previous.add(sample.data(), points, 1.0, kNoMissing);
    const double prev = seconds(t0);
    // Period end after one sample, both ways: the time of the end itself.
    end_before.add(0, sample.data(), points, 1.0, kNoMissing);
    t0 = Clock::now();
    end_before.result(0, staging.data(), points);
    end_before.reset();
    (void)end_before.values();  // writes the start values now: the reset as it was
    to_server.gather(staging.data(), 0, n64, send.data());
    const double before = seconds(t0);
    end_fused.add(0, sample.data(), points, 1.0, kNoMissing);
    t0 = Clock::now();
    to_server.gather(end_fused.values(), 0, n64, send.data(), end_fused.uniform_result());
    end_fused.reset();
    const double fused = seconds(t0);
    if (send[points / 3] != static_cast<double>(sample[points / 3])) {
      std::cerr << "accumulate: the fused period end packed " << send[points / 3] << "\n";
      return 1;
    }
    if (r < 0) continue;
    t_memcpy.push_back(mc), t_triad.push_back(triad), t_missing.push_back(miss), t_previous.push_back(prev);
    for (int k = 0; k < 4; ++k) t_add32[k].push_back(add32[k]), t_add64[k].push_back(add64[k]);
    t_end_before.push_back(before), t_end_fused.push_back(fused);
  }
  // The mean of equal samples is the sample: the timed loop did the work.
  std::vector<double> got(points);
  acc32[0].result(0, got.data(), points);
  for (std::size_t i = 0; i < points; i += points / 7 + 1)
    if (std::abs(got[i] - static_cast<double>(sample[i])) > 1e-12) {
      std::cerr << "accumulate: point " << i << " averages to " << got[i] << ", not " << sample[i] << "\n";
      return 1;
    }
  if (ta[points / 2] != tb[points / 2] + 0.5 * tc[points / 2]) return 1;  // the triad ran
  const SumErrors err = sum_errors(std::min<std::size_t>(points, 20000), error_samples);

  double load = -1;  // a busy machine explains noisy figures
  if (std::ifstream proc("/proc/loadavg"); proc) proc >> load;
  const double m = median(t_memcpy), miss = median(t_missing), prev = median(t_previous);
  const double triad = median(t_triad), end_before_s = median(t_end_before), end_fused_s = median(t_end_fused);
  const double n = static_cast<double>(points);
  const double bw_triad = 24 * n / triad;  // bytes per second
  double s32[4], s64[4], of32[4], of64[4];
  for (int k = 0; k < 4; ++k) {
    s32[k] = median(t_add32[k]), s64[k] = median(t_add64[k]);
    of32[k] = 12 * n / s32[k] / bw_triad, of64[k] = 16 * n / s64[k] / bw_triad;
  }
  std::ofstream json(out_path);
  json << "{\n  \"benchmark\": \"accumulate\",\n  \"load_average_1min\": " << load << ",\n  \"points\": " << points
       << ",\n  \"runs\": " << runs << ",\n  \"statistic\": \"median seconds per sample of one field\",\n"
       << "  \"memcpy_s\": " << m << ",\n  \"add_s\": " << s32[0] << ",\n  \"add_missing_s\": " << miss
       << ",\n  \"previous_s\": " << prev << ",\n  \"triad_s\": " << triad << ",\n  \"add_float64_s\": " << s64[0]
       << ",\n  \"triad_gb_per_s\": " << bw_triad / 1e9 << ",\n  \"add_float32_of_triad_bandwidth\": " << of32[0]
       << ",\n  \"add_float64_of_triad_bandwidth\": " << of64[0] << ",\n  \"add_over_memcpy\": " << s32[0] / m
       << ",\n  \"add_missing_over_memcpy\": " << miss / m << ",\n  \"previous_over_memcpy\": " << prev / m
       << ",\n  \"bytes_per_point_add\": 8,\n  \"bytes_per_point_previous\": 16,\n  \"operations\": {";
  for (int k = 0; k < 4; ++k)
    json << (k ? ",\n" : "\n") << "    \"" << op_names[k] << "\": {\"float32_s\": " << s32[k]
         << ", \"float32_of_triad_bandwidth\": " << of32[k] << ", \"float64_s\": " << s64[k]
         << ", \"float64_of_triad_bandwidth\": " << of64[k] << "}";
  json << "\n  },\n  \"period_end_three_passes_s\": " << end_before_s << ",\n  \"period_end_fused_s\": " << end_fused_s
       << ",\n  \"period_end_fused_over_memcpy_float64\": " << end_fused_s / (2 * m)
       << ",\n  \"float32_mean_error_samples\": " << error_samples
       << ",\n  \"float32_mean_max_relative_error\": {\"sum_float32\": " << err.float32
       << ", \"kahan_float32\": " << err.kahan32 << ", \"sum_float64\": " << err.float64 << "}\n}\n";
  std::cout << "points " << points << ", load average " << load << "\n"
            << "memcpy float32  " << m * 1e3 << " ms\n"
            << "triad           " << triad * 1e3 << " ms  (" << bw_triad / 1e9 << " GB/s)\n";
  for (int k = 0; k < 4; ++k)
    std::cout << "add " << op_names[k] << std::string(11 - std::strlen(op_names[k]), ' ') << "float32 " << s32[k] * 1e3
              << " ms (" << 100 * of32[k] << " % of the triad's bandwidth), float64 " << s64[k] * 1e3 << " ms ("
              << 100 * of64[k] << " %)\n";
  std::cout << "add_missing     " << miss * 1e3 << " ms  (" << miss / m << " x memcpy, 16 bytes per point)\n"
            << "previous        " << prev * 1e3 << " ms  (" << prev / m << " x memcpy, 16 bytes per point)\n"
            << "period end      three passes " << end_before_s * 1e3 << " ms, fused " << end_fused_s * 1e3 << " ms ("
            << end_fused_s / (2 * m) << " x a float64 memcpy)\n"
            << "mean of " << error_samples << " float32 samples, max relative error: float32 sum " << err.float32
            << ", float32 Kahan " << err.kahan32 << ", float64 sum " << err.float64 << "\n";
  return 0;
}
