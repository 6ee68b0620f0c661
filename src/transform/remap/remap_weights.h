// Remapping weights as a sparse matrix in CSR form (one row per target
// point), and the per-record kernels that apply them: y = W x, optionally
// skipping missing source values (XIOS's detect_missing_value) and
// renormalising by the weights of the valid sources.
//
// Built once at close of definition (computed, or read from a weight file);
// applying walks three arrays once, allocates nothing and makes no call per
// point. Rows are in target order and the terms of a row in a fixed order,
// so results do not depend on how or where the weights were made.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace foehn::transform::remap {

struct RemapWeights {
  std::int64_t n_src = 0, n_dst = 0;
  std::vector<std::int64_t> row_start{0};  // n_dst + 1
  std::vector<std::int32_t> src;           // source point of each term
  std::vector<double> weight;

  std::int64_t terms() const { return static_cast<std::int64_t>(weight.size()); }
  // Bytes of the three arrays: what applying streams besides x and y.
  std::int64_t bytes() const;
};

// One term (target, source, weight) as weight files list them.
struct WeightTriplet {
  std::int64_t dst, src;
  double weight;
};

// CSR from terms in any order: stable by target (terms of one target keep
// their order; repeated (target, source) pairs are summed). Throws
// RemapError if an index is outside [0, n).
RemapWeights weights_from_triplets(std::int64_t n_src, std::int64_t n_dst, std::span<const WeightTriplet> terms);

// y[j] = sum of W[j, i] x[i]; a target without terms gets `fill`.
void apply_weights(const RemapWeights& w, std::span<const double> x, std::span<double> y, double fill);
void apply_weights(const RemapWeights& w, std::span<const float> x, std::span<float> y, float fill);

// The same, source values equal to `missing`, and NaN, skipped: y[j] is the
// sum over valid sources; with renormalize, divided by the sum of their
// weights (the valid overlap). A target whose sources are all missing, or
// that has none, gets `fill`.
void apply_weights_skipping_missing(const RemapWeights& w, std::span<const double> x, std::span<double> y,
                                    double missing, bool renormalize, double fill);
void apply_weights_skipping_missing(const RemapWeights& w, std::span<const float> x, std::span<float> y, double missing,
                                    bool renormalize, float fill);

}  // namespace foehn::transform::remap
