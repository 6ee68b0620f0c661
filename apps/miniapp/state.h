// The model state held as IFS holds it (thesis snippet 3.2): every 3-D
// field in one array Model_Data(NPROMA, NFLEVG, NFIELDS, NGPBLKS), the
// Fortran order, so that a block of NPROMA columns with all its levels and
// fields is contiguous and one OpenMP thread works on whole blocks. The
// halo points of the row neighbours live in extra blocks after the local
// ones, so the dynamics reads a neighbour the same way wherever it lives.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <vector>

#include "fields.h"
#include "geometry.h"

namespace miniapp {

class State {
 public:
  State(const Geometry& g, const HaloPlan& halo, int levels, int nproma);

  // One time step's work, `work` times over: explicit advection-diffusion
  // of every field along latitude rows (a halo exchange per sweep), then
  // the column "physics" (relaxation towards a forced state that follows
  // the sun, saturation and clouds, vertical mixing) and surface pressure.
  // Both are per point and in a fixed order: the state does not depend on
  // the number of ranks or threads.
  void dynamics(int work, MPI_Comm comm);
  void physics(int work, double seconds);

  // The NPROMA blocks gather: field f (or surface pressure, f = -1) as a
  // contiguous (points, levels) array, points fastest, as foehn and the
  // NetCDF writers take it. Threaded over blocks unless `threaded` is false.
  template <class T>
  void gather(int f, T* out, bool threaded) const;

  int levels() const { return nlev_; }
  int local_size() const { return nloc_; }
  std::size_t values(int f) const { return static_cast<std::size_t>(nloc_) * (f < 0 ? 1 : nlev_); }

 private:
  std::size_t at(int point, int f, int k) const {
    const auto q = static_cast<std::size_t>(point);
    return q % np_ +
           np_ * (static_cast<std::size_t>(k) + nlev_ * (static_cast<std::size_t>(f) + kNumFields3d * (q / np_)));
  }
  int halo_point(int h) const { return blocks_ * static_cast<int>(np_) + h; }
  void exchange_halo(MPI_Comm comm);
  void physics_block(int b, double sun_lon);

  const HaloPlan& halo_;
  int nloc_, nlev_;
  std::size_t np_;
  int blocks_;                      // blocks of local points (NGPBLKS)
  std::vector<double> cur_, next_;  // Model_Data, local blocks then halo blocks
  std::vector<double> sp_;          // surface pressure (NPROMA, NGPBLKS)
  std::vector<double> cos_lat_, lon_rad_, courant_;
  std::vector<std::size_t> west_, east_;  // where each point's row neighbours' columns start
  std::vector<double> phase_;             // per field and point: the forcing's latitude pattern
  std::vector<double> eta_;               // per level: 0 at the top, 1 at the surface
  std::vector<std::vector<double>> send_buf_, recv_buf_;
};

}  // namespace miniapp
