// Tests of the filter graph (filters/graph.h) and of the temporal stage
// (filters/temporal_stage.h), without MPI: graphs built by hand, run step
// by step the way the client's step driver runs them (advance, sources,
// evaluate, outputs), their values compared with computations written out
// independently in the tests.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "calendar/calendar.h"
#include "filters/graph.h"
#include "filters/temporal_stage.h"
#include "filters_test_support.h"

namespace foehn::filters {
namespace {

constexpr std::int64_t kHour = 3600 * calendar::kMicrosPerSecond;

// Instants every `hours` hours from 0, in a calendar without dates.
std::unique_ptr<calendar::Schedule> every_hours(const calendar::Calendar& cal, std::int64_t hours) {
  calendar::Duration period;
  period.microseconds = hours * kHour;
  return std::make_unique<calendar::Schedule>(cal, 0, period, calendar::Duration{}, kHour);
}

std::shared_ptr<const Expression> expr(const char* text) {
  return std::make_shared<const Expression>(Expression::parse(text));
}

// What the step driver does with an output node at the end of a step: takes
// the sample its stage wants from its input, and at the end of a record
// gives the result. Returns the records given.
struct OutputDriver {
  Graph& g;
  int out;
  std::size_t n;
  std::vector<std::vector<double>> records;

  void end_step(std::int64_t step, std::int64_t now, bool record_due, bool irregular) {
    Node& node = g.node(out);
    const int in = node.inputs[0];
    TemporalStage& stage = node.stage;
    if (!g.has_values(in, step)) return;
    if (!stage.reduces()) {
      if (!stage.wants(record_due, false)) return;
      stage.took_value();
      records.emplace_back(g.values(in), g.values(in) + n);
      return;
    }
    if (stage.wants(false, node.sampler.due)) stage.add(0, g.values(in), n, stage.sample_weight(now, irregular));
    if (record_due) {
      std::vector<double> r(n);
      stage.result(0, r.data(), n);
      stage.reset();
      records.push_back(std::move(r));
    }
  }
};

TEST(FilterGraph, NodesAreAddedInputsFirst) {
  Graph g;
  const int a = g.add_source(4), b = g.add_source(4);
  const int e = g.add_expression(expr("a + b"), {a, b}, 4);
  const int c = g.add_chain(e, TemporalStage(TemporalOp::maximum, 4), nullptr);
  const int o = g.add_output(c, TemporalStage(TemporalOp::instant, 0), Sampler{});
  EXPECT_EQ(g.size(), 5u);
  EXPECT_EQ(g.node(a).kind, NodeKind::source);
  EXPECT_EQ(g.node(e).kind, NodeKind::expression);
  EXPECT_EQ(g.node(c).kind, NodeKind::chain);
  EXPECT_EQ(g.node(o).kind, NodeKind::output);
  for (int i = 0; i < static_cast<int>(g.size()); ++i)
    for (int in : g.node(i).inputs) EXPECT_LT(in, i);
  EXPECT_TRUE(g.node(g.add_output(-1, TemporalStage(TemporalOp::average, 4), Sampler{})).inputs.empty());
}

TEST(FilterGraph, SourceMapsMissingValuesAndRefusesASecondWrite) {
  Graph g;
  const int s = g.add_source(3);
  const std::vector<float> x = {1.5f, 1e20f, -2.0f};
  EXPECT_TRUE(g.set_source(s, 0, x.data(), 3, 1e20));  // compared as floats: 1e20f is the missing value
  EXPECT_TRUE(SameValues(std::vector<double>(g.values(s), g.values(s) + 3), {1.5, kNaN, -2.0}));
  EXPECT_FALSE(g.set_source(s, 0, x.data(), 3, 1e20));
  EXPECT_TRUE(g.has_values(s, 0));
  EXPECT_FALSE(g.has_values(s, 1));
  EXPECT_TRUE(g.set_source(s, 1, x.data(), 3, kNaN));  // no missing value: kept as written
  EXPECT_EQ(g.values(s)[1], static_cast<double>(1e20f));
}

TEST(FilterGraph, ExpressionWaitsForAllItsInputs) {
  Graph g;
  const int a = g.add_source(2), b = g.add_source(2);
  const int e = g.add_expression(expr("a - 2 * b"), {a, b}, 2);
  const std::vector<double> x = {1, 2}, y = {10, 20};
  g.set_source(a, 0, x.data(), 2, kNaN);
  g.evaluate(0, 0, false);
  EXPECT_FALSE(g.has_values(e, 0));  // b not written at step 0
  g.set_source(a, 1, x.data(), 2, kNaN);
  g.set_source(b, 1, y.data(), 2, kNaN);
  g.evaluate(1, kHour, false);
  ASSERT_TRUE(g.has_values(e, 1));
  EXPECT_EQ(g.values(e)[0], 1 - 2 * 10.0);
  EXPECT_EQ(g.values(e)[1], 2 - 2 * 20.0);
}

// The average over 3-hour records of a * b + 1, sampled every hour, with
// irregular steps (each sample weighs the hours since the previous one) and
// missing values in a.
TEST(FilterGraph, WeightedAverageOfAnExpressionOfTwoSources) {
  Graph g;
  const std::size_t n = 3;
  const int a = g.add_source(n), b = g.add_source(n);
  const int e = g.add_expression(expr("a * b + 1"), {a, b}, n);
  const int o = g.add_output(e, TemporalStage(TemporalOp::average, n, kNaN, 0), Sampler{});
  OutputDriver d{g, o, n, {}};
  // Model times in hours (irregular), and a record at the end of each 3 hours.
  const std::vector<std::int64_t> hours = {1, 3, 4, 6};
  const double missing = -999;
  std::vector<std::vector<double>> av, bv;
  for (std::size_t t = 0; t < hours.size(); ++t) {
    av.push_back({1.0 + t, t == 1 ? missing : 2.0, -0.5 * t});
    bv.push_back({2.0, 3.0 + t, 4.0});
  }
  for (std::size_t t = 0; t < hours.size(); ++t) {
    const auto step = static_cast<std::int64_t>(t + 1);
    const std::int64_t now = hours[t] * kHour;
    g.advance(now);
    g.set_source(a, step, av[t].data(), n, missing);
    g.set_source(b, step, bv[t].data(), n, kNaN);
    g.evaluate(step, now, true);
    d.end_step(step, now, hours[t] % 3 == 0, true);
  }
  // Independently: per record, sum of w * (a * b + 1) over sum of w, w the
  // hours since the previous sample, a missing value skipped.
  auto value = [&](std::size_t t, std::size_t p) { return av[t][p] * bv[t][p] + 1; };
  auto weighted = [&](std::size_t first, std::size_t last, std::size_t p) {
    double sum = 0, weights = 0;
    for (std::size_t t = first; t <= last; ++t) {
      if (av[t][p] == missing) continue;
      const double w = static_cast<double>((hours[t] - (t ? hours[t - 1] : 0)) * 3600);
      sum += w * value(t, p);
      weights += w;
    }
    return weights > 0 ? sum / weights : kNaN;
  };
  ASSERT_EQ(d.records.size(), 2u);
  for (std::size_t p = 0; p < n; ++p) {
    EXPECT_EQ(d.records[0][p], weighted(0, 1, p)) << "record 0, point " << p;
    EXPECT_EQ(d.records[1][p], weighted(2, 3, p)) << "record 1, point " << p;
  }
  // Point 1 at hour 3 is missing: record 0 is its hour-1 value alone.
  EXPECT_EQ(d.records[0][1], value(0, 1));
}

// @x over a 2-hour period (x's operation, here accumulate), read by an
// expression: the chain gives its result at its period's ends only, so the
// expression has values every second step.
TEST(FilterGraph, ChainGivesItsResultAtItsPeriodEnds) {
  const calendar::Calendar cal(calendar::CalendarType::none);
  Graph g;
  const int x = g.add_source(2);
  const int c = g.add_chain(x, TemporalStage(TemporalOp::accumulate, 2), every_hours(cal, 2));
  const int e = g.add_expression(expr("@x / 2"), {c}, 2);
  std::vector<std::vector<double>> results;
  for (std::int64_t step = 1; step <= 6; ++step) {
    const std::int64_t now = step * kHour;
    g.advance(now);
    const std::vector<double> v = {static_cast<double>(step), step == 3 ? kNaN : 10.0 * step};
    g.set_source(x, step, v.data(), 2, kNaN);
    g.evaluate(step, now, false);
    EXPECT_EQ(g.has_values(c, step), step % 2 == 0) << "step " << step;
    EXPECT_EQ(g.has_values(e, step), step % 2 == 0) << "step " << step;
    if (g.has_values(e, step)) results.emplace_back(g.values(e), g.values(e) + 2);
  }
  ASSERT_EQ(results.size(), 3u);
  EXPECT_TRUE(SameValues(results[0], {(1 + 2) / 2.0, (10 + 20) / 2.0}));
  EXPECT_TRUE(SameValues(results[1], {(3 + 4) / 2.0, 40 / 2.0}));  // NaN at step 3 skipped
  EXPECT_TRUE(SameValues(results[2], {(5 + 6) / 2.0, (50 + 60) / 2.0}));
}

// Nodes are evaluated only for outputs that take this step's value: two
// expressions in a row feed an instant output that takes every third step;
// a third expression read by a chain (@b's accumulation) runs every step.
TEST(FilterGraph, ExpressionsRunOnlyWhenAnOutputOrAChainNeedsThem) {
  const calendar::Calendar cal(calendar::CalendarType::none);
  Graph g;
  const int a = g.add_source(1), b = g.add_source(1);
  const int e1 = g.add_expression(expr("a + 1"), {a}, 1);
  const int e2 = g.add_expression(expr("a * 2"), {e1}, 1);
  const int o = g.add_output(e2, TemporalStage(TemporalOp::instant, 1), Sampler{});
  const int e3 = g.add_expression(expr("b - 1"), {b}, 1);
  const int c = g.add_chain(e3, TemporalStage(TemporalOp::accumulate, 1), every_hours(cal, 6));
  for (std::int64_t step = 1; step <= 6; ++step) {
    const std::int64_t now = step * kHour;
    g.advance(now);
    const double v = static_cast<double>(step);
    g.set_source(a, step, &v, 1, kNaN);
    g.set_source(b, step, &v, 1, kNaN);
    const bool taken = step % 3 == 0;
    g.node(o).demanded = taken;
    g.evaluate(step, now, false);
    EXPECT_EQ(g.has_values(e1, step), taken) << "step " << step;
    EXPECT_EQ(g.has_values(e2, step), taken) << "step " << step;
    if (taken) EXPECT_EQ(g.values(e2)[0], (v + 1) * 2);
    EXPECT_TRUE(g.has_values(e3, step)) << "step " << step;
  }
  // The chain saw every step: (1-1) + (2-1) + ... + (6-1).
  ASSERT_TRUE(g.has_values(c, 6));
  EXPECT_EQ(g.values(c)[0], 15.0);
}

// XIOS's temporal_splitting: a scalar between two components (inner 2
// values before it, outer 3 after) becomes an axis of 4; each step's values
// go to the next slot, and the node has values at the 4th, 8th... step only,
// even when no output takes those steps (it is evaluated every step, as a
// chain is). Compared with the slots written out here.
TEST(FilterGraph, TemporalSplittingFillsItsAxisOverNSteps) {
  constexpr std::size_t kInner = 2, kOuter = 3, kN = 4;
  transform::Transform split;
  split.op = transform::Operation::split;
  split.n_source = 1, split.n_target = kN, split.inner = kInner, split.outer = kOuter;
  Graph g;
  const int s = g.add_source(kInner * kOuter);
  const int t = g.add_transform(s, std::make_shared<const transform::Transform>(split));
  const int o = g.add_output(t, TemporalStage(TemporalOp::instant, 0), Sampler{});
  ASSERT_EQ(g.node(t).values.size(), kInner * kOuter * kN);
  OutputDriver instant{g, o, kInner * kOuter * kN, {}};
  auto value = [](std::int64_t step, std::size_t o, std::size_t i) { return 100.0 * step + 10.0 * o + i; };
  for (std::int64_t step = 1; step <= 9; ++step) {
    std::vector<double> v(kInner * kOuter);
    for (std::size_t o = 0; o < kOuter; ++o)
      for (std::size_t i = 0; i < kInner; ++i) v[o * kInner + i] = value(step, o, i);
    v[1] = step == 6 ? kNaN : v[1];  // a missing value stays missing in its slot
    g.set_source(s, step, v.data(), v.size(), kNaN);
    g.node(o).demanded = false;  // no output asks: the split still takes the step
    g.evaluate(step, step * kHour, false);
    EXPECT_EQ(g.has_values(t, step), step % 4 == 0) << "step " << step;
    instant.end_step(step, step * kHour, true, false);
  }
  ASSERT_EQ(instant.records.size(), 2u);  // steps 1-4 and 5-8; step 9 waits for 10, 11, 12
  for (std::size_t r = 0; r < 2; ++r) {
    std::vector<double> want(kInner * kOuter * kN);
    for (std::size_t o = 0; o < kOuter; ++o)
      for (std::size_t k = 0; k < kN; ++k)
        for (std::size_t i = 0; i < kInner; ++i)
          want[(o * kN + k) * kInner + i] = value(static_cast<std::int64_t>(4 * r + k + 1), o, i);
    if (r == 1) want[1 * kInner + 1] = kNaN;  // step 6 is slot 1 of the second record
    EXPECT_TRUE(SameValues(instant.records[r], want)) << "record " << r;
  }
}

TEST(FilterGraph, OnceTakesTheFirstRecordOnly) {
  Graph g;
  const int s = g.add_source(2);
  const int o = g.add_output(s, TemporalStage(TemporalOp::once, 0), Sampler{});
  const int i = g.add_output(s, TemporalStage(TemporalOp::instant, 0), Sampler{});
  OutputDriver once{g, o, 2, {}}, instant{g, i, 2, {}};
  for (std::int64_t step = 1; step <= 4; ++step) {
    const std::vector<double> v = {1.0 * step, -1.0 * step};
    g.set_source(s, step, v.data(), 2, kNaN);
    g.evaluate(step, step * kHour, false);
    const bool record_due = step % 2 == 0;
    EXPECT_EQ(g.node(o).stage.wants(record_due, false), record_due && step == 2);
    once.end_step(step, step * kHour, record_due, false);
    instant.end_step(step, step * kHour, record_due, false);
  }
  ASSERT_EQ(once.records.size(), 1u);
  EXPECT_TRUE(SameValues(once.records[0], {2.0, -2.0}));
  ASSERT_EQ(instant.records.size(), 2u);
  EXPECT_TRUE(SameValues(instant.records[1], {4.0, -4.0}));
}

// Minimum and maximum of one expression, sampled every 2 hours (freq_op),
// with missing values: a point missing at every sample gives NaN.
TEST(FilterGraph, MinimumAndMaximumWithMissingValuesAndASamplingPeriod) {
  const calendar::Calendar cal(calendar::CalendarType::none);
  Graph g;
  const std::size_t n = 3;
  const int s = g.add_source(n);
  const int e = g.add_expression(expr("-this"), {s}, n);
  Sampler every2;
  every2.schedule = every_hours(cal, 2);
  Sampler every2b;
  every2b.schedule = every_hours(cal, 2);
  const double missing = 1e20;
  const int mn = g.add_output(e, TemporalStage(TemporalOp::minimum, n, missing, 0), std::move(every2));
  const int mx = g.add_output(e, TemporalStage(TemporalOp::maximum, n, missing, 0), std::move(every2b));
  OutputDriver dmin{g, mn, n, {}}, dmax{g, mx, n, {}};
  const std::vector<std::vector<double>> x = {{5, missing, 1}, {-7, missing, 2}, {3, missing, missing},
                                              {9, missing, 8}, {-1, missing, 0}, {4, missing, 3}};
  for (std::size_t t = 0; t < x.size(); ++t) {
    const auto step = static_cast<std::int64_t>(t + 1);
    const std::int64_t now = step * kHour;
    g.advance(now);
    g.set_source(s, step, x[t].data(), n, missing);
    g.evaluate(step, now, false);
    dmin.end_step(step, now, step == 6, false);
    dmax.end_step(step, now, step == 6, false);
  }
  // Sampled at hours 2, 4, 6 (steps 2, 4, 6): -this of {-7, ., 2}, {9, ., 8}, {4, ., 3}.
  ASSERT_EQ(dmin.records.size(), 1u);
  EXPECT_TRUE(SameValues(dmin.records[0], {-9.0, kNaN, -8.0}));
  EXPECT_TRUE(SameValues(dmax.records[0], {7.0, kNaN, -2.0}));
}

TEST(TemporalStage, WantsAndWeights) {
  TemporalStage inst(TemporalOp::instant, 0), once(TemporalOp::once, 0), avg(TemporalOp::average, 1, kNaN, 10);
  EXPECT_TRUE(inst.wants(true, false));
  EXPECT_FALSE(inst.wants(false, true));
  EXPECT_TRUE(once.wants(true, false));
  once.took_value();
  EXPECT_FALSE(once.wants(true, false));
  EXPECT_TRUE(avg.wants(false, true));
  EXPECT_FALSE(avg.wants(true, false));
  EXPECT_TRUE(avg.reduces());
  EXPECT_FALSE(once.reduces());
  EXPECT_EQ(avg.sample_weight(10 + 1'500'000, true), 1.5);  // since the start
  EXPECT_EQ(avg.sample_weight(10 + 4'500'000, true), 3.0);  // since the previous sample
  EXPECT_EQ(avg.sample_weight(10 + 9'000'000, false), 1.0);
}

}  // namespace
}  // namespace foehn::filters
