#include "transport/progress_thread.h"

namespace foehn::transport {

namespace {
constexpr int kTagNever = 0x7ff;  // probed, never sent
}

bool ProgressThread::available() {
  int level = MPI_THREAD_SINGLE;
  MPI_Query_thread(&level);
  return level == MPI_THREAD_MULTIPLE;
}

ProgressThread::ProgressThread(MPI_Comm comm, std::chrono::microseconds interval)
    : thread_([this, comm, interval] {
        while (!stop_.load(std::memory_order_relaxed)) {
          int flag = 0;
          MPI_Iprobe(MPI_ANY_SOURCE, kTagNever, comm, &flag, MPI_STATUS_IGNORE);
          std::this_thread::sleep_for(interval);
        }
      }) {}

ProgressThread::~ProgressThread() {
  stop_ = true;
  thread_.join();
}

}  // namespace foehn::transport
