#include "filters/expression.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <map>

namespace foehn::filters {

ExpressionError::ExpressionError(const std::string& message, std::size_t col)
    : std::runtime_error(message + " (at column " + std::to_string(col) + ")"), column(col) {}

class ExpressionParser {
 public:
  ExpressionParser(std::string_view text, Expression& e) : s_(text), e_(e) {}

  void run() {
    const int root = expr();
    skip();
    if (pos_ < s_.size()) {
      if (s_[pos_] == ')') fail("unbalanced parentheses: ')' without '('");
      fail(std::string("unexpected '") + s_[pos_] + "'");
    }
    // Nodes are created children first, so the root is already last
    // unless the tree was built out of order; check it.
    if (root != static_cast<int>(e_.nodes_.size()) - 1) fail("internal: root is not last");
  }

 private:
  using Op = Expression::Op;

  [[noreturn]] void fail(const std::string& message) const { throw ExpressionError(message, pos_ + 1); }

  void skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool eat(std::string_view token) {
    skip();
    if (s_.substr(pos_, token.size()) != token) return false;
    pos_ += token.size();
    return true;
  }
  int node(Op op, std::vector<int> args = {}) {
    e_.nodes_.push_back({op, 0, -1, std::move(args)});
    return static_cast<int>(e_.nodes_.size()) - 1;
  }

  int expr() {
    const int c = lor();
    if (!eat("?")) return c;
    const int a = expr();
    if (!eat(":")) fail("expected ':' in a conditional 'c ? a : b'");
    const int b = expr();
    return node(Op::cond, {c, a, b});
  }
  int lor() {
    int a = land();
    while (eat("||")) a = node(Op::lor, {a, land()});
    return a;
  }
  int land() {
    int a = cmp();
    while (eat("&&")) a = node(Op::land, {a, cmp()});
    return a;
  }
  int cmp() {
    const int a = sum();
    static const std::pair<std::string_view, Op> ops[] = {
        {"==", Op::eq}, {"/=", Op::ne}, {"!=", Op::ne}, {"<=", Op::le}, {">=", Op::ge}, {"<", Op::lt}, {">", Op::gt}};
    for (const auto& [tok, op] : ops)
      if (eat(tok)) return node(op, {a, sum()});
    return a;
  }
  int sum() {
    int a = product();
    for (;;) {
      if (eat("+"))
        a = node(Op::add, {a, product()});
      else if (peek_minus())
        a = node(Op::sub, {a, product()});
      else
        return a;
    }
  }
  bool peek_minus() { return eat("-"); }
  int product() {
    int a = unary();
    for (;;) {
      skip();
      if (pos_ < s_.size() && s_[pos_] == '/' && s_.substr(pos_, 2) != "/=") {
        ++pos_;
        a = node(Op::div, {a, unary()});
      } else if (eat("*")) {
        a = node(Op::mul, {a, unary()});
      } else {
        return a;
      }
    }
  }
  int unary() {
    if (eat("-")) return node(Op::neg, {unary()});
    if (eat("+")) return unary();
    skip();
    if (pos_ < s_.size() && s_[pos_] == '!' && s_.substr(pos_, 2) != "!=") {
      ++pos_;
      return node(Op::lnot, {unary()});
    }
    return power();
  }
  int power() {
    const int base = primary();
    if (eat("^")) return node(Op::pow, {base, unary()});
    return base;
  }
  std::string identifier() {
    skip();
    const std::size_t start = pos_;
    while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) ++pos_;
    if (start == pos_ || std::isdigit(static_cast<unsigned char>(s_[start]))) {
      pos_ = start;
      fail("expected a field id");
    }
    return std::string(s_.substr(start, pos_ - start));
  }
  int input(ExpressionInput in) {
    auto it = std::find(e_.inputs_.begin(), e_.inputs_.end(), in);
    const int index = static_cast<int>(it - e_.inputs_.begin());
    if (it == e_.inputs_.end()) e_.inputs_.push_back(std::move(in));
    const int n = node(Op::input);
    e_.nodes_[n].input = index;
    return n;
  }
  int primary() {
    skip();
    if (pos_ >= s_.size()) fail("unexpected end of expression");
    const char c = s_[pos_];
    if (c == '(') {
      ++pos_;
      const int inner = expr();
      if (!eat(")")) fail("unbalanced parentheses: missing ')'");
      return inner;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return number();
    if (c == '@') {
      ++pos_;
      return input({ExpressionInput::Kind::chained, identifier()});
    }
    const std::size_t start = pos_;
    const std::string name = identifier();
    if (name == "this") return input({ExpressionInput::Kind::self, ""});
    if (eat("(")) return call(name, start);
    return input({ExpressionInput::Kind::field, name});
  }
  int number() {
    const char* first = s_.data() + pos_;
    double v = 0;
    auto [end, ec] = std::from_chars(first, s_.data() + s_.size(), v);
    if (ec != std::errc()) fail("bad number");
    pos_ += static_cast<std::size_t>(end - first);
    const int n = node(Op::number);
    e_.nodes_[n].value = v;
    return n;
  }
  int call(const std::string& name, std::size_t start) {
    static const std::map<std::string, std::pair<Op, int>> functions = {
        {"abs", {Op::abs, 1}},   {"exp", {Op::exp, 1}},   {"log", {Op::log, 1}},   {"log10", {Op::log10, 1}},
        {"sqrt", {Op::sqrt, 1}}, {"sin", {Op::sin, 1}},   {"cos", {Op::cos, 1}},   {"tan", {Op::tan, 1}},
        {"asin", {Op::asin, 1}}, {"acos", {Op::acos, 1}}, {"atan", {Op::atan, 1}}, {"sinh", {Op::sinh, 1}},
        {"cosh", {Op::cosh, 1}}, {"tanh", {Op::tanh, 1}}, {"min", {Op::min, 2}},   {"max", {Op::max, 2}},
        {"pow", {Op::pow, 2}}};
    auto f = functions.find(name);
    if (f == functions.end()) {
      pos_ = start;
      fail("unknown function '" + name + "'");
    }
    std::vector<int> args;
    if (!eat(")")) {
      do args.push_back(expr());
      while (eat(","));
      if (!eat(")")) fail("unbalanced parentheses: missing ')' after the arguments of '" + name + "'");
    }
    if (static_cast<int>(args.size()) != f->second.second) {
      pos_ = start;
      fail("function '" + name + "' takes " + std::to_string(f->second.second) + " argument(s), given " +
           std::to_string(args.size()));
    }
    return node(f->second.first, std::move(args));
  }

  std::string_view s_;
  std::size_t pos_ = 0;
  Expression& e_;
};

Expression Expression::parse(std::string_view text) {
  Expression e;
  e.text_ = std::string(text);
  ExpressionParser(e.text_, e).run();
  if (e.nodes_.empty()) throw ExpressionError("empty expression", 1);
  return e;
}

namespace {
constexpr std::size_t kChunk = 1024;  // points per pass: the temporaries stay in cache

template <class F>
void map1(const double* a, double* out, std::size_t n, F f) {
  for (std::size_t i = 0; i < n; ++i) out[i] = f(a[i]);
}
template <class F>
void map2(const double* a, const double* b, double* out, std::size_t n, F f) {
  for (std::size_t i = 0; i < n; ++i) out[i] = f(a[i], b[i]);
}
}  // namespace

void Expression::eval_chunk(const std::vector<const double*>& in, std::size_t at, std::size_t n,
                            std::vector<std::vector<double>>& tmp) const {
  for (std::size_t k = 0; k < nodes_.size(); ++k) {
    const Node& nd = nodes_[k];
    double* o = tmp[k].data();
    const double* a = nd.args.size() > 0 ? tmp[nd.args[0]].data() : nullptr;
    const double* b = nd.args.size() > 1 ? tmp[nd.args[1]].data() : nullptr;
    switch (nd.op) {
      case Op::number: std::fill_n(o, n, nd.value); break;
      case Op::input: std::copy_n(in[nd.input] + at, n, o); break;
      case Op::neg: map1(a, o, n, [](double x) { return -x; }); break;
      case Op::lnot: map1(a, o, n, [](double x) { return x == 0 ? 1.0 : 0.0; }); break;
      case Op::add: map2(a, b, o, n, [](double x, double y) { return x + y; }); break;
      case Op::sub: map2(a, b, o, n, [](double x, double y) { return x - y; }); break;
      case Op::mul: map2(a, b, o, n, [](double x, double y) { return x * y; }); break;
      case Op::div: map2(a, b, o, n, [](double x, double y) { return x / y; }); break;
      case Op::pow: map2(a, b, o, n, [](double x, double y) { return std::pow(x, y); }); break;
      case Op::eq: map2(a, b, o, n, [](double x, double y) { return x == y ? 1.0 : 0.0; }); break;
      case Op::ne: map2(a, b, o, n, [](double x, double y) { return x != y ? 1.0 : 0.0; }); break;
      case Op::lt: map2(a, b, o, n, [](double x, double y) { return x < y ? 1.0 : 0.0; }); break;
      case Op::gt: map2(a, b, o, n, [](double x, double y) { return x > y ? 1.0 : 0.0; }); break;
      case Op::le: map2(a, b, o, n, [](double x, double y) { return x <= y ? 1.0 : 0.0; }); break;
      case Op::ge: map2(a, b, o, n, [](double x, double y) { return x >= y ? 1.0 : 0.0; }); break;
      case Op::land: map2(a, b, o, n, [](double x, double y) { return x != 0 && y != 0 ? 1.0 : 0.0; }); break;
      case Op::lor: map2(a, b, o, n, [](double x, double y) { return x != 0 || y != 0 ? 1.0 : 0.0; }); break;
      case Op::cond: {
        const double* c = tmp[nd.args[2]].data();
        for (std::size_t i = 0; i < n; ++i) o[i] = std::isnan(a[i]) ? a[i] : (a[i] != 0 ? b[i] : c[i]);
        break;
      }
      case Op::abs: map1(a, o, n, [](double x) { return std::fabs(x); }); break;
      case Op::exp: map1(a, o, n, [](double x) { return std::exp(x); }); break;
      case Op::log: map1(a, o, n, [](double x) { return std::log(x); }); break;
      case Op::log10: map1(a, o, n, [](double x) { return std::log10(x); }); break;
      case Op::sqrt: map1(a, o, n, [](double x) { return std::sqrt(x); }); break;
      case Op::sin: map1(a, o, n, [](double x) { return std::sin(x); }); break;
      case Op::cos: map1(a, o, n, [](double x) { return std::cos(x); }); break;
      case Op::tan: map1(a, o, n, [](double x) { return std::tan(x); }); break;
      case Op::asin: map1(a, o, n, [](double x) { return std::asin(x); }); break;
      case Op::acos: map1(a, o, n, [](double x) { return std::acos(x); }); break;
      case Op::atan: map1(a, o, n, [](double x) { return std::atan(x); }); break;
      case Op::sinh: map1(a, o, n, [](double x) { return std::sinh(x); }); break;
      case Op::cosh: map1(a, o, n, [](double x) { return std::cosh(x); }); break;
      case Op::tanh: map1(a, o, n, [](double x) { return std::tanh(x); }); break;
      // min/max propagate a missing value (NaN) like the arithmetic does.
      case Op::min:
        map2(a, b, o, n, [](double x, double y) { return std::isnan(x) || std::isnan(y) ? x + y : std::min(x, y); });
        break;
      case Op::max:
        map2(a, b, o, n, [](double x, double y) { return std::isnan(x) || std::isnan(y) ? x + y : std::max(x, y); });
        break;
    }
  }
}

void Expression::evaluate(const std::vector<const double*>& inputs, double* out, std::size_t n) const {
  // Temporaries for one chunk per node; evaluation is chunk by chunk.
  thread_local std::vector<std::vector<double>> tmp;
  if (tmp.size() < nodes_.size()) tmp.resize(nodes_.size());
  for (auto& t : tmp)
    if (t.size() < kChunk) t.resize(kChunk);
  for (std::size_t at = 0; at < n; at += kChunk) {
    const std::size_t m = std::min(kChunk, n - at);
    eval_chunk(inputs, at, m, tmp);
    std::copy_n(tmp[nodes_.size() - 1].data(), m, out + at);
  }
}

}  // namespace foehn::filters
