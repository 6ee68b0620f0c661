// The filter graph of a context: what turns the model's fields into the
// values of output variables, in one placement's layout (a client's local
// points). Pure: no MPI, no transport, no I/O; the client's step driver
// feeds it and sends what it gives.
//
// Nodes are added inputs first, so evaluating them in index order is a
// topological order. A node's values belong to one step (`step`); a node
// whose inputs have no values for the step is not evaluated.
//
//   source ──► transform ──► expression ──► chain (@id) ──► output
//                                  ▲              │
//                                  └──────────────┘
//
// The per-step path allocates nothing and looks up no names: every buffer
// is sized when the node is added, and each node is one loop per operation
// over its points (no virtual call per point).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <tuple>
#include <memory>
#include <vector>

#include "filters/expression.h"
#include "filters/temporal_stage.h"
#include "transform/transform.h"

namespace foehn::filters {

// A spatial transformation (src/transform/) is a node with one input whose
// size differs from it: the field's values on the source grid in, on the
// target grid out, before any temporal stage (XIOS's order).
enum class NodeKind {
  source,      // a field's data as the model writes it (missing values become NaN)
  expression,  // arithmetic between nodes of one size (expression.h)
  transform,   // a spatial transformation of its input (transform/transform.h): zoom, extract, reduce, inverse;
               // temporal_splitting (op split): has values once n steps of its input filled its axis
  chain,       // a temporal operation over a period, read by an expression as @id
  output,      // the temporal stage of an output variable; its values leave the graph
};

struct Node {
  NodeKind kind = NodeKind::source;
  std::vector<int> inputs;                                // expression: one per expression input; chain, output: 0 or 1
  int source_coordinate = -1, target_coordinate = -1;     // transform: nodes of its coordinate fields (-1: none)
  std::shared_ptr<const Expression> expression;           // expression
  std::shared_ptr<const transform::Transform> transform;  // transform
  std::vector<const double*> input_values;                // expression: its inputs' values, set when evaluated
  TemporalStage stage;                                    // chain, output
  Sampler sampler;                                        // chain: its period's ends; output: its sampling (freq_op)
  std::vector<double> values;                             // source, expression, chain
  std::int64_t step = -1;                                 // the step `values` belong to
  std::size_t slot = 0;  // transform with op split: where its input's next step goes
  // Whether this step needs the node's values: an output's is set by the
  // caller before evaluate (its stage takes this step's value); a chain
  // accumulates every step; any other node is needed when a node that reads
  // it is; a node no other node reads is always needed (its values are read
  // from outside). A temporal_splitting transform takes every step, as a
  // chain does. Transforms and expressions nobody needs are not evaluated.
  bool demanded = true;
  int readers = 0;  // nodes that take this one as an input or a coordinate
};

class Graph {
 public:
  int add_source(std::size_t size);
  int add_expression(std::shared_ptr<const Expression> expression, std::vector<int> inputs, std::size_t size);
  // `transform` of the values of `input` (of its input_size), giving its
  // output_size values. A transform with coordinate fields
  // (needs_coordinates) takes their nodes too, in the order source, target
  // (-1: none); it is evaluated in a step once all its inputs have values.
  int add_transform(int input, std::shared_ptr<const transform::Transform> transform, int source_coordinate = -1,
                    int target_coordinate = -1);
  // @id: `stage` over every value of `input`, giving its result at the ends
  // of `period` (null: every step).
  int add_chain(int input, TemporalStage stage, std::unique_ptr<calendar::Schedule> period);
  // An output variable's temporal stage, fed by `input` (-1: by its field's
  // writes, which go to the stage straight from the model's memory), sampled
  // at the instants of `sampling`.
  int add_output(int input, TemporalStage stage, Sampler sampling);

  std::size_t size() const { return nodes_.size(); }
  Node& node(int i) { return nodes_[static_cast<std::size_t>(i)]; }
  const Node& node(int i) const { return nodes_[static_cast<std::size_t>(i)]; }
  bool has_values(int i, std::int64_t step) const { return node(i).step == step; }
  const double* values(int i) const { return node(i).values.data(); }

  // The model's time reached `now` (microseconds): which periods ended.
  void advance(std::int64_t now);
  // Copies a source's values for `step`, values equal to `missing` (compared
  // in T) as NaN. False if the source already has values for this step.
  template <class T>
  bool set_source(int source, std::int64_t step, const T* data, std::size_t n, double missing);
  // Evaluates the transformations, expressions and chains whose inputs have values for
  // `step`, at time `now`; `irregular`: samples weigh the time they stand for.
  // Transformations and expressions are evaluated only when demanded (see
  // Node::demanded): from the outputs' flags back through their inputs.
  void evaluate(std::int64_t step, std::int64_t now, bool irregular);

 private:
  int add(Node node);
  void propagate_demand();
  std::vector<Node> nodes_;
  // (input, map, coordinate inputs) -> its node: fields sharing a chain share its nodes
  std::map<std::tuple<int, const transform::Transform*, int, int>, int> transform_nodes_;
};

}  // namespace foehn::filters
