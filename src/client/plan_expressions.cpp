// Expressions in the plan builder: each field an expression names becomes
// a graph node (its model writes, another expression, or an `@` chain), and
// a cycle of names is refused with the path that closes it.
#include <algorithm>
#include <cmath>
#include <memory>

#include "client/errors.h"
#include "client/plan_builder.h"

namespace foehn::client {
namespace {

// "a -> b -> c": a cycle of field references, for messages.
std::string join(const std::vector<std::string>& path, const std::string& last) {
  std::string s;
  for (const auto& p : path) s += p + " -> ";
  return s + last;
}

}  // namespace

// A file's field in messages: its id, else its name and file.
std::string PlanBuilder::own_label(const config::FieldDef& f, const config::FileDef& file) {
  if (!f.id.empty()) return f.id;
  return (f.name.empty() ? f.field_ref : f.name) + " (in file " + file.id + ")";
}

int PlanBuilder::node_for_field(const std::string& id, const config::Location& where, std::vector<std::string>& path) {
  const config::FieldDef* def = def_.find_field(id);
  if (!def) throw config::ConfigError(where, "unknown field '" + id + "' in the expression of field '" + path.back() + "'");
  // A field without an expression that refers to another carries its data.
  if (def->expression.empty() && !def->field_ref.empty()) return node_for_field(def->field_ref, where, path);
  if (std::find(path.begin(), path.end(), id) != path.end())
    throw config::ConfigError(where, "cycle between fields: " + join(path, id));
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

int PlanBuilder::node_for_expression(const std::string& owner, const std::string& text, const std::string& self,
                                     const config::FieldDef& user, const GridShape& shape,
                                     std::vector<std::string>& path) {
  std::shared_ptr<const filters::Expression> expr;
  try {
    expr = std::make_shared<const filters::Expression>(filters::Expression::parse(text));
  } catch (const filters::ExpressionError& e) {
    throw config::ConfigError(user.where, "field '" + owner + "': expression '" + text + "': " + e.what());
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
        throw config::ConfigError(user.where, "field '" + owner + "': '" + in.id + "' in its expression is on a grid of " +
                                     other.text + " values per rank, the field on " + shape.text);
    }
    if (in.kind == filters::ExpressionInput::Kind::chained) {
      // @id: id's own temporal operation over this field's freq_op.
      const config::FieldDef* def = def_.find_field(in.id);
      filters::TemporalOp op;
      try {
        op = filters::parse_temporal_op(def->operation);
      } catch (const std::invalid_argument& e) { throw config::ConfigError(def->where, "field '" + in.id + "': " + e.what()); }
      // Its samples are the values already in NaN form: no missing value.
      filters::TemporalStage stage(op, static_cast<std::size_t>(shape.local), std::nan(""), start_);
      s = graph_.add_chain(s, std::move(stage), make_schedule(user.freq_op, user.where, "freq_op"));
      out_.chain_dims[s] = shape.dims;
    }
    inputs.push_back(s);
  }
  return graph_.add_expression(std::move(expr), std::move(inputs), static_cast<std::size_t>(shape.local));
}

}  // namespace foehn::client
