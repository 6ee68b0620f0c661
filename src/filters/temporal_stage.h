// A temporal operation as one stage of the filter graph: the accumulator of
// temporal.h and what decides which samples it takes and what they weigh.
// The client's outputs, the client's chained operations (@id) and the
// server's records being reduced all use it, so a temporal reduction is
// written once, wherever it runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>

#include "calendar/calendar.h"
#include "filters/temporal.h"

namespace foehn::filters {

// The instants of a period (output_freq, freq_op) and whether the current
// step reached one.
struct Sampler {
  std::unique_ptr<calendar::Schedule> schedule;  // null: every step
  std::int64_t next_k = 1;
  bool due = false;
  // Every instant reached by `now` (microseconds) counts once.
  void advance(std::int64_t now);
};

class TemporalStage {
 public:
  TemporalStage() = default;
  // `size` points accumulated here (0: the stage only decides which samples
  // are taken and their weights; the values are reduced elsewhere, e.g. on
  // the servers). Values equal to `missing` (and NaN) are skipped. `start`
  // (microseconds) is when the first sample's interval begins.
  TemporalStage(TemporalOp op, std::size_t size, double missing = std::numeric_limits<double>::quiet_NaN(),
                std::int64_t start = 0)
      : acc_(op, size), missing_(missing), last_sample_time_(start) {}

  TemporalOp op() const { return acc_.op(); }
  bool reduces() const { return filters::reduces(acc_.op()); }
  double missing() const { return missing_; }
  std::size_t size() const { return acc_.size(); }

  // Whether this step's value is wanted: instant takes it when a record is
  // due, once only for the first record, the reductions at their sampling
  // instants (freq_op).
  bool wants(bool record_due, bool sample_due) const {
    if (op() == TemporalOp::instant) return record_due;
    if (op() == TemporalOp::once) return record_due && !once_done_;
    return sample_due;
  }
  // The value of an instant or once record was taken (once: never again).
  void took_value() { once_done_ = true; }
  // The weight of a sample taken at `now` (microseconds), which becomes the
  // previous sample: regular steps weigh the same (1); irregular ones the
  // time in seconds they stand for, since the previous sample.
  double sample_weight(std::int64_t now, bool irregular) {
    const double w = irregular ? static_cast<double>(now - last_sample_time_) / calendar::kMicrosPerSecond : 1.0;
    last_sample_time_ = now;
    return w;
  }

  // Adds a sample for points [at, at + n) with weight w; true when all n
  // values are finite (Accumulator::add).
  template <class T>
  bool add(std::size_t at, const T* values, std::size_t n, double w) {
    return acc_.add(at, values, n, w, missing_);
  }
  // The result of points [at, at + n) (NaN where no valid sample).
  template <class U>
  void result(std::size_t at, U* out, std::size_t n) const {
    acc_.result(at, out, n);
  }
  // Starts the next period.
  void reset() { acc_.reset(); }

  // Checkpoints (src/restart/): the accumulator and the sampling state.
  Accumulator& accumulator() { return acc_; }
  const Accumulator& accumulator() const { return acc_; }
  std::int64_t last_sample_time() const { return last_sample_time_; }
  bool once_done() const { return once_done_; }
  void restore_sampling(std::int64_t last_sample_time, bool once_done) {
    last_sample_time_ = last_sample_time;
    once_done_ = once_done;
  }

 private:
  Accumulator acc_;
  double missing_ = std::numeric_limits<double>::quiet_NaN();
  std::int64_t last_sample_time_ = 0;
  bool once_done_ = false;
};

}  // namespace foehn::filters
