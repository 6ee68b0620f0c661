// How much memory this process may still take: the node's (MemAvailable,
// or the cgroup's room if smaller) and the process's own address-space
// limit (ulimit -v). Close of definition, on the model ranks and on the
// servers, compares its estimate with these before allocating, so that a
// definition that cannot fit is refused with both figures.
#pragma once

#include <string>

namespace foehn::report {

struct MemoryAvailable {
  double node_bytes = -1;     // -1: unknown
  std::string node_source;    // "MemAvailable" or "cgroup memory.max"
  double process_bytes = -1;  // room under RLIMIT_AS; -1: no limit
};
MemoryAvailable memory_available();

// "12.3 GiB", for messages.
std::string gib(double bytes);

}  // namespace foehn::report
