// Benchmark: applying spatial transformations per step (transform::Transform,
// src/transform/), against the memory bandwidth one core gets in the same
// run (STREAM's triad), interleaved, medians over --runs.
//
// A field of ni x nj points x nlev levels (domain fastest), in doubles:
//   zoom         a zoom_domain to the middle half in i and j (a gather)
//   zonal_mean   reduce_domain jDir average: one value per row and level
//   column_sum   reduce_axis sum: one value per point (levels strided)
// Bytes counted: the values read plus the values written (the index map
// too: 8 bytes per entry), each once. Issue 20's target: reductions at
// >= 50 % of the triad's bandwidth.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <numeric>
#include <vector>

#include "bench_stats.h"
#include "transform/transform.h"

namespace {
using foehn::bench::Clock;
using foehn::transform::Operation;
using foehn::transform::Transform;

using foehn::bench::median;

template <class F>
double seconds(F&& f) {
  const auto t0 = Clock::now();
  f();
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

double load_average() {
  std::ifstream in("/proc/loadavg");
  double l = -1;
  in >> l;
  return l;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"spatial transformations per step against the triad's bandwidth"};
  std::int64_t ni = 1440, nj = 720, nlev = 10;
  int runs = 11;
  std::string out_path = "transform.json";
  app.add_option("--ni", ni, "points per row");
  app.add_option("--nj", nj, "rows");
  app.add_option("--nlev", nlev, "levels");
  app.add_option("--runs", runs, "runs per figure (the median is reported)");
  app.add_option("--out", out_path, "JSON result file");
  CLI11_PARSE(app, argc, argv);
  const auto points = static_cast<std::size_t>(ni * nj), n = points * static_cast<std::size_t>(nlev);

  std::vector<double> in(n), out(n), b(n, 1.5), c(n, 2.5);
  for (std::size_t k = 0; k < n; ++k) in[k] = std::sin(0.001 * static_cast<double>(k)) * 20.0 + 250.0;

  Transform zoom;  // the middle half of the domain, every level
  zoom.outer = static_cast<std::size_t>(nlev), zoom.n_source = points;
  for (std::int64_t j = nj / 4; j < nj / 4 + nj / 2; ++j)
    for (std::int64_t i = ni / 4; i < ni / 4 + ni / 2; ++i) zoom.source.push_back(j * ni + i);
  zoom.n_target = zoom.source.size();
  zoom.start.resize(zoom.n_target + 1);
  std::iota(zoom.start.begin(), zoom.start.end(), 0);

  Transform zonal;  // one average per row and level
  zonal.op = Operation::average, zonal.outer = static_cast<std::size_t>(nlev), zonal.n_source = points;
  zonal.n_target = static_cast<std::size_t>(nj);
  zonal.source.resize(points);
  std::iota(zonal.source.begin(), zonal.source.end(), 0);
  for (std::int64_t j = 0; j <= nj; ++j) zonal.start.push_back(j * ni);

  Transform column;  // a sum over the levels of each point
  column.op = Operation::sum, column.inner = points, column.n_source = static_cast<std::size_t>(nlev),
  column.n_target = 1;
  column.source.resize(static_cast<std::size_t>(nlev));
  std::iota(column.source.begin(), column.source.end(), 0);
  column.start = {0, nlev};

  std::vector<double> t_triad, t_zoom, t_zonal, t_column;
  for (int r = 0; r < runs; ++r) {
    t_triad.push_back(seconds([&] {
      for (std::size_t k = 0; k < n; ++k) out[k] = b[k] + 3.0 * c[k];
    }));
    t_zoom.push_back(seconds([&] { zoom.apply(in.data(), out.data()); }));
    t_zonal.push_back(seconds([&] { zonal.apply(in.data(), out.data()); }));
    t_column.push_back(seconds([&] { column.apply(in.data(), out.data()); }));
  }
  const double gb = 1e-9;
  const double triad = 24.0 * static_cast<double>(n) * gb / median(t_triad);
  const double zoom_bytes = (16.0 + 8.0 / static_cast<double>(nlev)) * static_cast<double>(zoom.output_size());
  const double zoom_bw = zoom_bytes * gb / median(t_zoom);
  const double zonal_bw =
      (8.0 * static_cast<double>(n + zonal.output_size()) + 8.0 * static_cast<double>(points)) * gb / median(t_zonal);
  const double column_bw = 8.0 * static_cast<double>(n + column.output_size()) * gb / median(t_column);
  const double load = load_average();
  std::ofstream json(out_path);
  json << "{\n  \"benchmark\": \"transform\",\n  \"load_average_1min\": " << load << ",\n  \"ni\": " << ni
       << ", \"nj\": " << nj << ", \"nlev\": " << nlev << ", \"runs\": " << runs
       << ",\n  \"statistic\": \"median GB/s (bytes read and written once)\",\n  \"triad\": " << triad
       << ",\n  \"zoom\": " << zoom_bw << ",\n  \"zonal_mean\": " << zonal_bw << ",\n  \"column_sum\": " << column_bw
       << "\n}\n";
  std::cout << ni << " x " << nj << " x " << nlev << " doubles, load average " << load << "\n"
            << "  triad       " << triad << " GB/s\n"
            << "  zoom        " << zoom_bw << " GB/s (" << 100.0 * zoom_bw / triad << " % of the triad's)\n"
            << "  zonal_mean  " << zonal_bw << " GB/s (" << 100.0 * zonal_bw / triad << " %)\n"
            << "  column_sum  " << column_bw << " GB/s (" << 100.0 * column_bw / triad << " %)\n";
  return 0;
}
