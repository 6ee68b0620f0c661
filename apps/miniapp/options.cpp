#include "options.h"

#include <CLI/CLI.hpp>
#include <iostream>
#include <sstream>

#include "fields.h"

namespace miniapp {

bool parse_options(int argc, char** argv, bool print, Options& opt, int& exit_code) {
  CLI::App app{
      "miniapp: an IFS-like proxy atmosphere (octahedral reduced Gaussian grid, EQ_REGIONS partition, "
      "NPROMA blocks) that writes the thesis' output through foehn or a baseline scheme"};
  app.name("miniapp");
  app.add_option("--grid", opt.grid, "octahedral grid O<N>")->check(CLI::Range(1, 8000))->capture_default_str();
  app.add_option("--levels", opt.levels, "model levels")->check(CLI::Range(1, 1000))->capture_default_str();
  app.add_option("--nproma", opt.nproma, "points per NPROMA block")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  app.add_option("--steps", opt.steps, "time steps to run")->check(CLI::Range(0, 10000000))->capture_default_str();
  app.add_option("--timestep", opt.timestep, "time step in seconds")
      ->check(CLI::Range(1, 86400))
      ->capture_default_str();
  app.add_option("--work", opt.work, "dynamics sweeps and physics passes per step (the model's CPU cost)")
      ->check(CLI::Range(0, 100000))
      ->capture_default_str();
  app.add_option("--output", opt.output,
                 "none | sequential (MPI_Gatherv to rank 0, serial NetCDF) | parallel (all ranks, one file, "
                 "collective NetCDF) | foehn (attached, or server mode when launched beside foehn-server) | grib "
                 "(as sequential, rank 0 writes GRIB2 with ecCodes)")
      ->check(CLI::IsMember({"none", "sequential", "parallel", "foehn", "grib"}))
      ->capture_default_str();
  app.add_option("--integration", opt.integration,
                 "foehn call placement: simple (calendar, gather, send at the end of the step) | overlapped "
                 "(calendar before physics, threaded gather at the end, send during the next step's physics)")
      ->check(CLI::IsMember({"simple", "overlapped"}))
      ->capture_default_str();
  app.add_option("--iodef", opt.iodef, "foehn's XML configuration")->capture_default_str();
  app.add_option("--output-hours", opt.output_hours, "baselines: output period in simulated hours")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  app.add_option("--fields", opt.fields, "baselines: the fields to write (default: all 13)")->delimiter(',');
  app.add_option("--file", opt.file, "baselines: output file name, without .nc")->capture_default_str();
  app.add_option("--grib-bits", opt.grib_bits, "grib: bits per packed value (simple packing)")
      ->check(CLI::Range(1, 32))
      ->capture_default_str();
  app.add_option("--summary", opt.summary, "rank 0 writes its timings here as JSON");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    std::ostringstream quiet;  // only rank 0 prints help and errors
    exit_code = print ? app.exit(e) : app.exit(e, quiet, quiet);
    return false;
  }
  for (const std::string& f : opt.fields) {
    bool known = f == kSurfacePressure.id;
    for (const FieldInfo& info : kFields3d) known = known || f == info.id;
    if (!known) {
      if (print) std::cerr << "miniapp: --fields: unknown field '" << f << "'\n";
      exit_code = 2;
      return false;
    }
  }
  return true;
}

}  // namespace miniapp
