#include "filters/graph.h"

#include <cmath>
#include <limits>
#include <utility>

namespace foehn::filters {

int Graph::add(Node node) {
  for (int i : node.inputs) ++nodes_[static_cast<std::size_t>(i)].readers;
  for (int c : {node.source_coordinate, node.target_coordinate})
    if (c >= 0) ++nodes_[static_cast<std::size_t>(c)].readers;
  nodes_.push_back(std::move(node));
  return static_cast<int>(nodes_.size()) - 1;
}

int Graph::add_source(std::size_t size) {
  Node n;
  n.kind = NodeKind::source;
  n.values.resize(size);
  return add(std::move(n));
}

int Graph::add_expression(std::shared_ptr<const Expression> expression, std::vector<int> inputs, std::size_t size) {
  Node n;
  n.kind = NodeKind::expression;
  n.expression = std::move(expression);
  n.input_values.resize(inputs.size());
  n.inputs = std::move(inputs);
  n.values.resize(size);
  return add(std::move(n));
}

int Graph::add_transform(int input, std::shared_ptr<const transform::Transform> transform, int source_coordinate,
                         int target_coordinate) {
  const auto key = std::make_tuple(input, transform.get(), source_coordinate, target_coordinate);
  if (auto it = transform_nodes_.find(key); it != transform_nodes_.end()) return it->second;  // computed once
  Node n;
  n.kind = NodeKind::transform;
  n.inputs = {input};
  n.source_coordinate = source_coordinate;
  n.target_coordinate = target_coordinate;
  n.values.resize(transform->output_size());
  n.transform = std::move(transform);
  const int index = add(std::move(n));
  transform_nodes_.emplace(key, index);
  return index;
}

int Graph::add_chain(int input, TemporalStage stage, std::unique_ptr<calendar::Schedule> period) {
  Node n;
  n.kind = NodeKind::chain;
  n.inputs = {input};
  n.values.resize(stage.size());
  n.stage = std::move(stage);
  n.sampler.schedule = std::move(period);
  return add(std::move(n));
}

int Graph::add_output(int input, TemporalStage stage, Sampler sampling) {
  Node n;
  n.kind = NodeKind::output;
  if (input >= 0) n.inputs = {input};
  n.stage = std::move(stage);
  n.sampler = std::move(sampling);
  return add(std::move(n));
}

void Graph::advance(std::int64_t now) {
  for (Node& n : nodes_)
    if (n.kind == NodeKind::chain || n.kind == NodeKind::output) n.sampler.advance(now);
}

template <class T>
bool Graph::set_source(int source, std::int64_t step, const T* data, std::size_t n, double missing) {
  Node& node = nodes_[static_cast<std::size_t>(source)];
  if (node.step == step) return false;
  double* out = node.values.data();
  if (std::isnan(missing)) {
    for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<double>(data[i]);
  } else {
    const T m = static_cast<T>(missing);  // compared in the data's own type
    constexpr double nan = std::numeric_limits<double>::quiet_NaN();
    for (std::size_t i = 0; i < n; ++i) out[i] = data[i] == m ? nan : static_cast<double>(data[i]);
  }
  node.step = step;
  return true;
}

template bool Graph::set_source<float>(int, std::int64_t, const float*, std::size_t, double);
template bool Graph::set_source<double>(int, std::int64_t, const double*, std::size_t, double);

void Graph::propagate_demand() {
  for (Node& n : nodes_)
    if (n.kind != NodeKind::output)
      n.demanded = n.kind == NodeKind::chain || n.readers == 0 ||
                   (n.kind == NodeKind::transform && n.transform->op == transform::Operation::split);
  // Inputs come before the nodes that read them: backwards, every reader of
  // a node has been seen when the node is reached.
  for (auto it = nodes_.rbegin(); it != nodes_.rend(); ++it) {
    if (!it->demanded) continue;
    for (int i : it->inputs) nodes_[static_cast<std::size_t>(i)].demanded = true;
    for (int c : {it->source_coordinate, it->target_coordinate})
      if (c >= 0) nodes_[static_cast<std::size_t>(c)].demanded = true;
  }
}

void Graph::evaluate(std::int64_t step, std::int64_t now, bool irregular) {
  propagate_demand();
  for (Node& node : nodes_) {
    if (node.kind == NodeKind::chain) {
      const Node& in = nodes_[static_cast<std::size_t>(node.inputs[0])];
      if (in.step == step) {
        const double w = node.stage.sample_weight(now, irregular);
        node.stage.add(0, in.values.data(), in.values.size(), w);
      }
      if (node.sampler.due) {
        node.stage.result(0, node.values.data(), node.values.size());
        node.stage.reset();
        node.step = step;
      }
    } else if (node.kind == NodeKind::transform) {
      const Node& in = nodes_[static_cast<std::size_t>(node.inputs[0])];
      if (!node.demanded || in.step != step) continue;
      // A coordinate field of the same step, or no value this step.
      const double* coordinate[2] = {nullptr, nullptr};
      bool ready = true;
      for (int k = 0; k < 2; ++k) {
        const int c = k == 0 ? node.source_coordinate : node.target_coordinate;
        if (c < 0) continue;
        const Node& cn = nodes_[static_cast<std::size_t>(c)];
        ready = ready && cn.step == step;
        coordinate[k] = cn.values.data();
      }
      if (!ready) continue;
      if (node.transform->op == transform::Operation::split) {  // XIOS: the n-th step completes the axis
        node.transform->place(in.values.data(), node.slot, node.values.data());
        if (++node.slot < node.transform->n_target) continue;
        node.slot = 0;
      } else {
        node.transform->apply(in.values.data(), coordinate[0], coordinate[1], node.values.data());
      }
      node.step = step;
    } else if (node.kind == NodeKind::expression) {
      if (!node.demanded) continue;
      bool ready = true;
      for (std::size_t k = 0; k < node.inputs.size(); ++k) {
        const Node& in = nodes_[static_cast<std::size_t>(node.inputs[k])];
        ready = ready && in.step == step;
        node.input_values[k] = in.values.data();
      }
      if (!ready) continue;
      node.expression->evaluate(node.input_values, node.values.data(), node.values.size());
      node.step = step;
    }
  }
}

}  // namespace foehn::filters
