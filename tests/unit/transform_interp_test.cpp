// src/transform/interp and Operation::remap: the per-step weighted sums
// against values worked out here (missing values, renormalisation, several
// values per point), and interpolate_domain built on one rank (no MPI):
// a constant stays constant, nearest picks the right source, and the
// refusals at the transformation's line.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <numeric>

#include "config/config.h"
#include "transform/chain.h"
#include "transform/interp/interpolate_axis.h"
#include "transform/interp/interpolate_domain.h"
#include "transform/transform.h"

using namespace foehn;
using transform::Component;
using transform::Operation;
using transform::Transform;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Two targets over three local values: y0 = 0.25 x0 + 0.75 x2, y1 = x1.
Transform two_rows(bool skip_missing, bool renormalize) {
  auto stage = std::make_shared<transform::RemapStage>();
  stage->weights.n_src = 3;
  stage->weights.n_dst = 2;
  stage->weights.row_start = {0, 2, 3};
  stage->weights.src = {0, 2, 1};
  stage->weights.weight = {0.25, 0.75, 1.0};
  stage->send_positions = {0, 1, 2};
  stage->n_gathered = 3;
  stage->skip_missing = skip_missing;
  stage->renormalize = renormalize;
  Transform t;
  t.op = Operation::remap;
  t.n_source = 3;
  t.n_target = 2;
  t.remap = stage;
  return t;
}

Component whole_rectilinear(std::int64_t ni, std::int64_t nj) {
  Component c = transform::whole_component(Component::Kind::domain, ni, nj);
  for (std::int64_t g = 0; g < ni * nj; ++g) {
    c.lon[static_cast<std::size_t>(g)] = (static_cast<double>(g % ni) + 0.5) * 360.0 / static_cast<double>(ni);
    c.lat[static_cast<std::size_t>(g)] = -90.0 + (static_cast<double>(g / ni) + 0.5) * 180.0 / static_cast<double>(nj);
  }
  return c;
}

config::ContextDef axes(const std::string& text) {
  const config::Simulation sim = config::parse_string(
      "<simulation><context id=\"c\">\n<axis_definition>" + text + "</axis_definition>\n</context></simulation>",
      "x.xml", ".");
  return *sim.find_context("c");
}

Component whole_axis(const std::vector<double>& values) {
  Component c = transform::whole_component(Component::Kind::axis, static_cast<std::int64_t>(values.size()), 1);
  c.lon = values;
  return c;
}

config::ContextDef context(const std::string& domains) {
  const config::Simulation sim = config::parse_string(
      "<simulation><context id=\"c\">\n<domain_definition>" + domains + "</domain_definition>\n</context></simulation>",
      "x.xml", ".");
  return *sim.find_context("c");
}

}  // namespace

TEST(RemapApply, WeightedSumsPerValueOfAPoint) {
  Transform t = two_rows(false, false);
  t.outer = 2;  // two levels: the values of a level after the other's
  t.prepare();
  const double in[6] = {1, 2, 3, 10, 20, 30};
  double out[4];
  t.apply(in, out);
  EXPECT_DOUBLE_EQ(out[0], 0.25 * 1 + 0.75 * 3);
  EXPECT_DOUBLE_EQ(out[1], 2);
  EXPECT_DOUBLE_EQ(out[2], 0.25 * 10 + 0.75 * 30);
  EXPECT_DOUBLE_EQ(out[3], 20);
}

TEST(RemapApply, MissingValuesPropagateOrAreSkipped) {
  const double in[3] = {1, kNaN, kNaN};
  double out[2];
  Transform plain = two_rows(false, false);
  plain.prepare();
  plain.apply(in, out);
  EXPECT_TRUE(std::isnan(out[0]) && std::isnan(out[1]));
  Transform skip = two_rows(true, false);
  skip.prepare();
  skip.apply(in, out);
  EXPECT_DOUBLE_EQ(out[0], 0.25);   // the valid part of the sum
  EXPECT_TRUE(std::isnan(out[1]));  // nothing valid: the fill value
  Transform renormalized = two_rows(true, true);
  renormalized.prepare();
  renormalized.apply(in, out);
  EXPECT_DOUBLE_EQ(out[0], 1.0);  // divided by the valid weights
}

TEST(InterpolateDomain, OneRankConstantStaysConstantAndNearestPicksTheClosest) {
  const config::ContextDef ctx = context(
      "<domain id=\"r\" type=\"rectilinear\" ni_glo=\"12\" nj_glo=\"6\"><generate_rectilinear_domain/>"
      "<interpolate_domain order=\"1\"/></domain>"
      "<domain id=\"n\" type=\"rectilinear\" ni_glo=\"4\" nj_glo=\"2\"><interpolate_domain method=\"nearest\"/>"
      "</domain>");
  const Component source = whole_rectilinear(24, 12);
  transform::Step s =
      transform::interp::build_interpolation(ctx.domains[0].transformations[0], ctx.domains[0], source, MPI_COMM_NULL);
  ASSERT_EQ(s.target.owned.size(), 72u);
  s.map.prepare();
  std::vector<double> in(source.data_size(), 273.15), out(72);
  s.map.apply(in.data(), out.data());
  for (double v : out) EXPECT_NEAR(v, 273.15, 1e-12);
  // Nearest: target (i, j) of 4 x 2 has its centre at (45 + 90 i, -45 + 90 j); the 24 x 12
  // source's closest centre is (7.5 + 15 k, -82.5 + 15 l) with lon 37.5 or 52.5 (ties: the lower index).
  transform::Step n =
      transform::interp::build_interpolation(ctx.domains[1].transformations[0], ctx.domains[1], source, MPI_COMM_NULL);
  n.map.prepare();
  std::iota(in.begin(), in.end(), 0.0);
  std::vector<double> picked(8);
  n.map.apply(in.data(), picked.data());
  for (std::int64_t g = 0; g < 8; ++g) {
    const double lon = 45.0 + 90.0 * static_cast<double>(g % 4), lat = -45.0 + 90.0 * static_cast<double>(g / 4);
    const auto k = static_cast<std::int64_t>(picked[static_cast<std::size_t>(g)]);
    EXPECT_LE(std::abs(source.lon[static_cast<std::size_t>(k)] - lon), 7.5) << g;
    EXPECT_LE(std::abs(source.lat[static_cast<std::size_t>(k)] - lat), 7.5) << g;
  }
}

TEST(InterpolateDomain, RefusedAtTheirLine) {
  const auto error = [](const std::string& domains) {
    try {
      const config::ContextDef ctx = context(domains);
      const Component source = whole_rectilinear(8, 4);
      const config::DomainDef& d = ctx.domains.back();
      transform::interp::build_interpolation(d.transformations.back(), d, source, MPI_COMM_NULL);
    } catch (const config::ConfigError& e) { return std::to_string(e.where.line) + ": " + e.message; }
    return std::string("no error");
  };
  EXPECT_EQ(error("<domain id=\"r\"><interpolate_domain/></domain>"),
            "2: domain 'r' is filled by <interpolate_domain>: give its ni_glo and nj_glo");
  EXPECT_EQ(error("<domain id=\"r\" ni_glo=\"4\" nj_glo=\"2\"><interpolate_domain order=\"3\"/></domain>"),
            "2: <interpolate_domain> in <domain>: order 3 is not 1 or 2 (first- or second-order conservative)");
  EXPECT_NE(error("<domain id=\"r\" ni_glo=\"4\" nj_glo=\"2\"><interpolate_domain mode=\"read\"/></domain>")
                .find("needs weight_filename"),
            std::string::npos);
  EXPECT_NE(error("<domain id=\"r\" ni_glo=\"4\" nj_glo=\"2\"><interpolate_domain mode=\"read\" "
                  "weight_filename=\"/nonexistent/w.nc\"/></domain>")
                .find("/nonexistent/w.nc"),
            std::string::npos);
}

TEST(InterpolateAxis, LinearAndLogLinearProfilesExactInEveryColumn) {
  const config::ContextDef ctx = axes(
      "<axis id=\"p\" value=\"850 500 300\"><interpolate_axis/></axis>"
      "<axis id=\"q\" value=\"850 500 300\"><interpolate_axis order=\"2\" log_coordinate=\"true\"/></axis>");
  const std::vector<double> levels = {1000, 900, 700, 400, 200};
  const Component source = whole_axis(levels);
  for (std::size_t a = 0; a < 2; ++a) {
    const config::AxisDef& target = ctx.axes[a];
    transform::Step s = transform::interp::build_vertical(target.transformations[0], target, source);
    ASSERT_EQ(s.target.owned.size(), 3u);
    s.map.inner = 2;  // two columns (a domain of 2 points before the axis)
    s.map.outer = 2;  // and two of something after it
    s.map.prepare();
    std::vector<double> in(2 * 5 * 2), out(2 * 3 * 2);
    const auto profile = [&](double p, std::size_t column, std::size_t o) {  // linear in p, or in ln p (a == 1)
      const double x = a == 0 ? p : std::log(p);
      return 200.0 + 0.1 * x * static_cast<double>(column + 1) + 7.0 * static_cast<double>(o);
    };
    for (std::size_t o = 0; o < 2; ++o)
      for (std::size_t l = 0; l < 5; ++l)
        for (std::size_t c = 0; c < 2; ++c) in[(o * 5 + l) * 2 + c] = profile(levels[l], c, o);
    s.map.apply(in.data(), out.data());
    for (std::size_t o = 0; o < 2; ++o)
      for (std::size_t l = 0; l < 3; ++l)
        for (std::size_t c = 0; c < 2; ++c)
          EXPECT_NEAR(out[(o * 3 + l) * 2 + c], profile(target.value[l], c, o), 1e-11) << a << " " << l;
  }
}

// coordinate="pres": the source coordinate per point and per step, given
// with the values (the filter graph passes the field's values of the
// step); coordinate_dst: the targets per point too.
TEST(InterpolateAxis, CoordinateFieldsPerColumnAndStep) {
  const config::ContextDef ctx = axes(
      "<axis id=\"p\" value=\"850 500 300\"><interpolate_axis coordinate=\"pres\"/></axis>"
      "<axis id=\"q\" n_glo=\"2\"><interpolate_axis coordinate_src=\"pres\" coordinate_dst=\"pt\"/></axis>");
  const Component source = whole_axis({0, 1, 2, 3, 4});  // level numbers: not the coordinate
  const std::size_t columns = 3, levels = 5;
  for (std::size_t a = 0; a < 2; ++a) {
    const config::AxisDef& target = ctx.axes[a];
    transform::Step s = transform::interp::build_vertical(target.transformations[0], target, source);
    EXPECT_EQ(s.map.coordinate_source, "pres");
    EXPECT_EQ(s.map.coordinate_target, a == 0 ? "" : "pt");
    const std::size_t nt = s.target.owned.size();
    s.map.inner = columns;
    s.map.prepare();
    for (int step = 0; step < 2; ++step) {
      std::vector<double> pres(levels * columns), in(levels * columns), pt(nt * columns), out(nt * columns);
      const auto profile = [&](double p, std::size_t c) {
        return 250.0 + 0.01 * p * static_cast<double>(c + 1) + step;
      };
      for (std::size_t l = 0; l < levels; ++l)
        for (std::size_t c = 0; c < columns; ++c) {
          const double surface = 1010.0 - 20.0 * static_cast<double>(c) + 5.0 * step;
          pres[l * columns + c] = surface * (1.0 - 0.2 * static_cast<double>(l));  // bottom up
          in[l * columns + c] = profile(pres[l * columns + c], c);
        }
      for (std::size_t t = 0; t < nt; ++t)
        for (std::size_t c = 0; c < columns; ++c) pt[t * columns + c] = 900.0 - 300.0 * static_cast<double>(t) - c;
      s.map.apply(in.data(), pres.data(), a == 0 ? nullptr : pt.data(), out.data());
      for (std::size_t t = 0; t < nt; ++t)
        for (std::size_t c = 0; c < columns; ++c) {
          const double p = a == 0 ? target.value[t] : pt[t * columns + c];
          EXPECT_NEAR(out[t * columns + c], profile(p, c), 1e-11) << a << " " << step << " " << t << " " << c;
        }
    }
  }
}

TEST(InterpolateAxis, RefusedAtTheirLine) {
  const auto error = [](const std::string& text, bool decomposed = false) {
    try {
      const config::ContextDef ctx = axes(text);
      Component source = whole_axis({1, 2, 3});
      source.decomposed = decomposed;
      const config::AxisDef& a = ctx.axes.back();
      transform::interp::build_vertical(a.transformations.back(), a, source);
    } catch (const config::ConfigError& e) { return std::to_string(e.where.line) + ": " + e.message; }
    return std::string("no error");
  };
  EXPECT_EQ(error("<axis id=\"p\"><interpolate_axis/></axis>"),
            "2: axis 'p' is filled by <interpolate_axis>: give its levels (value=...)");
  EXPECT_NE(error("<axis id=\"p\" value=\"1.5\"><interpolate_axis coordinate=\"pres\" coordinate_src=\"p3\"/></axis>")
                .find("name two source coordinates"),
            std::string::npos);
  EXPECT_NE(
      error("<axis id=\"p\" value=\"1.5\"><interpolate_axis coordinate=\"pres\"/></axis>", true).find("decomposed"),
      std::string::npos);
  EXPECT_NE(error("<axis id=\"p\" value=\"1.5\"><interpolate_axis/></axis>", true).find("decomposed"),
            std::string::npos);
  EXPECT_NE(error("<axis id=\"p\" value=\"1.5\"><interpolate_axis order=\"3\"/></axis>").find("order 3 is not 1 or 2"),
            std::string::npos);
}
