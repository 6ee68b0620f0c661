// The pack plan of one field on a client: for each destination (server),
// which values of the local data go into its packed stream, in data order.
//
// Two ways to pack, chosen once when the plan is built:
// - direct: each destination's stream is gathered from the data by its own
//   StreamMap (runs by memcpy, scattered points by index). Best when the
//   destinations' points come in runs, or there are few destinations.
// - staged: once per write, one pass over the data groups the values by
//   destination into a staging buffer (reading the data once, however many
//   destinations); each stream is then a plain copy out of it. Best when
//   the points of many destinations are interleaved (shuffled
//   decompositions), where direct gathers would read the data once per
//   destination.
// bench/pack_plan.cpp measures both against memcpy.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "grid/stream_map.h"

namespace foehn::grid {

class PackPlan {
 public:
  enum class Mode { automatic, direct, staged };
  PackPlan() = default;
  // positions[d]: the data points (0..data_points-1) destination d gets, in
  // data order; outer and inner as for StreamMap.
  PackPlan(const std::vector<std::vector<std::int64_t>>& positions, std::int64_t data_points, std::int64_t outer = 1,
           std::int64_t inner = 1, Mode mode = Mode::automatic);

  std::size_t destinations() const { return maps_.size(); }
  std::int64_t size(std::size_t d) const { return maps_[d].size(); }  // values of d's stream
  const StreamMap& map(std::size_t d) const { return maps_[d]; }      // over the data, or the staging buffer
  bool staged() const { return !stage_to_.empty(); }
  std::int64_t staging_size() const { return staged() ? outer_ * sent_ * inner_ : 0; }  // values

  // Staged plans: call once per write, before packing, with room for
  // staging_size() values.
  template <class T>
  void stage(const T* data, T* staging) const;
  // Values [offset, offset+count) of destination d's stream, converted like
  // StreamMap::gather; `staging` is what stage() filled (unused if direct).
  template <class T, class U, class Convert>
  void pack(std::size_t d, const T* data, const T* staging, std::int64_t offset, std::int64_t count, U* out,
            Convert convert) const {
    maps_[d].gather(staged() ? staging : data, offset, count, out, convert);
  }
  template <class T, class U>
  void pack(std::size_t d, const T* data, const T* staging, std::int64_t offset, std::int64_t count, U* out) const {
    maps_[d].gather(staged() ? staging : data, offset, count, out);
  }

 private:
  std::vector<StreamMap> maps_;
  // Staged: the sent points of a level in data order, as runs of
  // consecutive data points (from, first, length); the k-th sent point goes
  // to staging point stage_to_[k]. Levels are sent_ points apart.
  struct StageRun {
    std::uint32_t from, first, length;
  };
  std::vector<StageRun> stage_runs_;
  std::vector<std::uint32_t> stage_to_;
  std::int64_t data_points_ = 0, sent_ = 0, outer_ = 1, inner_ = 1;
};

template <class T>
void PackPlan::stage(const T* data, T* staging) const {
  const auto inner = static_cast<std::size_t>(inner_);
  for (std::int64_t o = 0; o < outer_; ++o) {
    const T* __restrict src = data + o * data_points_ * inner_;
    T* __restrict dst = staging + o * sent_ * inner_;
    for (const StageRun& r : stage_runs_) {
      const T* __restrict from = src + static_cast<std::size_t>(r.from) * inner;
      const std::uint32_t* __restrict to = stage_to_.data() + r.first;
      if (inner == 1) {
        std::uint32_t k = 0;
        for (; k + 4 <= r.length; k += 4) {  // the data read in order, dropped at their places
          dst[to[k]] = from[k], dst[to[k + 1]] = from[k + 1];
          dst[to[k + 2]] = from[k + 2], dst[to[k + 3]] = from[k + 3];
        }
        for (; k < r.length; ++k) dst[to[k]] = from[k];
      } else {
        for (std::uint32_t k = 0; k < r.length; ++k)
          std::memcpy(dst + to[k] * inner, from + k * inner, inner * sizeof(T));
      }
    }
  }
}

}  // namespace foehn::grid
