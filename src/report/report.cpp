#include "report/report.h"

#include <sys/resource.h>

#include <algorithm>
#include <cstdio>

#include <nlohmann/json.hpp>

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
      << line("  %6s %10s %10s %10s %10s %10s %9s %10s\n", "rank", "wall s", "in foehn s", "per-step s", "waiting s",
              "closing s", "wait/wall", "MB sent");
  double worst = 0;
  for (size_t r = 0; r < all.size(); ++r) {
    const auto& c = all[r];
    worst = std::max(worst, ratio(c.wait_seconds, c.wall_seconds));
    out << line("  %6zu %10.3f %10.3f %10.3f %10.3f %10.3f %9.4f %10.2f\n", r, c.wall_seconds, c.inside_seconds,
                c.step_seconds, c.wait_seconds, c.close_seconds, ratio(c.wait_seconds, c.wall_seconds),
                c.bytes_sent / 1e6);
  }
  out << line("  worst client waiting ratio: %.4f\n", worst);
}

void print_servers(std::ostream& out, const std::vector<ServerFigures>& all) {
  out << "foehn report: servers\n"
      << line("  %6s %10s %10s %10s %8s %10s %12s %12s %11s %10s\n", "rank", "wall s", "busy s", "cpu s", "busy",
              "write s", "MB written", "peak mem MB", "buffers MB", "messages");
  for (size_t r = 0; r < all.size(); ++r) {
    const auto& s = all[r];
    out << line("  %6zu %10.3f %10.3f %10.3f %8.4f %10.3f %12.2f %12.2f %11.2f %10.0f\n", r, s.wall_seconds,
                s.busy_seconds, s.cpu_seconds, ratio(s.busy_seconds, s.wall_seconds), s.write_seconds,
                s.bytes_written / 1e6, s.peak_rss_bytes / 1e6, s.peak_buffer_bytes / 1e6, s.messages_received);
  }
}

std::vector<std::string> advice(const RunReport& r) {
  // Ratios of runs shorter than this are set-up noise, not advice.
  constexpr double kShortestAdvised = 1.0;  // seconds
  std::vector<std::string> out;
  double worst = 0, largest = 0, buffer = 0;
  for (const auto& c : r.clients) {
    if (c.wall_seconds >= kShortestAdvised) worst = std::max(worst, ratio(c.wait_seconds, c.wall_seconds));
    largest = std::max(largest, c.largest_message_bytes);
    buffer = std::max(buffer, c.buffer_bytes);
  }
  if (worst > 0.01)
    out.push_back(
        line("clients waited %.1f %% of the time for send buffers: raise buffer_size_factor to 2 "
             "or add servers",
             100 * worst));
  double busiest = 0;
  for (const auto& s : r.servers)
    if (s.wall_seconds >= kShortestAdvised) busiest = std::max(busiest, ratio(s.busy_seconds, s.wall_seconds));
  if (busiest > 0.6)
    out.push_back(
        line("servers were busy %.0f %% of the time (above 60 %%): add servers so that they keep up", 100 * busiest));
  for (size_t k = 0; k < r.servers.size(); ++k) {
    const auto& s = r.servers[k];
    if (s.cpu_seconds > 1.5 * s.busy_seconds + 0.5 && ratio(s.cpu_seconds, s.wall_seconds) > 0.5) {
      out.push_back(
          line("server %zu used %.1f s of CPU for %.1f s of work: another process may be spinning on its core", k,
               s.cpu_seconds, s.busy_seconds));
      break;
    }
  }
  return out;
}

std::string to_json(const RunReport& r) {
  using nlohmann::json;
  json clients = json::array(), servers = json::array();
  for (size_t k = 0; k < r.clients.size(); ++k) {
    const auto& c = r.clients[k];
    clients.push_back({{"rank", k},
                       {"wall_seconds", c.wall_seconds},
                       {"inside_seconds", c.inside_seconds},
                       {"step_seconds", c.step_seconds},
                       {"wait_seconds", c.wait_seconds},
                       {"wait_ratio", ratio(c.wait_seconds, c.wall_seconds)},
                       {"close_seconds", c.close_seconds},
                       {"bytes_sent", c.bytes_sent},
                       {"messages_sent", c.messages_sent},
                       {"waits", c.waits},
                       {"buffer_bytes", c.buffer_bytes},
                       {"smallest_sufficient_buffer_bytes", c.largest_message_bytes},
                       {"credit_wait_seconds", c.credit_wait_seconds},
                       {"credit_waits", c.credit_waits},
                       {"credit_bytes", c.credit_bytes},
                       {"progress_thread", c.progress_threads > 0},
                       {"peak_rss_bytes", c.peak_rss_bytes}});
  }
  for (size_t k = 0; k < r.servers.size(); ++k) {
    const auto& s = r.servers[k];
    servers.push_back({{"rank", k},
                       {"wall_seconds", s.wall_seconds},
                       {"busy_seconds", s.busy_seconds},
                       {"busy_ratio", ratio(s.busy_seconds, s.wall_seconds)},
                       {"cpu_seconds", s.cpu_seconds},
                       {"bytes_received", s.bytes_received},
                       {"bytes_written", s.bytes_written},
                       {"messages_received", s.messages_received},
                       {"peak_rss_bytes", s.peak_rss_bytes},
                       {"peak_buffer_bytes", s.peak_buffer_bytes},
                       {"credit_bytes", s.credit_bytes},
                       {"write_seconds", s.write_seconds},
                       {"direct_bytes", s.direct_bytes},
                       {"staged_bytes", s.staged_bytes},
                       {"forward_bytes", s.forward_bytes},
                       {"forward_cap_bytes", s.forward_cap_bytes},
                       {"forward_wait_seconds", s.forward_wait_seconds}});
  }
  json files = json::array(), non_finite = json::array();
  for (const FileBytes& f : r.details.files)
    files.push_back({{"context", f.context},
                     {"file", f.file},
                     {"raw_bytes", f.raw_bytes},
                     {"disk_bytes", f.disk_bytes},
                     {"compression_ratio", compression_ratio(f)}});
  for (const FieldNonFinite& f : r.details.fields)
    non_finite.push_back(
        {{"context", f.context}, {"field", f.field}, {"nan", f.nan}, {"pos_inf", f.pos_inf}, {"neg_inf", f.neg_inf}});
  json doc = {{"foehn_report_version", 2}, {"code", r.code},     {"mode", r.servers.empty() ? "attached" : "server"},
              {"clients", clients},        {"servers", servers}, {"files", files},
              {"non_finite", non_finite},  {"advice", advice(r)}};
  if (!r.resumed.empty()) doc["resumed"] = r.resumed;
  return doc.dump(2) + "\n";
}

double process_cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

double peak_rss_bytes() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return 1024.0 * static_cast<double>(u.ru_maxrss);  // Linux counts in KiB
}

}  // namespace foehn::report
