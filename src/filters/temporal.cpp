#include "filters/temporal.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace foehn::filters {

TemporalOp parse_temporal_op(std::string_view name) {
  if (name.empty() || name == "instant") return TemporalOp::instant;
  if (name == "once") return TemporalOp::once;
  if (name == "average") return TemporalOp::average;
  if (name == "accumulate") return TemporalOp::accumulate;
  if (name == "minimum") return TemporalOp::minimum;
  if (name == "maximum") return TemporalOp::maximum;
  throw std::invalid_argument("unknown temporal operation '" + std::string(name) + "'");
}

std::string_view temporal_op_name(TemporalOp op) {
  switch (op) {
    case TemporalOp::instant: return "instant";
    case TemporalOp::once: return "once";
    case TemporalOp::average: return "average";
    case TemporalOp::accumulate: return "accumulate";
    case TemporalOp::minimum: return "minimum";
    case TemporalOp::maximum: return "maximum";
  }
  return "?";
}

std::string_view cf_method(TemporalOp op) {
  switch (op) {
    case TemporalOp::average: return "mean";
    case TemporalOp::accumulate: return "sum";
    case TemporalOp::minimum: return "minimum";
    case TemporalOp::maximum: return "maximum";
    default: return "point";
  }
}

Accumulator::Accumulator(TemporalOp op, std::size_t size) : op_(op), value_(size) { reset(); }

void Accumulator::reset() {
  pending_reset_ = true;  // written by the window's first sample (or write_start_values)
  weight_all_ = 0;
  per_point_ = false;
}

void Accumulator::write_start_values() const {
  double start = 0;
  if (op_ == TemporalOp::minimum) start = std::numeric_limits<double>::infinity();
  if (op_ == TemporalOp::maximum) start = -std::numeric_limits<double>::infinity();
  // instant and once: a point no sample reached is missing.
  if (!reduces(op_)) start = std::numeric_limits<double>::quiet_NaN();
  std::fill(value_.begin(), value_.end(), start);
  pending_reset_ = false;
}

Accumulator::UniformResult Accumulator::uniform_result() const {
  if (per_point_) throw std::logic_error("Accumulator::uniform_result: the window keeps per-point weights");
  if (pending_reset_) return {1.0, false};  // no sample: every point is missing
  if (!reduces(op_)) return {1.0, true};
  return {op_ == TemporalOp::average ? weight_all_ : 1.0, weight_all_ > 0};
}

void Accumulator::start_per_point() {
  weight_.assign(value_.size(), weight_all_);
  per_point_ = true;
}

void Accumulator::restore(const double* values, const double* weights, double weight_all) {
  std::copy(values, values + value_.size(), value_.begin());
  pending_reset_ = false;
  per_point_ = false;
  weight_all_ = weight_all;
  if (!weights) return;
  // The weight the held points share, if they all have the same.
  std::size_t first = 0;
  while (first < value_.size() && std::isnan(weights[first])) ++first;
  weight_all_ = first < value_.size() ? weights[first] : 0.0;
  bool uniform = true;
  for (std::size_t i = first; i < value_.size(); ++i)
    uniform = uniform && (std::isnan(weights[i]) || weights[i] == weight_all_);
  if (uniform) return;
  per_point_ = true;
  weight_.resize(value_.size());
  for (std::size_t i = 0; i < value_.size(); ++i) weight_[i] = std::isnan(weights[i]) ? 0.0 : weights[i];
}

namespace {
// A sample's value counts unless it is NaN or the missing value (compared
// in the sample's own type: 1e20 as a float is not 1e20, and a float
// converts to double exactly).
inline bool valid(double x, double missing) {
  return (x == x) & (x != missing);  // no short circuit: a branch would stop vectorisation
}

// One sample for points [0, n): each valid value updates its point's
// running value (update(v, x)); a skipped one leaves it (instant, once: sets
// it missing); with per-point weights, a valid value adds w_point to its
// point's. Returns how many values were skipped (a sum of ones, exact in
// any order) and, for double input, a sum of x - x, which is 0 unless a
// value was NaN or infinite (the write's report count then needs no pass of
// its own). The
// loop is branch-free and vectorises (omp simd).
// kFirst: the window's first sample; the running values are not read but
// set to what adding to the start values gives (0 + w x, min(+inf, x), ...).
struct Tally {
  double skipped = 0, non_finite = 0;  // non_finite: 0, or NaN when some value was not finite
};

template <TemporalOp kOp, bool kWeights, bool kFirst, class T>
Tally sweep(double* __restrict v, double* __restrict wt, const T* __restrict in, std::size_t n, double w,
            T missing_value, double w_point) {
  const double missing = static_cast<double>(missing_value);
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  // float input: not checked here (bench/accumulate: the extra sum slowed the
  // float32 loop by more than the write's own count pass costs).
  double skipped = 0, non_finite = sizeof(T) == 8 ? 0.0 : nan;
#pragma omp simd reduction(+ : skipped, non_finite)
  for (std::size_t i = 0; i < n; ++i) {
    const double x = static_cast<double>(in[i]);
    const bool ok = valid(x, missing);
    if constexpr (sizeof(T) == 8) non_finite += x - x;  // 0 for a finite x; NaN - NaN and inf - inf are NaN
    if constexpr (kFirst) {
      constexpr double inf = std::numeric_limits<double>::infinity();
      // 0.0 + y, not y: a sum of -0.0 is +0.0, as from the start value.
      if constexpr (kOp == TemporalOp::average) v[i] = ok ? 0.0 + w * x : 0.0;
      if constexpr (kOp == TemporalOp::accumulate) v[i] = ok ? 0.0 + x : 0.0;
      if constexpr (kOp == TemporalOp::minimum) v[i] = ok ? x : inf;  // min(+inf, x) is x
      if constexpr (kOp == TemporalOp::maximum) v[i] = ok ? x : -inf;
    } else {
      if constexpr (kOp == TemporalOp::average) v[i] += ok ? w * x : 0.0;  // a sum from +0: adding 0.0 changes no bit
      if constexpr (kOp == TemporalOp::accumulate) v[i] += ok ? x : 0.0;
      if constexpr (kOp == TemporalOp::minimum) {
        const double lower = x < v[i] ? x : v[i];  // std::min(v, x)
        v[i] = ok ? lower : v[i];
      }
      if constexpr (kOp == TemporalOp::maximum) {
        const double higher = v[i] < x ? x : v[i];  // std::max(v, x)
        v[i] = ok ? higher : v[i];
      }
    }
    if constexpr (!reduces(kOp)) v[i] = ok ? x : nan;
    if constexpr (kWeights) wt[i] += ok ? w_point : 0.0;
    skipped += ok ? 0.0 : 1.0;
  }
  return {skipped, non_finite};
}

// Adds a valid value's weight to its point's (the sample's values are in).
template <class T>
void add_weights(double* __restrict wt, const T* __restrict in, std::size_t n, double w_point, T missing_value) {
  const double missing = static_cast<double>(missing_value);
#pragma omp simd
  for (std::size_t i = 0; i < n; ++i) wt[i] += valid(static_cast<double>(in[i]), missing) ? w_point : 0.0;
}

template <bool kWeights, bool kFirst, class T>
Tally add_sample(TemporalOp op, double* v, double* wt, const T* in, std::size_t n, double w, T missing,
                 double w_point) {
  switch (op) {
    case TemporalOp::instant: return sweep<TemporalOp::instant, kWeights, false>(v, wt, in, n, w, missing, w_point);
    case TemporalOp::once: return sweep<TemporalOp::once, kWeights, false>(v, wt, in, n, w, missing, w_point);
    case TemporalOp::average: return sweep<TemporalOp::average, kWeights, kFirst>(v, wt, in, n, w, missing, w_point);
    case TemporalOp::accumulate:
      return sweep<TemporalOp::accumulate, kWeights, kFirst>(v, wt, in, n, w, missing, w_point);
    case TemporalOp::minimum: return sweep<TemporalOp::minimum, kWeights, kFirst>(v, wt, in, n, w, missing, w_point);
    case TemporalOp::maximum: return sweep<TemporalOp::maximum, kWeights, kFirst>(v, wt, in, n, w, missing, w_point);
  }
  return {};
}
}  // namespace

template <class T>
bool Accumulator::add(std::size_t at, const T* in, std::size_t n, double w, double missing_value) {
  const T missing = static_cast<T>(missing_value);
  const double w_point = op_ == TemporalOp::average ? w : 1.0;  // what a valid value adds to its point's weight
  const bool whole = at == 0 && n == value_.size();
  // instant and once need no weights: a skipped point is NaN in value_.
  if (!reduces(op_)) {
    if (pending_reset_ && !whole) write_start_values();  // the points this sample misses are missing
    pending_reset_ = false;
    return add_sample<false, false>(op_, value_.data() + at, nullptr, in, n, w, missing, w_point).non_finite == 0;
  }
  if (!per_point_ && whole) {
    // Values are added as they come; if some were skipped, the points start
    // their own weights from the weight all had before this sample.
    const Tally tally = pending_reset_
                            ? add_sample<false, true>(op_, value_.data(), nullptr, in, n, w, missing, w_point)
                            : add_sample<false, false>(op_, value_.data(), nullptr, in, n, w, missing, w_point);
    pending_reset_ = false;
    if (tally.skipped == 0) {
      weight_all_ += w_point;
      return tally.non_finite == 0;
    }
    start_per_point();
    add_weights(weight_.data(), in, n, w_point, missing);
    return tally.non_finite == 0;
  }
  if (pending_reset_) write_start_values();
  if (!per_point_) start_per_point();  // a part of the points: from now on, each its own weight
  return add_sample<true, false>(op_, value_.data() + at, weight_.data() + at, in, n, w, missing, w_point).non_finite ==
         0;
}

template <class U>
void Accumulator::result(std::size_t at, U* __restrict out, std::size_t n) const {
  const double* __restrict v = value_.data() + at;
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  if (pending_reset_) {  // no sample since the reset: every point is missing
    std::fill(out, out + n, static_cast<U>(nan));
    return;
  }
  if (!reduces(op_)) {
#pragma omp simd
    for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<U>(v[i]);
    return;
  }
  const bool average = op_ == TemporalOp::average;
  if (!per_point_) {
    const double wt = weight_all_;
    const double scale = average ? wt : 1.0;
#pragma omp simd
    for (std::size_t i = 0; i < n; ++i) {
      const double r = v[i] / scale;  // x / 1 is x
      out[i] = static_cast<U>(wt > 0 ? r : nan);
    }
    return;
  }
  const double* __restrict wt = weight_.data() + at;
#pragma omp simd
  for (std::size_t i = 0; i < n; ++i) {
    const double r = v[i] / (average ? wt[i] : 1.0);
    out[i] = static_cast<U>(wt[i] > 0 ? r : nan);
  }
}

template bool Accumulator::add<float>(std::size_t, const float*, std::size_t, double, double);
template bool Accumulator::add<double>(std::size_t, const double*, std::size_t, double, double);
template void Accumulator::result<float>(std::size_t, float*, std::size_t) const;
template void Accumulator::result<double>(std::size_t, double*, std::size_t) const;

}  // namespace foehn::filters
