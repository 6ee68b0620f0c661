#include "report/report.h"

#include <sys/resource.h>

#include <algorithm>
#include <cstdio>

namespace foehn::report {

namespace {
template <class T>
std::vector<T> gather_doubles(const T& mine, MPI_Comm comm) {
  static_assert(sizeof(T) % sizeof(double) == 0);
  constexpr int n = sizeof(T) / sizeof(double);
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  std::vector<T> all(rank == 0 ? size : 0);
  MPI_Gather(&mine, n, MPI_DOUBLE, all.data(), n, MPI_DOUBLE, 0, comm);
  return all;
}

std::string line(const char* fmt, auto... args) {
  char buf[256];
  std::snprintf(buf, sizeof buf, fmt, args...);
  return buf;
}

double ratio(double a, double b) { return b > 0 ? a / b : 0.0; }
}  // namespace

std::vector<ClientFigures> gather(const ClientFigures& mine, MPI_Comm comm) { return gather_doubles(mine, comm); }
std::vector<ServerFigures> gather(const ServerFigures& mine, MPI_Comm comm) { return gather_doubles(mine, comm); }

void print_clients(std::ostream& out, const std::string& code, const std::vector<ClientFigures>& all) {
  out << "foehn report: clients of '" << code << "'\n"
      << line("  %6s %10s %10s %10s %10s %8s %9s %10s\n", "rank", "wall s", "in foehn s", "waiting s", "closing s",
              "in/wall", "wait/wall", "MB sent");
  double worst = 0;
  for (size_t r = 0; r < all.size(); ++r) {
    const auto& c = all[r];
    worst = std::max(worst, ratio(c.wait_seconds, c.wall_seconds));
    out << line("  %6zu %10.3f %10.3f %10.3f %10.3f %8.4f %9.4f %10.2f\n", r, c.wall_seconds, c.inside_seconds,
                c.wait_seconds, c.close_seconds, ratio(c.inside_seconds, c.wall_seconds),
                ratio(c.wait_seconds, c.wall_seconds), c.bytes_sent / 1e6);
  }
  out << line("  worst client waiting ratio: %.4f%s\n", worst,
              worst > 0.01 ? "  (the model waited for output: add servers or enlarge buffers)" : "");
}

void print_servers(std::ostream& out, const std::vector<ServerFigures>& all) {
  out << "foehn report: servers\n"
      << line("  %6s %10s %10s %10s %8s %12s %10s\n", "rank", "wall s", "busy s", "cpu s", "busy", "MB written",
              "messages");
  for (size_t r = 0; r < all.size(); ++r) {
    const auto& s = all[r];
    out << line("  %6zu %10.3f %10.3f %10.3f %8.4f %12.2f %10.0f\n", r, s.wall_seconds, s.busy_seconds,
                s.cpu_seconds, ratio(s.busy_seconds, s.wall_seconds), s.bytes_written / 1e6, s.messages_received);
  }
}

double process_cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

}  // namespace foehn::report
