#include "transform/remap/conservative.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "transform/remap/kd_tree.h"

namespace foehn::transform::remap {

namespace {

// An overlap smaller than this fraction of its target cell is a sliver of
// rounding along a shared edge (areas of ~1e-16 of the cell), not a term.
constexpr double kSliver = 1e-14;
// Vertices of two cells closer than this chord (about 6 mm on Earth) are
// shared: the cells are neighbours for the order-2 gradient.
constexpr double kSharedVertex = 1e-9;

// Chord radius around each cell's centroid that holds the whole cell.
// Clipping needs cells within a hemisphere: a corner more than 90 degrees
// from the centroid (chord sqrt 2) is refused.
std::vector<double> cell_radii(const CellPolygons& c, const char* side) {
  std::vector<double> r(static_cast<std::size_t>(c.size()), 0.0);
  for (std::int64_t k = 0; k < c.size(); ++k)
    for (std::int64_t v = c.start[k]; v < c.start[k + 1]; ++v)
      r[static_cast<std::size_t>(k)] =
          std::max(r[static_cast<std::size_t>(k)],
                   norm(c.vertices[static_cast<std::size_t>(v)] - c.centroid[static_cast<std::size_t>(k)]));
  for (std::int64_t k = 0; k < c.size(); ++k)
    if (c.active(k) && r[static_cast<std::size_t>(k)] > std::sqrt(2.0))
      throw RemapError(std::string("conservative remapping: ") + side + " cell " + std::to_string(k) +
                       " reaches more than 90 degrees from its centre; cells must lie within a hemisphere");
  return r;
}

// Least-squares gradient of each source cell as coefficients on its
// neighbours' differences: grad f_i = sum_k coef_k (f_k - f_i), coef_k a
// tangent vector at the centroid. CSR over source cells.
struct GradientStencils {
  std::vector<std::int64_t> start{0};
  std::vector<std::int64_t> neighbour;
  std::vector<Vec3> coef;
};

bool share_vertex(const CellPolygons& c, std::int64_t a, std::int64_t b) {
  for (std::int64_t u = c.start[a]; u < c.start[a + 1]; ++u)
    for (std::int64_t v = c.start[b]; v < c.start[b + 1]; ++v)
      if (norm(c.vertices[static_cast<std::size_t>(u)] - c.vertices[static_cast<std::size_t>(v)]) < kSharedVertex)
        return true;
  return false;
}

GradientStencils gradient_stencils(const CellPolygons& src, const KdTree& tree, const std::vector<double>& radius,
                                   double max_radius) {
  GradientStencils g;
  std::vector<std::int64_t> near;
  for (std::int64_t i = 0; i < src.size(); ++i) {
    const Vec3 c = src.centroid[static_cast<std::size_t>(i)];
    if (src.active(i) && src.vertex_count(i) >= 3) {
      near.clear();
      tree.within(c, radius[static_cast<std::size_t>(i)] + max_radius + kSharedVertex, near);
      // Tangent basis at c, and the normal equations of the 2-D fit.
      const Vec3 pole = std::abs(c.z) < 0.9 ? Vec3{0, 0, 1} : Vec3{1, 0, 0};
      const Vec3 e1 = normalized(cross(pole, c)), e2 = cross(c, e1);
      double m11 = 0, m12 = 0, m22 = 0;
      const std::size_t first = g.neighbour.size();
      for (std::int64_t k : near) {
        if (k == i || !src.active(k) || src.vertex_count(k) < 3 || !share_vertex(src, i, k)) continue;
        const Vec3 d = src.centroid[static_cast<std::size_t>(k)] - c;
        const double d1 = dot(d, e1), d2 = dot(d, e2);
        m11 += d1 * d1, m12 += d1 * d2, m22 += d2 * d2;
        g.neighbour.push_back(k);
        g.coef.push_back({d1, d2, 0});
      }
      const double det = m11 * m22 - m12 * m12;
      for (std::size_t n = first; n < g.neighbour.size(); ++n) {
        const double d1 = g.coef[n].x, d2 = g.coef[n].y;
        // A cell whose neighbours are collinear (or absent) keeps order 1.
        const double b1 = det > 0 ? (m22 * d1 - m12 * d2) / det : 0, b2 = det > 0 ? (m11 * d2 - m12 * d1) / det : 0;
        g.coef[n] = b1 * e1 + b2 * e2;
      }
    }
    g.start.push_back(static_cast<std::int64_t>(g.neighbour.size()));
  }
  return g;
}

// The pieces a target cell is clipped with: the cell itself when convex;
// otherwise (a reduced Gaussian cell whose edge carries the neighbouring
// row's corners bends inwards by up to ~1e-3 of its width) the triangles
// from its centroid to each edge, each convex, since Sutherland-Hodgman
// needs a convex clip polygon. Returns the number of pieces.
int clip_pieces(const CellPolygons& c, std::int64_t k, std::vector<Polygon>& pieces) {
  const Polygon cell = c.polygon(k);
  bool convex = true;
  for (int e = 0; e < cell.n && convex; ++e) {
    const Vec3 a = cell.v[static_cast<std::size_t>(e)], b = cell.v[static_cast<std::size_t>((e + 1) % cell.n)];
    convex = dot(cross(a, b), cell.v[static_cast<std::size_t>((e + 2) % cell.n)]) >= 0;
  }
  if (convex) {
    pieces[0] = cell;
    return 1;
  }
  const Vec3 centre = c.centroid[static_cast<std::size_t>(k)];
  for (int e = 0; e < cell.n; ++e) {
    Polygon& t = pieces[static_cast<std::size_t>(e)];
    t.n = 3;
    t.v[0] = centre, t.v[1] = cell.v[static_cast<std::size_t>(e)],
    t.v[2] = cell.v[static_cast<std::size_t>((e + 1) % cell.n)];
  }
  return cell.n;
}

// Adds w to the term of `source` in the row that starts at row_begin.
void add_term(RemapWeights& w, std::int64_t row_begin, std::int64_t source, double value) {
  for (std::size_t k = static_cast<std::size_t>(row_begin); k < w.src.size(); ++k)
    if (w.src[k] == source) {
      w.weight[k] += value;
      return;
    }
  w.src.push_back(static_cast<std::int32_t>(source));
  w.weight.push_back(value);
}

void check_given_areas(std::span<const double> given, const CellPolygons& c, const char* side) {
  if (given.empty()) return;
  if (static_cast<std::int64_t>(given.size()) != c.size())
    throw RemapError(std::string("conservative remapping: ") + side + " has " + std::to_string(c.size()) +
                     " cells but " + std::to_string(given.size()) + " given areas (use_area)");
  for (std::size_t k = 0; k < given.size(); ++k)
    if (!(given[k] > 0) && c.active(static_cast<std::int64_t>(k)))
      throw RemapError(std::string("conservative remapping: ") + side + " cell " + std::to_string(k) +
                       " has a given area of " + std::to_string(given[k]) + " (use_area needs positive areas)");
}

// The rows of the weight matrix, one target cell at a time, with the
// search structures and scratch space built once.
class RowBuilder {
 public:
  RowBuilder(const CellPolygons& src, const CellPolygons& dst, const ConservativeOptions& options)
      : src_(src), dst_(dst), options_(options), tree_(src.centroid), pieces_(kMaxCellVertices) {
    src_radius_ = cell_radii(src, "source");
    dst_radius_ = cell_radii(dst, "target");
    max_src_radius_ = src_radius_.empty() ? 0 : *std::max_element(src_radius_.begin(), src_radius_.end());
    if (options.order == 2) grad_ = gradient_stencils(src, tree_, src_radius_, max_src_radius_);
  }

  // Appends the terms of target j to w; returns the area of j covered.
  double add_row(std::int64_t j, RemapWeights& w) {
    const std::int64_t row_begin = w.terms();
    const double area_j = dst_.area[static_cast<std::size_t>(j)];
    if (!dst_.active(j) || dst_.vertex_count(j) < 3 || !(area_j > 0)) return 0;
    const int piece_count = clip_pieces(dst_, j, pieces_);
    candidates_.clear();
    tree_.within(dst_.centroid[static_cast<std::size_t>(j)], dst_radius_[static_cast<std::size_t>(j)] + max_src_radius_,
                 candidates_);
    double covered = 0;
    for (std::int64_t i : candidates_) {
      if (!src_.active(i) || src_.vertex_count(i) < 3) continue;
      const Polygon subject = src_.polygon(i);
      double a = 0;
      Vec3 position;
      for (int p = 0; p < piece_count; ++p) {
        clip_polygon(subject, pieces_[static_cast<std::size_t>(p)], overlap_);
        a += signed_area(overlap_);
        if (options_.order == 2) position = position + position_integral(overlap_);
      }
      if (!(a > kSliver * area_j)) continue;
      covered += a;
      add_overlap(i, j, a, (1.0 / a) * position, row_begin, w);
    }
    if (options_.renormalize && covered > 0) {
      // Order 2's gradient terms of an overlap sum to zero: the row's sum
      // is that of its order-1 weights.
      double sum = 0;
      for (std::int64_t k = row_begin; k < w.terms(); ++k) sum += w.weight[static_cast<std::size_t>(k)];
      for (std::int64_t k = row_begin; k < w.terms(); ++k) w.weight[static_cast<std::size_t>(k)] /= sum;
    }
    return covered;
  }

 private:
  // The terms of the overlap (area a, mean position) of source i and target j.
  void add_overlap(std::int64_t i, std::int64_t j, double a, Vec3 mean_position, std::int64_t row_begin,
                   RemapWeights& w) const {
    const auto ui = static_cast<std::size_t>(i), uj = static_cast<std::size_t>(j);
    const double area_j = dst_.area[uj];
    double scale = options_.quantity ? a / src_.area[ui] : a / area_j;
    if (!options_.quantity && !options_.src_given_area.empty()) scale *= options_.src_given_area[ui] / src_.area[ui];
    if (!options_.quantity && !options_.dst_given_area.empty()) scale *= area_j / options_.dst_given_area[uj];
    if (options_.order == 1) {
      add_term(w, row_begin, i, scale);
      return;
    }
    // Order 2: f_i + grad_i . (barycentre of the overlap - centroid_i); the
    // gradient is tangent at the centroid, so the centroid drops out.
    double own = scale;
    for (std::int64_t n = grad_.start[ui]; n < grad_.start[ui + 1]; ++n) {
      const double c = scale * dot(grad_.coef[static_cast<std::size_t>(n)], mean_position);
      add_term(w, row_begin, grad_.neighbour[static_cast<std::size_t>(n)], c);
      own -= c;
    }
    add_term(w, row_begin, i, own);
  }

  const CellPolygons& src_;
  const CellPolygons& dst_;
  const ConservativeOptions& options_;
  KdTree tree_;
  std::vector<double> src_radius_, dst_radius_;
  double max_src_radius_ = 0;
  GradientStencils grad_;
  std::vector<std::int64_t> candidates_;
  std::vector<Polygon> pieces_;
  Polygon overlap_;
};

}  // namespace

ConservativeWeights conservative_weights(const CellPolygons& src, const CellPolygons& dst,
                                         const ConservativeOptions& options) {
  if (options.order != 1 && options.order != 2)
    throw RemapError("conservative remapping: order " + std::to_string(options.order) + " is not supported (1 or 2)");
  check_given_areas(options.src_given_area, src, "the source");
  check_given_areas(options.dst_given_area, dst, "the target");
  ConservativeWeights out;
  RemapWeights& w = out.weights;
  w.n_src = src.size();
  w.n_dst = dst.size();
  w.row_start.reserve(static_cast<std::size_t>(dst.size() + 1));
  out.dst_fraction.assign(static_cast<std::size_t>(dst.size()), 0.0);
  RowBuilder rows(src, dst, options);
  for (std::int64_t j = 0; j < dst.size(); ++j) {
    const double covered = rows.add_row(j, w);
    if (covered > 0) out.dst_fraction[static_cast<std::size_t>(j)] = covered / dst.area[static_cast<std::size_t>(j)];
    w.row_start.push_back(w.terms());
  }
  return out;
}

}  // namespace foehn::transform::remap
