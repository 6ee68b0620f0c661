// The transport part of the step driver (step_driver.h): sizing the send
// buffers from the definitions, opening one channel per server, sending
// the plan to the servers and collecting their answers.
#include <algorithm>
#include <chrono>
#include <iostream>

#include "client/errors.h"
#include "client/step_driver.h"
#include "transport/liveness.h"
#include "transport/wire.h"

namespace foehn::client {

void StepDriver::size_channels(const std::vector<std::size_t>& bytes_per_server) {
  // optimal_buffer_size = performance (default): a buffer holds everything a
  // server gets in one output step, so a step is one message; memory: it
  // holds the largest single message (one field's part for that server).
  // Either is scaled by buffer_size_factor and kept within
  // [min_buffer_size, max_buffer_size]; a larger field is split, never refused.
  const std::string mode = config::variable_string(def_, "optimal_buffer_size", "performance");
  if (mode != "performance" && mode != "memory")
    fail(FOEHN_ERR_CONFIG,
         "context '" + id_ + "': optimal_buffer_size must be 'performance' or 'memory', not '" + mode + "'");
  std::vector<std::size_t> largest(bytes_per_server.size(), 0);
  for (const OutputVar& out : outputs_)
    for (size_t s = 0; s < out.dest.size() && s < largest.size(); ++s)
      if (out.dest[s].total) {
        // Samples for the servers travel in double.
        const std::size_t elem = out.on_server ? sizeof(double) : out.elem;
        largest[s] =
            std::max(largest[s], sizeof(transport::BufferHeader) + transport::event_bytes(out.dest[s].total * elem));
      }
  const std::int64_t min_size = config::variable_int(def_, "min_buffer_size", 1 << 16);
  const std::int64_t max_size = config::variable_int(def_, "max_buffer_size", 1 << 26);
  const double factor = config::variable_double(def_, "buffer_size_factor", 1.0);
  if (min_size < 1024 || max_size < min_size || factor <= 0)
    fail(FOEHN_ERR_CONFIG,
         "context '" + id_ + "': need 1024 <= min_buffer_size <= max_buffer_size and buffer_size_factor > 0");
  // A buffer leaves in messages of at most message_size bytes, each sent as
  // soon as it is full (bench/README.md: this is what lets the transport
  // keep up with MPI itself, and keeps the server's receive buffer small).
  const std::int64_t message_size = config::variable_int(def_, "message_size", 1 << 20);
  if (message_size < 1024)
    fail(FOEHN_ERR_CONFIG,
         "context '" + id_ + "': message_size must be at least 1024 bytes, not " + std::to_string(message_size));
  // Fragments of at least direct_min_bytes leave as direct payloads, which
  // a server can receive straight into the record (docs/transport.md);
  // 0 turns them off. 512 KiB: smaller ones multiply the messages (two per
  // fragment) for little gain, and the server's time with them.
  const std::int64_t direct_min = config::variable_int(def_, "direct_min_bytes", 1 << 19);
  if (direct_min < 0)
    fail(FOEHN_ERR_CONFIG,
         "context '" + id_ + "': direct_min_bytes must be 0 (off) or positive, not " + std::to_string(direct_min));
  ChannelPlan& plan = channel_plan_;
  plan.capacity.clear();
  for (size_t s = 0; s < bytes_per_server.size(); ++s) {
    const std::size_t base = mode == "memory" ? largest[s] : bytes_per_server[s];
    const auto want =
        static_cast<std::int64_t>(factor * static_cast<double>(base + 16 * sizeof(transport::EventHeader)));
    plan.capacity.push_back(static_cast<std::size_t>(std::clamp(want, min_size, max_size)));
  }
  plan.message_size = static_cast<std::size_t>(message_size);
  plan.direct_min = static_cast<std::size_t>(direct_min);
  plan.progress_thread = config::variable_bool(def_, "progress_thread", false);
  if (plan.progress_thread) plan.progress_interval_us = config::variable_int(def_, "progress_interval_us", 200);
}

void StepDriver::open_channels() {
  const ChannelPlan& plan = channel_plan_;
  channels_.reserve(plan.capacity.size());
  for (size_t s = 0; s < plan.capacity.size(); ++s)
    channels_.emplace_back(world_->comm, world_->server_ranks[s], plan.capacity[s], 2, *counters_,
                           world_->credits.get(), plan.message_size, world_->direct, plan.direct_min);
  // Progress on a thread of its own (the data of large sends moves while
  // the model computes), or inside the API calls only (the default).
  if (plan.progress_thread) {
    if (transport::ProgressThread::available()) {
      progress_ = std::make_unique<transport::ProgressThread>(world_->comm,
                                                              std::chrono::microseconds(plan.progress_interval_us));
      ++counters_->progress_threads;
    } else if (rank_ == 0)
      std::cerr
          << "foehn: warning: context '" << id_
          << "': progress_thread needs MPI_Init_thread with MPI_THREAD_MULTIPLE; progress is made inside the calls\n";
  }
}

void StepDriver::send_plan_and_wait() {
  if (rank_ == 0) {
    const auto bytes = output::encode(plan_);
    // Synchronous sends: each server has received the plan before any
    // client (released by the barrier below) sends it data.
    for (int s : world_->server_ranks) {
      MPI_Ssend(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, s, transport::kTagPlan, world_->comm);
      counters_->bytes_sent += bytes.size();
      ++counters_->messages_sent;
    }
  }
  // The send buffers are mapped while the servers create the files (tens
  // of milliseconds each for the thesis configuration); a failure here is
  // agreed on with the servers' answers, so no rank is left waiting.
  collect_acks("creating the output files", attempt([&] { open_channels(); }));
}

void StepDriver::collect_acks(const char* what, LocalFailure mine) {
  if (rank_ == 0) {
    for (size_t k = 0; k < world_->server_ranks.size(); ++k) {
      MPI_Status st;
      transport::wait_for_message(world_->comm, MPI_ANY_SOURCE, transport::kTagAck, st, world_->server_ranks);
      int bytes = 0;
      MPI_Get_count(&st, MPI_BYTE, &bytes);
      std::vector<char> buf(bytes);
      MPI_Recv(buf.data(), bytes, MPI_BYTE, st.MPI_SOURCE, transport::kTagAck, world_->comm, MPI_STATUS_IGNORE);
      transport::WireReader r(buf.data(), buf.size());
      std::int32_t failed = 0;
      std::string message;
      r.get(failed);
      r.get(message);
      if (failed && !mine.failed)
        mine = {true, FOEHN_ERR_IO, std::string("foehn server failed ") + what + ": " + message};
    }
  }
  agree(comm_, mine);
}

}  // namespace foehn::client
