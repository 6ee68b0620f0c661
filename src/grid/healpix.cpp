#include "grid/healpix.h"

#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

namespace foehn::grid {

namespace {

// Per base face: the distance of its southern corner (x = y = 0) from the
// north pole in face units (0..4 pole to pole), and the longitude of its
// centre in units of pi/4.
constexpr int kFaceRing[12] = {2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4};
constexpr int kFacePhi[12] = {1, 3, 5, 7, 0, 2, 4, 6, 1, 3, 5, 7};

// Every other bit of v, packed: bits 0, 2, 4, ... become 0, 1, 2, ...
std::int64_t even_bits(std::int64_t v) {
  std::uint64_t x = static_cast<std::uint64_t>(v) & 0x5555555555555555ULL;
  x = (x | (x >> 1)) & 0x3333333333333333ULL;
  x = (x | (x >> 2)) & 0x0f0f0f0f0f0f0f0fULL;
  x = (x | (x >> 4)) & 0x00ff00ff00ff00ffULL;
  x = (x | (x >> 8)) & 0x0000ffff0000ffffULL;
  x = (x | (x >> 16)) & 0x00000000ffffffffULL;
  return static_cast<std::int64_t>(x);
}

// The bits of v spread to the even positions (even_bits' inverse).
std::int64_t spread_bits(std::int64_t v) {
  std::uint64_t x = static_cast<std::uint64_t>(v) & 0x00000000ffffffffULL;
  x = (x | (x << 16)) & 0x0000ffff0000ffffULL;
  x = (x | (x << 8)) & 0x00ff00ff00ff00ffULL;
  x = (x | (x << 4)) & 0x0f0f0f0f0f0f0f0fULL;
  x = (x | (x << 2)) & 0x3333333333333333ULL;
  x = (x | (x << 1)) & 0x5555555555555555ULL;
  return static_cast<std::int64_t>(x);
}

std::int64_t isqrt(std::int64_t v) {
  auto r = static_cast<std::int64_t>(std::sqrt(static_cast<double>(v)));
  while (r * r > v) --r;
  while ((r + 1) * (r + 1) <= v) ++r;
  return r;
}

void check(int level, std::int64_t index) {
  if (level < 0 || level > kHealpixMaxLevel)
    throw std::invalid_argument("HEALPix refinement_level " + std::to_string(level) + " is outside 0.." +
                                std::to_string(kHealpixMaxLevel));
  if (index < 0 || index >= healpix_cells(level))
    throw std::invalid_argument("HEALPix cell " + std::to_string(index) + " is outside the " +
                                std::to_string(healpix_cells(level)) + " cells of level " + std::to_string(level));
}

// A point of a base face, x and y in [0, 1] across it, as longitude and
// latitude in degrees. The polar caps use the sine of the colatitude from
// the ring's distance to the pole, which keeps full precision there.
void face_point(int face, double x, double y, double& lon, double& lat) {
  const double jr = kFaceRing[face] - x - y;  // distance from the north pole in face units, 0..4
  double nr = 1, z = 0, sin_colat = 0;
  if (jr < 1) {
    nr = jr;
    const double t = nr * nr / 3;
    z = 1 - t, sin_colat = std::sqrt(t * (2 - t));
  } else if (jr > 3) {
    nr = 4 - jr;
    const double t = nr * nr / 3;
    z = t - 1, sin_colat = std::sqrt(t * (2 - t));
  } else {
    z = (2 - jr) * 2 / 3, sin_colat = std::sqrt((1 - z) * (1 + z));
  }
  double t = kFacePhi[face] * nr + x - y;
  if (t < 0) t += 8;
  if (t >= 8) t -= 8;
  const double phi = nr < 1e-15 ? 0 : std::numbers::pi / 4 * t / nr;
  lon = phi * 180 / std::numbers::pi;
  lat = std::atan2(z, sin_colat) * 180 / std::numbers::pi;
}

}  // namespace

HealpixXyf healpix_nest_to_xyf(int level, std::int64_t index) {
  check(level, index);
  const std::int64_t per_face = healpix_nside(level) * healpix_nside(level);
  const std::int64_t in_face = index % per_face;
  return {even_bits(in_face), even_bits(in_face >> 1), static_cast<int>(index / per_face)};
}

HealpixXyf healpix_ring_to_xyf(int level, std::int64_t index) {
  check(level, index);
  const std::int64_t nside = healpix_nside(level), ncells = healpix_cells(level);
  const std::int64_t cap = 2 * nside * (nside - 1);  // cells in the northern polar cap
  std::int64_t ring = 0, iphi = 0, shift = 0, nr = 0;   // ring from the north (1-based), position on it (1-based)
  int face = 0;
  if (index < cap) {
    ring = (1 + isqrt(1 + 2 * index)) >> 1;
    iphi = index + 1 - 2 * ring * (ring - 1);
    nr = ring;
    face = static_cast<int>((iphi - 1) / nr);
  } else if (index < ncells - cap) {
    const std::int64_t ip = index - cap, row = ip / (4 * nside);
    ring = row + nside;
    iphi = ip - row * 4 * nside + 1;
    shift = (ring + nside) & 1;
    nr = nside;
    const std::int64_t ifm = (iphi - ((row + 1) >> 1) + nside - 1) / nside;
    const std::int64_t ifp = (iphi - ((2 * nside + 1 - row) >> 1) + nside - 1) / nside;
    face = static_cast<int>(ifp == ifm ? (ifp | 4) : (ifp < ifm ? ifp : ifm + 8));
  } else {
    const std::int64_t ip = ncells - index;
    const std::int64_t from_south = (1 + isqrt(2 * ip - 1)) >> 1;
    iphi = 4 * from_south + 1 - (ip - 2 * from_south * (from_south - 1));
    nr = from_south;
    ring = 4 * nside - from_south;
    face = static_cast<int>((iphi - 1) / nr + 8);
  }
  const std::int64_t irt = ring - (2 + (face >> 2)) * nside + 1;
  std::int64_t ipt = 2 * iphi - kFacePhi[face] * nr - shift - 1;
  if (ipt >= 2 * nside) ipt -= 8 * nside;
  return {(ipt - irt) >> 1, (-ipt - irt) >> 1, face};
}

std::int64_t healpix_xyf_to_nest(int level, const HealpixXyf& xyf) {
  return xyf.face * healpix_nside(level) * healpix_nside(level) + spread_bits(xyf.ix) + (spread_bits(xyf.iy) << 1);
}

// The ring (1-based from the north pole) and the position along it, as
// healpix_ring_to_xyf reads them, run backwards.
std::int64_t healpix_xyf_to_ring(int level, const HealpixXyf& xyf) {
  const std::int64_t nside = healpix_nside(level), ncells = healpix_cells(level), nl4 = 4 * nside;
  const std::int64_t ring = kFaceRing[xyf.face] * nside - xyf.ix - xyf.iy - 1;
  std::int64_t nr = nside, before = 0, shift = 0;  // cells on the ring, cells of the rings before it
  if (ring < nside) {
    nr = ring, before = 2 * nr * (nr - 1);
  } else if (ring > 3 * nside) {
    nr = nl4 - ring, before = ncells - 2 * (nr + 1) * nr;
  } else {
    before = 2 * nside * (nside - 1) + (ring - nside) * nl4, shift = (ring - nside) & 1;
  }
  std::int64_t iphi = (kFacePhi[xyf.face] * nr + xyf.ix - xyf.iy + 1 + shift) / 2;
  if (iphi > nl4) iphi -= nl4;
  if (iphi < 1) iphi += nl4;
  return before + iphi - 1;
}

void healpix_cell(int level, bool nested, std::int64_t index, double& lon, double& lat, double corner_lon[4],
                  double corner_lat[4]) {
  const HealpixXyf c = nested ? healpix_nest_to_xyf(level, index) : healpix_ring_to_xyf(level, index);
  const double step = 1.0 / static_cast<double>(healpix_nside(level));
  const double x = static_cast<double>(c.ix) * step, y = static_cast<double>(c.iy) * step;
  face_point(c.face, x + step / 2, y + step / 2, lon, lat);
  // x + y grows towards the south: (1, 1) is the northern corner, then
  // west (0, 1), south (0, 0), east (1, 0).
  const double dx[4] = {step, 0, 0, step}, dy[4] = {step, step, 0, 0};
  for (int k = 0; k < 4; ++k) face_point(c.face, x + dx[k], y + dy[k], corner_lon[k], corner_lat[k]);
}

}  // namespace foehn::grid
