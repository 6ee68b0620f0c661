#include "transport/liveness.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>
#include <functional>

namespace foehn::transport {

namespace {

struct Peer {
  pid_t pid = 0;
  bool same_host = false;
  std::string description;
  std::string lost_line;  // prepared in advance: the signal handler cannot format
};

// Never destroyed: the launcher's SIGTERM can arrive while the process
// exits, after static destructors ran, and the handler reads these.
std::vector<Peer>& peers = *new std::vector<Peer>;
std::string& terminated_line = *new std::string;

// True if process `pid` no longer runs (gone, or a zombie not yet reaped).
// Only open/read/close/kill: safe inside a signal handler.
bool gone(pid_t pid) {
  if (kill(pid, 0) != 0) return true;
  char path[64] = "/proc/";
  int n = 6;
  char digits[24];
  int d = 0;
  for (long v = pid; v > 0; v /= 10) digits[d++] = static_cast<char>('0' + v % 10);
  while (d > 0) path[n++] = digits[--d];
  std::memcpy(path + n, "/stat", 6);
  const int fd = open(path, O_RDONLY);
  if (fd < 0) return true;
  char buf[256];
  const ssize_t got = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (got <= 0) return true;
  // The state follows the command name in parentheses: "pid (comm) S ...".
  for (ssize_t i = got - 1; i > 0; --i)
    if (buf[i] == ')') return i + 2 < got && (buf[i + 2] == 'Z' || buf[i + 2] == 'X');
  return false;
}

void on_terminate(int) {
  bool named = false;
  for (const Peer& p : peers)
    if (p.same_host && p.pid > 0 && gone(p.pid)) {
      [[maybe_unused]] auto r = write(STDERR_FILENO, p.lost_line.data(), p.lost_line.size());
      named = true;
    }
  if (!named) { [[maybe_unused]] auto r = write(STDERR_FILENO, terminated_line.data(), terminated_line.size()); }
  _exit(1);
}

}  // namespace

void record_peers(MPI_Comm comm, const std::vector<std::string>& descriptions, const std::string& me) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  struct {
    long pid;
    unsigned long host_hash;
  } mine{static_cast<long>(getpid()), std::hash<std::string>{}(host)};
  std::vector<decltype(mine)> all(size);
  MPI_Allgather(&mine, sizeof mine, MPI_BYTE, all.data(), sizeof mine, MPI_BYTE, comm);
  peers.assign(size, {});
  for (int r = 0; r < size; ++r) {
    Peer& p = peers[r];
    p.pid = static_cast<pid_t>(all[r].pid);
    p.same_host = all[r].host_hash == mine.host_hash && p.pid != getpid();
    p.description = r < static_cast<int>(descriptions.size()) ? descriptions[r] : "world rank " + std::to_string(r);
    p.description += " (pid " + std::to_string(p.pid) + ")";
    p.lost_line = "foehn: " + me + ": lost " + p.description + ": it died; exiting\n";
  }
  terminated_line = "foehn: " + me + ": terminated by the launcher (another rank failed)\n";
}

void check_alive(const std::vector<int>& world_ranks) {
  for (int r : world_ranks) {
    if (r < 0 || r >= static_cast<int>(peers.size())) continue;
    const Peer& p = peers[r];
    if (p.same_host && p.pid > 0 && gone(p.pid)) throw PeerLost("lost " + p.description + ": it died");
  }
}

void wait_for_message(MPI_Comm comm, int source, int tag, MPI_Status& status, const std::vector<int>& watch) {
  int flag = 0;
  double last_check = MPI_Wtime();
  auto nap = std::chrono::microseconds(20);
  for (;;) {
    MPI_Iprobe(source, tag, comm, &flag, &status);
    if (flag) return;
    std::this_thread::sleep_for(nap);
    nap = std::min(nap * 2, std::chrono::microseconds(2000));
    if (MPI_Wtime() - last_check > 1.0) {
      check_alive(watch);
      last_check = MPI_Wtime();
    }
  }
}

void install_termination_report() {
  struct sigaction sa {};
  sa.sa_handler = on_terminate;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, nullptr);
}

}  // namespace foehn::transport
