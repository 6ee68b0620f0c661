// How the writers of shared files (one_file, or a format whose parts hold
// whole fields) agree on write errors, for OutputEngine. A writer whose
// write fails cannot stop alone: the others would wait for it in the shared
// files' next collective call. So a failure is kept here (defer) while the
// writer goes on taking part in the collective calls, and at the next
// agreement point (a record's start, or close) every writer learns the
// first failing writer's error, in the same words. Then only the shared
// files' flags are combined: a writer's own file is damaged only where its
// own write failed. No HDF5 here, so that the decisions can be unit tested
// (tests/mpi/write_agreement_test.cpp).
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

namespace foehn::server {

class WriteAgreement {
 public:
  WriteAgreement() = default;
  // shared[f]: file f is written by every rank of `comm` together. The
  // agreement is on when `comm` has several ranks, a file is shared and
  // `enabled` (a level-1 server writes no file); when off, errors are
  // thrown at once by the caller and nothing here is collective.
  WriteAgreement(MPI_Comm comm, std::vector<char> shared, bool enabled);

  bool on() const { return on_; }
  bool shared(int file) const { return shared_[static_cast<std::size_t>(file)] != 0; }
  // A write of the file failed here (or, after spread_broken, of a shared
  // file on any writer).
  bool broken(int file) const { return broken_[static_cast<std::size_t>(file)] != 0; }
  // The writer's own file failed here: its later writes are dropped (a
  // shared file's collective calls go on until all agree).
  bool dropped(int file) const { return broken(file) && !shared(file); }

  // A failed write of `file` here: kept until the next agreement point
  // (the first error only).
  void defer(int file, const std::string& error);
  const std::string& deferred() const { return deferred_; }

  // Collective over comm, at a record's start (`here`: that start's own
  // error, or empty) and at close (empty): the error of the lowest writer
  // that failed, a kept error before its start's, as "writer N: ...", the
  // same on every writer; empty when none failed.
  std::string agree(const std::string& here = {}) const;

  // Collective over comm, after an agreed error: a shared file broken on
  // any writer is broken on all; an own file keeps this writer's flag.
  // The kept error is then spent.
  void spread_broken();

  struct ClosedFile {
    int file;
    std::string path;
  };
  // The message that ends the writing: the error, then the files closed
  // with their records before it, those whose last record is incomplete
  // (broken), and the errors of closing.
  std::string ended(const std::string& error, const std::vector<ClosedFile>& closed,
                    const std::string& close_errors) const;

 private:
  MPI_Comm comm_ = MPI_COMM_SELF;
  bool on_ = false;
  std::vector<char> shared_;  // by file
  std::vector<char> broken_;  // by file
  std::string deferred_;      // the first failure here, not yet agreed
};

}  // namespace foehn::server
