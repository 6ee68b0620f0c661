// The remapping kernels against analytic references: areas on the unit
// sphere, conservation of the area integral, order 2 against order 1 on a
// smooth field, the apply kernels, weight files written and read back.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <numbers>
#include <vector>

#include "transform/remap/conservative.h"
#include "transform/remap/kd_tree.h"
#include "transform/remap/nearest.h"
#include "transform/remap/weight_files.h"

namespace foehn::transform::remap {
namespace {

constexpr double kPi = std::numbers::pi;

double total_area(const CellPolygons& c) {
  double s = 0;
  for (double a : c.area) s += a;
  return s;
}

// A smooth field on the sphere: a wave in longitude times a profile in
// latitude, and its value at a unit vector.
double smooth(Vec3 p) {
  const double lon = std::atan2(p.y, p.x), lat = std::asin(std::clamp(p.z, -1.0, 1.0));
  return 2.0 + std::cos(lat) * std::cos(lat) * std::cos(2 * lon) + 0.5 * std::sin(3 * lat);
}

std::vector<double> at_centroids(const CellPolygons& c) {
  std::vector<double> v;
  for (const Vec3& p : c.centroid) v.push_back(smooth(p));
  return v;
}

RectilinearDomain regular(std::int64_t ni, std::int64_t nj, double lon0 = 0) {
  RectilinearSpec s;
  s.ni = ni, s.nj = nj;
  s.bounds_lon_start = lon0, s.bounds_lon_end = lon0 + 360;
  return generate_rectilinear_domain(s);
}

TEST(SphereGeometry, OctantIsAnEighthOfTheSphere) {
  Polygon p;
  p.n = 3;
  p.v[0] = {1, 0, 0}, p.v[1] = {0, 1, 0}, p.v[2] = {0, 0, 1};
  EXPECT_NEAR(signed_area(p), kPi / 2, 1e-15);
  // The mean position of the octant is (1,1,1)/4 times its area's inverse: pi/4 per axis.
  const Vec3 m = position_integral(p);
  EXPECT_NEAR(m.x, kPi / 4, 1e-15);
  EXPECT_NEAR(m.z, kPi / 4, 1e-15);
}

TEST(SphereGeometry, RegularCellsTileTheSphere) {
  for (auto [ni, nj] : {std::pair{360, 180}, std::pair{7, 3}, std::pair{4, 2}}) {
    const RectilinearDomain d = regular(ni, nj);
    EXPECT_NEAR(total_area(d.cells), 4 * kPi, 4 * kPi * 1e-13) << ni << "x" << nj;
  }
  // A lat-lon band cell: great-circle edges between its corners; its area
  // approaches the band's (lon width x (sin north - sin south)) as it narrows.
  CellPolygons one;
  const double lon4[4] = {0, 0.01, 0.01, 0}, lat4[4] = {30, 30, 31, 31};
  one.add_cell(lon4, lat4);
  const double band = (kPi / 180 * 0.01) * (std::sin(kPi / 180 * 31) - std::sin(kPi / 180 * 30));
  EXPECT_NEAR(one.area[0], band, band * 1e-6);
}

TEST(SphereGeometry, OverlapOfACellWithItselfIsTheCell) {
  const RectilinearDomain d = regular(36, 18);
  Polygon out;
  for (std::int64_t k : {0, 100, 647}) {
    clip_polygon(d.cells.polygon(k), d.cells.polygon(k), out);
    EXPECT_NEAR(signed_area(out), d.cells.area[static_cast<std::size_t>(k)], 1e-15);
  }
  clip_polygon(d.cells.polygon(100), d.cells.polygon(300), out);
  EXPECT_LT(out.n, 3);
}

TEST(CellPolygons, ReducedGaussianCellsNearlyTileTheSphere) {
  // Rows of different lengths meet along latitude circles; each cell takes
  // its neighbours' corners on those edges, so the cells tile the sphere
  // (4 pi to rounding), each contains its centre, the polar rows are
  // triangles (with extra vertices on their pole-facing side's opposite).
  const auto g = grid::ReducedGaussianGrid::octahedral(32);
  const CellPolygons c = gaussian_cells(g);
  ASSERT_EQ(c.size(), g.size());
  EXPECT_NEAR(total_area(c), 4 * kPi, 4 * kPi * 1e-13);
  // The first row (20 points) meets the second (24): its cells gain the
  // second row's corners on their southern edge.
  EXPECT_GE(c.vertex_count(0), 3);
  EXPECT_LE(c.vertex_count(0), 5);
  for (std::int64_t k = 0; k < c.size(); k += 97) {
    const Vec3 centre = unit_vector(g.lon(k), g.lat(k));
    const Polygon p = c.polygon(k);
    for (int e = 0; e < p.n; ++e)
      ASSERT_GE(dot(cross(p.v[static_cast<std::size_t>(e)], p.v[static_cast<std::size_t>((e + 1) % p.n)]), centre), 0)
          << k;
  }
}

TEST(CellPolygons, CurvilinearBoundsAreComputedBetweenCentres) {
  // A 20 x 10 degree regional lat-lon grid of 1-degree cells given as 2-D
  // centres: the computed cells share their corners, cover the region
  // (the centres' box widened by half a cell) and keep each centre inside.
  const std::int64_t ni = 20, nj = 10;
  std::vector<double> lon, lat;
  for (std::int64_t j = 0; j < nj; ++j)
    for (std::int64_t i = 0; i < ni; ++i) lon.push_back(10.5 + i), lat.push_back(40.5 + j);
  const CellPolygons c = curvilinear_cells(ni, nj, lon, lat);
  const double region = (kPi / 180 * 20) * (std::sin(kPi / 180 * 50) - std::sin(kPi / 180 * 40));
  EXPECT_NEAR(total_area(c), region, region * 2e-3);
  for (std::int64_t k = 0; k < c.size(); ++k) {
    ASSERT_EQ(c.vertex_count(k), 4);
    const Vec3 centre = unit_vector(lon[static_cast<std::size_t>(k)], lat[static_cast<std::size_t>(k)]);
    EXPECT_GT(dot(centre, c.centroid[static_cast<std::size_t>(k)]), std::cos(kPi / 180 * 0.01));
  }
  // The north-east corner of cell (0, 0) is the south-west corner of (1, 1).
  EXPECT_LT(norm(c.vertices[2] - c.vertices[static_cast<std::size_t>(c.start[ni + 1])]), 1e-15);
  EXPECT_THROW(curvilinear_cells(1, 5, std::vector<double>(5), std::vector<double>(5)), RemapError);
}

TEST(CellPolygons, GenerateRectilinearDomainFollowsXios) {
  RectilinearSpec s;
  s.ni = 4, s.nj = 3;
  RectilinearDomain d = generate_rectilinear_domain(s);  // defaults: bounds 0..360, -90..90
  EXPECT_EQ(d.lon, (std::vector<double>{45, 135, 225, 315}));
  EXPECT_EQ(d.lat, (std::vector<double>{-60, 0, 60}));
  s.lon_start = -10, s.lon_end = 20;  // centres given: 10-degree steps
  s.bounds_lat_start = 0, s.bounds_lat_end = 30;
  d = generate_rectilinear_domain(s);
  EXPECT_EQ(d.lon, (std::vector<double>{-10, 0, 10, 20}));
  EXPECT_EQ(d.lat, (std::vector<double>{5, 15, 25}));
  EXPECT_EQ(d.bounds_lon[0], -15);
  EXPECT_EQ(d.bounds_lat[2], 10);
}

TEST(CellPolygons, RefusesCornersOffTheSphere) {
  const std::vector<double> lon = {0, 1, 1, 0}, lat = {0, 0, 1, std::nan("")};
  EXPECT_THROW(cells_from_bounds(lon, lat, 4), RemapError);
  const std::vector<double> beyond = {0, 0, 1, 91};
  EXPECT_THROW(cells_from_bounds(lon, beyond, 4), RemapError);
  EXPECT_THROW(nearest_weights(std::vector<double>{0}, std::vector<double>{95}, {}, std::vector<double>{0},
                               std::vector<double>{0}, {}),
               RemapError);
}

TEST(Conservative, Order1PreservesTheAreaIntegral) {
  const RectilinearDomain src = regular(180, 90);       // 2 degrees
  const RectilinearDomain dst = regular(97, 61, 13.7);  // about 3.7 x 2.95 degrees, shifted
  const std::vector<double> x = at_centroids(src.cells);
  for (bool renormalize : {false, true}) {
    const ConservativeWeights w = conservative_weights(src.cells, dst.cells, {.order = 1, .renormalize = renormalize});
    std::vector<double> y(static_cast<std::size_t>(w.weights.n_dst));
    apply_weights(w.weights, std::span<const double>(x), std::span<double>(y), -1);
    double in = 0, out = 0;
    for (std::size_t i = 0; i < x.size(); ++i) in += src.cells.area[i] * x[i];
    for (std::size_t j = 0; j < y.size(); ++j) out += dst.cells.area[j] * y[j];
    EXPECT_NEAR(out / in, 1.0, 1e-12) << "renormalize " << renormalize;
    for (double f : w.dst_fraction) ASSERT_NEAR(f, 1.0, 1e-12);
  }
}

TEST(Conservative, ReducedGaussianSourceAndTargetConserve) {
  const CellPolygons o32 = gaussian_cells(grid::ReducedGaussianGrid::octahedral(32));
  const RectilinearDomain r = regular(160, 80, 1.1);
  for (bool gaussian_source : {true, false}) {
    const CellPolygons& src = gaussian_source ? o32 : r.cells;
    const CellPolygons& dst = gaussian_source ? r.cells : o32;
    const std::vector<double> x = at_centroids(src);
    const ConservativeWeights w = conservative_weights(src, dst, {.order = 1, .renormalize = true});
    std::vector<double> y(static_cast<std::size_t>(w.weights.n_dst));
    apply_weights(w.weights, std::span<const double>(x), std::span<double>(y), -1);
    double in = 0, out = 0;
    for (std::size_t i = 0; i < x.size(); ++i) in += src.area[i] * x[i];
    for (std::size_t j = 0; j < y.size(); ++j) out += dst.area[j] * y[j];
    EXPECT_NEAR(out / in, 1.0, 1e-12) << "gaussian source " << gaussian_source;
    // Every target is covered exactly, also the slightly non-convex
    // Gaussian cells (clipped as triangles).
    for (double f : w.dst_fraction) ASSERT_NEAR(f, 1.0, 1e-12) << "gaussian source " << gaussian_source;
  }
}

TEST(Conservative, QuantityWeightsConserveSums) {
  // quantity: the field is per cell (a mass), so the sums agree.
  const RectilinearDomain src = regular(72, 36), dst = regular(50, 25, 3.3);
  const std::vector<double> x = at_centroids(src.cells);
  const ConservativeWeights w = conservative_weights(src.cells, dst.cells, {.order = 1, .quantity = true});
  std::vector<double> y(static_cast<std::size_t>(w.weights.n_dst));
  apply_weights(w.weights, std::span<const double>(x), std::span<double>(y), -1);
  double in = 0, out = 0;
  for (double v : x) in += v;
  for (double v : y) out += v;
  EXPECT_NEAR(out / in, 1.0, 1e-12);
}

TEST(Conservative, GivenAreasAreConservedAsXiosUseArea) {
  // Model areas that differ from the exact ones by up to 10 %: the remapped
  // field conserves the integral measured with them.
  const RectilinearDomain src = regular(72, 36), dst = regular(50, 25, 3.3);
  std::vector<double> gs(src.cells.area), gd(dst.cells.area);
  for (std::size_t k = 0; k < gs.size(); ++k) gs[k] *= 1 + 0.1 * std::sin(0.37 * static_cast<double>(k));
  for (std::size_t k = 0; k < gd.size(); ++k) gd[k] *= 1 + 0.1 * std::cos(0.91 * static_cast<double>(k));
  const std::vector<double> x = at_centroids(src.cells);
  ConservativeOptions o;
  o.src_given_area = gs, o.dst_given_area = gd;
  const ConservativeWeights w = conservative_weights(src.cells, dst.cells, o);
  std::vector<double> y(static_cast<std::size_t>(w.weights.n_dst));
  apply_weights(w.weights, std::span<const double>(x), std::span<double>(y), -1);
  double in = 0, out = 0;
  for (std::size_t i = 0; i < x.size(); ++i) in += gs[i] * x[i];
  for (std::size_t j = 0; j < y.size(); ++j) out += gd[j] * y[j];
  EXPECT_NEAR(out / in, 1.0, 1e-12);
  gs[3] = -1;
  EXPECT_THROW(conservative_weights(src.cells, dst.cells, o), RemapError);
}

TEST(Conservative, Order2BeatsOrder1OnASmoothField) {
  const RectilinearDomain src = regular(90, 45);  // 4 degrees
  const RectilinearDomain dst = regular(123, 77, 7.1);
  const std::vector<double> x = at_centroids(src.cells), exact = at_centroids(dst.cells);
  double error[2] = {0, 0}, integral[2] = {0, 0}, in = 0;
  for (std::size_t i = 0; i < x.size(); ++i) in += src.cells.area[i] * x[i];
  for (int order : {1, 2}) {
    const ConservativeWeights w = conservative_weights(src.cells, dst.cells, {.order = order});
    std::vector<double> y(static_cast<std::size_t>(w.weights.n_dst));
    apply_weights(w.weights, std::span<const double>(x), std::span<double>(y), -1);
    for (std::size_t j = 0; j < y.size(); ++j) {
      error[order - 1] = std::max(error[order - 1], std::abs(y[j] - exact[j]));
      integral[order - 1] += dst.cells.area[j] * y[j];
    }
  }
  EXPECT_LT(error[1], 0.5 * error[0]) << "order 1 " << error[0] << ", order 2 " << error[1];
  EXPECT_NEAR(integral[1] / in, 1.0, 1e-12);  // order 2 stays conservative
}

TEST(Conservative, MaskedSourcesAreLeftOutAndRenormalised) {
  RectilinearDomain src = regular(36, 18);
  const RectilinearDomain dst = regular(24, 12, 5);
  src.cells.mask.assign(static_cast<std::size_t>(src.cells.size()), 1);
  for (std::size_t k = 0; k < src.cells.mask.size(); k += 3) src.cells.mask[k] = 0;
  const std::vector<double> x(static_cast<std::size_t>(src.cells.size()), 7.5);
  const ConservativeWeights w = conservative_weights(src.cells, dst.cells, {.order = 1, .renormalize = true});
  std::vector<double> y(static_cast<std::size_t>(w.weights.n_dst));
  apply_weights(w.weights, std::span<const double>(x), std::span<double>(y), -1);
  for (double v : y) ASSERT_NEAR(v, 7.5, 1e-13);  // a constant stays constant on any overlap
  for (std::int64_t k = 0; k < w.weights.terms(); ++k) ASSERT_NE(w.weights.src[static_cast<std::size_t>(k)] % 3, 0);
}

TEST(Conservative, WithoutRenormalizeATargetGetsItsCoveredFraction) {
  // destarea (XIOS's default): a constant c on the unmasked sources maps to
  // c times the fraction of each target they cover, which is the fraction
  // the weights report.
  RectilinearDomain src = regular(36, 18);
  const RectilinearDomain dst = regular(24, 12, 5);
  src.cells.mask.assign(static_cast<std::size_t>(src.cells.size()), 1);
  for (std::size_t k = 0; k < src.cells.mask.size(); k += 4) src.cells.mask[k] = 0;
  const std::vector<double> x(static_cast<std::size_t>(src.cells.size()), 3.0);
  const ConservativeWeights w = conservative_weights(src.cells, dst.cells, {.order = 1});
  std::vector<double> y(static_cast<std::size_t>(w.weights.n_dst));
  apply_weights(w.weights, std::span<const double>(x), std::span<double>(y), -1);
  int partial = 0;
  for (std::size_t j = 0; j < y.size(); ++j) {
    ASSERT_NEAR(y[j], 3.0 * w.dst_fraction[j], 1e-13);
    partial += w.dst_fraction[j] < 0.99;
  }
  EXPECT_GT(partial, 100);
}

TEST(Conservative, RefusesOrder3) {
  const RectilinearDomain d = regular(4, 2);
  EXPECT_THROW(conservative_weights(d.cells, d.cells, {.order = 3}), RemapError);
}

TEST(ApplyWeights, SkipsMissingValuesAndRenormalises) {
  // Target 0 = (1 x0 + 3 x1) / 4, target 1 = x2, target 2 has no term.
  const std::vector<WeightTriplet> t = {{0, 0, 0.25}, {0, 1, 0.75}, {1, 2, 1.0}};
  const RemapWeights w = weights_from_triplets(3, 3, t);
  const std::vector<double> x = {4.0, -999.0, -999.0};
  std::vector<double> y(3);
  apply_weights_skipping_missing(w, x, y, -999.0, true, 1e20);
  EXPECT_EQ(y[0], 4.0);
  EXPECT_EQ(y[1], 1e20);
  EXPECT_EQ(y[2], 1e20);
  apply_weights_skipping_missing(w, x, y, -999.0, false, 1e20);
  EXPECT_EQ(y[0], 1.0);
  // NaN is missing whatever the missing value; float fields alike.
  const std::vector<double> with_nan = {4.0, std::nan(""), 2.0};
  apply_weights_skipping_missing(w, with_nan, y, -999.0, true, 1e20);
  EXPECT_EQ(y[0], 4.0);
  EXPECT_EQ(y[1], 2.0);
  const std::vector<float> xf = {4.0f, -999.0f, 8.0f};
  std::vector<float> yf(3);
  apply_weights_skipping_missing(w, xf, yf, -999.0, true, 1e20f);
  EXPECT_EQ(yf[0], 4.0f);
  EXPECT_EQ(yf[1], 8.0f);
  EXPECT_EQ(yf[2], 1e20f);
  EXPECT_THROW(weights_from_triplets(3, 2, std::vector<WeightTriplet>{{2, 0, 1.0}}), RemapError);
}

TEST(ApplyWeights, Float32FieldsSumInDouble) {
  const RectilinearDomain src = regular(72, 36), dst = regular(50, 25, 3.3);
  const RemapWeights w = conservative_weights(src.cells, dst.cells, {.order = 1, .renormalize = true}).weights;
  const std::vector<double> x = at_centroids(src.cells);
  const std::vector<float> xf(x.begin(), x.end());
  std::vector<double> y(static_cast<std::size_t>(w.n_dst));
  std::vector<float> yf(y.size());
  apply_weights(w, std::span<const double>(x), std::span<double>(y), -1);
  apply_weights(w, std::span<const float>(xf), std::span<float>(yf), -1.0f);
  for (std::size_t j = 0; j < y.size(); ++j) ASSERT_NEAR(yf[j], y[j], 4e-7 * std::abs(y[j])) << j;
}

TEST(Nearest, MatchesABruteForceSearch) {
  const RectilinearDomain src = regular(37, 23, 1.3);
  std::vector<double> slon, slat;
  for (double la : src.lat)
    for (double lo : src.lon) slon.push_back(lo), slat.push_back(la);
  std::vector<double> dlon, dlat;
  for (int k = 0; k < 500; ++k)
    dlon.push_back(std::fmod(k * 137.508, 360.0) - 180),
        dlat.push_back(std::asin(2.0 * (k + 0.5) / 500 - 1) * 180 / kPi);
  const RemapWeights w = nearest_weights(slon, slat, {}, dlon, dlat, {});
  for (std::size_t j = 0; j < dlon.size(); ++j) {
    double best = 1e300;
    std::int64_t arg = -1;
    for (std::size_t i = 0; i < slon.size(); ++i) {
      const double d = norm(unit_vector(slon[i], slat[i]) - unit_vector(dlon[j], dlat[j]));
      if (d < best) best = d, arg = static_cast<std::int64_t>(i);
    }
    ASSERT_EQ(w.src[static_cast<std::size_t>(w.row_start[j])], arg) << j;
  }
}

TEST(Nearest, MaskedPointsAreLeftOut) {
  // Sources at longitudes 0, 10, 20 on the equator; the one at 10 masked.
  const std::vector<double> slon = {0, 10, 20}, slat = {0, 0, 0};
  const std::vector<std::uint8_t> smask = {1, 0, 1};
  const std::vector<double> dlon = {9, 11, 3}, dlat = {0, 0, 0};
  const std::vector<std::uint8_t> dmask = {1, 1, 0};
  const RemapWeights w = nearest_weights(slon, slat, smask, dlon, dlat, dmask);
  EXPECT_EQ(w.row_start, (std::vector<std::int64_t>{0, 1, 2, 2}));
  EXPECT_EQ(w.src, (std::vector<std::int32_t>{0, 2}));
}

TEST(WeightFiles, XiosLayoutRoundTrips) {
  const RectilinearDomain src = regular(36, 18), dst = regular(20, 10, 2);
  const RemapWeights w = conservative_weights(src.cells, dst.cells, {.order = 1, .renormalize = true}).weights;
  const auto dir = std::filesystem::temp_directory_path();
  for (bool one_based : {true, false}) {
    const std::string path = (dir / ("foehn_remap_xios_" + std::to_string(one_based) + ".nc")).string();
    write_xios_weights(path, w, one_based);
    EXPECT_EQ(detect_weight_file_format(path), WeightFileFormat::xios);
    const RemapWeights r = read_xios_weights(path, one_based);
    EXPECT_EQ(r.row_start, w.row_start);
    EXPECT_EQ(r.src, w.src);
    EXPECT_EQ(r.weight, w.weight);
    std::filesystem::remove(path);
  }
  EXPECT_THROW(read_weights((dir / "no_such_weights.nc").string()), RemapError);
}

}  // namespace
}  // namespace foehn::transform::remap
