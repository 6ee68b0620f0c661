// Arithmetic between fields: the expression in a field's text content,
// parsed once at close of definition into a small tree and evaluated over
// whole arrays (one loop per tree node, in chunks), never point by point
// through the tree.
//
// Grammar (lowest precedence first):
//   expr    := or ('?' expr ':' expr)?
//   or      := and ('||' and)*          and := cmp ('&&' cmp)*
//   cmp     := sum (('=='|'/='|'!='|'<'|'>'|'<='|'>=') sum)?
//   sum     := product (('+'|'-') product)*
//   product := unary (('*'|'/') unary)*
//   unary   := ('-'|'+'|'!') unary | power
//   power   := primary ('^' unary)?     (right associative: 2^3^2 = 2^9)
//   primary := number | id | '@' id | 'this' | function '(' expr (',' expr)* ')' | '(' expr ')'
// Comparisons and logical operators give 1 or 0. NaN (a missing value)
// propagates through arithmetic.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace foehn::filters {

struct ExpressionError : std::runtime_error {
  ExpressionError(const std::string& message, std::size_t column);
  std::size_t column;  // 1-based position in the expression text
};

struct ExpressionInput {
  enum class Kind { field, chained, self } kind;  // id, @id, this
  std::string id;
  friend bool operator==(const ExpressionInput&, const ExpressionInput&) = default;
};

class Expression {
 public:
  // Throws ExpressionError (unknown function, wrong argument count,
  // unbalanced parentheses, unexpected character, ...).
  static Expression parse(std::string_view text);

  const std::vector<ExpressionInput>& inputs() const { return inputs_; }
  const std::string& text() const { return text_; }

  // out[i] = expression(inputs[k][i]) for i < n; inputs in the order of inputs().
  void evaluate(const std::vector<const double*>& inputs, double* out, std::size_t n) const;

 private:
  enum class Op {
    number,
    input,
    neg,
    lnot,
    add,
    sub,
    mul,
    div,
    pow,
    eq,
    ne,
    lt,
    gt,
    le,
    ge,
    land,
    lor,
    cond,
    abs,
    exp,
    log,
    log10,
    sqrt,
    sin,
    cos,
    tan,
    asin,
    acos,
    atan,
    sinh,
    cosh,
    tanh,
    min,
    max
  };
  struct Node {
    Op op;
    double value = 0;       // number
    int input = -1;         // input
    std::vector<int> args;  // child nodes
  };
  friend class ExpressionParser;

  std::string text_;
  std::vector<Node> nodes_;  // children before parents; the root is last
  std::vector<ExpressionInput> inputs_;
  void eval_chunk(const std::vector<const double*>& inputs, std::size_t at, std::size_t n,
                  std::vector<std::vector<double>>& tmp) const;
};

}  // namespace foehn::filters
