// The output schemes the proxy model can run with, behind one interface so
// that the time loop is the same for all of them:
//
//   step n:  dynamics (halo exchanges)
//            before_physics(n)   overlapped foehn: send step n-1's fields, update the calendar
//            physics             (no communication: where sends can overlap)
//            end_of_step(n)      simple foehn: calendar, gather, send; overlapped: threaded gather;
//                                baselines: gather and write when n is an output step
//   finish()                     last sends, files closed
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>

#include "geometry.h"
#include "options.h"
#include "state.h"

namespace miniapp {

class Output {
 public:
  virtual ~Output() = default;
  virtual void before_physics(int /*step*/) {}
  virtual void end_of_step(int step, const State& state) = 0;
  virtual void finish() = 0;
  // Bytes of field data written (the baselines count them; -1: unknown here).
  virtual std::int64_t bytes_written() const { return -1; }
  virtual std::string mode() const = 0;  // for the summary
};

// --output none.
std::unique_ptr<Output> make_no_output();
// --output sequential | parallel: the NetCDF baselines (output_netcdf.cpp).
std::unique_ptr<Output> make_netcdf_output(const Options& opt, const Geometry& g, int levels, MPI_Comm comm);
// --output foehn, after foehn_init returned `comm` (output_foehn.cpp).
std::unique_ptr<Output> make_foehn_output(const Options& opt, const Geometry& g, int levels, MPI_Comm comm);

}  // namespace miniapp
