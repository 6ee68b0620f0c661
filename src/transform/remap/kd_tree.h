// A static 3-D kd-tree over unit vectors (cell centres), built once at close
// of definition: the nearest point to a query, and every point within a
// chord distance. Used for nearest-neighbour weights and to find the source
// cells a target cell may overlap. Debian's nanoflann would do; this tree is
// ~100 lines with no dependency and the two queries we need.
#pragma once

#include <cstdint>
#include <vector>

#include "transform/remap/sphere_geometry.h"

namespace foehn::transform::remap {

class KdTree {
 public:
  explicit KdTree(std::vector<Vec3> points);

  std::int64_t size() const { return static_cast<std::int64_t>(points_.size()); }
  // Index of the point nearest to q (ties: the lowest index); -1 if empty.
  std::int64_t nearest(Vec3 q) const;
  // Appends to `out` the index of every point whose distance to q is at most
  // `radius` (a chord length), in increasing index order.
  void within(Vec3 q, double radius, std::vector<std::int64_t>& out) const;

 private:
  struct Node {
    std::int64_t begin, end;  // range of order_
    int axis;                 // split axis, -1: leaf
    double split;
  };
  void build(std::int64_t node, std::int64_t begin, std::int64_t end);
  void nearest_in(std::int64_t node, Vec3 q, std::int64_t& best, double& best_d2) const;
  void within_in(std::int64_t node, Vec3 q, double r2, std::vector<std::int64_t>& out) const;

  std::vector<Vec3> points_;
  std::vector<std::int64_t> order_;  // point indices, grouped by leaf
  std::vector<Node> nodes_;          // implicit binary tree: children of n are 2n+1, 2n+2
};

}  // namespace foehn::transform::remap
