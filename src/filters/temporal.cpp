#include "filters/temporal.h"

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

Accumulator::Accumulator(TemporalOp op, std::size_t size) : op_(op), value_(size), weight_(size) { reset(); }

void Accumulator::reset() {
  double start = 0;
  if (op_ == TemporalOp::minimum) start = std::numeric_limits<double>::infinity();
  if (op_ == TemporalOp::maximum) start = -std::numeric_limits<double>::infinity();
  std::fill(value_.begin(), value_.end(), start);
  std::fill(weight_.begin(), weight_.end(), 0.0);
}

template <class T>
void Accumulator::add(std::size_t at, const T* in, std::size_t n, double w, double missing_value) {
  // Compared in the samples' own type: 1e20 as a float is not 1e20.
  const double missing = static_cast<double>(static_cast<T>(missing_value));
  double* v = value_.data() + at;
  double* wt = weight_.data() + at;
  // One loop per operation, so the branch is outside the per-point loop.
  switch (op_) {
    case TemporalOp::instant:
    case TemporalOp::once:
      for (std::size_t i = 0; i < n; ++i) {
        const double x = static_cast<double>(in[i]);
        const bool skip = std::isnan(x) || x == missing;
        v[i] = skip ? std::numeric_limits<double>::quiet_NaN() : x;
        wt[i] = skip ? 0.0 : 1.0;
      }
      break;
    case TemporalOp::average:
      for (std::size_t i = 0; i < n; ++i) {
        const double x = static_cast<double>(in[i]);
        if (std::isnan(x) || x == missing) continue;
        v[i] += w * x;
        wt[i] += w;
      }
      break;
    case TemporalOp::accumulate:
      for (std::size_t i = 0; i < n; ++i) {
        const double x = static_cast<double>(in[i]);
        if (std::isnan(x) || x == missing) continue;
        v[i] += x;
        wt[i] += 1;
      }
      break;
    case TemporalOp::minimum:
      for (std::size_t i = 0; i < n; ++i) {
        const double x = static_cast<double>(in[i]);
        if (std::isnan(x) || x == missing) continue;
        v[i] = std::min(v[i], x);
        wt[i] += 1;
      }
      break;
    case TemporalOp::maximum:
      for (std::size_t i = 0; i < n; ++i) {
        const double x = static_cast<double>(in[i]);
        if (std::isnan(x) || x == missing) continue;
        v[i] = std::max(v[i], x);
        wt[i] += 1;
      }
      break;
  }
}

template <class U>
void Accumulator::result(std::size_t at, U* out, std::size_t n) const {
  const double* v = value_.data() + at;
  const double* wt = weight_.data() + at;
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  if (op_ == TemporalOp::average)
    for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<U>(wt[i] > 0 ? v[i] / wt[i] : nan);
  else
    for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<U>(wt[i] > 0 ? v[i] : nan);
}

template void Accumulator::add<float>(std::size_t, const float*, std::size_t, double, double);
template void Accumulator::add<double>(std::size_t, const double*, std::size_t, double, double);
template void Accumulator::result<float>(std::size_t, float*, std::size_t) const;
template void Accumulator::result<double>(std::size_t, double*, std::size_t) const;

}  // namespace foehn::filters
