// Benchmark: the transformation kernels (issue 20) against the memory
// bandwidth one core gets, measured in the same run (STREAM's triad,
// interleaved, medians over --runs):
//   weights   first-order conservative weights O<n> -> regular 360/ni
//             degrees (gaussian_cells, generate_rectilinear_domain), once;
//             the peak of heap bytes it holds (counted by this program's
//             operator new) against the CSR's bytes
//   apply     y = W x per record over --records records (x streamed from
//             memory): bytes moved = CSR + x + y per record
//   vertical  --levels source levels -> --targets pressure levels over the
//             target grid's columns, order 1, per record: bytes moved =
//             per target value, itself (8), and per stencil point its level
//             and weight (12) and the source value it reads (8); source
//             levels no stencil touches are not counted
//   vertical_coordinate  the same with the coordinate a field sent each
//             step (interpolate_axis coordinate=): per record the stencils
//             rebuilt from the columns' pressures, then applied: bytes moved
//             = the pressure of every level (8) and per target value
//             itself (8) and the two source values it reads (16); the
//             stencils' levels and weights, written and read back, are
//             the kernel's own traffic and not counted
// A kernel's "fraction of the bound" is the time the triad's bandwidth
// needs for its bytes over the time it took.
#include <malloc.h>

#include <atomic>
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <iostream>
#include <vector>

#include "bench_stats.h"

#include "transform/remap/conservative.h"
#include "transform/vertical/vertical_interpolation.h"

// Heap bytes in use and their peak, for the weights' memory.
namespace {
std::atomic<std::int64_t> heap_live{0}, heap_peak{0};
}  // namespace
void* operator new(std::size_t n) {
  void* p = std::malloc(n ? n : 1);
  if (!p) throw std::bad_alloc();
  const std::int64_t live = heap_live += static_cast<std::int64_t>(malloc_usable_size(p));
  std::int64_t peak = heap_peak.load();
  while (live > peak && !heap_peak.compare_exchange_weak(peak, live)) {}
  return p;
}
void operator delete(void* p) noexcept {
  if (!p) return;
  heap_live -= static_cast<std::int64_t>(malloc_usable_size(p));
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept { operator delete(p); }

namespace {
using foehn::bench::Clock;
using foehn::bench::median;
const auto seconds = foehn::bench::seconds_since;
namespace remap = foehn::transform::remap;
namespace vertical = foehn::transform::vertical;

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"foehn transformation kernels against the memory bandwidth"};
  int octahedral = 96, runs = 11, records = 100, levels = 137, targets = 30;
  std::int64_t ni = 360, nj = 180;
  std::string out_path = "transform_kernels.json";
  app.add_option("--octahedral", octahedral, "source grid O<n>");
  app.add_option("--ni", ni, "target longitudes");
  app.add_option("--nj", nj, "target latitudes");
  app.add_option("--records", records, "records applied per run");
  app.add_option("--levels", levels, "source levels (vertical)");
  app.add_option("--targets", targets, "target levels (vertical)");
  app.add_option("--runs", runs, "runs per figure (the median is reported)");
  app.add_option("--out", out_path, "JSON result file");
  CLI11_PARSE(app, argc, argv);

  const remap::CellPolygons src = remap::gaussian_cells(foehn::grid::ReducedGaussianGrid::octahedral(octahedral));
  remap::RectilinearSpec spec;
  spec.ni = ni, spec.nj = nj;
  const remap::RectilinearDomain dst = remap::generate_rectilinear_domain(spec);
  const std::int64_t heap_before = heap_live.load();
  heap_peak = heap_before;
  auto t0 = Clock::now();
  const remap::RemapWeights w = remap::conservative_weights(src, dst.cells, {.order = 1, .renormalize = true}).weights;
  const double weights_s = seconds(t0);
  const std::int64_t heap_added = heap_peak.load() - heap_before;  // the result's CSR included

  const auto n_src = static_cast<std::size_t>(w.n_src), n_dst = static_cast<std::size_t>(w.n_dst);
  const auto nrec = static_cast<std::size_t>(records);
  std::vector<double> x(n_src * nrec), y(n_dst * nrec);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::sin(1e-3 * static_cast<double>(i));

  // Vertical: pressure columns over the target grid, each its own surface.
  const std::size_t columns = n_dst, lv = static_cast<std::size_t>(levels), tv = static_cast<std::size_t>(targets);
  std::vector<double> p(lv * columns), vin(lv * columns), vout(tv * columns), plev(tv);
  for (std::size_t l = 0; l < lv; ++l)
    for (std::size_t c = 0; c < columns; ++c) {
      p[l * columns + c] = (100000.0 + 10.0 * static_cast<double>(c % 997)) * std::exp(-0.06 * static_cast<double>(l));
      vin[l * columns + c] = 250.0 + 1e-4 * p[l * columns + c];
    }
  for (std::size_t t = 0; t < tv; ++t) plev[t] = 90000.0 - 2500.0 * static_cast<double>(t);
  vertical::VerticalInterpolator vi(static_cast<std::int64_t>(columns), levels, targets, {});
  vi.set_coordinate(p, plev);

  // The triad over as many bytes as one apply run moves, at least 64 MiB.
  const double apply_bytes =
      static_cast<double>(nrec) * (static_cast<double>(w.bytes()) + 8.0 * static_cast<double>(n_src + n_dst));
  const double vertical_bytes = static_cast<double>(tv * columns) * (8.0 + 2 * (12.0 + 8.0));
  const double coordinate_bytes =
      static_cast<double>(columns) * (8.0 * static_cast<double>(lv) + 24.0 * static_cast<double>(tv));
  const std::size_t tn = std::max<std::size_t>(static_cast<std::size_t>(apply_bytes / 24), (64u << 20) / 24);
  std::vector<double> ta(tn), tb(tn, 1.0), tc(tn, 2.0);
  std::vector<double> t_triad, t_apply, t_vertical, t_coordinate;
  for (int r = -1; r < runs; ++r) {
    t0 = Clock::now();
    double* __restrict a_ = ta.data();
    const double* __restrict b_ = tb.data();
    const double* __restrict c_ = tc.data();
    for (std::size_t i = 0; i < tn; ++i) a_[i] = b_[i] + 0.5 * c_[i];
    const double triad = seconds(t0);
    t0 = Clock::now();
    for (std::size_t k = 0; k < nrec; ++k)
      remap::apply_weights(w, std::span<const double>(x.data() + k * n_src, n_src),
                           std::span<double>(y.data() + k * n_dst, n_dst), 0.0);
    const double apply = seconds(t0);
    t0 = Clock::now();
    vi.apply(vin, vout);
    const double vert = seconds(t0);
    t0 = Clock::now();
    vi.set_coordinate(p, plev);
    vi.apply(vin, vout);
    const double coord = seconds(t0);
    if (r < 0) continue;
    t_triad.push_back(triad), t_apply.push_back(apply), t_vertical.push_back(vert), t_coordinate.push_back(coord);
  }
  // The kernels ran: a constant maps to itself, a linear profile is exact.
  std::vector<double> ones(n_src, 1.0), one_out(n_dst);
  remap::apply_weights(w, ones, one_out, 0.0);
  for (double v : one_out)
    if (std::abs(v - 1.0) > 1e-12) return 1;
  if (std::abs(vout[columns + 5] - (250.0 + 1e-4 * plev[1])) > 1e-9) return 1;

  double load = -1;
  if (std::ifstream proc("/proc/loadavg"); proc) proc >> load;
  const double triad = median(t_triad), apply = median(t_apply), vert = median(t_vertical),
               coord = median(t_coordinate);
  const double bw = 24.0 * static_cast<double>(tn) / triad;
  const double apply_fraction = apply_bytes / bw / apply, vertical_fraction = vertical_bytes / bw / vert,
               coordinate_fraction = coordinate_bytes / bw / coord;
  std::ofstream json(out_path);
  json << "{\n  \"benchmark\": \"transform_kernels\",\n  \"load_average_1min\": " << load << ",\n  \"runs\": " << runs
       << ",\n  \"source\": \"O" << octahedral << "\",\n  \"n_src\": " << n_src << ",\n  \"n_dst\": " << n_dst
       << ",\n  \"terms\": " << w.terms() << ",\n  \"csr_bytes\": " << w.bytes() << ",\n  \"weights_s\": " << weights_s
       << ",\n  \"weights_peak_heap_bytes\": " << heap_added
       << ",\n  \"weights_peak_heap_over_csr\": " << static_cast<double>(heap_added) / static_cast<double>(w.bytes())
       << ",\n  \"triad_gb_per_s\": " << bw / 1e9 << ",\n  \"records\": " << records << ",\n  \"apply_s\": " << apply
       << ",\n  \"apply_points_per_s\": " << static_cast<double>(nrec * n_dst) / apply
       << ",\n  \"apply_fraction_of_bandwidth_bound\": " << apply_fraction << ",\n  \"vertical_levels\": " << levels
       << ",\n  \"vertical_targets\": " << targets << ",\n  \"vertical_s\": " << vert
       << ",\n  \"vertical_fraction_of_bandwidth_bound\": " << vertical_fraction
       << ",\n  \"vertical_coordinate_s\": " << coord
       << ",\n  \"vertical_coordinate_fraction_of_bandwidth_bound\": " << coordinate_fraction << "\n}\n";
  std::cout << "O" << octahedral << " -> " << ni << "x" << nj << ": " << w.terms() << " terms, CSR " << w.bytes() / 1e6
            << " MB, weights " << weights_s << " s, peak heap " << static_cast<double>(heap_added) / 1e6 << " MB ("
            << static_cast<double>(heap_added) / static_cast<double>(w.bytes()) << " x CSR)\n"
            << "triad " << bw / 1e9 << " GB/s; load average " << load << "\n"
            << "apply " << records << " records: " << apply << " s, " << 100 * apply_fraction
            << " % of the bandwidth bound\n"
            << "vertical " << levels << " -> " << targets << " levels x " << columns << " columns: " << vert << " s, "
            << 100 * vertical_fraction << " % of the bandwidth bound\n"
            << "vertical on a coordinate field (stencils rebuilt each record): " << coord << " s, "
            << 100 * coordinate_fraction << " % of the bandwidth bound\n";
  return 0;
}
