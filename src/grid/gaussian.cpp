#include "grid/gaussian.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

namespace foehn::grid {

namespace {

constexpr double kPi = std::numbers::pi;
constexpr double kDeg = 180.0 / kPi;

// P_m(x) and P_{m-1}(x) by the three-term recurrence.
void legendre(int m, double x, double& p, double& p_prev) {
  double a = 1.0, b = x;  // P_0, P_1
  for (int k = 1; k < m; ++k) {
    const double c = ((2.0 * k + 1.0) * x * b - k * a) / (k + 1.0);
    a = b;
    b = c;
  }
  p = m == 0 ? 1.0 : b;
  p_prev = m == 0 ? 0.0 : a;
}

bool smooth_235(int x) {
  for (int f : {2, 3, 5})
    while (x % f == 0) x /= f;
  return x == 1;
}

}  // namespace

std::vector<double> gaussian_latitudes(int n) {
  if (n < 1) throw std::invalid_argument("gaussian_latitudes: N must be at least 1, not " + std::to_string(n));
  const int m = 2 * n;  // degree of the polynomial
  std::vector<double> lat(static_cast<std::size_t>(m));
  for (int k = 0; k < n; ++k) {
    // Colatitude of root k+1 from the north pole, refined by Newton's method
    // on f(theta) = P_m(cos theta), f' = m (x P_m - P_{m-1}) / sin theta.
    double theta = kPi * (k + 0.75) / (m + 0.5);
    for (int it = 0; it < 100; ++it) {
      double p = 0, q = 0;
      const double x = std::cos(theta), s = std::sin(theta);
      legendre(m, x, p, q);
      const double step = p * s / (m * (x * p - q));
      theta -= step;
      if (std::abs(step) < 1e-12) break;  // quadratic: the error left is far below rounding
    }
    lat[static_cast<std::size_t>(k)] = 90.0 - theta * kDeg;
    lat[static_cast<std::size_t>(m - 1 - k)] = -lat[static_cast<std::size_t>(k)];
  }
  return lat;
}

std::vector<int> octahedral_points(int n) {
  if (n < 1) throw std::invalid_argument("octahedral_points: N must be at least 1, not " + std::to_string(n));
  std::vector<int> pl(static_cast<std::size_t>(2 * n));
  for (int k = 1; k <= n; ++k) {
    pl[static_cast<std::size_t>(k - 1)] = 20 + 4 * (k - 1);
    pl[static_cast<std::size_t>(2 * n - k)] = 20 + 4 * (k - 1);
  }
  return pl;
}

std::vector<int> classic_reduced_points(int n) {
  const std::vector<double> lat = gaussian_latitudes(n);
  std::vector<int> pl(lat.size());
  for (std::size_t k = 0; k < lat.size(); ++k) {
    int x = std::max(18, static_cast<int>(std::ceil(4.0 * n * std::cos(lat[k] / kDeg) - 1e-9)));
    while (!smooth_235(x)) ++x;
    pl[k] = x;
  }
  return pl;
}

ReducedGaussianGrid::ReducedGaussianGrid(int n, std::vector<int> pl) : n_(n), pl_(std::move(pl)) {
  if (n < 1 || pl_.size() != static_cast<std::size_t>(2 * n))
    throw std::invalid_argument("reduced Gaussian grid N" + std::to_string(n) + " needs " + std::to_string(2 * n) +
                                " rows of points, not " + std::to_string(pl_.size()));
  lat_ = gaussian_latitudes(n);
  row_start_.assign(1, 0);
  for (int p : pl_) {
    if (p < 1) throw std::invalid_argument("reduced Gaussian grid: every row needs at least one point");
    row_start_.push_back(row_start_.back() + p);
  }
}

int ReducedGaussianGrid::row_of(std::int64_t index) const {
  if (index < 0 || index >= size())
    throw std::out_of_range("reduced Gaussian grid: point " + std::to_string(index) + " outside 0.." +
                            std::to_string(size() - 1));
  return static_cast<int>(std::upper_bound(row_start_.begin(), row_start_.end(), index) - row_start_.begin()) - 1;
}

double ReducedGaussianGrid::lon(std::int64_t index) const {
  const int r = row_of(index);
  return 360.0 * static_cast<double>(index - row_start(r)) / pl_[static_cast<std::size_t>(r)];
}

void ReducedGaussianGrid::corners(std::int64_t index, double lon4[4], double lat4[4]) const {
  const int r = row_of(index);
  const auto u = static_cast<std::size_t>(r);
  const double half = 180.0 / pl_[u], centre = lon(index);
  const double north = r == 0 ? 90.0 : 0.5 * (lat_[u - 1] + lat_[u]);
  const double south = r == rows() - 1 ? -90.0 : 0.5 * (lat_[u] + lat_[u + 1]);
  const double west = centre - half, east = centre + half;
  lon4[0] = west, lat4[0] = south;
  lon4[1] = east, lat4[1] = south;
  lon4[2] = east, lat4[2] = north;
  lon4[3] = west, lat4[3] = north;
}

std::vector<int> eq_regions(int p) {
  if (p < 1) throw std::invalid_argument("eq_regions: the number of regions must be at least 1");
  if (p == 1) return {1};
  if (p == 2) return {1, 1};
  // Polar caps of one region's area (4 pi / p), then collars of about the
  // ideal region's width; each collar gets its area's share of regions,
  // rounded with the rounding error carried to the next collar.
  const double area = 4.0 * kPi / p;
  const double cap = std::acos(1.0 - 2.0 / p);
  const double ideal = std::sqrt(area);
  const int collars = std::max(1, static_cast<int>(std::lround((kPi - 2.0 * cap) / ideal)));
  const double width = (kPi - 2.0 * cap) / collars;
  std::vector<int> bands{1};
  double carry = 0;
  for (int i = 1; i <= collars; ++i) {
    const double top = cap + (i - 1) * width, bottom = cap + i * width;
    const double share = 0.5 * p * (std::cos(top) - std::cos(bottom));
    const int n = static_cast<int>(std::lround(share + carry));
    carry += share - n;
    bands.push_back(n);
  }
  bands.push_back(1);
  return bands;
}

std::vector<int> eq_partition(const ReducedGaussianGrid& g, int p) {
  const std::vector<int> bands = eq_regions(p);
  const int nbands = static_cast<int>(bands.size()), rows = g.rows();
  const std::int64_t total = g.size();
  std::vector<int> region(static_cast<std::size_t>(total));
  int first_row = 0, first_region = 0;
  for (int b = 0; b < nbands; ++b) {
    const int nb = bands[static_cast<std::size_t>(b)];
    // The band ends at the row boundary nearest to its regions' share of
    // all points, leaving at least one row to each later band.
    int last_row = rows;  // exclusive
    if (b < nbands - 1) {
      const double target = static_cast<double>(total) * (first_region + nb) / p;
      last_row = first_row + 1;
      while (last_row < rows && std::abs(static_cast<double>(g.row_start(last_row + 1)) - target) <=
                                    std::abs(static_cast<double>(g.row_start(last_row)) - target))
        ++last_row;
      last_row = std::min(last_row, rows - (nbands - 1 - b));
      last_row = std::max(last_row, std::min(first_row + 1, rows));
    }
    // Region boundaries within each row from the band's running point
    // count, so that the regions' totals differ by at most one point.
    const std::int64_t band_start = first_row < rows ? g.row_start(first_row) : total;
    std::vector<std::int64_t> before(static_cast<std::size_t>(nb) + 1, 0);  // band points of regions < r so far
    for (int row = first_row; row < last_row; ++row) {
      const std::int64_t done = g.row_start(row + 1) - band_start;
      std::int64_t prev_cut = 0;
      for (int r = 0; r < nb; ++r) {
        const std::int64_t upto = (done * (r + 1) + nb / 2) / nb;  // rounded share of regions <= r
        std::int64_t cut = std::clamp<std::int64_t>(upto - before[static_cast<std::size_t>(r) + 1], prev_cut,
                                                    g.points_per_row()[static_cast<std::size_t>(row)]);
        if (r == nb - 1) cut = g.points_per_row()[static_cast<std::size_t>(row)];
        for (std::int64_t i = prev_cut; i < cut; ++i)
          region[static_cast<std::size_t>(g.row_start(row) + i)] = first_region + r;
        before[static_cast<std::size_t>(r) + 1] += cut;
        prev_cut = cut;
      }
    }
    first_row = last_row;
    first_region += nb;
  }
  return region;
}

}  // namespace foehn::grid
