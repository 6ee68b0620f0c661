#include "transform/remap/kd_tree.h"

#include <algorithm>
#include <numeric>

namespace foehn::transform::remap {

namespace {
constexpr std::int64_t kLeafSize = 8;
double coordinate(Vec3 p, int axis) { return axis == 0 ? p.x : axis == 1 ? p.y : p.z; }
double distance2(Vec3 a, Vec3 b) { return dot(a - b, a - b); }
}  // namespace

KdTree::KdTree(std::vector<Vec3> points) : points_(std::move(points)), order_(points_.size()) {
  std::iota(order_.begin(), order_.end(), std::int64_t{0});
  std::int64_t leaves = 1;
  while (leaves * kLeafSize < size()) leaves *= 2;
  nodes_.resize(static_cast<std::size_t>(2 * leaves - 1));
  build(0, 0, size());
}

void KdTree::build(std::int64_t node, std::int64_t begin, std::int64_t end) {
  Node& n = nodes_[static_cast<std::size_t>(node)];
  n = {begin, end, -1, 0};
  if (2 * node + 2 >= static_cast<std::int64_t>(nodes_.size()) || end - begin <= kLeafSize) return;
  Vec3 lo{1e300, 1e300, 1e300}, hi{-1e300, -1e300, -1e300};
  for (std::int64_t k = begin; k < end; ++k) {
    const Vec3 p = points_[static_cast<std::size_t>(order_[static_cast<std::size_t>(k)])];
    lo = {std::min(lo.x, p.x), std::min(lo.y, p.y), std::min(lo.z, p.z)};
    hi = {std::max(hi.x, p.x), std::max(hi.y, p.y), std::max(hi.z, p.z)};
  }
  const Vec3 extent = hi - lo;
  const int axis = extent.x >= extent.y && extent.x >= extent.z ? 0 : extent.y >= extent.z ? 1 : 2;
  const std::int64_t mid = begin + (end - begin) / 2;
  auto first = order_.begin() + begin, middle = order_.begin() + mid, last = order_.begin() + end;
  std::nth_element(first, middle, last, [&](std::int64_t a, std::int64_t b) {
    const double ca = coordinate(points_[static_cast<std::size_t>(a)], axis);
    const double cb = coordinate(points_[static_cast<std::size_t>(b)], axis);
    return ca < cb || (ca == cb && a < b);
  });
  n.axis = axis;
  n.split = coordinate(points_[static_cast<std::size_t>(*middle)], axis);
  build(2 * node + 1, begin, mid);
  build(2 * node + 2, mid, end);
}

std::int64_t KdTree::nearest(Vec3 q) const {
  std::int64_t best = -1;
  double best_d2 = 1e300;
  if (size() > 0) nearest_in(0, q, best, best_d2);
  return best;
}

void KdTree::nearest_in(std::int64_t node, Vec3 q, std::int64_t& best, double& best_d2) const {
  const Node& n = nodes_[static_cast<std::size_t>(node)];
  if (n.axis < 0) {
    for (std::int64_t k = n.begin; k < n.end; ++k) {
      const std::int64_t i = order_[static_cast<std::size_t>(k)];
      const double d2 = distance2(points_[static_cast<std::size_t>(i)], q);
      if (d2 < best_d2 || (d2 == best_d2 && i < best)) best = i, best_d2 = d2;
    }
    return;
  }
  const double d = coordinate(q, n.axis) - n.split;
  const std::int64_t near = d < 0 ? 2 * node + 1 : 2 * node + 2, far = d < 0 ? 2 * node + 2 : 2 * node + 1;
  nearest_in(near, q, best, best_d2);
  if (d * d <= best_d2) nearest_in(far, q, best, best_d2);
}

void KdTree::within(Vec3 q, double radius, std::vector<std::int64_t>& out) const {
  const std::size_t first = out.size();
  if (size() > 0) within_in(0, q, radius * radius, out);
  std::sort(out.begin() + static_cast<std::ptrdiff_t>(first), out.end());
}

void KdTree::within_in(std::int64_t node, Vec3 q, double r2, std::vector<std::int64_t>& out) const {
  const Node& n = nodes_[static_cast<std::size_t>(node)];
  if (n.axis < 0) {
    for (std::int64_t k = n.begin; k < n.end; ++k) {
      const std::int64_t i = order_[static_cast<std::size_t>(k)];
      if (distance2(points_[static_cast<std::size_t>(i)], q) <= r2) out.push_back(i);
    }
    return;
  }
  const double d = coordinate(q, n.axis) - n.split;
  if (d <= 0 || d * d <= r2) within_in(2 * node + 1, q, r2, out);
  if (d >= 0 || d * d <= r2) within_in(2 * node + 2, q, r2, out);
}

}  // namespace foehn::transform::remap
