// Finding a field's grid. The reader has already checked that every
// reference exists; what is left is whether there is a grid at all.
#include "tools/field_grid.h"

#include <cctype>
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace foehn::tools {

namespace {

using config::ConfigError;
using config::FieldDef;
using config::GridComponent;

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Fields already looked at. Expressions may name fields that are themselves
// expressions, in a cycle the reader does not check (ids inside expressions);
// visiting each field once stops cycles and keeps the work linear.
using Visited = std::set<const FieldDef*>;
// The search recurses through expressions; bad input must get an error, not
// a stack overflow.
constexpr int kMaxDepth = 256;

std::optional<FieldGrid> own_grid(const config::ContextDef& ctx, const FieldDef& f, Visited& visited, int depth);

// The grid of the first identifier in the expression that is a field with a
// grid; an expression's result lives on its operands' grid.
std::optional<FieldGrid> expression_grid(const config::ContextDef& ctx, const FieldDef& f, Visited& visited,
                                         int depth) {
  if (depth > kMaxDepth)
    throw ConfigError(f.where, "field '" + f.output_name() + "': expressions name expressions more than " +
                                   std::to_string(kMaxDepth) + " deep");
  const std::string_view expr = f.expression;
  for (std::size_t i = 0; i < expr.size();) {
    if (!ident_start(expr[i])) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < expr.size() && ident_char(expr[j])) ++j;
    if (const FieldDef* operand = ctx.find_field(expr.substr(i, j - i)))
      if (visited.insert(operand).second)
        if (auto g = own_grid(ctx, *operand, visited, depth + 1)) return g;
    i = j;
  }
  return std::nullopt;
}

std::optional<FieldGrid> own_grid(const config::ContextDef& ctx, const FieldDef& f, Visited& visited, int depth) {
  if (!f.grid_ref.empty()) {
    const config::GridDef* grid = ctx.find_grid(f.grid_ref);
    if (!grid) return std::nullopt;  // cannot happen after the reader's checks
    return FieldGrid{f.grid_ref, grid->components};
  }
  FieldGrid g;
  const auto add = [&](GridComponent::Kind kind, const std::string& ref, const char* name) {
    if (ref.empty()) return;
    g.components.push_back(GridComponent{kind, ref, f.where});
    g.label += (g.label.empty() ? "" : " ") + std::string(name) + ":" + ref;
  };
  add(GridComponent::Kind::domain, f.domain_ref, "domain");
  add(GridComponent::Kind::axis, f.axis_ref, "axis");
  add(GridComponent::Kind::scalar, f.scalar_ref, "scalar");
  if (!g.components.empty()) return g;
  if (!f.expression.empty()) return expression_grid(ctx, f, visited, depth);
  return std::nullopt;
}

}  // namespace

FieldGrid field_grid(const config::ContextDef& ctx, const FieldDef& field) {
  Visited visited{&field};
  if (auto g = own_grid(ctx, field, visited, 0)) return *g;
  throw ConfigError(field.where, "field '" + field.output_name() +
                                     "' has no grid: set grid_ref, or domain_ref and/or axis_ref" +
                                     (field.expression.empty() ? "" : " (its expression names no field with a grid)"));
}

}  // namespace foehn::tools
