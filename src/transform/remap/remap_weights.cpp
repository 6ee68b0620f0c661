#include "transform/remap/remap_weights.h"

#include <cmath>
#include <limits>
#include <string>

#include "transform/remap/cell_polygons.h"

namespace foehn::transform::remap {

std::int64_t RemapWeights::bytes() const {
  return static_cast<std::int64_t>(row_start.size() * sizeof(std::int64_t) + src.size() * sizeof(std::int32_t) +
                                   weight.size() * sizeof(double));
}

RemapWeights weights_from_triplets(std::int64_t n_src, std::int64_t n_dst, std::span<const WeightTriplet> terms) {
  if (n_src > std::numeric_limits<std::int32_t>::max())
    throw RemapError("remap weights: " + std::to_string(n_src) + " source points exceed the 32-bit index");
  RemapWeights w;
  w.n_src = n_src;
  w.n_dst = n_dst;
  w.row_start.assign(static_cast<std::size_t>(n_dst + 1), 0);
  for (std::size_t k = 0; k < terms.size(); ++k) {
    const WeightTriplet& t = terms[k];
    if (t.dst < 0 || t.dst >= n_dst || t.src < 0 || t.src >= n_src)
      throw RemapError("remap weights: term " + std::to_string(k) + " (target " + std::to_string(t.dst) + ", source " +
                       std::to_string(t.src) + ") is outside " + std::to_string(n_dst) + " targets x " +
                       std::to_string(n_src) + " sources");
    ++w.row_start[static_cast<std::size_t>(t.dst + 1)];
  }
  for (std::int64_t j = 0; j < n_dst; ++j)
    w.row_start[static_cast<std::size_t>(j + 1)] += w.row_start[static_cast<std::size_t>(j)];
  std::vector<std::int64_t> next(w.row_start.begin(), w.row_start.end() - 1);
  w.src.resize(terms.size());
  w.weight.resize(terms.size());
  for (const WeightTriplet& t : terms) {
    const auto at = static_cast<std::size_t>(next[static_cast<std::size_t>(t.dst)]++);
    w.src[at] = static_cast<std::int32_t>(t.src);
    w.weight[at] = t.weight;
  }
  // Sum repeated (target, source) pairs in place, keeping first-seen order.
  std::int64_t out = 0;
  for (std::int64_t j = 0; j < n_dst; ++j) {
    const std::int64_t begin = w.row_start[static_cast<std::size_t>(j)],
                       end = w.row_start[static_cast<std::size_t>(j + 1)];
    const std::int64_t row_out = out;
    for (std::int64_t k = begin; k < end; ++k) {
      std::int64_t m = row_out;
      while (m < out && w.src[static_cast<std::size_t>(m)] != w.src[static_cast<std::size_t>(k)]) ++m;
      if (m < out) {
        w.weight[static_cast<std::size_t>(m)] += w.weight[static_cast<std::size_t>(k)];
      } else {
        w.src[static_cast<std::size_t>(out)] = w.src[static_cast<std::size_t>(k)];
        w.weight[static_cast<std::size_t>(out++)] = w.weight[static_cast<std::size_t>(k)];
      }
    }
    w.row_start[static_cast<std::size_t>(j)] = row_out;
  }
  w.row_start[static_cast<std::size_t>(n_dst)] = out;
  w.src.resize(static_cast<std::size_t>(out));
  w.weight.resize(static_cast<std::size_t>(out));
  return w;
}

namespace {

template <class T>
void apply_kernel(const RemapWeights& w, std::span<const T> x, std::span<T> y, T fill) {
  const std::int64_t* __restrict row = w.row_start.data();
  const std::int32_t* __restrict src = w.src.data();
  const double* __restrict weight = w.weight.data();
  const T* __restrict in = x.data();
  T* __restrict out = y.data();
  for (std::int64_t j = 0; j < w.n_dst; ++j) {
    const std::int64_t begin = row[j], end = row[j + 1];
    double sum = 0;
    for (std::int64_t k = begin; k < end; ++k) sum += weight[k] * static_cast<double>(in[src[k]]);
    out[j] = begin == end ? fill : static_cast<T>(sum);
  }
}

}  // namespace

void apply_weights(const RemapWeights& w, std::span<const double> x, std::span<double> y, double fill) {
  apply_kernel(w, x, y, fill);
}
void apply_weights(const RemapWeights& w, std::span<const float> x, std::span<float> y, float fill) {
  apply_kernel(w, x, y, fill);
}

namespace {

template <class T>
void apply_skipping(const RemapWeights& w, std::span<const T> x, std::span<T> y, double missing, bool renormalize,
                    T fill) {
  for (std::int64_t j = 0; j < w.n_dst; ++j) {
    double sum = 0, valid_weight = 0;
    bool any = false;
    for (std::int64_t k = w.row_start[static_cast<std::size_t>(j)]; k < w.row_start[static_cast<std::size_t>(j + 1)];
         ++k) {
      const auto v = static_cast<double>(x[static_cast<std::size_t>(w.src[static_cast<std::size_t>(k)])]);
      const bool skip = v != v || v == missing;  // NaN is always missing
      const double wk = skip ? 0.0 : w.weight[static_cast<std::size_t>(k)];
      sum += wk * (skip ? 0.0 : v);
      valid_weight += wk;
      any = any || !skip;
    }
    y[static_cast<std::size_t>(j)] = !any ? fill : static_cast<T>(renormalize ? sum / valid_weight : sum);
  }
}

}  // namespace

void apply_weights_skipping_missing(const RemapWeights& w, std::span<const double> x, std::span<double> y,
                                    double missing, bool renormalize, double fill) {
  apply_skipping(w, x, y, missing, renormalize, fill);
}
void apply_weights_skipping_missing(const RemapWeights& w, std::span<const float> x, std::span<float> y, double missing,
                                    bool renormalize, float fill) {
  // A float field's missing value compares as the float it was stored as.
  apply_skipping(w, x, y, static_cast<double>(static_cast<float>(missing)), renormalize, fill);
}

}  // namespace foehn::transform::remap
