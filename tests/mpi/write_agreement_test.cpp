// server::WriteAgreement (how the writers of shared files agree on write
// errors, docs/failures.md) under mpiexec on 2 to 4 ranks: an error on one
// writer at a record's start, one kept until close, errors on two writers
// at once; every rank must learn the lowest failing writer's error in the
// same words; a shared file's broken flag spreads to every writer, an own
// file's does not (combining every flag named a writer's own file damaged
// because another writer failed on its own file).
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>
#include <string>
#include <vector>

#include "server/write_agreement.h"

namespace {

using foehn::server::WriteAgreement;

int rank = 0, ranks = 1;

// Files: 0 and 2 shared by every rank, 1 each rank's own.
WriteAgreement three_files() { return WriteAgreement(MPI_COMM_WORLD, {1, 0, 1}, true); }

// The messages of every rank, gathered on every rank.
std::vector<std::string> everyones(const std::string& mine) {
  const int n = static_cast<int>(mine.size());
  std::vector<int> sizes(ranks), first(ranks, 0);
  MPI_Allgather(&n, 1, MPI_INT, sizes.data(), 1, MPI_INT, MPI_COMM_WORLD);
  for (int r = 1; r < ranks; ++r) first[r] = first[r - 1] + sizes[r - 1];
  std::string all(static_cast<std::size_t>(first.back() + sizes.back()), '\0');
  MPI_Allgatherv(mine.data(), n, MPI_CHAR, all.data(), sizes.data(), first.data(), MPI_CHAR, MPI_COMM_WORLD);
  std::vector<std::string> out;
  for (int r = 0; r < ranks; ++r) out.push_back(all.substr(first[r], sizes[r]));
  return out;
}

void expect_everyone_says(const std::string& mine, const std::string& want) {
  const std::vector<std::string> all = everyones(mine);
  for (int r = 0; r < ranks; ++r) EXPECT_EQ(all[r], want) << "the message of rank " << r << ", seen on rank " << rank;
}

TEST(WriteAgreement, OnOnlyWithSeveralWritersOfASharedFile) {
  EXPECT_TRUE(three_files().on());
  EXPECT_FALSE(WriteAgreement(MPI_COMM_WORLD, {0, 0}, true).on());  // own files only
  EXPECT_FALSE(WriteAgreement(MPI_COMM_WORLD, {1}, false).on());    // a level-1 server
  EXPECT_FALSE(WriteAgreement(MPI_COMM_SELF, {1}, true).on());      // one writer
}

TEST(WriteAgreement, NoErrorAgreesOnNothing) {
  WriteAgreement a = three_files();
  expect_everyone_says(a.agree(), "");
  expect_everyone_says(a.agree(""), "");
}

TEST(WriteAgreement, ErrorOnOneWriterAtARecordStart) {
  const int last = ranks - 1;
  WriteAgreement a = three_files();
  const std::string here = rank == last ? "full.nc: record 3: No space left on device" : "";
  expect_everyone_says(a.agree(here),
                       "writer " + std::to_string(last) + ": full.nc: record 3: No space left on device");
  // Not kept: a start's error wrote no value; nothing is broken.
  EXPECT_TRUE(a.deferred().empty());
  for (int f = 0; f < 3; ++f) EXPECT_FALSE(a.broken(f));
}

TEST(WriteAgreement, ErrorKeptUntilClose) {
  const int last = ranks - 1;
  WriteAgreement a = three_files();
  if (rank == last) a.defer(1, "own_" + std::to_string(rank) + ".nc: put ts: HDF error");
  if (rank == last) a.defer(0, "shared.nc: put ts: second error");  // the first is kept
  EXPECT_EQ(a.dropped(1), rank == last);
  EXPECT_FALSE(a.dropped(0));  // a shared file's collective calls go on
  const std::string want =
      "writer " + std::to_string(last) + ": own_" + std::to_string(last) + ".nc: put ts: HDF error";
  expect_everyone_says(a.agree(), want);
  // Still kept (spread_broken spends it); a lower writer's start error comes first.
  expect_everyone_says(a.agree(rank == 0 ? "a start's error" : ""), "writer 0: a start's error");
}

TEST(WriteAgreement, KeptErrorBeforeTheStartsOwn) {
  WriteAgreement a = three_files();
  if (rank == 0) a.defer(0, "kept");
  expect_everyone_says(a.agree(rank == 0 ? "start" : ""), "writer 0: kept");
}

TEST(WriteAgreement, TwoWritersAtOnceNameTheLowest) {
  const int low = ranks - 2, high = ranks - 1;
  WriteAgreement a = three_files();
  if (rank == high) a.defer(2, "high's write");
  const std::string here = rank == low ? "low's start" : "";
  expect_everyone_says(a.agree(here), "writer " + std::to_string(low) + ": low's start");
}

TEST(WriteAgreement, SharedFlagSpreadsOwnFlagDoesNot) {
  const int last = ranks - 1;
  WriteAgreement a = three_files();
  if (rank == last) {
    a.defer(0, "shared part failed");
    a.defer(1, "own file failed");
  }
  EXPECT_FALSE(a.agree().empty());  // (no ASSERT: every rank must reach the collectives below)
  a.spread_broken();
  EXPECT_TRUE(a.deferred().empty());
  EXPECT_TRUE(a.broken(0)) << "the shared file failed on writer " << last;
  EXPECT_EQ(a.broken(1), rank == last) << "an own file is broken only where it failed";
  EXPECT_FALSE(a.broken(2));
  EXPECT_EQ(a.dropped(1), rank == last);
  EXPECT_FALSE(a.dropped(0));
  // The message after closing: the shared file damaged on every writer,
  // an own file only on the writer whose write failed.
  const std::string own = "own_" + std::to_string(rank) + ".nc";
  const std::string head = "writer " + std::to_string(last) + ": shared part failed";
  const std::string got = a.ended(head, {{0, "shared.nc"}, {1, own}, {2, "other.nc"}}, "");
  if (rank == last)
    EXPECT_EQ(got, head +
                       "; closed, with the records written before: other.nc; closed, its last record incomplete: "
                       "shared.nc, " +
                       own);
  else
    EXPECT_EQ(got, head + "; closed, with the records written before: " + own +
                       ", other.nc; closed, its last record incomplete: shared.nc");
}

TEST(WriteAgreement, OwnFlagAloneSpreadsNowhere) {
  // Only an own file failed, on writer 0: the others' own files and the
  // shared files stay whole on every other writer.
  WriteAgreement a = three_files();
  if (rank == 0) a.defer(1, "own file of writer 0");
  expect_everyone_says(a.agree(), "writer 0: own file of writer 0");
  a.spread_broken();
  EXPECT_EQ(a.broken(1), rank == 0);
  EXPECT_FALSE(a.broken(0));
  EXPECT_FALSE(a.broken(2));
  const std::string got = a.ended("E", {{1, "own.nc"}}, "shared.nc: close: HDF error");
  EXPECT_EQ(got, rank == 0
                     ? "E; closing: shared.nc: close: HDF error; closed, its last record incomplete: own.nc"
                     : "E; closing: shared.nc: close: HDF error; closed, with the records written before: own.nc");
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  ::testing::InitGoogleTest(&argc, argv);
  int failed = RUN_ALL_TESTS() != 0;
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0 && !failed) std::printf("write_agreement_test: OK on %d ranks\n", ranks);
  MPI_Finalize();
  return failed;
}
