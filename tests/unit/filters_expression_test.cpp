// Tests of the field expression parser and its array evaluator
// (filters/expression.h).
//
// Exactness: the evaluator applies, per node, the same IEEE operation or the
// same <cmath> function the tests apply directly (the build is ISO C++ with
// no FMA contraction and no -ffast-math), so results are compared with exact
// equality, NaN matching NaN.
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "filters/expression.h"
#include "filters_test_support.h"

namespace foehn::filters {
namespace {

using Kind = ExpressionInput::Kind;

// ===========================================================================
// Expressions

// The key of an input in a Vars map: "a" (field), "@a" (chained), "this".
std::string key(const ExpressionInput& in) {
  switch (in.kind) {
    case Kind::field: return in.id;
    case Kind::chained: return "@" + in.id;
    case Kind::self: return "this";
  }
  return "?";
}

using Vars = std::map<std::string, std::vector<double>>;

// Evaluates `e` over n points with the inputs taken from `vars` by key;
// checks that nothing past out[n - 1] is written.
std::vector<double> run(const Expression& e, const Vars& vars, std::size_t n) {
  std::vector<const double*> inputs;
  for (const auto& in : e.inputs()) {
    auto it = vars.find(key(in));
    if (it == vars.end() || it->second.size() < n) {
      ADD_FAILURE() << "no values for input '" << key(in) << "' of '" << e.text() << "'";
      return {};
    }
    inputs.push_back(it->second.data());
  }
  constexpr double sentinel = -12345.6789;
  std::vector<double> out(n + 1, sentinel);
  e.evaluate(inputs, out.data(), n);
  EXPECT_EQ(out[n], sentinel) << "'" << e.text() << "' wrote past the end of " << n << " points";
  out.resize(n);
  return out;
}

// The value of `text` for one point.
double value(std::string_view text, const std::map<std::string, double>& vars = {}) {
  Vars arrays;
  for (const auto& [k, v] : vars) arrays[k] = {v};
  const auto out = run(Expression::parse(text), arrays, 1);
  return out.empty() ? -999999.0 : out[0];
}

// ---------------------------------------------------------------------------
// Inputs

TEST(ExpressionInputs, PlainIdsInOrderOfFirstAppearance) {
  const auto e = Expression::parse("c + a * b - c / a");
  const std::vector<ExpressionInput> expected = {{Kind::field, "c"}, {Kind::field, "a"}, {Kind::field, "b"}};
  EXPECT_EQ(e.inputs(), expected);
  EXPECT_EQ(e.text(), "c + a * b - c / a");
}

TEST(ExpressionInputs, ChainedAndSelf) {
  const auto e = Expression::parse("@sst + this * t_2m");
  const std::vector<ExpressionInput> expected = {{Kind::chained, "sst"}, {Kind::self, ""}, {Kind::field, "t_2m"}};
  EXPECT_EQ(e.inputs(), expected);
}

TEST(ExpressionInputs, DuplicateReferencesShareOneInput) {
  // a and @a are different inputs; each repeated reference is one input.
  const auto e = Expression::parse("a*a + this - @a + b + a + @a*this + max(b, a)");
  const std::vector<ExpressionInput> expected = {
      {Kind::field, "a"}, {Kind::self, ""}, {Kind::chained, "a"}, {Kind::field, "b"}};
  EXPECT_EQ(e.inputs(), expected);
  // Every reference reads the input's values.
  EXPECT_EQ(value("a*a + this - @a + b + a + @a*this + max(b, a)", {{"a", 3}, {"this", 5}, {"@a", 7}, {"b", 11}}),
            3.0 * 3 + 5 - 7 + 11 + 3 + 7 * 5 + 11);
}

TEST(ExpressionInputs, ConstantExpressionHasNoInputs) {
  const auto e = Expression::parse("2 * (3 + 4)");
  EXPECT_TRUE(e.inputs().empty());
  EXPECT_EQ(run(e, {}, 3), (std::vector<double>{14, 14, 14}));
}

TEST(ExpressionInputs, FunctionNamesWithoutParenthesesAreFieldIds) {
  const auto e = Expression::parse("min + max(min, exp)");
  const std::vector<ExpressionInput> expected = {{Kind::field, "min"}, {Kind::field, "exp"}};
  EXPECT_EQ(e.inputs(), expected);
  EXPECT_EQ(value("min + max(min, exp)", {{"min", 2}, {"exp", 5}}), 7.0);
}

// ---------------------------------------------------------------------------
// Precedence and associativity

TEST(ExpressionPrecedence, ProductBeforeSum) {
  const std::map<std::string, double> v = {{"a", 2}, {"b", 3}, {"c", 4}};
  EXPECT_EQ(value("a+b*c", v), 14.0);
  EXPECT_EQ(value("a*b+c", v), 10.0);
  EXPECT_EQ(value("(a+b)*c", v), 20.0);
  EXPECT_EQ(value("a*(b+c)", v), 14.0);
  EXPECT_EQ(value("a+b/c", v), 2.75);
}

TEST(ExpressionPrecedence, UnaryMinusBindsLooserThanPower) {
  EXPECT_EQ(value("-a^2", {{"a", 3}}), -9.0);
  EXPECT_EQ(value("-(a^2)", {{"a", 3}}), -9.0);
  EXPECT_EQ(value("(-a)^2", {{"a", 3}}), 9.0);
  EXPECT_EQ(value("-2^2"), -4.0);
  EXPECT_EQ(value("2*3^2"), 18.0);
  EXPECT_EQ(value("2^3*2"), 16.0);
  EXPECT_EQ(value("2^-1"), 0.5);  // the exponent is a unary
  EXPECT_EQ(value("a - -b", {{"a", 1}, {"b", 2}}), 3.0);
  EXPECT_EQ(value("a*-b", {{"a", 3}, {"b", 2}}), -6.0);
  EXPECT_EQ(value("--a", {{"a", 5}}), 5.0);
  EXPECT_EQ(value("+a", {{"a", 5}}), 5.0);
  EXPECT_EQ(value("-+-a", {{"a", 5}}), 5.0);
}

TEST(ExpressionPrecedence, PowerIsRightAssociative) {
  EXPECT_EQ(value("2^3^2"), 512.0);
  EXPECT_EQ(value("(2^3)^2"), 64.0);
  EXPECT_EQ(value("a^b^c", {{"a", 2}, {"b", 1}, {"c", 3}}), 2.0);  // left assoc would give 8
}

TEST(ExpressionPrecedence, SubtractionAndDivisionAreLeftAssociative) {
  EXPECT_EQ(value("a-b-c", {{"a", 10}, {"b", 3}, {"c", 2}}), 5.0);   // right assoc: 9
  EXPECT_EQ(value("a/b/c", {{"a", 24}, {"b", 4}, {"c", 2}}), 3.0);   // right assoc: 12
  EXPECT_EQ(value("a-b+c", {{"a", 10}, {"b", 3}, {"c", 2}}), 9.0);   // right assoc: 5
  EXPECT_EQ(value("a/b*c", {{"a", 24}, {"b", 4}, {"c", 2}}), 12.0);  // right assoc: 3
}

TEST(ExpressionPrecedence, ComparisonsGiveOneOrZero) {
  const std::map<std::string, double> lt = {{"a", 1}, {"b", 2}};
  const std::map<std::string, double> eq = {{"a", 2}, {"b", 2}};
  EXPECT_EQ(value("a < b", lt), 1.0);
  EXPECT_EQ(value("a > b", lt), 0.0);
  EXPECT_EQ(value("a <= b", lt), 1.0);
  EXPECT_EQ(value("a >= b", lt), 0.0);
  EXPECT_EQ(value("a == b", lt), 0.0);
  EXPECT_EQ(value("a != b", lt), 1.0);
  EXPECT_EQ(value("a /= b", lt), 1.0);  // Fortran spelling of !=
  EXPECT_EQ(value("a < b", eq), 0.0);
  EXPECT_EQ(value("a > b", eq), 0.0);
  EXPECT_EQ(value("a <= b", eq), 1.0);
  EXPECT_EQ(value("a >= b", eq), 1.0);
  EXPECT_EQ(value("a == b", eq), 1.0);
  EXPECT_EQ(value("a != b", eq), 0.0);
  EXPECT_EQ(value("a /= b", eq), 0.0);
  EXPECT_EQ(value("a<b", lt), 1.0);
  EXPECT_EQ(value("a>=b", eq), 1.0);
  // '/' followed by '=' is "not equal", not a division.
  EXPECT_EQ(value("a/b", lt), 0.5);
  EXPECT_EQ(value("a/-b", lt), -0.5);
  // Arithmetic binds tighter than comparison.
  EXPECT_EQ(value("a + 1 == b", lt), 1.0);
  EXPECT_EQ(value("a * 2 > b + 1", eq), 1.0);
  EXPECT_EQ(value("a < b - 1", lt), 0.0);
}

TEST(ExpressionPrecedence, LogicalOperators) {
  EXPECT_EQ(value("a && b", {{"a", 2}, {"b", -3}}), 1.0);
  EXPECT_EQ(value("a && b", {{"a", 2}, {"b", 0}}), 0.0);
  EXPECT_EQ(value("a || b", {{"a", 0}, {"b", 0}}), 0.0);
  EXPECT_EQ(value("a || b", {{"a", 0}, {"b", 0.5}}), 1.0);
  // && binds tighter than ||: 1 || (0 && 0) = 1, (1 || 0) && 0 = 0.
  EXPECT_EQ(value("1 || 0 && 0"), 1.0);
  EXPECT_EQ(value("0 && 0 || 1"), 1.0);
  EXPECT_EQ(value("(1 || 0) && 0"), 0.0);
  // Comparisons bind tighter than && and ||.
  EXPECT_EQ(value("a < b && b < c", {{"a", 1}, {"b", 2}, {"c", 3}}), 1.0);
  EXPECT_EQ(value("a < b && b > c", {{"a", 1}, {"b", 2}, {"c", 3}}), 0.0);
  EXPECT_EQ(value("a > b || c > b", {{"a", 1}, {"b", 2}, {"c", 3}}), 1.0);
}

TEST(ExpressionPrecedence, LogicalNot) {
  EXPECT_EQ(value("!x", {{"x", 0}}), 1.0);
  EXPECT_EQ(value("!x", {{"x", -0.0}}), 1.0);
  EXPECT_EQ(value("!x", {{"x", 5}}), 0.0);
  EXPECT_EQ(value("!x", {{"x", -0.25}}), 0.0);
  EXPECT_EQ(value("!!x", {{"x", 7}}), 1.0);
  // '!' is a unary: (!a) == b, not !(a == b).
  EXPECT_EQ(value("!a == b", {{"a", 0}, {"b", 5}}), 0.0);
  EXPECT_EQ(value("!(a == b)", {{"a", 0}, {"b", 5}}), 1.0);
  EXPECT_EQ(value("!a + 2", {{"a", 0}}), 3.0);
  // "!=" is not '!' applied to '='.
  EXPECT_EQ(value("a!=b", {{"a", 0}, {"b", 5}}), 1.0);
}

TEST(ExpressionPrecedence, Conditional) {
  EXPECT_EQ(value("c ? a : b", {{"c", 1}, {"a", 10}, {"b", 20}}), 10.0);
  EXPECT_EQ(value("c ? a : b", {{"c", 0}, {"a", 10}, {"b", 20}}), 20.0);
  EXPECT_EQ(value("c ? a : b", {{"c", -2}, {"a", 10}, {"b", 20}}), 10.0);
  // Lowest precedence: the condition and both branches are whole expressions.
  EXPECT_EQ(value("a > 0 ? a + 1 : b * 2", {{"a", 3}, {"b", 5}}), 4.0);
  EXPECT_EQ(value("a > 0 ? a + 1 : b * 2", {{"a", -3}, {"b", 5}}), 10.0);
  EXPECT_EQ(value("a > 0 || b > 0 ? 1 : 2", {{"a", -3}, {"b", 5}}), 1.0);
  // Inside parentheses and as a function argument.
  EXPECT_EQ(value("2 * (c ? a : b) + 1", {{"c", 0}, {"a", 10}, {"b", 20}}), 41.0);
  EXPECT_EQ(value("max(c ? a : b, 15)", {{"c", 1}, {"a", 10}, {"b", 20}}), 15.0);
}

TEST(ExpressionPrecedence, NestedConditionals) {
  // In the false branch: c ? 1 : (d ? 2 : 3).
  // In the true branch: c ? (d ? 1 : 2) : 3.
  for (double c : {0.0, 1.0})
    for (double d : {0.0, 1.0}) {
      SCOPED_TRACE("c=" + std::to_string(c) + " d=" + std::to_string(d));
      const std::map<std::string, double> v = {{"c", c}, {"d", d}};
      EXPECT_EQ(value("c ? 1 : d ? 2 : 3", v), c != 0 ? 1.0 : (d != 0 ? 2.0 : 3.0));
      EXPECT_EQ(value("c ? d ? 1 : 2 : 3", v), c != 0 ? (d != 0 ? 1.0 : 2.0) : 3.0);
      EXPECT_EQ(value("(c ? d : 0) ? 4 : 5", v), (c != 0 && d != 0) ? 4.0 : 5.0);
    }
}

// ---------------------------------------------------------------------------
// Numbers

TEST(ExpressionNumbers, Formats) {
  EXPECT_EQ(value("1"), 1.0);
  EXPECT_EQ(value("1.5"), 1.5);
  EXPECT_EQ(value(".5"), 0.5);
  EXPECT_EQ(value("1e-3"), 1e-3);
  EXPECT_EQ(value("2.5E+2"), 250.0);
  EXPECT_EQ(value("0.1"), 0.1);  // correctly rounded, like the literal
  EXPECT_EQ(value("6.02214076e23"), 6.02214076e23);
  EXPECT_EQ(value("1e3*a", {{"a", 2}}), 2000.0);
  EXPECT_EQ(value("  42  "), 42.0);
  EXPECT_EQ(value("007"), 7.0);
}

// ---------------------------------------------------------------------------
// Evaluation over arrays, against the formula computed directly

// Inputs: a in [-3, 3], b in [0.5, 4] (positive), c in [-1, 1]; a few
// special values at fixed places.
Vars make_inputs(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> da(-3, 3), db(0.5, 4), dc(-1, 1);
  Vars v;
  auto& a = v["a"];
  auto& b = v["b"];
  auto& c = v["c"];
  for (std::size_t i = 0; i < n; ++i) {
    a.push_back(da(gen));
    b.push_back(db(gen));
    c.push_back(dc(gen));
  }
  if (n > 3) {
    a[1] = 0.0;
    a[2] = -0.0;
    c[3] = 0.0;
  }
  return v;
}

struct Formula {
  const char* text;
  std::function<double(double, double, double)> f;
};

double b2d(bool x) { return x ? 1.0 : 0.0; }

// std::pow as the evaluator calls it: the libm function at run time. Written
// directly, std::pow(x, 2.0) is folded by GCC into x * x (correctly rounded),
// whereas glibc's pow is accurate to within 1 ulp but not correctly rounded:
// pow(x, 2) differs from x * x in the last bit for about 1 value in 1000 (for
// example x = -1.4045477808975213: x * x = 1.9727544688241514, pow gives
// 1.9727544688241516). Calling through a volatile pointer keeps the call.
double (*volatile libm_pow)(double, double) = static_cast<double (*)(double, double)>(std::pow);

const std::vector<Formula>& formulas() {
  static const std::vector<Formula> all = {
      {"a + b * c", [](double a, double b, double c) { return a + b * c; }},
      {"(a + b) * c", [](double a, double b, double c) { return (a + b) * c; }},
      {"a - b - c", [](double a, double b, double c) { return (a - b) - c; }},
      {"a / b / c", [](double a, double b, double c) { return (a / b) / c; }},
      {"-a^2", [](double a, double, double) { return -libm_pow(a, 2.0); }},
      {"b^c^2", [](double, double b, double c) { return libm_pow(b, libm_pow(c, 2.0)); }},
      {"a * 1e-3 + .5 - 1.5 * b", [](double a, double b, double) { return a * 1e-3 + 0.5 - 1.5 * b; }},
      {"a < c", [](double a, double, double c) { return b2d(a < c); }},
      {"a > c", [](double a, double, double c) { return b2d(a > c); }},
      {"a <= c", [](double a, double, double c) { return b2d(a <= c); }},
      {"a >= c", [](double a, double, double c) { return b2d(a >= c); }},
      {"a == 0", [](double a, double, double) { return b2d(a == 0); }},
      {"a != 0", [](double a, double, double) { return b2d(a != 0); }},
      {"a > 0 && c < 0 || b > 3", [](double a, double b, double c) { return b2d((a > 0 && c < 0) || b > 3); }},
      {"!(a > 0)", [](double a, double, double) { return b2d(!(a > 0)); }},
      {"a > 0 ? b : c > 0 ? c : a", [](double a, double b, double c) { return a > 0 ? b : (c > 0 ? c : a); }},
      {"abs(a)", [](double a, double, double) { return std::fabs(a); }},
      {"exp(a)", [](double a, double, double) { return std::exp(a); }},
      {"log(b)", [](double, double b, double) { return std::log(b); }},
      {"log10(b)", [](double, double b, double) { return std::log10(b); }},
      {"sqrt(b)", [](double, double b, double) { return std::sqrt(b); }},
      {"sin(a)", [](double a, double, double) { return std::sin(a); }},
      {"cos(a)", [](double a, double, double) { return std::cos(a); }},
      {"tan(a)", [](double a, double, double) { return std::tan(a); }},
      {"asin(c)", [](double, double, double c) { return std::asin(c); }},
      {"acos(c)", [](double, double, double c) { return std::acos(c); }},
      {"atan(a)", [](double a, double, double) { return std::atan(a); }},
      {"sinh(a)", [](double a, double, double) { return std::sinh(a); }},
      {"cosh(a)", [](double a, double, double) { return std::cosh(a); }},
      {"tanh(a)", [](double a, double, double) { return std::tanh(a); }},
      {"min(a, c)", [](double a, double, double c) { return std::min(a, c); }},
      {"max(a, c)", [](double a, double, double c) { return std::max(a, c); }},
      {"pow(b, a)", [](double a, double b, double) { return libm_pow(b, a); }},
      {"sqrt(a*a + b*b) * cos(c) - log(b) / 2.5E+2",
       [](double a, double b, double c) { return std::sqrt(a * a + b * b) * std::cos(c) - std::log(b) / 250.0; }},
      {"max(min(a, b), -c) ^ 2 + exp(-abs(a)) * (c >= 0 ? sinh(c) : tanh(c))",
       [](double a, double b, double c) {
         return libm_pow(std::max(std::min(a, b), -c), 2.0) +
                std::exp(-std::fabs(a)) * (c >= 0 ? std::sinh(c) : std::tanh(c));
       }},
  };
  return all;
}

class ExpressionArrays : public ::testing::TestWithParam<std::size_t> {};

TEST_P(ExpressionArrays, MatchDirectComputation) {
  const std::size_t n = GetParam();
  const Vars in = make_inputs(n, 20240601 + n);
  for (const auto& formula : formulas()) {
    SCOPED_TRACE(formula.text);
    const auto e = Expression::parse(formula.text);
    std::vector<double> expected(n);
    for (std::size_t i = 0; i < n; ++i) expected[i] = formula.f(in.at("a")[i], in.at("b")[i], in.at("c")[i]);
    EXPECT_TRUE(SameValues(run(e, in, n), expected));
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, ExpressionArrays, ::testing::Values(1, 7, 1023, 1024, 1025, 2048, 5000),
                         [](const auto& info) { return "n" + std::to_string(info.param); });

TEST(ExpressionEvaluation, ZeroPointsWritesNothing) {
  const auto e = Expression::parse("a + 1");
  const std::vector<double> a = {1};
  double out = 77;
  e.evaluate({a.data()}, &out, 0);
  EXPECT_EQ(out, 77.0);
}

TEST(ExpressionEvaluation, ExpressionsOfDifferentSizesInTurn) {
  // The evaluator's temporaries are shared: a larger tree after a smaller
  // one, and the smaller again, over several chunks.
  const std::size_t n = 3000;
  const Vars in = make_inputs(n, 7);
  const auto small = Expression::parse("a + b");
  const auto large =
      Expression::parse("(a + b) * (c - a) / (b + 1) + sqrt(b) - max(a, c) * min(b, 2) + (a > c ? a : c)");
  std::vector<double> expect_small(n), expect_large(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double a = in.at("a")[i], b = in.at("b")[i], c = in.at("c")[i];
    expect_small[i] = a + b;
    expect_large[i] = (a + b) * (c - a) / (b + 1) + std::sqrt(b) - std::max(a, c) * std::min(b, 2.0) + (a > c ? a : c);
  }
  EXPECT_TRUE(SameValues(run(small, in, n), expect_small));
  EXPECT_TRUE(SameValues(run(large, in, n), expect_large));
  EXPECT_TRUE(SameValues(run(small, in, n), expect_small));
  EXPECT_TRUE(SameValues(run(large, in, 5), std::vector<double>(expect_large.begin(), expect_large.begin() + 5)));
}

// ---------------------------------------------------------------------------
// NaN (missing values)

TEST(ExpressionNaN, PropagatesThroughArithmeticMinMaxAndConditional) {
  // a is NaN at every third point; the others are ordinary values.
  const std::size_t n = 2500;
  Vars in = make_inputs(n, 99);
  auto& a = in["a"];
  for (std::size_t i = 0; i < n; i += 3) a[i] = kNaN;
  const std::vector<Formula> cases = {
      {"a + b", [](double a, double b, double) { return a + b; }},
      {"b - a", [](double a, double b, double) { return b - a; }},
      {"a * 0", [](double a, double, double) { return a * 0; }},
      {"b / a", [](double a, double b, double) { return b / a; }},
      {"-a", [](double a, double, double) { return -a; }},
      {"sqrt(a)", [](double a, double, double) { return std::sqrt(a); }},
      {"exp(a)", [](double a, double, double) { return std::exp(a); }},
      {"a ^ 2", [](double a, double, double) { return libm_pow(a, 2.0); }},
      // min and max give NaN when either argument is NaN, in either position
      // (std::min(b, NaN) alone would give b).
      {"min(a, b)", [](double a, double b, double) { return std::isnan(a) ? kNaN : std::min(a, b); }},
      {"min(b, a)", [](double a, double b, double) { return std::isnan(a) ? kNaN : std::min(b, a); }},
      {"max(a, c)", [](double a, double, double c) { return std::isnan(a) ? kNaN : std::max(a, c); }},
      {"max(c, a)", [](double a, double, double c) { return std::isnan(a) ? kNaN : std::max(c, a); }},
      // A NaN condition gives NaN; a NaN in the branch not taken is unused.
      {"a ? b : c", [](double a, double b, double c) { return std::isnan(a) ? kNaN : (a != 0 ? b : c); }},
      {"b > 2 ? a : c", [](double a, double b, double c) { return b > 2 ? a : c; }},
      {"a > 0 ? b : c", [](double a, double b, double c) { return a > 0 ? b : c; }},
  };
  for (const auto& formula : cases) {
    SCOPED_TRACE(formula.text);
    std::vector<double> expected(n);
    for (std::size_t i = 0; i < n; ++i) expected[i] = formula.f(a[i], in.at("b")[i], in.at("c")[i]);
    EXPECT_TRUE(SameValues(run(Expression::parse(formula.text), in, n), expected));
  }
  // Spot checks of the values themselves.
  EXPECT_TRUE(std::isnan(value("min(a, b)", {{"a", kNaN}, {"b", 1}})));
  EXPECT_TRUE(std::isnan(value("min(b, a)", {{"a", kNaN}, {"b", 1}})));
  EXPECT_TRUE(std::isnan(value("max(b, a)", {{"a", kNaN}, {"b", 1}})));
  EXPECT_TRUE(std::isnan(value("max(a, a)", {{"a", kNaN}})));
  EXPECT_TRUE(std::isnan(value("c ? 1 : 2", {{"c", kNaN}})));
  EXPECT_TRUE(std::isnan(value("c ? d ? 1 : 2 : 3", {{"c", 1}, {"d", kNaN}})));
  EXPECT_EQ(value("c ? 1 : d", {{"c", 1}, {"d", kNaN}}), 1.0);
  EXPECT_TRUE(std::isnan(value("a + b * c", {{"a", 1}, {"b", 2}, {"c", kNaN}})));
}

TEST(ExpressionNaN, ComparisonsAndLogicalOperatorsGiveOneOrZero) {
  // Documented: comparisons and logical operators give 1 or 0, so NaN is
  // not propagated through them (IEEE: every ordered comparison is false).
  const std::map<std::string, double> v = {{"a", kNaN}, {"b", 1}};
  EXPECT_EQ(value("a < b", v), 0.0);
  EXPECT_EQ(value("a >= b", v), 0.0);
  EXPECT_EQ(value("a == a", v), 0.0);
  EXPECT_EQ(value("a != a", v), 1.0);
  EXPECT_EQ(value("!a", v), 0.0);
  EXPECT_EQ(value("a && b", v), 1.0);  // NaN != 0
}

// ---------------------------------------------------------------------------
// Errors

void expect_error(std::string_view text, std::string_view message, std::size_t column) {
  SCOPED_TRACE("expression \"" + std::string(text) + "\"");
  try {
    Expression::parse(text);
    ADD_FAILURE() << "parsed without error";
  } catch (const ExpressionError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(message), std::string::npos) << "message: " << what;
    EXPECT_EQ(e.column, column) << "message: " << what;
    EXPECT_NE(what.find("(at column " + std::to_string(column) + ")"), std::string::npos) << "message: " << what;
  }
}

TEST(ExpressionErrors, UnknownFunction) {
  expect_error("foo(a)", "unknown function 'foo'", 1);
  expect_error("a + foo(b)", "unknown function 'foo'", 5);
  expect_error("  sqr (a)", "unknown function 'sqr'", 3);
}

TEST(ExpressionErrors, WrongArgumentCount) {
  expect_error("min(a)", "function 'min' takes 2 argument(s), given 1", 1);
  expect_error("pow(a,b,c)", "function 'pow' takes 2 argument(s), given 3", 1);
  expect_error("sqrt(a, b)", "function 'sqrt' takes 1 argument(s), given 2", 1);
  expect_error("abs()", "function 'abs' takes 1 argument(s), given 0", 1);
  expect_error("2 * max(a)", "function 'max' takes 2 argument(s), given 1", 5);
}

TEST(ExpressionErrors, UnbalancedParentheses) {
  expect_error("(a+b", "unbalanced parentheses", 5);  // at the end, where ')' is missing
  expect_error("((a+b)", "unbalanced parentheses", 7);
  expect_error("a+b)", "unbalanced parentheses", 4);
  expect_error("(a)+b))", "unbalanced parentheses", 6);
  expect_error("min(a, b", "unbalanced parentheses: missing ')' after the arguments of 'min'", 9);
}

TEST(ExpressionErrors, EmptyOrIncomplete) {
  expect_error("", "unexpected end of expression", 1);
  expect_error("   ", "unexpected end of expression", 4);
  expect_error("a +", "unexpected end of expression", 4);
  expect_error("()", "expected a field id", 2);
}

TEST(ExpressionErrors, TrailingGarbage) {
  expect_error("a b", "unexpected 'b'", 3);
  expect_error("1 2", "unexpected '2'", 3);
  expect_error("a + b c", "unexpected 'c'", 7);
}

TEST(ExpressionErrors, BadCharacter) {
  expect_error("a # b", "unexpected '#'", 3);
  expect_error("a & b", "unexpected '&'", 3);
  expect_error("a | b", "unexpected '|'", 3);
  expect_error("$a", "expected a field id", 1);
  expect_error("@1", "expected a field id", 2);
}

TEST(ExpressionErrors, SingleEquals) {
  expect_error("a = b", "unexpected '='", 3);
  expect_error("a=b", "unexpected '='", 2);
}

TEST(ExpressionErrors, ConditionalWithoutColon) {
  expect_error("c ? a b", "expected ':' in a conditional", 7);
  expect_error("c ? a", "expected ':' in a conditional", 6);
  expect_error("c ? a ? b : d", "expected ':' in a conditional", 14);
}

TEST(ExpressionErrors, BadNumber) {
  expect_error("a + 1e999", "bad number", 5);
  expect_error(".", "bad number", 1);
}

TEST(ExpressionErrors, IsARuntimeError) {
  EXPECT_THROW(Expression::parse("min(a)"), std::runtime_error);
  EXPECT_THROW(Expression::parse("min(a)"), ExpressionError);
}

}  // namespace
}  // namespace foehn::filters
