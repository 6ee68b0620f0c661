// Where the values of a packed stream live in a buffer: the pack plan of a
// client (stream <- its local data) and the scatter plan of a server
// (stream -> its block) are both a StreamMap.
//
// The k-th point of the stream lives at point position positions[k] of the
// buffer. Fields with more dimensions than their domain repeat the pattern:
// `outer` times (slower dimensions, e.g. levels; the buffer holds
// `buffer_points` points per outer index), each point holding `inner`
// consecutive values (faster dimensions).
//
// Built once (at close of definition): positions that follow each other
// become runs (one memcpy); the others are gathered or scattered through an
// index list. Applying the map to a fragment [offset, offset+count) of the
// stream costs one binary search for the first piece, then a walk: no
// search, no allocation, per step.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "grid/box.h"

namespace foehn::grid {

class StreamMap {
 public:
  StreamMap() = default;
  // Throws std::invalid_argument if a position lies outside [0,
  // buffer_points) or buffer_points exceeds 2^32.
  StreamMap(const std::vector<std::int64_t>& positions, std::int64_t buffer_points, std::int64_t outer = 1,
            std::int64_t inner = 1);

  std::int64_t size() const { return outer_ * points_ * inner_; }  // values in the stream
  std::int64_t points() const { return points_; }
  std::int64_t outer() const { return outer_; }
  std::int64_t values_per_outer() const { return points_ * inner_; }  // e.g. a level's values
  std::size_t run_count() const;                                      // pieces copied by memcpy
  std::size_t gather_points() const { return index_.size(); }         // points moved one by one

  // out[k] = convert(buffer[b(offset + k)]) for k < count: packs a fragment.
  template <class T, class U, class Convert>
  void gather(const T* buffer, std::int64_t offset, std::int64_t count, U* out, Convert convert) const;
  struct Cast {};  // the default conversion: static_cast, memcpy when T is U
  template <class T, class U>
  void gather(const T* buffer, std::int64_t offset, std::int64_t count, U* out) const {
    gather(buffer, offset, count, out, Cast{});
  }
  // buffer[b(offset + k)] = in[k] for k < count: unpacks a fragment.
  template <class T>
  void scatter(const T* in, std::int64_t offset, std::int64_t count, T* buffer) const;
  // Calls f(stream_offset, buffer_offset, length) for the contiguous pieces
  // of a fragment (gathered points are pieces of `inner` values).
  template <class F>
  void for_each_run(std::int64_t offset, std::int64_t count, F&& f) const;
  // Where a fragment's values start in the buffer when they lie there one
  // after the other (one memcpy, or a receive straight into place), else -1.
  // A binary search for the piece, no walk.
  std::int64_t contiguous(std::int64_t offset, std::int64_t count) const;
  // The whole map as runs {from: buffer offset, to: stream offset, length},
  // merged where contiguous on both sides (for plain memcpy walkers).
  std::vector<Run> runs() const;

 private:
  struct Piece {
    std::int64_t first = 0;   // stream point of its first point
    std::int64_t length = 0;  // points
    std::int64_t start = 0;   // run: buffer point of the first point; gather: into index_
    bool gather = false;
  };
  template <class U, class Convert, class T>
  static U apply(const Convert& convert, T x) {
    if constexpr (std::is_same_v<Convert, Cast>)
      return static_cast<U>(x);
    else
      return convert(x);
  }
  // Visits the fragment piece by piece: run(stream, buffer, values) for
  // contiguous values, gather(stream, index, points, buffer_base) for
  // gathered points when inner == 1.
  template <class OnRun, class OnGather>
  void walk(std::int64_t offset, std::int64_t count, OnRun&& run, OnGather&& gather) const;
  // Where stream value `offset` lies: outer index, piece, point within the
  // piece, value within the point (one binary search).
  struct Place {
    std::int64_t outer, point, value;
    std::size_t piece;
  };
  Place locate(std::int64_t offset) const;

  std::vector<Piece> pieces_;
  std::vector<std::uint32_t> index_;  // buffer point of each gathered point
  std::int64_t points_ = 0, buffer_points_ = 0, outer_ = 1, inner_ = 1;
};

template <class OnRun, class OnGather>
void StreamMap::walk(std::int64_t offset, std::int64_t count, OnRun&& run, OnGather&& gather) const {
  if (count <= 0 || points_ == 0) return;
  const Place at = locate(offset);
  std::int64_t o = at.outer, w = at.point, ii = at.value;
  std::size_t k = at.piece;
  std::int64_t done = 0;
  while (done < count) {
    const Piece& p = pieces_[k];
    const std::int64_t base = o * buffer_points_;
    if (!p.gather) {
      const std::int64_t n = std::min(count - done, (p.length - w) * inner_ - ii);
      run(offset + done, (base + p.start + w) * inner_ + ii, n);
      done += n;
      w = p.length;  // the piece is finished or the fragment is
    } else if (inner_ == 1) {
      const std::int64_t n = std::min(count - done, p.length - w);
      gather(offset + done, index_.data() + p.start + w, n, base);
      done += n;
      w += n;
    } else {
      for (; w < p.length && done < count; ++w) {
        const std::int64_t n = std::min(count - done, inner_ - ii);
        run(offset + done, (base + index_[static_cast<std::size_t>(p.start + w)]) * inner_ + ii, n);
        done += n;
        ii += n;
        if (ii < inner_) break;  // the fragment ends inside this point
        ii = 0;
      }
      if (w < p.length) continue;
    }
    ii = 0;
    if (w >= p.length) {
      w = 0;
      if (++k == pieces_.size()) k = 0, ++o;
    }
  }
}

template <class T, class U, class Convert>
void StreamMap::gather(const T* buffer, std::int64_t offset, std::int64_t count, U* out, Convert convert) const {
  walk(
      offset, count,
      [&](std::int64_t s, std::int64_t b, std::int64_t n) {
        U* dst = out + (s - offset);
        const T* src = buffer + b;
        if constexpr (std::is_same_v<Convert, Cast> && std::is_same_v<T, U>)
          std::memcpy(dst, src, static_cast<std::size_t>(n) * sizeof(U));
        else
          for (std::int64_t i = 0; i < n; ++i) dst[i] = apply<U>(convert, src[i]);
      },
      [&](std::int64_t s, const std::uint32_t* index, std::int64_t n, std::int64_t base) {
        U* __restrict dst = out + (s - offset);
        const T* __restrict src = buffer + base;
        std::int64_t i = 0;
        for (; i + 4 <= n; i += 4) {  // four independent loads in flight
          const T a = src[index[i]], b = src[index[i + 1]], c = src[index[i + 2]], d = src[index[i + 3]];
          dst[i] = apply<U>(convert, a), dst[i + 1] = apply<U>(convert, b);
          dst[i + 2] = apply<U>(convert, c), dst[i + 3] = apply<U>(convert, d);
        }
        for (; i < n; ++i) dst[i] = apply<U>(convert, src[index[i]]);
      });
}

template <class T>
void StreamMap::scatter(const T* in, std::int64_t offset, std::int64_t count, T* buffer) const {
  walk(
      offset, count,
      [&](std::int64_t s, std::int64_t b, std::int64_t n) {
        std::memcpy(buffer + b, in + (s - offset), static_cast<std::size_t>(n) * sizeof(T));
      },
      [&](std::int64_t s, const std::uint32_t* index, std::int64_t n, std::int64_t base) {
        const T* __restrict src = in + (s - offset);
        T* __restrict dst = buffer + base;
        for (std::int64_t i = 0; i < n; ++i) dst[index[i]] = src[i];
      });
}

template <class F>
void StreamMap::for_each_run(std::int64_t offset, std::int64_t count, F&& f) const {
  walk(offset, count, f, [&](std::int64_t s, const std::uint32_t* index, std::int64_t n, std::int64_t base) {
    for (std::int64_t i = 0; i < n; ++i) f(s + i, base + index[i], std::int64_t{1});
  });
}

}  // namespace foehn::grid
