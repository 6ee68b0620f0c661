#include "transform/transform.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace foehn::transform {

Operation parse_operation(const std::string& text) {
  if (text == "sum") return Operation::sum;
  if (text == "min") return Operation::min;
  if (text == "max") return Operation::max;
  if (text == "average") return Operation::average;
  throw std::invalid_argument("unknown operation '" + text + "' (expected sum, min, max or average)");
}

const char* operation_name(Operation op) {
  switch (op) {
    case Operation::gather: return "gather";
    case Operation::sum: return "sum";
    case Operation::min: return "min";
    case Operation::max: return "max";
    case Operation::average: return "average";
    case Operation::remap: return "remap";
    case Operation::columns: return "columns";
    case Operation::split: return "split";
  }
  return "?";
}

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

void gather(const Transform& t, const double* in, double* out) {
  for (std::size_t o = 0; o < t.outer; ++o) {
    const double* src = in + o * t.n_source * t.inner;
    double* dst = out + o * t.n_target * t.inner;
    for (std::size_t k = 0; k < t.n_target; ++k) {
      const std::int64_t p = t.source[static_cast<std::size_t>(t.start[k])];
      double* d = dst + k * t.inner;
      if (p < 0) {
        for (std::size_t i = 0; i < t.inner; ++i) d[i] = kNaN;
        continue;
      }
      const double* s = src + static_cast<std::size_t>(p) * t.inner;
      for (std::size_t i = 0; i < t.inner; ++i) d[i] = s[i];
    }
  }
}

// One target value of a reduction over the positions [b, e) at offset i of
// the inner dimension, in the order listed.
template <Operation op>
double reduce_one(const Transform& t, const double* src, std::int64_t b, std::int64_t e, std::size_t i) {
  double acc = op == Operation::min   ? std::numeric_limits<double>::infinity()
               : op == Operation::max ? -std::numeric_limits<double>::infinity()
                                      : 0.0;
  double weights = 0;
  std::int64_t valid = 0;
  const bool weighted = !t.weight.empty();
  for (std::int64_t k = b; k < e; ++k) {
    const std::int64_t p = t.source[static_cast<std::size_t>(k)];
    if (p < 0) continue;
    const double v = src[static_cast<std::size_t>(p) * t.inner + i];
    if (std::isnan(v)) continue;
    ++valid;
    if constexpr (op == Operation::min) {
      acc = v < acc ? v : acc;
    } else if constexpr (op == Operation::max) {
      acc = v > acc ? v : acc;
    } else {
      const double w = weighted ? t.weight[static_cast<std::size_t>(k)] : 1.0;
      acc += w * v;
      weights += w;
    }
  }
  if (valid == 0) return kNaN;
  if constexpr (op == Operation::average) return acc / weights;
  return acc;
}

// inner > 1: for each target, one pass per position over the inner values
// (contiguous, branch-free selects), each inner value's accumulation in
// the listed order: the same bits as reduce_one.
template <Operation op>
void reduce_rows(const Transform& t, const double* in, std::size_t n_in, double* out) {
  constexpr std::size_t kChunk = 512;  // inner values at a time: the sums stay in L1
  const std::size_t inner = t.inner;
  if (t.scratch.size() != 3 * kChunk) t.scratch.assign(3 * kChunk, 0.0);
  double* acc = t.scratch.data();
  double* weights = acc + kChunk;
  double* valid = weights + kChunk;
  const bool weighted = !t.weight.empty();
  constexpr double start = op == Operation::min   ? std::numeric_limits<double>::infinity()
                           : op == Operation::max ? -std::numeric_limits<double>::infinity()
                                                  : 0.0;
  for (std::size_t o = 0; o < t.outer; ++o) {
    const double* src = in + o * n_in * inner;
    double* dst = out + o * t.n_target * inner;
    for (std::size_t k = 0; k < t.n_target; ++k) {
      for (std::size_t i0 = 0; i0 < inner; i0 += kChunk) {
        const std::size_t n = std::min(kChunk, inner - i0);
        for (std::size_t i = 0; i < n; ++i) acc[i] = start, weights[i] = 0.0, valid[i] = 0.0;
        for (std::int64_t e = t.start[k]; e < t.start[k + 1]; ++e) {
          const std::int64_t p = t.source[static_cast<std::size_t>(e)];
          if (p < 0) continue;
          const double w = weighted ? t.weight[static_cast<std::size_t>(e)] : 1.0;
          const double* v = src + static_cast<std::size_t>(p) * inner + i0;
#pragma omp simd
          for (std::size_t i = 0; i < n; ++i) {
            const bool ok = v[i] == v[i];  // not NaN
            if constexpr (op == Operation::min) {
              acc[i] = ok && v[i] < acc[i] ? v[i] : acc[i];
            } else if constexpr (op == Operation::max) {
              acc[i] = ok && v[i] > acc[i] ? v[i] : acc[i];
            } else {
              acc[i] += ok ? w * v[i] : 0.0;
              weights[i] += ok ? w : 0.0;
            }
            valid[i] += ok ? 1.0 : 0.0;
          }
        }
        double* d = dst + k * inner + i0;
#pragma omp simd
        for (std::size_t i = 0; i < n; ++i) {
          const double r = op == Operation::average ? acc[i] / weights[i] : acc[i];
          d[i] = valid[i] > 0.0 ? r : kNaN;
        }
      }
    }
  }
}

// The local points other ranks need, point after point (outer x inner
// values each), into the send buffer of an exchange.
void pack_for_peers(const Transform& t, const std::vector<std::int64_t>& positions, const double* in, double* sent) {
  const std::size_t block = t.outer * t.inner;
  for (std::size_t e = 0; e < positions.size(); ++e) {
    const auto p = static_cast<std::size_t>(positions[e]);
    double* d = sent + e * block;
    for (std::size_t o = 0; o < t.outer; ++o) {
      const double* src = in + (o * t.n_source + p) * t.inner;
      for (std::size_t i = 0; i < t.inner; ++i) d[o * t.inner + i] = src[i];
    }
  }
}

// Across ranks: the values others send (point after point, outer x inner
// values each) are exchanged, then laid out as outer x n_gathered x inner
// so that the reduction reads them as it reads local data.
const double* gather_values(const Transform& t, const double* in) {
  const GatherStage& g = *t.gather_first;
  const std::size_t block = t.outer * t.inner;
  double* sent = t.sent.data();
  pack_for_peers(t, g.send_positions, in, sent);
  g.exchange->exchange(sent, t.gathered.data(), block);
  const auto n = static_cast<std::size_t>(g.n_gathered);
  for (std::size_t p = 0; p < n; ++p) {
    const double* s = t.gathered.data() + p * block;
    for (std::size_t o = 0; o < t.outer; ++o) {
      double* d = t.staged.data() + (o * n + p) * t.inner;
      for (std::size_t i = 0; i < t.inner; ++i) d[i] = s[o * t.inner + i];
    }
  }
  return t.staged.data();
}

template <Operation op>
void reduce(const Transform& t, const double* in, double* out) {
  std::size_t n_in = t.n_source;
  if (t.gather_first) {
    in = gather_values(t, in);
    n_in = static_cast<std::size_t>(t.gather_first->n_gathered);
  }
  if (t.inner > 1) return reduce_rows<op>(t, in, n_in, out);
  for (std::size_t o = 0; o < t.outer; ++o) {
    const double* src = in + o * n_in * t.inner;
    double* dst = out + o * t.n_target * t.inner;
    for (std::size_t k = 0; k < t.n_target; ++k)
      for (std::size_t i = 0; i < t.inner; ++i)
        dst[k * t.inner + i] = reduce_one<op>(t, src, t.start[k], t.start[k + 1], i);
  }
}

// An interpolation: the local points others need are packed point by point
// (outer x inner values each), exchanged, and each target row sums its
// terms in the order computed, for every value of a point at once.
void remap_apply(const Transform& t, const double* in, double* out) {
  const RemapStage& r = *t.remap;
  const std::size_t block = t.outer * t.inner;
  double* sent = t.sent.data();
  pack_for_peers(t, r.send_positions, in, sent);
  const double* x = sent;
  if (r.exchange) {
    r.exchange->exchange(sent, t.gathered.data(), block);
    x = t.gathered.data();
  }
  double* acc = t.sums.data();
  double* weights = acc + block;
  const remap::RemapWeights& w = r.weights;
  for (std::size_t k = 0; k < t.n_target; ++k) {
    for (std::size_t b = 0; b < block; ++b) acc[b] = 0.0, weights[b] = 0.0;
    const std::int64_t first = w.row_start[k], last = w.row_start[k + 1];
    for (std::int64_t e = first; e < last; ++e) {
      const double c = w.weight[static_cast<std::size_t>(e)];
      const double* v = x + static_cast<std::size_t>(w.src[static_cast<std::size_t>(e)]) * block;
      if (r.skip_missing) {
#pragma omp simd
        for (std::size_t b = 0; b < block; ++b) {
          const bool ok = v[b] == v[b];  // not NaN
          acc[b] += ok ? c * v[b] : 0.0;
          weights[b] += ok ? c : 0.0;
        }
      } else {
#pragma omp simd
        for (std::size_t b = 0; b < block; ++b) acc[b] += c * v[b];
      }
    }
    for (std::size_t o = 0; o < t.outer; ++o) {
      double* d = out + (o * t.n_target + k) * t.inner;
      const double* a = acc + o * t.inner;
      const double* s = weights + o * t.inner;
      for (std::size_t i = 0; i < t.inner; ++i) {
        double v = first == last ? kNaN : a[i];
        if (r.skip_missing) v = s[i] == 0.0 ? kNaN : r.renormalize ? a[i] / s[i] : a[i];
        d[i] = v;
      }
    }
  }
}

}  // namespace

void Transform::prepare() const {
  if (op == Operation::columns) columns->prepare(inner);
  if (gather_first) {
    const std::size_t block = outer * inner, n = static_cast<std::size_t>(gather_first->n_gathered);
    sent.assign(gather_first->send_positions.size() * block, 0.0);
    gathered.assign(n * block, 0.0);
    staged.assign(n * block, 0.0);
  }
  if (op != Operation::remap) return;
  const std::size_t block = outer * inner;
  sent.assign(remap->send_positions.size() * block, 0.0);
  gathered.assign(remap->exchange ? static_cast<std::size_t>(remap->n_gathered) * block : 0, 0.0);
  sums.assign(2 * block, 0.0);
}

void Transform::apply(const double* in, double* out) const { apply(in, nullptr, nullptr, out); }

void Transform::place(const double* in, std::size_t slot, double* out) const {
  for (std::size_t o = 0; o < outer; ++o) {
    const double* from = in + o * inner;
    double* to = out + (o * n_target + slot) * inner;
    for (std::size_t i = 0; i < inner; ++i) to[i] = from[i];
  }
}

void Transform::apply(const double* in, const double* source_coordinate, const double* target_coordinate,
                      double* out) const {
  // Reductions across ranks (the builder prepares them; a map built elsewhere here).
  if (gather_first && staged.size() != outer * inner * static_cast<std::size_t>(gather_first->n_gathered)) prepare();
  switch (op) {
    case Operation::gather: gather(*this, in, out); return;
    case Operation::sum: reduce<Operation::sum>(*this, in, out); return;
    case Operation::min: reduce<Operation::min>(*this, in, out); return;
    case Operation::max: reduce<Operation::max>(*this, in, out); return;
    case Operation::average: reduce<Operation::average>(*this, in, out); return;
    case Operation::remap:
      if (sums.size() != 2 * outer * inner) prepare();  // the builder prepares it; a map built elsewhere here
      remap_apply(*this, in, out);
      return;
    case Operation::split:  // one step's values at slot 0 (the graph places each step at its slot)
      place(in, 0, out);
      return;
    case Operation::columns:
      for (std::size_t o = 0; o < outer; ++o)
        columns->apply(
            in + o * n_source * inner, source_coordinate ? source_coordinate + o * n_source * inner : nullptr,
            target_coordinate ? target_coordinate + o * n_target * inner : nullptr, out + o * n_target * inner);
      return;
  }
}

}  // namespace foehn::transform
