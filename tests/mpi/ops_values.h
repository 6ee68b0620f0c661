// The values the post-processing test model sends; tests/python/ops_reference.py
// computes the same independently.
#pragma once

#include <cmath>

namespace ops {

// Multiples of 1/8 in [-60, 65): exact in float, and sums of them exact in double.
inline float a_value(long step, long i, long j, long k) {
  return static_cast<float>(((step * 7919 + i * 104729 + j * 1299709 + k * 15485863) % 1000) / 8.0 - 60.0);
}
// Not exactly representable: sums depend on their order.
inline double b_value(long step, long i, long j) { return 100.0 * std::sin(0.1 * step + 0.37 * i + 0.11 * j); }
// -999 marks a missing value at some points and steps.
inline double m_value(long step, long i, long j) {
  return (step + i + 2 * j) % 4 == 0 ? -999.0 : static_cast<double>(step * 3 + i - j);
}

// Irregular model times (seconds since start) for the dynamic-step mode:
// the step lengths cycle through 1800, 3600, 5400, 1800, 900, 8100 s.
inline double dynamic_time(long step) {
  static const double dt[6] = {1800, 3600, 5400, 1800, 900, 8100};
  double t = 0;
  for (long s = 0; s < step; ++s) t += dt[s % 6];
  return t;
}

}  // namespace ops
