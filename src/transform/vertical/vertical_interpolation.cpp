#include "transform/vertical/vertical_interpolation.h"

#include <algorithm>
#include <cmath>
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
  target_.assign(static_cast<std::size_t>(target_levels * columns), 0.0);
  shared_target_.assign(static_cast<std::size_t>(target_levels), 0.0);
  block_coordinate_.assign(static_cast<std::size_t>(kBlock * source_levels), 0.0);
  block_level_.assign(static_cast<std::size_t>(points() * target_levels * kBlock), -1);
  block_weight_.assign(static_cast<std::size_t>(points() * target_levels * kBlock), 0.0);
  sorted_coordinate_.reserve(static_cast<std::size_t>(source_levels));
  target_order_.resize(static_cast<std::size_t>(target_levels));
  sorted_level_.reserve(static_cast<std::size_t>(source_levels));
}

bool VerticalInterpolator::missing(double v) const {
  return std::isnan(v) || (!std::isnan(options_.missing) && v == options_.missing);
}

bool VerticalInterpolator::usable_coordinate(double x) const {
  return !missing(x) && (!options_.log_coordinate || x > 0);
}

void VerticalInterpolator::set_coordinate(std::span<const double> source, std::span<const double> target) {
  const bool shared = static_cast<std::int64_t>(target.size()) == target_levels_;
  if (static_cast<std::int64_t>(source.size()) != source_levels_ * columns_ ||
      (!shared && static_cast<std::int64_t>(target.size()) != target_levels_ * columns_))
    throw VerticalError("vertical interpolation: the source coordinate has " + std::to_string(source.size()) +
                        " values (expected " + std::to_string(source_levels_ * columns_) + ") and the target " +
                        std::to_string(target.size()) + " (expected " + std::to_string(target_levels_) + " or " +
                        std::to_string(target_levels_ * columns_) + ")");
  source_coordinate_ = source.data();
  // Shared targets are visited in increasing order, so that each column's
  // search is one walk up its levels (NaN targets last).
  shared_targets_ = shared;
  if (shared) {
    std::copy(target.begin(), target.end(), shared_target_.begin());
    for (std::int64_t t = 0; t < target_levels_; ++t) target_order_[static_cast<std::size_t>(t)] = t;
    std::sort(target_order_.begin(), target_order_.end(), [&](std::int64_t a, std::int64_t b) {
      const double x = target[static_cast<std::size_t>(a)], y = target[static_cast<std::size_t>(b)];
      return std::isnan(y) ? !std::isnan(x) : x < y;
    });
  } else {
    std::copy(target.begin(), target.end(), target_.begin());
  }
  // Blocks of columns: the block's coordinates transposed (a column's
  // levels contiguous) and its stencils written row by row, so that a
  // column touches no page per level (level-major data is one page per
  // level and column otherwise).
  const std::int64_t stride = target_levels_ * columns_;
  for (std::int64_t c0 = 0; c0 < columns_; c0 += kBlock) {
    const std::int64_t nb = std::min(kBlock, columns_ - c0);
    for (std::int64_t l = 0; l < source_levels_; ++l) {
      const double* row = source.data() + l * columns_ + c0;
      for (std::int64_t b = 0; b < nb; ++b)
        block_coordinate_[static_cast<std::size_t>(b * source_levels_ + l)] = row[b];
    }
    for (std::int64_t b = 0; b < nb; ++b) build_column(c0 + b, b);
    for (std::int64_t r = 0; r < points() * target_levels_; ++r) {  // r = m * target_levels + t
      const auto from = static_cast<std::size_t>(r * kBlock);
      const auto to = static_cast<std::size_t>((r / target_levels_) * stride + (r % target_levels_) * columns_ + c0);
      std::copy_n(block_level_.begin() + static_cast<std::ptrdiff_t>(from), nb,
                  level_.begin() + static_cast<std::ptrdiff_t>(to));
      std::copy_n(block_weight_.begin() + static_cast<std::ptrdiff_t>(from), nb,
                  weight_.begin() + static_cast<std::ptrdiff_t>(to));
    }
  }
}

template <class T>
void VerticalInterpolator::gather_column(const double* coordinate_of, std::int64_t step, std::int64_t c,
                                         const T* data) const {
  // The column's usable levels (and, given data, those with a value),
  // sorted by coordinate: a column given top down or bottom up, with
  // missing levels anywhere.
  const double data_missing = static_cast<double>(static_cast<T>(options_.missing));
  auto missing_data = [&](double v) { return v != v || v == data_missing; };
  if (!data) {
    // Fast path, the common case: every level usable and the column strictly
    // monotonic; one branch-free pass decides it.
    const double mv = options_.missing;
    const bool check_mv = mv == mv, positive = options_.log_coordinate;
    bool usable = true, increasing = true, decreasing = true;
    double previous = coordinate_of[0];
    usable = previous == previous && !(check_mv && previous == mv) && !(positive && !(previous > 0));
    for (std::int64_t l = 1; l < source_levels_; ++l) {
      const double x = coordinate_of[l * step];
      usable = usable && x == x && !(check_mv && x == mv) && !(positive && !(x > 0));
      increasing = increasing && previous < x;
      decreasing = decreasing && previous > x;
      previous = x;
    }
    if (usable && (increasing || decreasing)) {
      const auto n = static_cast<std::size_t>(source_levels_);
      sorted_level_.resize(n);
      sorted_coordinate_.resize(n);
      for (std::size_t k = 0; k < n; ++k) {
        const std::size_t l = increasing ? k : n - 1 - k;
        sorted_level_[k] = static_cast<std::int32_t>(l);
        sorted_coordinate_[k] = coordinate_of[static_cast<std::int64_t>(l) * step];
      }
      return;
    }
  }
  sorted_level_.clear();
  for (std::int64_t l = 0; l < source_levels_; ++l) {
    const auto at = static_cast<std::size_t>(l * columns_ + c);
    if (usable_coordinate(coordinate_of[l * step]) && (!data || !missing_data(static_cast<double>(data[at]))))
      sorted_level_.push_back(static_cast<std::int32_t>(l));
  }
  // Model columns are monotonic: sorting is then a reversal or nothing.
  const auto coordinate = [&](std::int32_t l) { return coordinate_of[l * step]; };
  bool increasing = true, decreasing = true;
  for (std::size_t k = 1; k < sorted_level_.size(); ++k) {
    const double a = coordinate(sorted_level_[k - 1]), b = coordinate(sorted_level_[k]);
    increasing = increasing && a < b;
    decreasing = decreasing && a > b;
  }
  if (decreasing && !increasing)
    std::reverse(sorted_level_.begin(), sorted_level_.end());
  else if (!increasing)
    std::sort(sorted_level_.begin(), sorted_level_.end(),
              [&](std::int32_t a, std::int32_t b) { return coordinate(a) < coordinate(b); });
  // Searched in the raw coordinate (ln is monotonic); ln only of the few
  // levels a stencil uses.
  sorted_coordinate_.clear();
  for (std::int32_t l : sorted_level_) sorted_coordinate_.push_back(coordinate(l));
}

int VerticalInterpolator::stencil(double raw, std::int32_t* level, double* weight, std::int64_t* walk) const {
  const auto n = static_cast<std::int64_t>(sorted_level_.size());
  if (!usable_coordinate(raw) || n == 0) return 0;
  const bool inside = raw >= sorted_coordinate_.front() && raw <= sorted_coordinate_.back();
  if (!inside && !options_.extrapolate) return 0;
  if (n == 1) {
    if (!inside) return 0;
    level[0] = sorted_level_[0], weight[0] = 1;
    return 1;
  }
  const auto coordinate = [&](std::int64_t k) {
    const double v = sorted_coordinate_[static_cast<std::size_t>(k)];
    return options_.log_coordinate ? std::log(v) : v;
  };
  const double x = options_.log_coordinate ? std::log(raw) : raw;
  // Bracket [lo, lo + 1] (the end segment when outside), then widened by
  // one level at a time on the side of the nearer end, as XIOS does.
  // The first level above raw: walked on from the previous (smaller)
  // target's, or searched.
  std::int64_t upper = 0;
  if (walk) {
    upper = *walk;
    while (upper < n && sorted_coordinate_[static_cast<std::size_t>(upper)] <= raw) ++upper;
    *walk = upper;
  } else {
    upper = std::upper_bound(sorted_coordinate_.begin(), sorted_coordinate_.end(), raw) - sorted_coordinate_.begin();
  }
  std::int64_t lo = std::clamp<std::int64_t>(upper - 1, 0, n - 2);
  std::int64_t hi = lo + 1;
  double x_lo = coordinate(lo), x_hi = coordinate(hi);
  double xs[3] = {x_lo, x_hi, 0};  // the stencil's coordinates, lo first
  for (int extra = 1; extra < options_.order && hi - lo + 1 < n; ++extra) {
    const bool down = x - x_lo < x_hi - x;
    if ((down && lo > 0) || hi == n - 1) {
      --lo;
      x_lo = coordinate(lo);
      xs[2] = xs[1], xs[1] = xs[0], xs[0] = x_lo;
    } else {
      ++hi;
      x_hi = coordinate(hi);
      xs[2] = x_hi;
    }
  }
  // Lagrange weights of the stencil's levels at x.
  const int used = static_cast<int>(hi - lo + 1);
  for (int k = 0; k < used; ++k) {
    double w = 1;
    for (int q = 0; q < used; ++q)
      if (q != k) w *= (x - xs[q]) / (xs[k] - xs[q]);
    level[k] = sorted_level_[static_cast<std::size_t>(lo + k)];
    weight[k] = w;
  }
  return used;
}

void VerticalInterpolator::build_column(std::int64_t c, std::int64_t b) {
  gather_column<double>(block_coordinate_.data() + b * source_levels_, 1, c, nullptr);
  std::int64_t walk = 0;
  for (std::int64_t k = 0; k < target_levels_; ++k) {
    const std::int64_t t = shared_targets_ ? target_order_[static_cast<std::size_t>(k)] : k;
    std::int32_t level[3];
    double weight[3];
    const int used = stencil(target_at(t, c), level, weight, shared_targets_ ? &walk : nullptr);
    // Unused slots: no stencil (-1, the fill value), or a column too short
    // for the order (a level repeated with weight 0), so that apply needs
    // no per-slot test.
    for (int m = 0; m < points(); ++m) {
      const auto slot = static_cast<std::size_t>((m * target_levels_ + t) * kBlock + b);
      block_level_[slot] = used == 0 ? -1 : m < used ? level[m] : level[0];
      block_weight_[slot] = m < used ? weight[m] : 0;
    }
  }
}

template <class T>
T VerticalInterpolator::interpolate_skipping_missing(std::int64_t c, std::int64_t t, const T* in) const {
  gather_column(source_coordinate_ + c, columns_, c, in);
  std::int32_t level[3];
  double weight[3];
  const int used = stencil(target_at(t, c), level, weight, nullptr);
  if (used == 0) return static_cast<T>(options_.fill);
  double sum = 0;
  for (int m = 0; m < used; ++m)
    sum += weight[m] * static_cast<double>(in[static_cast<std::size_t>(level[m] * columns_ + c)]);
  return static_cast<T>(sum);
}

namespace {

// One pass per target level over contiguous columns: the stencil's values
// gathered, weighted and summed; the fill value where there is no stencil.
// A stencil touching a missing value (rare: a masked or undefined point)
// is handed to on_missing(column).
template <int Points, class T, class OnMissing>
void apply_stencils(const std::int32_t* __restrict level, const double* __restrict weight, std::int64_t stride,
                    const T* __restrict src, T* __restrict dst, std::int64_t columns, double missing, T fill,
                    OnMissing on_missing) {
  for (std::int64_t c = 0; c < columns; ++c) {
    if (level[c] < 0) {
      dst[c] = fill;
      continue;
    }
    double sum = 0;
    bool bad = false;
    for (int m = 0; m < Points; ++m) {
      const auto v = static_cast<double>(src[level[m * stride + c] * columns + c]);
      bad = bad || v != v || v == missing;
      sum += weight[m * stride + c] * v;
    }
    dst[c] = static_cast<T>(sum);
    if (bad) dst[c] = on_missing(c);
  }
}

}  // namespace

template <class T>
void VerticalInterpolator::apply_values(std::span<const T> in, std::span<T> out) const {
  if (static_cast<std::int64_t>(in.size()) != source_levels_ * columns_ ||
      static_cast<std::int64_t>(out.size()) != target_levels_ * columns_)
    throw VerticalError("vertical interpolation: " + std::to_string(in.size()) + " source and " +
                        std::to_string(out.size()) + " target values; expected " +
                        std::to_string(source_levels_ * columns_) + " and " +
                        std::to_string(target_levels_ * columns_));
  const std::int64_t stride = target_levels_ * columns_;
  // A float field's missing value compares as the float it was stored as.
  const double missing = static_cast<double>(static_cast<T>(options_.missing));
  const auto fill = static_cast<T>(options_.fill);
  for (std::int64_t t = 0; t < target_levels_; ++t) {
    const std::int64_t row = t * columns_;
    auto on_missing = [&](std::int64_t c) { return interpolate_skipping_missing(c, t, in.data()); };
    if (points() == 2)
      apply_stencils<2>(level_.data() + row, weight_.data() + row, stride, in.data(), out.data() + row, columns_,
                        missing, fill, on_missing);
    else
      apply_stencils<3>(level_.data() + row, weight_.data() + row, stride, in.data(), out.data() + row, columns_,
                        missing, fill, on_missing);
  }
}

void VerticalInterpolator::apply(std::span<const double> in, std::span<double> out) const { apply_values(in, out); }
void VerticalInterpolator::apply(std::span<const float> in, std::span<float> out) const { apply_values(in, out); }

}  // namespace foehn::transform::vertical
