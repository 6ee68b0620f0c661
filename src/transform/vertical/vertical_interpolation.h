// Vertical interpolation of columns to target levels (XIOS's
// interpolate_axis): Lagrange interpolation of degree `order` (1: linear,
// 2: quadratic) in the source coordinate, which may differ per column and
// per step (3-D pressure sent with the field), with foehn's option of
// interpolating in the logarithm of the coordinate (ln p).
//
// Stencils follow XIOS: the two source levels around the target, then for
// order 2 one more level on the side of the nearer of the two. Columns may
// run in either direction; levels whose coordinate is missing (NaN or the
// missing value) are skipped. Targets outside a column's range get the fill
// value, or with extrapolate the end stencil's polynomial (XIOS's default
// with coordinate fields is extrapolate="true"; the caller decides). A
// level whose data value is missing is skipped too, as XIOS does: such a
// point (rare) is recomputed from the column's valid levels.
//
// Layout: level-major, column fastest (XIOS's [domain, axis] grids): value
// (level l, column c) is at l * columns + c. set_coordinate builds the
// stencils (per step when the coordinate changes, O(columns x (source +
// target levels x log source levels))); apply is one gather per stencil
// point over contiguous columns. Nothing is allocated after construction.
// Per column the stencils cost O(source + target levels) when the column is
// monotonic (as model columns are) and the targets are shared: no sort, one
// walk up the levels, ln only of the levels a stencil uses.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>
#include <vector>

namespace foehn::transform::vertical {

struct VerticalError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct VerticalOptions {
  int order = 1;  // 1 or 2
  bool extrapolate = false;
  bool log_coordinate = false;  // interpolate in ln(coordinate); coordinates <= 0 are missing
  double missing = std::numeric_limits<double>::quiet_NaN();  // NaN always marks missing; this value too
  double fill = std::numeric_limits<double>::quiet_NaN();     // value of targets that cannot be computed
};

class VerticalInterpolator {
 public:
  // Throws VerticalError for an order other than 1 or 2, or no levels.
  VerticalInterpolator(std::int64_t columns, std::int64_t source_levels, std::int64_t target_levels,
                       VerticalOptions options);

  // source: source_levels x columns coordinate values; target: the target
  // levels, either target_levels values shared by all columns or
  // target_levels x columns. Throws VerticalError on wrong sizes. `source`
  // must stay valid until the last apply with these stencils (apply reads
  // it again where a data value is missing); it is not copied.
  void set_coordinate(std::span<const double> source, std::span<const double> target);
  // in: source_levels x columns; out: target_levels x columns. Uses
  // scratch space of the object: one apply at a time per object.
  void apply(std::span<const double> in, std::span<double> out) const;
  void apply(std::span<const float> in, std::span<float> out) const;  // summed in double

  std::int64_t columns() const { return columns_; }

 private:
  bool missing(double v) const;
  bool usable_coordinate(double x) const;
  // Fills the scratch with column c's usable levels (with data: only those
  // whose value is not missing), sorted by coordinate; the coordinate of
  // level l is coordinate_of[l * step].
  template <class T>
  void gather_column(const double* coordinate_of, std::int64_t step, std::int64_t c, const T* data) const;
  // The stencil of target coordinate `raw` in the gathered column: the
  // number of levels (0: none), their indices and Lagrange weights. `walk`
  // (targets in increasing order): where the previous target's search
  // ended, advanced; null: a binary search.
  int stencil(double raw, std::int32_t* level, double* weight, std::int64_t* walk) const;
  // Column c, the b-th of its block: stencils into the block's buffers.
  void build_column(std::int64_t c, std::int64_t b);
  double target_at(std::int64_t t, std::int64_t c) const {
    return shared_targets_ ? shared_target_[static_cast<std::size_t>(t)]
                           : target_[static_cast<std::size_t>(t * columns_ + c)];
  }
  static constexpr std::int64_t kBlock = 64;  // columns whose stencils are built together
  template <class T>
  T interpolate_skipping_missing(std::int64_t c, std::int64_t t, const T* in) const;
  template <class T>
  void apply_values(std::span<const T> in, std::span<T> out) const;
  int points() const { return options_.order + 1; }

  std::int64_t columns_, source_levels_, target_levels_;
  VerticalOptions options_;
  // Per stencil point m and target value (t * columns + c): the source level
  // (-1: no value, the fill) and its weight.
  std::vector<std::int32_t> level_;
  std::vector<double> weight_;
  // The last set_coordinate's source coordinate (the caller's: read again
  // by apply for points with missing data) and targets (per column, or shared).
  const double* source_coordinate_ = nullptr;
  std::vector<double> target_, shared_target_;
  // One block of columns: coordinates column by column, and stencils.
  std::vector<double> block_coordinate_, block_weight_;
  std::vector<std::int32_t> block_level_;
  // Shared targets: their indices by increasing value (each column's search is one walk).
  bool shared_targets_ = false;
  std::vector<std::int64_t> target_order_;
  // Scratch of one column: valid levels sorted by increasing coordinate.
  mutable std::vector<double> sorted_coordinate_;
  mutable std::vector<std::int32_t> sorted_level_;
};

}  // namespace foehn::transform::vertical
