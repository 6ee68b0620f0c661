// HEALPix grids (Gorski et al. 2005): the sphere cut into 12 base cells,
// each split into nside x nside cells of equal area, nside = 2^level
// (the CF-1.13 refinement_level; the hackathon's "zoom"), 12 nside^2 cells
// in all. foehn's 1-D "healpix" domains are indexed by the HEALPix cell
// index in the nested or the ring scheme, and foehn computes their geometry
// itself from the index (closed form, no mesh file): cell centres and the
// 4 corners. Checked against healpy (tests/python/test_healpix.py).
#pragma once

#include <cstdint>

namespace foehn::grid {

constexpr int kHealpixMaxLevel = 29;  // 12 * 4^29 cells still fit in int64

inline std::int64_t healpix_nside(int level) { return std::int64_t{1} << level; }
inline std::int64_t healpix_cells(int level) { return 12 * healpix_nside(level) * healpix_nside(level); }

// A cell as base face and position within the face (0 <= ix, iy < nside).
struct HealpixXyf {
  std::int64_t ix = 0, iy = 0;
  int face = 0;
};

// Index -> face coordinates. Nested indices interleave the bits of ix
// (even) and iy (odd) below the face number; ring indices run along rings
// of equal latitude from the north pole, eastwards from longitude 0.
HealpixXyf healpix_nest_to_xyf(int level, std::int64_t index);
HealpixXyf healpix_ring_to_xyf(int level, std::int64_t index);

// Face coordinates -> index (the inverses of the above), and the index of
// a cell in the other scheme. No range check: xyf must be of the grid.
std::int64_t healpix_xyf_to_nest(int level, const HealpixXyf& xyf);
std::int64_t healpix_xyf_to_ring(int level, const HealpixXyf& xyf);
inline std::int64_t healpix_ring_to_nest(int level, std::int64_t ring) {
  return healpix_xyf_to_nest(level, healpix_ring_to_xyf(level, ring));
}
inline std::int64_t healpix_nest_to_ring(int level, std::int64_t nest) {
  return healpix_xyf_to_ring(level, healpix_nest_to_xyf(level, nest));
}

// Centre (degrees; longitude in [0, 360)) and the 4 corners counterclockwise
// seen from outside the sphere, starting at the northern one (north, west,
// south, east: healpy.boundaries' order). Throws std::invalid_argument for
// a level outside 0..29 or an index outside the grid.
void healpix_cell(int level, bool nested, std::int64_t index, double& lon, double& lat, double corner_lon[4],
                  double corner_lat[4]);

}  // namespace foehn::grid
