// Temporal operations over a stream of samples, per point: the kernel that
// both the client (local layout) and the server (its block) use, so that a
// result never depends on where it was computed.
//
// Values are accumulated in double, one sample after another in time
// order, per point; NaN marks a missing value, which the operations skip
// (per-point counts). A point with no valid sample gives NaN, written as the
// fill value.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace foehn::filters {

enum class TemporalOp : std::int32_t { instant = 0, once, average, accumulate, minimum, maximum };

// "instant" (or empty: the default), "once", "average", "accumulate",
// "minimum", "maximum"; throws std::invalid_argument otherwise.
TemporalOp parse_temporal_op(std::string_view name);
std::string_view temporal_op_name(TemporalOp op);
// True for the operations that reduce several samples into one.
constexpr bool reduces(TemporalOp op) { return op != TemporalOp::instant && op != TemporalOp::once; }
// The CF cell_methods method: point, mean, sum, minimum, maximum.
std::string_view cf_method(TemporalOp op);

// Memory and speed: a window in which every sample covered every point and
// none was missing keeps one double per point and a single weight for all
// of them, and adds a sample in one branch-free loop that vectorises. The
// per-point weights appear only when a sample skips a point (missing
// value, NaN) or covers part of the points (the server adds fragments),
// starting from the weight every point had so far, so the result is the
// same, bit for bit, either way. They keep their memory across windows.
//
// A reset writes nothing: the window's first sample covering every point
// sets the running values (as adding it to the start value would, bit for
// bit), so a period's end is one pass (result or pack) and the first
// sample reads no running values. A first sample covering part of the
// points (the server's fragments) writes the start values first.
class Accumulator {
 public:
  Accumulator() = default;
  Accumulator(TemporalOp op, std::size_t size);

  void reset();
  // Adds one sample for points [at, at + n) with weight w (1 for regular
  // steps; the time the sample represents for irregular ones). Values equal
  // to `missing` (and NaN) are skipped. Returns true when every one of the n
  // values is finite (no NaN, no infinity), checked in the same pass; float
  // values are not checked (false).
  template <class T>
  bool add(std::size_t at, const T* values, std::size_t n, double w,
           double missing = std::numeric_limits<double>::quiet_NaN());
  // The result for points [at, at + n), converted to U (NaN where no
  // valid sample).
  template <class U>
  void result(std::size_t at, U* out, std::size_t n) const;
  std::size_t size() const { return value_.size(); }
  TemporalOp op() const { return op_; }
  // Whether this window keeps a weight per point (for tests and memory figures).
  bool per_point_weights() const { return per_point_; }

  // The result of point i from its running value alone, while one weight
  // serves every point (!per_point_weights()): result(i) is
  // static_cast<U>(uniform_result()(values()[i])), bit for bit, so a period's
  // end can convert the running values straight into a send buffer.
  struct UniformResult {
    double scale = 1;   // the mean divides by the weight all points have
    bool valid = true;  // false: no valid sample reached any point (NaN)
    double operator()(double v) const { return valid ? v / scale : std::numeric_limits<double>::quiet_NaN(); }
  };
  UniformResult uniform_result() const;

  // Checkpoints (src/restart/): the running values, and the summed weight
  // of point i's valid samples.
  const double* values() const {
    if (pending_reset_) write_start_values();
    return value_.data();
  }
  double weight_of(std::size_t i) const { return per_point_ ? weight_[i] : weight_all_; }
  double weight_all() const { return weight_all_; }
  // Continues a window from a checkpoint: size() values and, when not null,
  // size() weights (NaN: a point no checkpoint holds, never written), else
  // weight_all for every point. Equal weights give one weight for all, as
  // add() would have kept them: the results are the same bits either way.
  void restore(const double* values, const double* weights, double weight_all);

 private:
  void start_per_point();           // every point's weight is weight_all_
  void write_start_values() const;  // what reset() defers

  TemporalOp op_ = TemporalOp::instant;
  // running sum, min or max (instant, once: the last value, NaN if missing);
  // mutable: the deferred reset may be written when they are read
  mutable std::vector<double> value_;
  mutable bool pending_reset_ = false;  // value_ is stale: the window has no sample yet
  std::vector<double> weight_;          // per point: summed weights of the valid samples (when per_point_)
  double weight_all_ = 0;               // otherwise: the weight every point has
  bool per_point_ = false;
};

}  // namespace foehn::filters
