// Vertical interpolation against analytic profiles: linear in the
// coordinate (exact at order 1), linear in ln p (exact in log mode),
// quadratic (exact at order 2 with XIOS's stencil), columns in either
// direction, missing levels (coordinate or data), extrapolation on and off.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "transform/vertical/vertical_interpolation.h"

namespace foehn::transform::vertical {
namespace {

// Pressure (Pa) of level l in column c: 20 levels from ~1000 hPa upwards,
// a different surface pressure per column; odd columns run top down.
double pressure(int l, int c, int levels) {
  const double surface = 101325.0 - 1500.0 * c;
  const int k = c % 2 ? levels - 1 - l : l;
  return surface * std::exp(-0.15 * k);
}

struct Case {
  int columns = 6, levels = 20;
  std::vector<double> p, targets{90000, 85000, 70000, 50000, 30000, 25000, 10000};
  Case() {
    for (int l = 0; l < levels; ++l)
      for (int c = 0; c < columns; ++c) p.push_back(pressure(l, c, levels));
  }
  template <class F>
  std::vector<double> profile(F f) const {
    std::vector<double> v;
    for (double x : p) v.push_back(f(x));
    return v;
  }
  std::vector<double> run(VerticalOptions o, const std::vector<double>& in) const {
    VerticalInterpolator v(columns, levels, static_cast<std::int64_t>(targets.size()), o);
    v.set_coordinate(p, targets);
    std::vector<double> out(targets.size() * static_cast<std::size_t>(columns));
    v.apply(in, out);
    return out;
  }
};

TEST(VerticalInterpolation, LinearProfileIsExactAtOrder1) {
  const Case k;
  auto f = [](double p) { return 300.0 - 0.0008 * p; };
  const std::vector<double> out = k.run({}, k.profile(f));
  for (std::size_t t = 0; t < k.targets.size(); ++t)
    for (int c = 0; c < k.columns; ++c)
      EXPECT_NEAR(out[t * k.columns + static_cast<std::size_t>(c)], f(k.targets[t]), 1e-10) << t << " " << c;
}

TEST(VerticalInterpolation, LogLinearProfileIsExactInLogMode) {
  const Case k;
  auto f = [](double p) { return 288.0 + 40.0 * std::log(p / 101325.0); };
  VerticalOptions o;
  o.log_coordinate = true;
  const std::vector<double> log_mode = k.run(o, k.profile(f)), linear_mode = k.run({}, k.profile(f));
  double linear_error = 0;
  for (std::size_t t = 0; t < k.targets.size(); ++t)
    for (int c = 0; c < k.columns; ++c) {
      const std::size_t at = t * k.columns + static_cast<std::size_t>(c);
      EXPECT_NEAR(log_mode[at], f(k.targets[t]), 1e-10);
      linear_error = std::max(linear_error, std::abs(linear_mode[at] - f(k.targets[t])));
    }
  EXPECT_GT(linear_error, 1e-3);  // the option matters: linear in p is not exact for this profile
}

TEST(VerticalInterpolation, QuadraticProfileIsExactAtOrder2) {
  const Case k;
  auto f = [](double p) { return 1e-9 * p * p - 2e-4 * p + 7.0; };
  VerticalOptions o;
  o.order = 2;
  const std::vector<double> order2 = k.run(o, k.profile(f)), order1 = k.run({}, k.profile(f));
  double error1 = 0;
  for (std::size_t t = 0; t < k.targets.size(); ++t)
    for (int c = 0; c < k.columns; ++c) {
      const std::size_t at = t * k.columns + static_cast<std::size_t>(c);
      EXPECT_NEAR(order2[at], f(k.targets[t]), 1e-9);
      error1 = std::max(error1, std::abs(order1[at] - f(k.targets[t])));
    }
  EXPECT_GT(error1, 1e-3);
}

TEST(VerticalInterpolation, OutsideTheColumnIsFillOrExtrapolated) {
  Case k;
  k.targets = {120000, 50000, 1};  // below the surface, inside, above the top
  auto f = [](double p) { return 0.001 * p + 3; };
  VerticalOptions o;
  o.fill = -1e30;
  const std::vector<double> off = k.run(o, k.profile(f));
  o.extrapolate = true;
  const std::vector<double> on = k.run(o, k.profile(f));
  for (int c = 0; c < k.columns; ++c) {
    const auto u = static_cast<std::size_t>(c), n = static_cast<std::size_t>(k.columns);
    EXPECT_EQ(off[u], -1e30);
    EXPECT_NEAR(off[n + u], f(50000), 1e-10);
    EXPECT_EQ(off[2 * n + u], -1e30);
    EXPECT_NEAR(on[u], f(120000), 1e-9);
    EXPECT_NEAR(on[2 * n + u], f(1), 1e-9);
  }
}

TEST(VerticalInterpolation, MissingLevelsAreSkipped) {
  Case k;
  // Levels below ground have no pressure (NaN) in column 0: the others bracket.
  for (int l = 0; l < 3; ++l) k.p[static_cast<std::size_t>(l * k.columns)] = std::nan("");
  auto f = [](double p) { return 200.0 + 0.001 * p; };
  std::vector<double> in = k.profile(f);
  VerticalOptions o;
  o.fill = -5;
  const std::vector<double> out = k.run(o, in);
  const double top_of_missing = pressure(3, 0, k.levels);  // highest valid pressure in column 0
  for (std::size_t t = 0; t < k.targets.size(); ++t) {
    if (k.targets[t] > top_of_missing)
      EXPECT_EQ(out[t * k.columns], -5);
    else
      EXPECT_NEAR(out[t * k.columns], f(k.targets[t]), 1e-10);
  }
  // A missing data value is a missing level too: the linear profile is
  // still reproduced from the levels around it.
  for (int l : {5, 6, 11}) in[static_cast<std::size_t>(l * k.columns + 2)] = std::nan("");
  const std::vector<double> holed = k.run(o, in);
  for (std::size_t t = 0; t < k.targets.size(); ++t) EXPECT_NEAR(holed[t * k.columns + 2], f(k.targets[t]), 1e-10) << t;
  // A column with no valid data gets the fill value everywhere.
  for (int l = 0; l < k.levels; ++l) in[static_cast<std::size_t>(l * k.columns + 4)] = std::nan("");
  const std::vector<double> empty = k.run(o, in);
  for (std::size_t t = 0; t < k.targets.size(); ++t) EXPECT_EQ(empty[t * k.columns + 4], -5);
}

TEST(VerticalInterpolation, Float32FieldsWithAMissingValue) {
  const Case k;
  auto f = [](double p) { return 250.0 + 0.0005 * p; };
  std::vector<double> in = k.profile(f);
  std::vector<float> inf(in.begin(), in.end());
  inf[static_cast<std::size_t>(8 * k.columns + 1)] = 1e20f;  // a float missing value, not exactly 1e20 as a double
  VerticalOptions o;
  o.missing = 1e20;
  o.fill = -1;
  VerticalInterpolator v(k.columns, k.levels, static_cast<std::int64_t>(k.targets.size()), o);
  v.set_coordinate(k.p, k.targets);
  std::vector<float> out(k.targets.size() * static_cast<std::size_t>(k.columns));
  v.apply(inf, out);
  for (std::size_t t = 0; t < k.targets.size(); ++t)
    for (int c = 0; c < k.columns; ++c)
      EXPECT_NEAR(out[t * k.columns + static_cast<std::size_t>(c)], f(k.targets[t]), 1e-3) << t << " " << c;
}

TEST(VerticalInterpolation, TargetsMayDifferPerColumn) {
  const Case k;
  auto f = [](double p) { return 300.0 - 0.0008 * p; };
  std::vector<double> targets;  // target level t of column c: 80000 - 5000 t - 1000 c
  for (int t = 0; t < 3; ++t)
    for (int c = 0; c < k.columns; ++c) targets.push_back(80000.0 - 5000.0 * t - 1000.0 * c);
  VerticalInterpolator v(k.columns, k.levels, 3, {});
  v.set_coordinate(k.p, targets);
  std::vector<double> out(targets.size());
  v.apply(k.profile(f), out);
  for (std::size_t at = 0; at < targets.size(); ++at) EXPECT_NEAR(out[at], f(targets[at]), 1e-10);
}

// A coordinate field: the same object rebuilt every step from new
// pressures (surface pressure changing per step), unsorted and repeated
// targets, order 1 and 2, linear and ln; each step exact for its own
// coordinate, as a fresh object gives.
TEST(VerticalInterpolation, CoordinateChangingEveryStep) {
  Case k;
  k.targets = {50000, 92500, 30000, 92500, 1000, 85000};  // any order; 1000 Pa above every column
  for (int order : {1, 2})
    for (bool log : {false, true}) {
      const VerticalOptions o{.order = order, .log_coordinate = log};
      VerticalInterpolator v(k.columns, k.levels, static_cast<std::int64_t>(k.targets.size()), o);
      auto f = [log](double p) { return log ? 220.0 + 25.0 * std::log(p) : 300.0 - 0.0008 * p; };
      for (int step = 0; step < 3; ++step) {
        Case s = k;
        for (double& p : s.p) p *= 1.0 - 0.01 * step;
        v.set_coordinate(s.p, s.targets);
        std::vector<double> out(s.targets.size() * static_cast<std::size_t>(s.columns));
        v.apply(s.profile(f), out);
        const std::vector<double> fresh = s.run(o, s.profile(f));
        EXPECT_EQ(std::memcmp(out.data(), fresh.data(), out.size() * sizeof(double)), 0) << order << log << step;
        for (std::size_t t = 0; t < s.targets.size(); ++t)
          for (int c = 0; c < s.columns; ++c) {
            const double got = out[t * static_cast<std::size_t>(s.columns) + static_cast<std::size_t>(c)];
            double lo = 1e300, hi = -1e300;  // the column's range
            for (int l = 0; l < s.levels; ++l) {
              lo = std::min(lo, s.p[static_cast<std::size_t>(l * s.columns + c)]);
              hi = std::max(hi, s.p[static_cast<std::size_t>(l * s.columns + c)]);
            }
            if (s.targets[t] < lo || s.targets[t] > hi)
              EXPECT_TRUE(std::isnan(got));
            else
              EXPECT_NEAR(got, f(s.targets[t]), 1e-9 * std::abs(f(s.targets[t]))) << order << log << step << t << c;
          }
      }
    }
}

TEST(VerticalInterpolation, RefusesBadOrderAndSizes) {
  EXPECT_THROW(VerticalInterpolator(4, 10, 3, {.order = 3}), VerticalError);
  VerticalInterpolator v(4, 10, 3, {});
  EXPECT_THROW(v.set_coordinate(std::vector<double>(39), std::vector<double>(3)), VerticalError);
}

}  // namespace
}  // namespace foehn::transform::vertical
