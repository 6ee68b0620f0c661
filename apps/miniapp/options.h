// The miniapp's run-time options (command line, parsed with CLI11).
#pragma once

#include <string>
#include <vector>

namespace miniapp {

struct Options {
  int grid = 96;       // octahedral reduced Gaussian grid O<grid>
  int levels = 60;     // model levels
  int nproma = 16;     // points per block (the thesis' NPROMA)
  int steps = 72;      // time steps
  int timestep = 600;  // seconds
  int work = 4;        // dynamics sweeps and physics passes per step: the CPU cost
  // none | sequential | parallel | foehn | grib (attached or server mode is decided
  // by the launch: foehn-server ranks beside the model make server mode).
  std::string output = "none";
  std::string integration = "simple";  // simple | overlapped (foehn only)
  std::string iodef = "iodef.xml";     // foehn's configuration
  // What the NetCDF baselines write; the defaults match iodef.xml.
  int output_hours = 3;
  std::vector<std::string> fields;  // empty: all 13
  std::string file = "miniapp_3h";  // file name without .nc
  int grib_bits = 16;               // grib scheme: bits per value, as IFS packs most fields
  std::string summary;              // JSON timing summary written by rank 0 ("" = none)
};

// Parses argv; on --help or a bad option prints the message (rank 0 only)
// and returns false with `exit_code` set.
bool parse_options(int argc, char** argv, bool print, Options& opt, int& exit_code);

}  // namespace miniapp
