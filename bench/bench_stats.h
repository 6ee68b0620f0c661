// What every benchmark here measures with: the median of repeated timings
// (the machine is noisy), the seconds since a start, and the median time of
// one call, hot (in cache) or cold (after the caches are flushed).
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

inline volatile char flush_sink = 0;

// Streams over a buffer larger than the caches.
inline void flush_caches() {
  static std::vector<char> junk(std::size_t{256} << 20, 1);
  char sum = 0;
  for (std::size_t k = 0; k < junk.size(); k += 64) sum = static_cast<char>(sum + junk[k]++);
  flush_sink = sum;
}

// Median seconds per call of f over `runs` timings: cold, each call after
// a flush; hot, runs of enough calls to last ~20 ms.
template <class F>
double median_seconds(int runs, bool cold, F&& f) {
  int reps = 1;
  if (!cold) {
    f();
    for (;;) {
      const auto t0 = Clock::now();
      for (int r = 0; r < reps; ++r) f();
      if (seconds_since(t0) > 0.02 || reps > (1 << 20)) break;
      reps *= 2;
    }
  }
  std::vector<double> t;
  for (int k = 0; k < runs; ++k) {
    if (cold) flush_caches();
    const auto t0 = Clock::now();
    for (int r = 0; r < reps; ++r) f();
    t.push_back(seconds_since(t0) / reps);
  }
  return median(std::move(t));
}

}  // namespace foehn::bench
