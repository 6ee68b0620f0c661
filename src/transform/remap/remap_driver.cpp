// foehn_remap_driver: runs the remapping kernels on netCDF files, so that
// tests can compare them with cdo and benchmarks can time them beside cdo.
//   grid SPEC OUT.nc                       a grid as an unstructured CF file
//   weights --src SPEC --dst SPEC --out W  weights in XIOS's layout
//   apply --weights W --in F --var V --out O   W from SCRIP, ESMF or XIOS
// Timings and sizes go to stdout as one JSON object.
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <limits>

#include "transform/remap/conservative.h"
#include "transform/remap/nearest.h"
#include "transform/remap/remap_driver_files.h"
#include "transform/remap/weight_files.h"

namespace remap = foehn::transform::remap;
namespace driver = foehn::transform::remap::driver;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

long peak_rss_kib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

struct WeightsArgs {
  std::string src, dst, out, method = "conservative";
  int order = 1;
  bool renormalize = false, quantity = false, c_convention = false;
};

void compute_weights(const WeightsArgs& a) {
  const auto t0 = std::chrono::steady_clock::now();
  const driver::Grid s = driver::load_grid(a.src), d = driver::load_grid(a.dst);
  const double seconds_grids = seconds_since(t0);
  const auto t1 = std::chrono::steady_clock::now();
  remap::RemapWeights w;
  if (a.method == "nearest") {
    w = remap::nearest_weights(s.lon, s.lat, s.cells.mask, d.lon, d.lat, d.cells.mask);
  } else {
    const remap::ConservativeOptions o{.order = a.order, .renormalize = a.renormalize, .quantity = a.quantity};
    w = remap::conservative_weights(s.cells, d.cells, o).weights;
  }
  const double seconds_weights = seconds_since(t1);
  const long rss = peak_rss_kib();
  remap::write_xios_weights(a.out, w, !a.c_convention);
  std::printf(
      "{\"n_src\": %lld, \"n_dst\": %lld, \"terms\": %lld, \"csr_bytes\": %lld, \"seconds_grids\": %.6f, "
      "\"seconds_weights\": %.6f, \"peak_rss_kib\": %ld}\n",
      static_cast<long long>(w.n_src), static_cast<long long>(w.n_dst), static_cast<long long>(w.terms()),
      static_cast<long long>(w.bytes()), seconds_grids, seconds_weights, rss);
}

struct ApplyArgs {
  std::string weights, in, var = "f", out;
  bool detect_missing = false, renormalize = false;
};

void apply_weight_file(const ApplyArgs& a) {
  const auto t0 = std::chrono::steady_clock::now();
  const remap::RemapWeights w = remap::read_weights(a.weights);
  const driver::Field f = driver::read_field(a.in, a.var, static_cast<std::size_t>(w.n_src));
  const double seconds_read = seconds_since(t0);
  const double fill = f.has_missing ? f.missing : 1e20;
  const double missing = f.has_missing ? f.missing : std::numeric_limits<double>::quiet_NaN();
  const auto n_dst = static_cast<std::size_t>(w.n_dst);
  std::vector<double> y(f.records * n_dst);
  const auto t1 = std::chrono::steady_clock::now();
  for (std::size_t r = 0; r < f.records; ++r) {
    const std::span<const double> x(f.values.data() + r * f.points, f.points);
    const std::span<double> yr(y.data() + r * n_dst, n_dst);
    if (a.detect_missing)
      remap::apply_weights_skipping_missing(w, x, yr, missing, a.renormalize, fill);
    else
      remap::apply_weights(w, x, yr, fill);
  }
  const double seconds_apply = seconds_since(t1);
  const auto t2 = std::chrono::steady_clock::now();
  driver::write_field(a.out, a.var, y, f.records, n_dst, fill);
  std::printf(
      "{\"records\": %zu, \"terms\": %lld, \"seconds_read\": %.6f, \"seconds_apply\": %.6f, "
      "\"seconds_write\": %.6f}\n",
      f.records, static_cast<long long>(w.terms()), seconds_read, seconds_apply, seconds_since(t2));
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"foehn's remapping kernels on netCDF files (tests and benchmarks)"};
  app.require_subcommand(1);

  std::string spec, grid_out;
  auto* grid = app.add_subcommand("grid", "write a grid (octahedral:N, regular:NIxNJ or a file) as unstructured CF");
  grid->add_option("spec", spec)->required();
  grid->add_option("out", grid_out)->required();

  WeightsArgs wa;
  auto* weights = app.add_subcommand("weights", "compute weights and write them in XIOS's layout");
  weights->add_option("--src", wa.src)->required();
  weights->add_option("--dst", wa.dst)->required();
  weights->add_option("--out", wa.out)->required();
  weights->add_option("--method", wa.method)->check(CLI::IsMember({"conservative", "nearest"}));
  weights->add_option("--order", wa.order);
  weights->add_flag("--renormalize", wa.renormalize);
  weights->add_flag("--quantity", wa.quantity);
  weights->add_flag("--c-convention", wa.c_convention, "0-based indices (XIOS read_write_convention=\"c\")");

  ApplyArgs aa;
  auto* apply = app.add_subcommand("apply", "apply a weight file (SCRIP, ESMF or XIOS) to every record of a field");
  apply->add_option("--weights", aa.weights)->required();
  apply->add_option("--in", aa.in)->required();
  apply->add_option("--var", aa.var);
  apply->add_option("--out", aa.out)->required();
  apply->add_flag("--detect-missing", aa.detect_missing, "skip source values equal to the field's _FillValue or NaN");
  apply->add_flag("--renormalize", aa.renormalize, "with --detect-missing: divide by the valid sources' weights");
  CLI11_PARSE(app, argc, argv);

  try {
    if (grid->parsed())
      driver::write_unstructured_grid(grid_out, driver::load_grid(spec), {});
    else if (weights->parsed())
      compute_weights(wa);
    else
      apply_weight_file(aa);
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "foehn_remap_driver: " << e.what() << "\n";
    return 1;
  }
}
