// Reduced Gaussian grids (octahedral O-grids and classic N-grids) and an
// EQ_REGIONS-style partition of their points, as IFS decomposes them.
//
// A reduced Gaussian grid of resolution N has 2N latitude rows (the
// Gaussian latitudes: the sines are the roots of the Legendre polynomial
// of degree 2N), row k holding pl[k] equally spaced longitudes starting at
// 0 degrees. Points are numbered row by row from the north, west to east:
// the global index used by foehn's 1-D "gaussian" domains.
//
// See docs/grids.md for the formulas and how the tests check them.
#pragma once

#include <cstdint>
#include <vector>

namespace foehn::grid {

// The 2N Gaussian latitudes in degrees, north to south (Newton iteration on
// the Legendre polynomial, in colatitude so that rows near the poles keep
// full precision). Throws std::invalid_argument if n < 1.
std::vector<double> gaussian_latitudes(int n);

// Points per row of the octahedral grid O<n>, north to south: row k from
// the nearest pole (k = 1..N) has 20 + 4(k-1) points; 4N^2 + 36N in all.
std::vector<int> octahedral_points(int n);

// Points per row of a classic reduced grid N<n>, approximated: 4N cos(lat)
// rounded up to a product of 2, 3 and 5, at least 18. ECMWF's tables (the
// GRIB "pl" array) differ in a few rows: pass those to ReducedGaussianGrid
// when the exact classic grid matters.
std::vector<int> classic_reduced_points(int n);

class ReducedGaussianGrid {
 public:
  // pl: points of each of the 2N rows, north to south.
  ReducedGaussianGrid(int n, std::vector<int> pl);
  static ReducedGaussianGrid octahedral(int n) { return {n, octahedral_points(n)}; }

  int n() const { return n_; }
  int rows() const { return 2 * n_; }
  std::int64_t size() const { return row_start_.back(); }
  const std::vector<int>& points_per_row() const { return pl_; }
  const std::vector<double>& latitudes() const { return lat_; }
  std::int64_t row_start(int row) const { return row_start_[static_cast<std::size_t>(row)]; }
  int row_of(std::int64_t index) const;  // throws std::out_of_range

  // Centre of point `index` (degrees).
  double lon(std::int64_t index) const;
  double lat(std::int64_t index) const { return lat_[static_cast<std::size_t>(row_of(index))]; }
  // The 4 corners of its cell, counterclockwise from the south-west: the
  // cell spans half the longitude spacing either side of the centre and
  // reaches half way to the neighbouring rows (to the pole for the first
  // and last rows).
  void corners(std::int64_t index, double lon4[4], double lat4[4]) const;

 private:
  int n_;
  std::vector<int> pl_;
  std::vector<double> lat_;
  std::vector<std::int64_t> row_start_;  // rows + 1 entries
};

// EQ_REGIONS (the recursive zonal equal area partition of the sphere): the
// number of regions in each band, north to south, summing to p: a polar cap
// of one region at each end and collars in between.
std::vector<int> eq_regions(int p);

// Partitions the points of `g` into p regions of nearly equal points: the
// eq_regions bands take whole rows (as many points as their regions'
// share), and each band's rows are split in longitude among its regions so
// that the regions of a band differ by at most one point. Returns the
// region (0..p-1, north to south, west to east) of every point.
std::vector<int> eq_partition(const ReducedGaussianGrid& g, int p);

}  // namespace foehn::grid
