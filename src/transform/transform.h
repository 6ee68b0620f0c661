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
// model's ranks split the points. An interpolation plugs in as one more
// `Operation` over the same arrays (weighted sums of its positions).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace foehn::transform {

enum class Operation { gather, sum, min, max, average };

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

  std::size_t input_size() const { return outer * n_source * inner; }
  std::size_t output_size() const { return outer * n_target * inner; }
  // out[o][t][i] from in[o][source positions of t][i]. NaN inputs are
  // missing: reductions skip them; a target without a valid input is NaN.
  // No allocation; one loop per target and operation.
  void apply(const double* in, double* out) const;

  // Reductions with inner > 1 keep one sum, weight and count per inner
  // value while they walk a target's positions, so that the loop over the
  // inner values vectorises (each value's sum still in the listed order).
  // Sized at the first apply, then reused.
  mutable std::vector<double> scratch;
};

}  // namespace foehn::transform
