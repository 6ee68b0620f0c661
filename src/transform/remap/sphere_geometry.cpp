#include "transform/remap/sphere_geometry.h"

#include <algorithm>
#include <numbers>

namespace foehn::transform::remap {

namespace {
constexpr double kDeg = std::numbers::pi / 180.0;
// Two vertices closer than this (radians, about 6e-9 m on Earth) are one.
constexpr double kSameVertex = 1e-15;
}  // namespace

Vec3 unit_vector(double lon_deg, double lat_deg) {
  const double lon = lon_deg * kDeg, lat = lat_deg * kDeg;
  return {std::cos(lat) * std::cos(lon), std::cos(lat) * std::sin(lon), std::sin(lat)};
}

double longitude_deg(Vec3 p) { return std::atan2(p.y, p.x) / kDeg; }
double latitude_deg(Vec3 p) { return std::atan2(p.z, std::hypot(p.x, p.y)) / kDeg; }

bool make_counterclockwise(Polygon& p) {
  int n = 0;
  for (int k = 0; k < p.n; ++k) {
    if (n > 0 && norm(p.v[static_cast<std::size_t>(k)] - p.v[static_cast<std::size_t>(n - 1)]) < kSameVertex) continue;
    p.v[static_cast<std::size_t>(n++)] = p.v[static_cast<std::size_t>(k)];
  }
  while (n > 1 && norm(p.v[static_cast<std::size_t>(n - 1)] - p.v[0]) < kSameVertex) --n;
  p.n = n;
  if (n < 3) return false;
  if (signed_area(p) < 0) std::reverse(p.v.begin(), p.v.begin() + n);
  return true;
}

double signed_area(const Polygon& p) {
  if (p.n < 3) return 0;
  const Vec3 a = p.v[0];
  double sum = 0;
  for (int k = 1; k + 1 < p.n; ++k) {
    const Vec3 b = p.v[static_cast<std::size_t>(k)], c = p.v[static_cast<std::size_t>(k + 1)];
    const double num = dot(a, cross(b - a, c - a));
    const double den = 1.0 + dot(a, b) + dot(b, c) + dot(c, a);
    sum += 2.0 * std::atan2(num, den);
  }
  return sum;
}

Vec3 position_integral(const Polygon& p) {
  Vec3 sum;
  for (int k = 0; k < p.n; ++k) {
    const Vec3 a = p.v[static_cast<std::size_t>(k)], b = p.v[static_cast<std::size_t>((k + 1) % p.n)];
    const Vec3 c = cross(a, b);
    const double s = norm(c);
    if (s == 0) continue;
    sum = sum + (0.5 * std::atan2(s, dot(a, b)) / s) * c;
  }
  return sum;
}

void clip_polygon(const Polygon& subject, const Polygon& clip, Polygon& out) {
  Polygon buffer = subject;
  Polygon* in = &buffer;
  Polygon* next = &out;
  for (int e = 0; e < clip.n && in->n >= 3; ++e) {
    const Vec3 a = clip.v[static_cast<std::size_t>(e)], b = clip.v[static_cast<std::size_t>((e + 1) % clip.n)];
    const Vec3 normal = cross(a, b);
    next->n = 0;
    const int m = in->n;
    Vec3 prev = in->v[static_cast<std::size_t>(m - 1)];
    double d_prev = dot(normal, prev);
    for (int k = 0; k < m; ++k) {
      const Vec3 cur = in->v[static_cast<std::size_t>(k)];
      const double d_cur = dot(normal, cur);
      if ((d_cur >= 0) != (d_prev >= 0) && next->n < static_cast<int>(next->v.size())) {
        const double t = d_prev / (d_prev - d_cur);
        next->v[static_cast<std::size_t>(next->n++)] = normalized(prev + t * (cur - prev));
      }
      if (d_cur >= 0 && next->n < static_cast<int>(next->v.size())) next->v[static_cast<std::size_t>(next->n++)] = cur;
      prev = cur;
      d_prev = d_cur;
    }
    std::swap(in, next);
  }
  if (in != &out) out = *in;
}

}  // namespace foehn::transform::remap
