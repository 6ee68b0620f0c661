// What every benchmark here measures with: the median of repeated timings
// (the machine is noisy) and the seconds since a start.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <vector>

namespace foehn::bench {

using Clock = std::chrono::steady_clock;

inline double seconds_since(const Clock::time_point& t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

inline double median(std::vector<double> t) {
  std::nth_element(t.begin(), t.begin() + static_cast<std::ptrdiff_t>(t.size() / 2), t.end());
  return t[t.size() / 2];
}

}  // namespace foehn::bench
