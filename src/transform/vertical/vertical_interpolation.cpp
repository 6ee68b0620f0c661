#include "transform/vertical/vertical_interpolation.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

namespace foehn::transform::vertical {

VerticalInterpolator::VerticalInterpolator(std::int64_t columns, std::int64_t source_levels, std::int64_t target_levels,
                                           VerticalOptions options)
    : columns_(columns), source_levels_(source_levels), target_levels_(target_levels), options_(options) {
  if (options.order != 1 && options.order != 2)
    throw VerticalError("vertical interpolation: order " + std::to_string(options.order) +
                        " is not supported (1 or 2)");
  if (columns < 0 || source_levels < 1 || target_levels < 1)
    throw VerticalError("vertical interpolation: need at least one source and one target level and columns >= 0 (got " +
                        std::to_string(source_levels) + ", " + std::to_string(target_levels) + ", " +
                        std::to_string(columns) + ")");
  const auto n = static_cast<std::size_t>(points() * target_levels * columns);
  level_.assign(n, -1);
  weight_.assign(n, 0.0);
  sorted_coordinate_.reserve(static_cast<std::size_t>(source_levels));
  sorted_level_.reserve(static_cast<std::size_t>(source_levels));
}

void VerticalInterpolator::set_coordinate(std::span<const double> source, std::span<const double> target) {
  const bool shared = static_cast<std::int64_t>(target.size()) == target_levels_;
  if (static_cast<std::int64_t>(source.size()) != source_levels_ * columns_ ||
      (!shared && static_cast<std::int64_t>(target.size()) != target_levels_ * columns_))
    throw VerticalError("vertical interpolation: the source coordinate has " + std::to_string(source.size()) +
                        " values (expected " + std::to_string(source_levels_ * columns_) + ") and the target " +
                        std::to_string(target.size()) + " (expected " + std::to_string(target_levels_) + " or " +
                        std::to_string(target_levels_ * columns_) + ")");
  for (std::int64_t c = 0; c < columns_; ++c) build_column(c, source, target, shared);
}

void VerticalInterpolator::build_column(std::int64_t c, std::span<const double> source, std::span<const double> target,
                                        bool shared) {
  const bool nan_missing = std::isnan(options_.missing);
  auto usable = [&](double x) {
    if (std::isnan(x) || (!nan_missing && x == options_.missing)) return false;
    return !options_.log_coordinate || x > 0;
  };
  auto transformed = [&](double x) { return options_.log_coordinate ? std::log(x) : x; };
  // The column's valid levels, sorted by coordinate (a column given top down
  // or bottom up, with missing levels anywhere).
  sorted_level_.clear();
  for (std::int64_t l = 0; l < source_levels_; ++l)
    if (usable(source[static_cast<std::size_t>(l * columns_ + c)]))
      sorted_level_.push_back(static_cast<std::int32_t>(l));
  std::sort(sorted_level_.begin(), sorted_level_.end(), [&](std::int32_t a, std::int32_t b) {
    return source[static_cast<std::size_t>(a * columns_ + c)] < source[static_cast<std::size_t>(b * columns_ + c)];
  });
  sorted_coordinate_.clear();
  for (std::int32_t l : sorted_level_)
    sorted_coordinate_.push_back(transformed(source[static_cast<std::size_t>(l * columns_ + c)]));
  const auto n = static_cast<std::int64_t>(sorted_level_.size());
  const std::int64_t stride = target_levels_ * columns_;

  for (std::int64_t t = 0; t < target_levels_; ++t) {
    const std::int64_t at = t * columns_ + c;
    for (int m = 0; m < points(); ++m) level_[static_cast<std::size_t>(m * stride + at)] = -1;
    const double raw = target[static_cast<std::size_t>(shared ? t : at)];
    if (!usable(raw) || n == 0) continue;
    const double x = transformed(raw);
    const double lowest = sorted_coordinate_.front(), highest = sorted_coordinate_.back();
    const bool inside = x >= lowest && x <= highest;
    if (!inside && !options_.extrapolate) continue;
    if (n == 1) {
      if (!inside) continue;
      for (int m = 0; m < points(); ++m) {
        level_[static_cast<std::size_t>(m * stride + at)] = sorted_level_[0];
        weight_[static_cast<std::size_t>(m * stride + at)] = m == 0 ? 1 : 0;
      }
      continue;
    }
    // Bracket [lo, lo + 1] (the end segment when outside), then widened by
    // one level at a time on the side of the nearer end, as XIOS does.
    const auto upper = std::upper_bound(sorted_coordinate_.begin(), sorted_coordinate_.end(), x);
    std::int64_t lo = std::clamp<std::int64_t>(upper - sorted_coordinate_.begin() - 1, 0, n - 2);
    std::int64_t hi = lo + 1;
    for (int extra = 1; extra < options_.order && hi - lo + 1 < n; ++extra) {
      const bool down =
          x - sorted_coordinate_[static_cast<std::size_t>(lo)] < sorted_coordinate_[static_cast<std::size_t>(hi)] - x;
      if ((down && lo > 0) || hi == n - 1)
        --lo;
      else
        ++hi;
    }
    // Lagrange weights of the stencil's levels at x.
    for (std::int64_t k = lo; k <= hi; ++k) {
      double w = 1;
      const double xk = sorted_coordinate_[static_cast<std::size_t>(k)];
      for (std::int64_t q = lo; q <= hi; ++q)
        if (q != k)
          w *= (x - sorted_coordinate_[static_cast<std::size_t>(q)]) /
               (xk - sorted_coordinate_[static_cast<std::size_t>(q)]);
      const auto slot = static_cast<std::size_t>((k - lo) * stride + at);
      level_[slot] = sorted_level_[static_cast<std::size_t>(k)];
      weight_[slot] = w;
    }
    // A column too short for the order: the spare slots repeat a level with
    // weight 0, so that apply needs no per-slot test.
    for (std::int64_t m = hi - lo + 1; m < points(); ++m) {
      level_[static_cast<std::size_t>(m * stride + at)] = sorted_level_[static_cast<std::size_t>(lo)];
      weight_[static_cast<std::size_t>(m * stride + at)] = 0;
    }
  }
}

namespace {

// One pass per target level over contiguous columns: the stencil's values
// gathered, weighted and summed, and the fill value where the stencil is
// empty or touches a missing value (NaN, or equal to `missing`).
template <int Points>
void apply_stencils(const std::int32_t* __restrict level, const double* __restrict weight, std::int64_t stride,
                    const double* __restrict src, double* __restrict dst, std::int64_t columns, double missing,
                    double fill) {
  for (std::int64_t c = 0; c < columns; ++c) {
    if (level[c] < 0) {
      dst[c] = fill;
      continue;
    }
    double sum = 0;
    bool bad = false;
    for (int m = 0; m < Points; ++m) {
      const double v = src[level[m * stride + c] * columns + c];
      bad = bad || v != v || v == missing;
      sum += weight[m * stride + c] * v;
    }
    dst[c] = bad ? fill : sum;
  }
}

}  // namespace

void VerticalInterpolator::apply(std::span<const double> in, std::span<double> out) const {
  if (static_cast<std::int64_t>(in.size()) != source_levels_ * columns_ ||
      static_cast<std::int64_t>(out.size()) != target_levels_ * columns_)
    throw VerticalError("vertical interpolation: " + std::to_string(in.size()) + " source and " +
                        std::to_string(out.size()) + " target values; expected " +
                        std::to_string(source_levels_ * columns_) + " and " +
                        std::to_string(target_levels_ * columns_));
  const std::int64_t stride = target_levels_ * columns_;
  for (std::int64_t t = 0; t < target_levels_; ++t) {
    const std::int64_t row = t * columns_;
    if (points() == 2)
      apply_stencils<2>(level_.data() + row, weight_.data() + row, stride, in.data(), out.data() + row, columns_,
                        options_.missing, options_.fill);
    else
      apply_stencils<3>(level_.data() + row, weight_.data() + row, stride, in.data(), out.data() + row, columns_,
                        options_.missing, options_.fill);
  }
}

}  // namespace foehn::transform::vertical
