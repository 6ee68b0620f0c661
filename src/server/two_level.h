// Two-level servers: the last `level2_ranks` server ranks (level 2) write
// the files, in `level2_pools` pools; the others (level 1) receive from
// the clients, assemble and reduce, and forward each record's block to the
// pool that writes its file. A file is written by one pool only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "grid/box.h"
#include "output/output_plan.h"

namespace foehn::server {

// The pool of each file, balanced by the bytes one record of all the file's
// variables holds: largest file first, to the pool with the fewest bytes
// (ties: lowest index). The same on every rank.
std::vector<int> assign_files_to_pools(const output::ContextPlan& plan, int pools);

// The first level-2 index (0-based among level 2) of each pool, and the end:
// pools of level2_ranks / pools ranks, the first ones one more.
std::vector<int> pool_starts(int level2_ranks, int pools);

// A block message (kTagBlock): this header, `ndims` starts then counts
// (int64), then the values in C order of the box.
struct BlockHeader {
  std::uint32_t context = 0;
  std::int32_t var = 0;
  std::int64_t record = 0;
  std::int32_t ndims = 0, elem = 0;
};
std::vector<std::byte> encode_block(const BlockHeader& h, const grid::Box& box, const grid::Box& from,
                                    const std::byte* data);
// Checks the sizes; throws std::runtime_error on a malformed message.
// Returns the values (pointing into `msg`).
const std::byte* decode_block(const std::byte* msg, std::size_t size, BlockHeader& h, grid::Box& box);

// kTagLevel2 notes from level 1: a file's record (sent by the first
// level-1 rank, in the order the records are written), a checkpoint's sync
// in that same order (level 2 syncs its files once the records before it
// are written, and answers the client), or a level-1 rank done with a
// context (all its blocks sent before it).
struct Level2Note {
  enum Kind : std::uint32_t { announce = 1, done = 2, sync = 3 } kind = announce;
  std::uint32_t context = 0;
  std::int32_t file = 0, pad = 0;
  std::int64_t record = 0;
  double time = 0, time_start = 0;
};

}  // namespace foehn::server
