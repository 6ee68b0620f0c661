// Index boxes in a grid's global index space, balanced server slabs, and the
// run lists that map one box's local layout onto another's (pack and scatter
// plans). All layouts are C order: the last dimension varies fastest.
#pragma once

#include <cstdint>
#include <vector>

namespace foehn::grid {

// A rectangular block of a global index space: start and count per dimension.
struct Box {
  std::vector<std::int64_t> start, count;
  std::int64_t size() const;
  bool empty() const { return size() == 0; }
  friend bool operator==(const Box&, const Box&) = default;
};

// The part of `global_shape` that server `server` of `nservers` owns: a
// contiguous band along dimension `split_dim`, balanced (band sizes differ by
// at most one), full extent in every other dimension. Servers beyond the
// extent of the split dimension own an empty band.
Box server_slab(const std::vector<std::int64_t>& global_shape, int split_dim, int server, int nservers);

// Intersection of two boxes (empty counts where they do not overlap).
Box intersect(const Box& a, const Box& b);

// One contiguous copy: `length` values from offset `from` in the source
// layout to offset `to` in the destination layout.
struct Run {
  std::int64_t from, to, length;
};

// The runs that copy the intersection of `from_box` and `to_box` from a
// buffer laid out as `from_box` into one laid out as `to_box`, in C order of
// the intersection. Adjacent runs that are contiguous on both sides are
// merged, so whole rows or planes become one copy.
std::vector<Run> make_runs(const Box& from_box, const Box& to_box);

// A packed stream is the intersection of a source and a destination box in
// C order: make_runs(local, region) packs, make_runs(region, slab) unpacks.

}  // namespace foehn::grid
