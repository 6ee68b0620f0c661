#include "server/write_agreement.h"

#include <limits>
#include <utility>

namespace foehn::server {

WriteAgreement::WriteAgreement(MPI_Comm comm, std::vector<char> shared, bool enabled)
    : comm_(comm), shared_(std::move(shared)), broken_(shared_.size(), 0) {
  int writers = 1;
  MPI_Comm_size(comm_, &writers);
  bool any = false;
  for (const char s : shared_) any = any || s != 0;
  on_ = enabled && any && writers > 1;
}

void WriteAgreement::defer(int file, const std::string& error) {
  broken_[static_cast<std::size_t>(file)] = 1;
  if (deferred_.empty()) deferred_ = error;
}

std::string WriteAgreement::agree(const std::string& here) const {
  if (!on_) return deferred_.empty() ? here : deferred_;
  std::string error = deferred_.empty() ? here : deferred_;
  int rank = 0;
  MPI_Comm_rank(comm_, &rank);
  int first = error.empty() ? std::numeric_limits<int>::max() : rank;
  MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, comm_);
  if (first == std::numeric_limits<int>::max()) return {};
  unsigned long long length = error.size();
  MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG_LONG, first, comm_);
  error.resize(length);
  MPI_Bcast(error.data(), static_cast<int>(length), MPI_CHAR, first, comm_);
  return "writer " + std::to_string(first) + ": " + error;
}

void WriteAgreement::spread_broken() {
  deferred_.clear();
  if (!on_) return;
  std::vector<int> flags(broken_.size(), 0);  // own files count 0 everywhere: they do not spread
  for (std::size_t i = 0; i < flags.size(); ++i) flags[i] = shared_[i] ? broken_[i] : 0;
  MPI_Allreduce(MPI_IN_PLACE, flags.data(), static_cast<int>(flags.size()), MPI_INT, MPI_MAX, comm_);
  for (std::size_t i = 0; i < flags.size(); ++i)
    if (shared_[i]) broken_[i] = static_cast<char>(flags[i]);
}

std::string WriteAgreement::ended(const std::string& error, const std::vector<ClosedFile>& closed,
                                  const std::string& close_errors) const {
  std::string kept, damaged;
  for (const ClosedFile& c : closed) {
    std::string& list = broken(c.file) ? damaged : kept;
    list += (list.empty() ? "" : ", ") + c.path;
  }
  std::string message = error;
  if (!close_errors.empty()) message += "; closing: " + close_errors;
  if (!kept.empty()) message += "; closed, with the records written before: " + kept;
  if (!damaged.empty()) message += "; closed, its last record incomplete: " + damaged;
  return message;
}

}  // namespace foehn::server
