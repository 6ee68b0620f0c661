#include "report/memory_available.h"

#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace foehn::report {

namespace {

// The first number after `key` in a /proc-style file ("MemAvailable:  123 kB"), -1 if absent.
double number_after(const std::string& path, const std::string& key) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(key, 0) == 0) {
      std::istringstream rest(line.substr(key.size()));
      double value = -1;
      rest >> value;
      return value;
    }
  return -1;
}

// A cgroup v2 file holding one number, or "max" (-1: no limit, or not a cgroup v2 system).
double cgroup_number(const std::string& name) {
  std::ifstream in("/sys/fs/cgroup/" + name);
  std::string word;
  if (!(in >> word) || word == "max") return -1;
  try {
    return std::stod(word);
  } catch (const std::exception&) { return -1; }
}

}  // namespace

MemoryAvailable memory_available() {
  MemoryAvailable a;
  const double kib = number_after("/proc/meminfo", "MemAvailable:");
  if (kib >= 0) {
    a.node_bytes = kib * 1024.0;
    a.node_source = "MemAvailable";
  }
  const double limit = cgroup_number("memory.max"), used = cgroup_number("memory.current");
  if (limit >= 0 && used >= 0 && (a.node_bytes < 0 || limit - used < a.node_bytes)) {
    a.node_bytes = std::max(0.0, limit - used);
    a.node_source = "cgroup memory.max";
  }
  rlimit as{};
  if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) {
    const double vm_kib = number_after("/proc/self/status", "VmSize:");
    a.process_bytes = std::max(0.0, static_cast<double>(as.rlim_cur) - std::max(0.0, vm_kib) * 1024.0);
  }
  return a;
}

std::string gib(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f GiB", bytes / (1024.0 * 1024.0 * 1024.0));
  return text;
}

}  // namespace foehn::report
