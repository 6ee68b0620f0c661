// The filter graph of a context at close of definition (filters/graph.h):
// expressions in field text, the fields they read (source nodes: copies of
// the model's data) and chained temporal operations (@id). Nodes are added
// inputs first, so evaluating them in order at the end of a step is a
// topological order.
#include <algorithm>
#include <cmath>

#include "client/context.h"
#include "client/errors.h"

namespace foehn::client {

namespace {
[[noreturn]] void config_error(const config::Location& where, const std::string& message) {
  throw config::ConfigError(where, message);
}

std::string join(const std::vector<std::string>& path, const std::string& last) {
  std::string s;
  for (const auto& p : path) s += p + " -> ";
  return s + last;
}
}  // namespace

int Context::node_for_field(const std::string& id, const config::Location& where, std::vector<std::string>& path) {
  const config::FieldDef* def = def_.find_field(id);
  if (!def) config_error(where, "unknown field '" + id + "' in the expression of field '" + path.back() + "'");
  // A field without an expression that refers to another carries its data.
  if (def->expression.empty() && !def->field_ref.empty()) return node_for_field(def->field_ref, where, path);
  if (std::find(path.begin(), path.end(), id) != path.end())
    config_error(where, "cycle between fields: " + join(path, id));
  const GridShape shape = resolve_grid(*def, id);
  if (!def->expression.empty()) {
    if (auto it = expression_node_.find(id); it != expression_node_.end()) return it->second;
    path.push_back(id);
    const int s = node_for_expression(id, def->expression, id, *def, shape, path);
    path.pop_back();
    expression_node_[id] = s;
    return s;
  }
  const int h = register_field(*def, shape);
  if (fields_[h].source < 0) fields_[h].source = graph_.add_source(static_cast<std::size_t>(shape.local));
  return fields_[h].source;
}

int Context::node_for_expression(const std::string& owner, const std::string& text, const std::string& self,
                                 const config::FieldDef& user, const GridShape& shape,
                                 std::vector<std::string>& path) {
  std::shared_ptr<const filters::Expression> expr;
  try {
    expr = std::make_shared<const filters::Expression>(filters::Expression::parse(text));
  } catch (const filters::ExpressionError& e) {
    config_error(user.where, "field '" + owner + "': expression '" + text + "': " + e.what());
  }
  std::vector<int> inputs;
  for (const auto& in : expr->inputs()) {
    int s = -1;
    if (in.kind == filters::ExpressionInput::Kind::self) {
      // `this`: the data the model writes for the field itself.
      config::FieldDef own = user;
      own.id = self;
      const int h = register_field(own, shape);
      if (fields_[h].source < 0) fields_[h].source = graph_.add_source(static_cast<std::size_t>(shape.local));
      s = fields_[h].source;
    } else {
      s = node_for_field(in.id, user.where, path);
      const GridShape other = resolve_grid(*def_.find_field(in.id), in.id);
      if (other.local != shape.local || other.dims.size() != shape.dims.size())
        config_error(user.where, "field '" + owner + "': '" + in.id + "' in its expression is on a grid of " +
                                     other.text + " values per rank, the field on " + shape.text);
    }
    if (in.kind == filters::ExpressionInput::Kind::chained) {
      // @id: id's own temporal operation over this field's freq_op.
      const config::FieldDef* def = def_.find_field(in.id);
      filters::TemporalOp op;
      try {
        op = filters::parse_temporal_op(def->operation);
      } catch (const std::invalid_argument& e) {
        config_error(def->where, "field '" + in.id + "': " + e.what());
      }
      // Its samples are the values already in NaN form: no missing value.
      filters::TemporalStage stage(op, static_cast<std::size_t>(shape.local), std::nan(""), start_);
      s = graph_.add_chain(s, std::move(stage), make_schedule(user.freq_op, user.where, "freq_op"));
    }
    inputs.push_back(s);
  }
  return graph_.add_expression(std::move(expr), std::move(inputs), static_cast<std::size_t>(shape.local));
}

}  // namespace foehn::client
