// Geometry on the unit sphere for remapping: points as 3-D unit vectors,
// convex cell polygons with great-circle edges, their exact areas, the
// integral of the position vector over them (for barycentres), and the
// clipping of one convex polygon by another (the overlap of two cells).
//
// Polygons are small fixed-capacity arrays (no allocation per cell or per
// overlap); vertices run counterclockwise seen from outside the sphere.
#pragma once

#include <array>
#include <cmath>
#include <cstddef>

namespace foehn::transform::remap {

struct Vec3 {
  double x = 0, y = 0, z = 0;
};
inline Vec3 operator+(Vec3 a, Vec3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
inline Vec3 operator-(Vec3 a, Vec3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
inline Vec3 operator*(double s, Vec3 a) { return {s * a.x, s * a.y, s * a.z}; }
inline double dot(Vec3 a, Vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
inline Vec3 cross(Vec3 a, Vec3 b) { return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }
inline double norm(Vec3 a) { return std::sqrt(dot(a, a)); }
inline Vec3 normalized(Vec3 a) { return (1.0 / norm(a)) * a; }

// Degrees to a unit vector, and back (longitude in (-180, 180]).
Vec3 unit_vector(double lon_deg, double lat_deg);
double longitude_deg(Vec3 p);
double latitude_deg(Vec3 p);

// Vertices of one cell or of an overlap. A cell has at most kMaxCellVertices
// vertices; the overlap of two cells at most the sum of theirs.
inline constexpr int kMaxCellVertices = 32;
struct Polygon {
  std::array<Vec3, 2 * kMaxCellVertices> v;
  int n = 0;
};

// Removes repeated vertices (a cell touching a pole lists the pole twice)
// and puts the vertices counterclockwise. Returns false if fewer than three
// distinct vertices remain (a degenerate cell, area 0).
bool make_counterclockwise(Polygon& p);

// Signed area (steradians) of a polygon with great-circle edges: positive
// counterclockwise. A fan of triangles from the first vertex, each by the
// formula of Van Oosterom and Strackee written on edge vectors, which keeps
// full relative precision for cells a fraction of a degree wide.
double signed_area(const Polygon& p);

// The integral of the position vector over the polygon (counterclockwise):
// half the sum over edges of the edge's angle times its unit normal. Its
// direction is the cell's barycentre, its length / area how flat the cell is.
Vec3 position_integral(const Polygon& p);

// The overlap of `subject` with the convex polygon `clip` (both
// counterclockwise, each smaller than a hemisphere): Sutherland-Hodgman
// with the great circles of clip's edges as cutting planes. Intersections
// are exact: the chord of an edge meets the cutting plane on the great
// circle. Returns the overlap in `out` (out.n < 3: no overlap).
void clip_polygon(const Polygon& subject, const Polygon& clip, Polygon& out);

}  // namespace foehn::transform::remap
