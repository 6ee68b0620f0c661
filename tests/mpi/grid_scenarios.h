// The domains and decompositions of the grid tests (grid_model.cpp): every
// domain type, with uneven, interleaved and shuffled decompositions, halos,
// compressed data and masks. tests/python/test_grids.py recomputes the
// expected files from the same formulas (values and coordinates depend on
// the global index g only, never on the decomposition).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "grid/gaussian.h"

namespace grids {

// Values: exact in float and double.
inline double ps_value(int step, std::int64_t g) { return 1000.0 * step + 0.25 * g + 0.5; }
inline float ta_value(int step, std::int64_t g, int k) { return 1000.0f * step + 100.0f * k + 0.25f * g; }
inline float ua_value(int step, std::int64_t g, int k) { return 1000.0f * step + 10.0f * k + 0.5f * g; }
constexpr double kHalo = -999.0, kMasked = -777.0;  // values foehn must never write

struct Scenario {
  std::string family;  // the XML context: rect, curv, gauss, unstr
  std::string type;
  int ni_glo = 0, nj_glo = 1;
  // Local points: a block, or (by_index) a list of (i, j).
  bool by_index = false;
  int ibegin = 0, ni = 0, jbegin = 0, nj = 0;
  std::vector<int> i_index, j_index;
  // Data layout: 0 = the local points; else foehn_set_domain_data / _data_index.
  int data_dim = 0, data_ibegin = 0, data_ni = 0, data_jbegin = 0, data_nj = 0;
  std::vector<int> data_i_index;  // compressed (1-D flat local indices)
  bool masked = false;            // mask: g % 7 == 3
  bool compressed_out = false;    // the data leave out g % 5 == 0
  bool lat_mirrored = false;      // latitudes given negated (rows from the south: error_cdi_rows)
  // Derived by the test itself: the global index of each local point and of
  // each data value (-1: halo or left out).
  std::vector<std::int64_t> local_g, data_g;

  bool missing(std::int64_t g) const { return (masked && g % 7 == 3) || (compressed_out && g % 5 == 0); }
};

// Coordinates of point g (degrees) and its cell corners.
struct Geometry {
  std::string type;
  int ni_glo, nj_glo;
  foehn::grid::ReducedGaussianGrid gauss = foehn::grid::ReducedGaussianGrid::octahedral(8);
  int nvertex() const { return type == "rectilinear" ? 2 : type == "unstructured" ? 3 : 4; }
  // Curvilinear: a sheared grid; its corners are the same formula at half steps.
  static double curv_lon(double i, double j) { return 10.0 + 20.0 * i + 3.0 * j; }
  static double curv_lat(double i, double j) { return -60.0 + 15.0 * j + 1.5 * i; }
  static double rect_lon(double i, int ni) { return -180.0 + 360.0 * (i + 0.5) / ni; }
  static double rect_lat(double j, int nj) { return -90.0 + 180.0 * (j + 0.5) / nj; }
  double lon(std::int64_t g) const {
    const auto i = static_cast<double>(g % ni_glo), j = static_cast<double>(g / ni_glo);
    if (type == "rectilinear") return rect_lon(i, ni_glo);
    if (type == "curvilinear") return curv_lon(i, j);
    if (type == "gaussian") return gauss.lon(g);
    return std::fmod(137.5 * static_cast<double>(g), 360.0);  // a Fibonacci sphere
  }
  double lat(std::int64_t g) const {
    const auto i = static_cast<double>(g % ni_glo), j = static_cast<double>(g / ni_glo);
    if (type == "rectilinear") return rect_lat(j, nj_glo);
    if (type == "curvilinear") return curv_lat(i, j);
    if (type == "gaussian") return gauss.lat(g);
    return std::asin(2.0 * (static_cast<double>(g) + 0.5) / ni_glo - 1.0) * 180.0 / M_PI;
  }
  // nvertex corners (rectilinear: 2 per longitude of column i / latitude of row j).
  void corners(std::int64_t g, std::vector<double>& lon, std::vector<double>& lat) const {
    const auto i = static_cast<double>(g % ni_glo), j = static_cast<double>(g / ni_glo);
    if (type == "rectilinear") {
      lon = {rect_lon(i - 0.5, ni_glo), rect_lon(i + 0.5, ni_glo)};
      lat = {rect_lat(j - 0.5, nj_glo), rect_lat(j + 0.5, nj_glo)};
    } else if (type == "curvilinear") {
      const double di[4] = {-0.5, 0.5, 0.5, -0.5}, dj[4] = {-0.5, -0.5, 0.5, 0.5};
      lon.resize(4), lat.resize(4);
      for (int v = 0; v < 4; ++v) lon[v] = curv_lon(i + di[v], j + dj[v]), lat[v] = curv_lat(i + di[v], j + dj[v]);
    } else if (type == "gaussian") {
      lon.resize(4), lat.resize(4);
      gauss.corners(g, lon.data(), lat.data());
    } else {
      // Triangles on a 10-degree lattice (corners (x, y), (x+10, y), (x, y+10)
      // of the square holding the centre): cells in neighbouring squares
      // share corners, one node each in a UGRID mesh.
      const double x = 10.0 * std::floor(this->lon(g) / 10.0), y = 10.0 * std::floor(this->lat(g) / 10.0);
      lon = {x, x + 10.0, x};
      lat = {y, y, y + 10.0};
    }
  }
};

inline Geometry geometry_of(const Scenario& s) { return {s.type, s.ni_glo, s.nj_glo}; }

// Uneven contiguous shares of n among `size` ranks (rank r weighs r + 1;
// with 3 or more ranks, rank 1 holds nothing).
inline std::pair<int, int> uneven_share(int n, int rank, int size) {
  std::vector<int> w(size);
  for (int r = 0; r < size; ++r) w[r] = size >= 3 && r == 1 ? 0 : r + 1;
  const int total = std::accumulate(w.begin(), w.end(), 0);
  int before = 0;
  for (int r = 0; r < rank; ++r) before += w[r];
  const int first = n * before / total, last = n * (before + w[rank]) / total;
  return {first, last - first};
}

// 2-D blocks like the spine's: 2 ranks split the columns 5/8 : 3/8; 3 ranks:
// a band of rows on top and the rest split by columns.
inline void block_2d(Scenario& s, int rank, int size) {
  const int ni = s.ni_glo, nj = s.nj_glo;
  if (size == 1)
    s.ibegin = 0, s.ni = ni, s.jbegin = 0, s.nj = nj;
  else if (size == 2)
    s.jbegin = 0, s.nj = nj, s.ibegin = rank ? 5 * ni / 8 : 0, s.ni = rank ? ni - 5 * ni / 8 : 5 * ni / 8;
  else if (rank == 0)
    s.ibegin = 0, s.ni = ni, s.jbegin = 0, s.nj = nj / 3;
  else if (rank <= 2)
    s.jbegin = nj / 3, s.nj = nj - nj / 3, s.ibegin = rank == 1 ? 0 : ni / 3, s.ni = rank == 1 ? ni / 3 : ni - ni / 3;
  else
    s.ni = s.nj = 0;
}

inline Scenario make_scenario(const std::string& name, int rank, int size) {
  Scenario s;
  std::mt19937 rng(12345);  // the same on every rank
  auto deal = [&](std::int64_t n, bool shuffle) {
    std::vector<std::int64_t> all(static_cast<std::size_t>(n));
    std::iota(all.begin(), all.end(), 0);
    if (shuffle) std::shuffle(all.begin(), all.end(), rng);
    std::vector<std::int64_t> mine;
    for (std::size_t k = static_cast<std::size_t>(rank); k < all.size(); k += static_cast<std::size_t>(size))
      mine.push_back(all[k]);
    return mine;
  };
  auto set_index = [&](const std::vector<std::int64_t>& points) {
    s.by_index = true;
    for (const auto g : points) {
      s.i_index.push_back(static_cast<int>(g % s.ni_glo));
      s.j_index.push_back(static_cast<int>(g / s.ni_glo));
    }
  };
  auto gauss_points = [&](bool shuffle) {
    const auto g = foehn::grid::ReducedGaussianGrid::octahedral(8);
    const auto region = foehn::grid::eq_partition(g, size);
    std::vector<std::int64_t> mine;
    for (std::int64_t p = 0; p < g.size(); ++p)
      if (region[static_cast<std::size_t>(p)] == rank) mine.push_back(p);
    if (shuffle) std::shuffle(mine.begin(), mine.end(), rng);
    return mine;
  };
  if (name == "rect_shuffled") {
    s.family = "rect", s.type = "rectilinear", s.ni_glo = 12, s.nj_glo = 7;
    set_index(deal(84, true));
  } else if (name == "curv_halo" || name == "curv_compressed") {
    s.family = "curv", s.type = "curvilinear", s.ni_glo = 10, s.nj_glo = 9;
    block_2d(s, rank, size);
    if (name == "curv_halo") {
      s.masked = true;
      s.data_dim = 2, s.data_ibegin = -1, s.data_ni = s.ni + 2, s.data_jbegin = -2, s.data_nj = s.nj + 3;
    } else {
      s.compressed_out = true;
      s.data_dim = 1;
      for (int l = s.ni * s.nj - 1; l >= 0; --l)  // reversed: any order works
        if (((s.jbegin + l / s.ni) * s.ni_glo + s.ibegin + l % s.ni) % 5 != 0) s.data_i_index.push_back(l);
    }
  } else if (name == "gauss_eq" || name == "gauss_shuffled") {
    s.family = "gauss", s.type = "gaussian", s.ni_glo = 544;
    const bool shuffled = name == "gauss_shuffled";
    set_index(gauss_points(shuffled));
    s.j_index.clear();
    if (shuffled) {
      s.masked = true;
      s.data_dim = 1, s.data_ibegin = -2, s.data_ni = static_cast<int>(s.i_index.size()) + 3;
    }
  } else if (name == "unstr_interleaved" || name == "unstr_blocks") {
    s.family = "unstr", s.type = "unstructured", s.ni_glo = 500;
    if (name == "unstr_interleaved") {
      set_index(deal(500, false));
      s.j_index.clear();
      s.compressed_out = true;
      s.data_dim = 1;
      for (std::size_t l = 0; l < s.i_index.size(); ++l)
        if (s.i_index[l] % 5 != 0) s.data_i_index.push_back(static_cast<int>(l));
    } else {
      const auto [first, n] = uneven_share(500, rank, size);
      s.ibegin = first, s.ni = n, s.nj = 1;
      s.masked = true;
    }
  } else {
    throw std::invalid_argument("unknown scenario " + name);
  }
  // The global index of each local point, then of each data value.
  if (s.by_index)
    for (std::size_t k = 0; k < s.i_index.size(); ++k)
      s.local_g.push_back(static_cast<std::int64_t>(s.j_index.empty() ? 0 : s.j_index[k]) * s.ni_glo + s.i_index[k]);
  else
    for (int j = 0; j < s.nj; ++j)
      for (int i = 0; i < s.ni; ++i)
        s.local_g.push_back(static_cast<std::int64_t>(s.jbegin + j) * s.ni_glo + s.ibegin + i);
  const auto nlocal = static_cast<int>(s.local_g.size());
  if (s.data_dim == 0) {
    s.data_g = s.local_g;
  } else if (!s.data_i_index.empty() || s.compressed_out) {
    for (int l : s.data_i_index) s.data_g.push_back(s.local_g[static_cast<std::size_t>(l)]);
  } else if (s.data_dim == 1) {
    for (int a = 0; a < s.data_ni; ++a) {
      const int l = a + s.data_ibegin;
      s.data_g.push_back(l >= 0 && l < nlocal ? s.local_g[static_cast<std::size_t>(l)] : -1);
    }
  } else {
    for (int b = 0; b < s.data_nj; ++b)
      for (int a = 0; a < s.data_ni; ++a) {
        const int i = a + s.data_ibegin, j = b + s.data_jbegin;
        s.data_g.push_back(i >= 0 && i < s.ni && j >= 0 && j < s.nj ? s.local_g[static_cast<std::size_t>(j * s.ni + i)]
                                                                    : -1);
      }
  }
  return s;
}

}  // namespace grids
