// An optional thread that drives MPI progress while the model computes
// (variable progress_thread; needs MPI_THREAD_MULTIPLE). It only probes
// foehn's communicator for a tag nobody sends, which lets the MPI library
// move the data of pending sends; it touches no request or buffer of the
// channels, so it needs no lock. It sleeps between probes, so it never
// spins on a core the model needs.
#pragma once

#include <mpi.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace foehn::transport {

class ProgressThread {
 public:
  // Whether MPI was initialised with MPI_THREAD_MULTIPLE.
  static bool available();
  ProgressThread(MPI_Comm comm, std::chrono::microseconds interval);
  ProgressThread(const ProgressThread&) = delete;
  ProgressThread& operator=(const ProgressThread&) = delete;
  ~ProgressThread();

 private:
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace foehn::transport
