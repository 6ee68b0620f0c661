// One spatial transformation of a field's local values, computed once at
// close of definition and applied every step: a sparse map from the local
// values of one grid component (the source) to the local values of its
// replacement (the target), the other components passing through.
//
// Target point t takes the source values at positions
// source[start[t] .. start[t+1]) (a position is an index into the
// component's local data; -1: none) with weights weight[...] (empty: 1).
// A gather (extract, zoom, inverse) has one position per target; a
// reduction combines its positions in the order listed, which the builder
// makes increasing global index, so the result does not depend on how the
// model's ranks split the points. An interpolation (`remap`) is a weighted
// sum over values that may live on other model ranks: `RemapStage` says
// which local values each rank sends, and the weights' source indices are
// positions among the values received.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "transform/remap/remap_weights.h"

namespace foehn::transform {

// split: XIOS's temporal_splitting, a scalar's successive values spread
// along an axis of n_target values; the state (which slot is next) lives in
// the filter graph's node, which calls `place` (src/filters/graph.h).
enum class Operation { gather, sum, min, max, average, remap, columns, split };

// Moves the values an interpolation needs between the model's ranks, once
// per step (MPI: src/transform/interp/). `send` holds, peer after peer, the
// points each peer needs of this rank; `recv` gets, peer after peer, the
// points this rank needs; `block` values per point.
class HaloExchange {
 public:
  virtual ~HaloExchange() = default;
  virtual void exchange(const double* send, double* recv, std::size_t block) const = 0;
};

// An operation on whole columns of the transformed axis (interpolate_axis:
// src/transform/interp/interpolate_axis.h): in is n_source levels x
// `columns` values (the components before the axis), out n_target levels.
// With coordinate fields, source_coordinate has in's layout and
// target_coordinate out's, both of the same step (null: not used).
class ColumnOperator {
 public:
  virtual ~ColumnOperator() = default;
  virtual void prepare(std::size_t columns) = 0;  // once, at close of definition
  virtual void apply(const double* in, const double* source_coordinate, const double* target_coordinate,
                     double* out) const = 0;
};

// An interpolation's part of a Transform, built once at close of
// definition (src/transform/interp/interpolate_domain.h).
struct RemapStage {
  // Rows: this rank's target points in order; src: positions among the
  // gathered (received) points, each row's terms in the order computed.
  remap::RemapWeights weights;
  std::vector<std::int64_t> send_positions;  // local data positions, peer after peer
  std::int64_t n_gathered = 0;               // points received (the weights' n_src)
  bool skip_missing = false;                 // detect_missing_value: NaN sources skipped
  bool renormalize = false;                  // with skip_missing: divided by the valid weights
  std::shared_ptr<const HaloExchange> exchange;  // null: one rank, the points sent are the points gathered
};

// A reduction whose targets' source points are split between model ranks:
// each rank sends the points another rank's targets need, once per step,
// to that rank (src/transform/interp/reduce_across_ranks.h), which then
// reduces over the points gathered (its own included), in increasing
// global index as always. Built once at close of definition.
struct GatherStage {
  std::vector<std::int64_t> send_positions;  // local data positions, peer after peer
  std::int64_t n_gathered = 0;               // values received: the reduction's positions index them
  std::shared_ptr<const HaloExchange> exchange;
};

// "sum", "min", "max", "average" (XIOS's operation attribute); throws
// std::invalid_argument for anything else.
Operation parse_operation(const std::string& text);
const char* operation_name(Operation op);

struct Transform {
  Operation op = Operation::gather;
  // The field's local values are outer x n_source x inner (C order): the
  // components slower than the transformed one, it, and the faster ones.
  std::size_t outer = 1, inner = 1, n_source = 0, n_target = 0;
  std::vector<std::int64_t> start;   // n_target + 1 offsets into source
  std::vector<std::int64_t> source;  // positions in the component's local data (-1: none)
  std::vector<double> weight;        // one per entry of source, or empty (all 1)
  std::shared_ptr<const RemapStage> remap;  // op == remap: the weights and the exchange
  // Reductions across ranks: source positions index the gathered values
  // (null: this rank's own data).
  std::shared_ptr<const GatherStage> gather_first;
  std::shared_ptr<ColumnOperator> columns;  // op == columns: one per Transform (prepared for its inner)
  // op == columns: the model fields giving the coordinate per point of each
  // step (interpolate_axis coordinate/coordinate_src: on the step's source
  // layout; coordinate_dst: on its target layout); empty: the axes' values.
  std::string coordinate_source, coordinate_target;

  std::size_t input_size() const { return outer * n_source * inner; }
  std::size_t output_size() const { return outer * n_target * inner; }
  // out[o][t][i] from in[o][source positions of t][i]. NaN inputs are
  // missing: reductions skip them; a target without a valid input is NaN.
  // No allocation; one loop per target and operation.
  void apply(const double* in, double* out) const;
  // With the coordinate fields' values of the same step (input_size and
  // output_size values; null where the step has none).
  void apply(const double* in, const double* source_coordinate, const double* target_coordinate, double* out) const;
  // op == split: in (outer x inner values, a scalar's) goes to slot `slot`
  // of out (outer x n_target x inner).
  void place(const double* in, std::size_t slot, double* out) const;
  bool needs_coordinates() const { return !coordinate_source.empty() || !coordinate_target.empty(); }

  // Reductions with inner > 1 keep one sum, weight and count per inner
  // value while they walk a target's positions, so that the loop over the
  // inner values vectorises (each value's sum still in the listed order).
  // Sized at the first apply, then reused.
  mutable std::vector<double> scratch;
  // remap: the points sent and gathered (outer x inner values each) and one
  // sum and weight per value of a point; sized by prepare().
  mutable std::vector<double> sent, gathered, sums;
  // gather_first: the gathered values as outer x n_gathered x inner.
  mutable std::vector<double> staged;
  // Sizes the buffers for outer and inner (call after setting them).
  void prepare() const;
};

}  // namespace foehn::transform
