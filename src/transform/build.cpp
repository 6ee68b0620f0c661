#include "transform/build.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <stdexcept>

#include "config/values.h"
#include "grid/healpix.h"
#include "transform/chain.h"

namespace foehn::transform {

namespace {

[[noreturn]] void bad(const config::TransformationDef& t, const std::string& message) {
  throw config::ConfigError(t.where, "<" + t.kind + "> in <" + t.target + ">: " + message);
}

std::optional<std::int64_t> integer(const config::TransformationDef& t, std::string_view name) {
  const std::string* v = t.attr(name);
  if (!v) return std::nullopt;
  const auto n = config::detail::parse_int(*v);
  if (!n) bad(t, std::string(name) + " '" + *v + "' is not an integer");
  return n;
}

// The attribute `name`, or its older XIOS spelling `old` (zoom_ibegin).
std::optional<std::int64_t> either(const config::TransformationDef& t, std::string_view name, std::string_view old) {
  const auto a = integer(t, name), b = integer(t, old);
  if (a && b && *a != *b)
    bad(t, std::string(name) + " and " + std::string(old) + " (its older spelling) are both given, and differ");
  return a ? a : b;
}

std::string size_text(const Component& c) {
  if (c.kind == Component::Kind::scalar) return "scalar";
  if (c.kind == Component::Kind::axis || c.nj_glo == 1) return std::to_string(c.ni_glo);
  return std::to_string(c.ni_glo) + "x" + std::to_string(c.nj_glo);
}

// For each owned point of `c`, the position of its data value (-1: none).
std::vector<std::int64_t> data_of_owned(const Component& c) {
  std::vector<std::int64_t> out(c.owned.size(), -1);
  for (std::size_t p = 0; p < c.data_owner.size(); ++p)
    if (c.data_owner[p] >= 0) out[static_cast<std::size_t>(c.data_owner[p])] = static_cast<std::int64_t>(p);
  return out;
}

// A target whose owned points each take one source point (a gather):
// picks[k] is the position in source.owned of target point k; its global
// index in the target is index[k].
Step gather_step(const Component& source, Component::Kind kind, std::int64_t ni_glo, std::int64_t nj_glo,
                 const std::vector<std::int64_t>& picks, const std::vector<std::int64_t>& index) {
  Step s;
  Component& c = s.target;
  c.kind = kind;
  c.type = source.type;
  c.ni_glo = ni_glo;
  c.nj_glo = nj_glo;
  c.decomposed = source.decomposed;
  const std::vector<std::int64_t> data = data_of_owned(source);
  const bool with_area = !source.area.empty();
  const auto nv = static_cast<std::size_t>(source.nvertex);
  const bool same_kind = kind == source.kind;  // a zoomed cell or value keeps its bounds
  if (same_kind) c.nvertex = source.nvertex;
  for (std::size_t k = 0; k < picks.size(); ++k) {
    const auto p = static_cast<std::size_t>(picks[k]);
    if (same_kind && nv > 0) {
      c.bounds_lon.insert(c.bounds_lon.end(), source.bounds_lon.begin() + p * nv,
                          source.bounds_lon.begin() + (p + 1) * nv);
      if (!source.bounds_lat.empty())
        c.bounds_lat.insert(c.bounds_lat.end(), source.bounds_lat.begin() + p * nv,
                            source.bounds_lat.begin() + (p + 1) * nv);
    }
    c.owned.push_back(index[k]);
    c.lon.push_back(source.lon.empty() ? 0.0 : source.lon[p]);
    c.lat.push_back(source.lat.empty() ? 0.0 : source.lat[p]);
    if (with_area) c.area.push_back(source.area[p]);
    // A point masked in the source is masked in the target: its data value
    // is not a point of its own (NaN, never sent).
    c.data_owner.push_back(data[p] < 0 ? -1 : static_cast<std::int64_t>(k));
    s.map.source.push_back(data[p]);
  }
  s.map.op = Operation::gather;
  s.map.n_source = source.data_size();
  s.map.n_target = c.data_size();
  s.map.start.resize(picks.size() + 1);
  std::iota(s.map.start.begin(), s.map.start.end(), 0);
  return s;
}

// Whole axes are held in global order by every rank: the target's points
// must be too.
void sort_whole_axis(Step& s) {
  if (s.target.decomposed || s.target.kind != Component::Kind::axis) return;
  std::vector<std::size_t> order(s.target.owned.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](auto a, auto b) { return s.target.owned[a] < s.target.owned[b]; });
  Step sorted = s;
  for (std::size_t k = 0; k < order.size(); ++k) {
    sorted.target.owned[k] = s.target.owned[order[k]];
    sorted.target.lon[k] = s.target.lon[order[k]];
    sorted.target.lat[k] = s.target.lat[order[k]];
    if (!s.target.bounds_lon.empty())
      for (std::size_t v = 0; v < 2; ++v) sorted.target.bounds_lon[2 * k + v] = s.target.bounds_lon[2 * order[k] + v];
    sorted.map.source[k] = s.map.source[order[k]];
    sorted.target.data_owner[k] = s.target.data_owner[order[k]] < 0 ? -1 : static_cast<std::int64_t>(k);
  }
  s = std::move(sorted);
}

Step extract_domain(const config::TransformationDef& t, const Component& src) {
  auto ib = either(t, "ibegin", "zoom_ibegin"), ni = either(t, "ni", "zoom_ni");
  auto jb = either(t, "jbegin", "zoom_jbegin"), nj = either(t, "nj", "zoom_nj");
  const bool any = ib || ni || jb || nj;
  if (src.nj_glo == 1 && !jb && !nj) jb = 0, nj = 1;  // 1-D domains: a range of cells
  if (any && !(ib && ni && jb && nj)) bad(t, "give all of ibegin, ni, jbegin and nj, or none (the whole domain)");
  if (!any) ib = 0, ni = src.ni_glo, jb = 0, nj = src.nj_glo;
  if (*ib < 0 || *jb < 0 || *ni < 1 || *nj < 1 || *ib + *ni > src.ni_glo || *jb + *nj > src.nj_glo)
    bad(t, "the box ibegin=" + std::to_string(*ib) + " ni=" + std::to_string(*ni) + " jbegin=" + std::to_string(*jb) +
               " nj=" + std::to_string(*nj) + " is not inside the source domain of " + size_text(src) + " points");
  std::vector<std::int64_t> picks, index;
  for (std::size_t p = 0; p < src.owned.size(); ++p) {
    const std::int64_t i = src.owned[p] % src.ni_glo, j = src.owned[p] / src.ni_glo;
    if (i < *ib || i >= *ib + *ni || j < *jb || j >= *jb + *nj) continue;
    picks.push_back(static_cast<std::int64_t>(p));
    index.push_back((j - *jb) * *ni + (i - *ib));
  }
  return gather_step(src, Component::Kind::domain, *ni, *nj, picks, index);
}

Step extract_axis(const config::TransformationDef& t, const Component& src) {
  const std::string* list = t.attr("index");
  const auto begin = integer(t, "begin"), n = integer(t, "n");
  std::vector<std::int64_t> selected;  // global indices of the source kept, in target order
  if (list) {
    if (begin || n) bad(t, "give either index or begin and n, not both");
    const auto values = config::detail::parse_double_list(*list);
    if (!values || values->empty()) bad(t, "index '" + *list + "' is not a list of integers");
    for (double v : *values) selected.push_back(static_cast<std::int64_t>(v));
    std::sort(selected.begin(), selected.end());
    selected.erase(std::unique(selected.begin(), selected.end()), selected.end());
    if (t.kind == "zoom_axis") {  // XIOS zooms to the range the index spans
      const std::int64_t lo = selected.front(), hi = selected.back();
      selected.resize(static_cast<std::size_t>(hi - lo + 1));
      std::iota(selected.begin(), selected.end(), lo);
    }
  } else {
    const std::int64_t b = begin.value_or(0), count = n.value_or(src.ni_glo - b);
    if (b < 0 || count < 1 || b + count > src.ni_glo)
      bad(t, "begin=" + std::to_string(b) + " n=" + std::to_string(count) + " is not inside the source axis of " +
                 std::to_string(src.ni_glo) + " values");
    selected.resize(static_cast<std::size_t>(count));
    std::iota(selected.begin(), selected.end(), b);
  }
  if (selected.front() < 0 || selected.back() >= src.ni_glo)
    bad(t, "index " + std::to_string(selected.front() < 0 ? selected.front() : selected.back()) +
               " is outside the source axis of " + std::to_string(src.ni_glo) + " values");
  std::vector<std::int64_t> target_of(static_cast<std::size_t>(src.ni_glo), -1);
  for (std::size_t k = 0; k < selected.size(); ++k)
    target_of[static_cast<std::size_t>(selected[k])] = static_cast<std::int64_t>(k);
  std::vector<std::int64_t> picks, index;
  for (std::size_t p = 0; p < src.owned.size(); ++p)
    if (const std::int64_t k = target_of[static_cast<std::size_t>(src.owned[p])]; k >= 0) {
      picks.push_back(static_cast<std::int64_t>(p));
      index.push_back(k);
    }
  Step s = gather_step(src, Component::Kind::axis, static_cast<std::int64_t>(selected.size()), 1, picks, index);
  sort_whole_axis(s);
  return s;
}

Step inverse_axis(const Component& src) {
  std::vector<std::int64_t> picks(src.owned.size()), index(src.owned.size());
  for (std::size_t p = 0; p < src.owned.size(); ++p) {
    picks[p] = static_cast<std::int64_t>(p);
    index[p] = src.ni_glo - 1 - src.owned[p];
  }
  Step s = gather_step(src, Component::Kind::axis, src.ni_glo, 1, picks, index);
  sort_whole_axis(s);
  return s;
}

// extract_axis into a scalar: the value at `position` of a whole axis.
Step axis_to_scalar(const config::TransformationDef& t, const Component& src) {
  const auto position = integer(t, "position");
  if (!position) bad(t, "position (the index of the value kept) is required");
  if (*position < 0 || *position >= src.ni_glo)
    bad(t, "position " + std::to_string(*position) + " is outside the source axis of " + std::to_string(src.ni_glo) +
               " values");
  if (src.decomposed) bad(t, "the source axis is decomposed among the model ranks; this needs the whole axis on each");
  const auto p =
      static_cast<std::int64_t>(std::find(src.owned.begin(), src.owned.end(), *position) - src.owned.begin());
  if (p == static_cast<std::int64_t>(src.owned.size())) bad(t, "this model rank does not hold the value at position");
  return gather_step(src, Component::Kind::scalar, 1, 1, {p}, {0});
}

// extract_domain into an axis: jDir, the column i = position (an axis along
// j); iDir, the row j = position (an axis along i), as XIOS names them.
Step domain_to_axis(const config::TransformationDef& t, const Component& src) {
  const std::string* dir = t.attr("direction");
  const bool along_j = !dir || *dir == "jDir";  // XIOS's default direction is jDir
  const auto position = integer(t, "position");
  if (!position) bad(t, "position (the index of the row or column kept) is required");
  const std::int64_t limit = along_j ? src.ni_glo : src.nj_glo;
  if (*position < 0 || *position >= limit)
    bad(t, "position " + std::to_string(*position) + " is outside the source domain of " + size_text(src) + " points");
  std::vector<std::int64_t> picks, index;
  for (std::size_t p = 0; p < src.owned.size(); ++p) {
    const std::int64_t i = src.owned[p] % src.ni_glo, j = src.owned[p] / src.ni_glo;
    if ((along_j ? i : j) != *position) continue;
    picks.push_back(static_cast<std::int64_t>(p));
    index.push_back(along_j ? j : i);
  }
  Step s = gather_step(src, Component::Kind::axis, along_j ? src.nj_glo : src.ni_glo, 1, picks, index);
  s.target.decomposed = true;
  s.target.axis_type = along_j ? "Y" : "X";
  s.target.units = along_j ? "degrees_north" : "degrees_east";
  // The axis's bounds: the cells' latitude bounds along j, longitude bounds along i (rectilinear).
  if (src.nvertex == 2) {
    s.target.nvertex = 2;
    for (std::int64_t p : picks) {
      const std::vector<double>& b = along_j ? src.bounds_lat : src.bounds_lon;
      s.target.bounds_lon.insert(s.target.bounds_lon.end(), b.begin() + 2 * p, b.begin() + 2 * p + 2);
    }
  }
  for (std::size_t k = 0; k < picks.size(); ++k)  // the axis's values: latitudes along j, longitudes along i
    s.target.lon[k] =
        along_j ? src.lat[static_cast<std::size_t>(picks[k])] : src.lon[static_cast<std::size_t>(picks[k])];
  return s;
}

// A reduction: target point g combines the source points whose group is g.
// group_of(global index) -> target index; group_size: points per group.
// order_key(global index): the order in which each target's points are
// combined (increasing; the global index unless given).
template <class GroupOf, class OrderKey = std::identity>
Step reduce(const config::TransformationDef& t, const Component& src, Component::Kind kind, std::int64_t n_target,
            std::int64_t group_size, GroupOf group_of, bool whole_axis, OrderKey order_key = {}) {
  const std::string* op_text = t.attr("operation");
  if (!op_text) bad(t, "operation (sum, min, max or average) is required");
  Step s;
  s.map.op = parse_operation(*op_text);
  const std::string* weights = t.attr("weights");
  const bool by_area = weights && *weights == "area";
  if (by_area && s.map.op != Operation::average && s.map.op != Operation::sum)
    bad(t, "weights=\"area\" applies to sum and average, not to " + *op_text);
  if (by_area && src.area.empty()) bad(t, "weights=\"area\" needs a domain whose cell areas foehn can compute");
  // This rank's points in increasing global index: the order of every sum.
  std::vector<std::size_t> order(src.owned.size());
  std::iota(order.begin(), order.end(), 0);
  std::vector<std::int64_t> key(src.owned.size());
  for (std::size_t p = 0; p < key.size(); ++p) key[p] = order_key(src.owned[p]);
  std::sort(order.begin(), order.end(), [&](auto a, auto b) { return key[a] < key[b]; });
  const std::vector<std::int64_t> data = data_of_owned(src);
  std::vector<std::int64_t> count(static_cast<std::size_t>(n_target), 0);
  for (std::int64_t g : src.owned) ++count[static_cast<std::size_t>(group_of(g))];
  Component& c = s.target;
  c.kind = kind;
  c.ni_glo = kind == Component::Kind::scalar ? 1 : n_target;
  c.decomposed = !whole_axis;
  for (std::int64_t g = 0; g < n_target; ++g) {
    const std::int64_t have = count[static_cast<std::size_t>(g)];
    if (have == 0 && kind != Component::Kind::scalar) continue;  // another rank's
    if (have != group_size)
      bad(t, "target point " + std::to_string(g) + " combines " + std::to_string(group_size) +
                 " source points, of which this model rank holds " + std::to_string(have) +
                 "; reductions need each target's points on one rank (e.g. whole rows for a zonal mean); "
                 "combining across ranks is not supported yet");
    c.owned.push_back(g);
    c.data_owner.push_back(static_cast<std::int64_t>(c.data_owner.size()));
  }
  std::vector<std::int64_t> slot(static_cast<std::size_t>(n_target), -1);
  for (std::size_t k = 0; k < c.owned.size(); ++k)
    slot[static_cast<std::size_t>(c.owned[k])] = static_cast<std::int64_t>(k);
  c.lon.assign(c.owned.size(), kind == Component::Kind::scalar ? std::nan("") : 0.0);  // a reduced scalar has no value
  c.lat.assign(c.owned.size(), 0.0);
  std::vector<std::vector<std::size_t>> members(c.owned.size());
  for (std::size_t p : order)
    members[static_cast<std::size_t>(slot[static_cast<std::size_t>(group_of(src.owned[p]))])].push_back(p);
  s.map.start.push_back(0);
  for (std::size_t k = 0; k < members.size(); ++k) {
    for (std::size_t p : members[k]) {
      s.map.source.push_back(data[p]);
      if (by_area) s.map.weight.push_back(src.area[p]);
    }
    s.map.start.push_back(static_cast<std::int64_t>(s.map.source.size()));
  }
  s.map.n_source = src.data_size();
  s.map.n_target = c.data_size();
  return s;
}

// duplicate_scalar: every value of the target axis (its n_glo, or as many
// as its values) is the scalar's value; the axis is whole on every rank.
Step duplicate_scalar(const config::TransformationDef& t, const Component& src, const config::AxisDef* axis) {
  if (!axis) bad(t, "must be inside an <axis>");
  const std::int64_t n = axis->n_glo ? *axis->n_glo : static_cast<std::int64_t>(axis->value.size());
  if (n < 1) bad(t, "axis '" + axis->id + "' needs n_glo (or value=...): how many times to copy the scalar");
  if (!axis->value.empty() && static_cast<std::int64_t>(axis->value.size()) != n)
    bad(t, "axis '" + axis->id + "': n_glo=" + std::to_string(n) + " but " + std::to_string(axis->value.size()) +
               " values");
  std::vector<std::int64_t> picks(static_cast<std::size_t>(n), 0), index(static_cast<std::size_t>(n));
  std::iota(index.begin(), index.end(), 0);
  Step s = gather_step(src, Component::Kind::axis, n, 1, picks, index);
  s.target.decomposed = false;
  if (!axis->value.empty())
    s.target.lon = axis->value;
  else
    std::iota(s.target.lon.begin(), s.target.lon.end(), 0.0);  // XIOS's default values: the indices
  return s;
}

// A HEALPix pyramid level (foehn's <coarsen_healpix refinement_level="l"/>):
// each cell of level l is the average of the 4^(L-l) cells of the source's
// level L nested inside it (nested children of cell i are 4i..4i+3),
// skipping missing values: the count-weighted mean of the finer level's
// cells, summed in increasing nested index. A ring source gives a ring
// level (its cells found through their nested indices).
Step coarsen_healpix(const config::TransformationDef& t, const Component& src) {
  if (src.type != "healpix") bad(t, "needs a healpix domain as its source");
  const auto level = integer(t, "refinement_level");
  if (!level || *level < 0 || *level >= src.healpix_level)
    bad(t, "refinement_level must be given, from 0 to " + std::to_string(src.healpix_level - 1) +
               " (coarser than the source's " + std::to_string(src.healpix_level) + ")");
  const int fine = src.healpix_level, coarse = static_cast<int>(*level), shift = 2 * (fine - coarse);
  config::TransformationDef average = t;
  average.attrs["operation"] = "average";
  const std::int64_t n_target = std::int64_t{12} << (2 * coarse), group_size = std::int64_t{1} << shift;
  Step s = src.healpix_nested
               ? reduce(average, src, Component::Kind::domain, n_target, group_size,
                        [shift](std::int64_t g) { return g >> shift; }, false)
               : reduce(
                     average, src, Component::Kind::domain, n_target, group_size,
                     [=](std::int64_t g) {
                       return grid::healpix_nest_to_ring(coarse, grid::healpix_ring_to_nest(fine, g) >> shift);
                     },
                     false, [fine](std::int64_t g) { return grid::healpix_ring_to_nest(fine, g); });
  s.target.type = "healpix";
  s.target.healpix_level = coarse;
  s.target.healpix_nested = src.healpix_nested;
  return s;  // centres and corners: computed with the domain's (grid/healpix.h)
}

std::optional<double> real(const config::TransformationDef& t, std::string_view name) {
  const std::string* v = t.attr(name);
  if (!v) return std::nullopt;
  const auto x = config::detail::parse_double(*v);
  if (!x) bad(t, std::string(name) + " '" + *v + "' is not a number");
  return x;
}

// XIOS's way of putting a longitude in [lo, hi]: whole turns of hi - lo
// added or taken away one at a time (the same bits as XIOS). Returns the
// turns taken away (negative: added), for the cell's bounds to follow.
int wrap_lon(double& lon, double lo, double hi) {
  if (!std::isfinite(lon)) return 0;
  const double delta = hi - lo;
  int turns = 0;
  for (; lon > hi; ++turns) lon -= delta;
  for (; lon < lo; --turns) lon += delta;
  return turns;
}

// reorder_domain: each rank keeps its values; only their places in the
// domain change (rows upside down, columns turned by a fraction of the
// globe), their coordinates and bounds moving with them. Local: nothing is
// exchanged, the writers place the points by their new global index.
Step reorder_domain(const config::TransformationDef& t, const Component& src) {
  if (src.type != "rectilinear")
    bad(t, "the source domain is " + src.type + "; reorder_domain works on rectilinear domains only");
  const std::string* invert = t.attr("invert_lat");
  const bool invert_lat = invert && config::detail::parse_bool(*invert).value_or(false);
  const auto fraction = real(t, "shift_lon_fraction");
  const auto min_lon = real(t, "min_lon"), max_lon = real(t, "max_lon");
  if (min_lon.has_value() != max_lon.has_value())
    bad(t, "give both min_lon and max_lon (the range longitudes are put in), or neither");
  if (min_lon && !(*max_lon > *min_lon))
    bad(t, "max_lon (" + *t.attr("max_lon") + ") must be greater than min_lon (" + *t.attr("min_lon") + ")");
  const std::int64_t ni = src.ni_glo, nj = src.nj_glo;
  // As XIOS: the shift in columns is ni_glo * fraction truncated toward zero.
  const std::int64_t offset = fraction ? static_cast<std::int64_t>(static_cast<double>(ni) * *fraction) : 0;
  std::vector<std::int64_t> picks(src.owned.size()), index(src.owned.size());
  for (std::size_t p = 0; p < src.owned.size(); ++p) {
    const std::int64_t i = src.owned[p] % ni, j = src.owned[p] / ni;
    const std::int64_t j2 = invert_lat ? nj - 1 - j : j;
    const std::int64_t i2 = ((i + offset) % ni + ni) % ni;
    picks[p] = static_cast<std::int64_t>(p);
    index[p] = j2 * ni + i2;
  }
  Step s = gather_step(src, Component::Kind::domain, ni, nj, picks, index);
  if (min_lon) {
    // A cell's corners move by its centre's turns, so that no cell is cut
    // in two at the seam (XIOS wraps each corner on its own).
    const double delta = *max_lon - *min_lon;
    const auto nv = static_cast<std::size_t>(s.target.nvertex);
    for (std::size_t k = 0; k < s.target.lon.size(); ++k) {
      const int turns = wrap_lon(s.target.lon[k], *min_lon, *max_lon);
      for (std::size_t v = 0; v < nv && !s.target.bounds_lon.empty(); ++v) {
        double& corner = s.target.bounds_lon[k * nv + v];
        for (int n = 0; n < turns; ++n) corner -= delta;
        for (int n = 0; n > turns; --n) corner += delta;
      }
    }
  }
  return s;
}

// expand_domain: XIOS gives each rank a halo of its neighbours' points for
// the transformations after it; the domain written and its values are the
// source's, so here it is the identity.
Step expand_domain(const Component& src) {
  std::vector<std::int64_t> picks(src.owned.size());
  std::iota(picks.begin(), picks.end(), 0);
  Step s = gather_step(src, Component::Kind::domain, src.ni_glo, src.nj_glo, picks, src.owned);
  s.target.healpix_level = src.healpix_level;
  s.target.healpix_nested = src.healpix_nested;
  return s;
}

}  // namespace

const char* kind_name(Component::Kind kind) {
  switch (kind) {
    case Component::Kind::domain: return "domain";
    case Component::Kind::axis: return "axis";
    case Component::Kind::scalar: return "scalar";
  }
  return "?";
}

Component::Kind source_kind(const config::TransformationDef& t) {
  if (t.kind == "zoom_domain" || t.kind == "extract_domain" || t.kind == "reduce_domain" ||
      t.kind == "interpolate_domain" || t.kind == "generate_rectilinear_domain" || t.kind == "coarsen_healpix" ||
      t.kind == "reorder_domain" || t.kind == "expand_domain")
    return Component::Kind::domain;
  if (t.kind == "reduce_scalar" || t.kind == "duplicate_scalar" || t.kind == "temporal_splitting")
    return Component::Kind::scalar;
  return Component::Kind::axis;
}

bool is_domain_interpolation(const config::TransformationDef& t) {
  return t.kind == "interpolate_domain" || t.kind == "generate_rectilinear_domain";
}

Component::Kind target_kind(const config::TransformationDef& t) {
  return t.target == "domain" ? Component::Kind::domain
         : t.target == "axis" ? Component::Kind::axis
                              : Component::Kind::scalar;
}

Step build_step(const config::TransformationDef& t, const Component& src, const config::AxisDef* target_axis) {
  if (src.kind != source_kind(t))
    bad(t, "its source at this position of the grid is " + std::string(kind_name(src.kind)) + ", not a " +
               kind_name(source_kind(t)));
  Step s;
  const bool to_domain = t.target == "domain", to_axis = t.target == "axis";
  if (t.kind == "interpolate_domain" || t.kind == "generate_rectilinear_domain" || t.kind == "interpolate_axis") {
    bad(t, "is built with the model's ranks (transform/interp), not as a local step");
  } else if (to_domain && t.kind == "coarsen_healpix") {
    s = coarsen_healpix(t, src);
  } else if (to_domain && t.kind == "reorder_domain") {
    s = reorder_domain(t, src);
  } else if (to_domain && t.kind == "expand_domain") {
    s = expand_domain(src);
  } else if (to_domain) {
    s = extract_domain(t, src);
  } else if (to_axis && (t.kind == "zoom_axis" || t.kind == "extract_axis")) {
    s = extract_axis(t, src);
  } else if (to_axis && t.kind == "inverse_axis") {
    s = inverse_axis(src);
  } else if (to_axis && t.kind == "extract_domain") {
    s = domain_to_axis(t, src);
  } else if (to_axis && t.kind == "reduce_domain") {
    const std::string* dir = t.attr("direction");
    const bool along_j = !dir || *dir == "jDir";  // jDir keeps j: one value per row (a zonal mean)
    const std::int64_t ni = src.ni_glo;
    s = along_j ? reduce(
                      t, src, Component::Kind::axis, src.nj_glo, ni, [ni](std::int64_t g) { return g / ni; }, false)
                : reduce(
                      t, src, Component::Kind::axis, ni, src.nj_glo, [ni](std::int64_t g) { return g % ni; }, false);
    // The axis's values: the latitude of each row (jDir) or longitude of each column (iDir).
    std::vector<double> value(static_cast<std::size_t>(along_j ? src.nj_glo : ni), 0.0);
    for (std::size_t p = 0; p < src.owned.size(); ++p)
      value[static_cast<std::size_t>(along_j ? src.owned[p] / ni : src.owned[p] % ni)] =
          along_j ? src.lat[p] : src.lon[p];
    for (std::size_t k = 0; k < s.target.owned.size(); ++k)
      s.target.lon[k] = value[static_cast<std::size_t>(s.target.owned[k])];
    s.target.axis_type = along_j ? "Y" : "X";
    s.target.units = along_j ? "degrees_north" : "degrees_east";
  } else if (to_axis && t.kind == "duplicate_scalar") {
    s = duplicate_scalar(t, src, target_axis);
  } else if (to_axis && t.kind == "temporal_splitting") {
    s = duplicate_scalar(t, src, target_axis);  // the same axis, whole on every rank; values placed by step
    s.map.op = Operation::split;
  } else if (t.kind == "reduce_scalar" || (to_axis && t.kind == "reduce_axis")) {
    // Each point combines the values the model ranks hold of it
    // (interp/reduce_across_ranks.h); this rank's own: one value each.
    if (to_axis && src.decomposed)
      bad(t, "reduce_axis into an axis combines the values each model rank holds of a whole axis; the source axis "
             "is decomposed among the model ranks");
    const bool scalar = !to_axis;
    s = reduce(
        t, src, scalar ? Component::Kind::scalar : Component::Kind::axis, scalar ? 1 : src.ni_glo, 1,
        [](std::int64_t g) { return g; }, true);
    if (!scalar) {  // the source's geometry
      s.target.lon = src.lon;
      s.target.nvertex = src.nvertex;
      s.target.bounds_lon = src.bounds_lon;
    }
  } else if (t.kind == "extract_axis") {
    s = axis_to_scalar(t, src);
  } else if (t.kind == "reduce_axis") {
    if (src.decomposed)
      bad(t, "the source axis is decomposed among the model ranks; reducing it needs the whole axis on each rank");
    s = reduce(
        t, src, Component::Kind::scalar, 1, src.ni_glo, [](std::int64_t) { return std::int64_t{0}; }, true);
  } else if (t.kind == "reduce_domain") {
    s = reduce(
        t, src, Component::Kind::scalar, 1, src.size(), [](std::int64_t) { return std::int64_t{0}; }, true);
  } else {
    bad(t, "is not supported yet");
  }
  s.text = t.kind + " " + size_text(src) + " -> " + size_text(s.target);
  return s;
}

std::optional<ReductionTargets> reduction_targets(const config::TransformationDef& t, const Component& src) {
  ReductionTargets r;
  const std::int64_t ni = src.ni_glo;
  if (t.kind == "reduce_domain" && t.target == "axis") {
    const std::string* dir = t.attr("direction");
    const bool along_j = !dir || *dir == "jDir";  // as build_step
    r.n_target = along_j ? src.nj_glo : ni;
    r.group_size = along_j ? ni : src.nj_glo;
    r.target_of = along_j ? std::function<std::int64_t(std::int64_t)>([ni](std::int64_t g) { return g / ni; })
                          : std::function<std::int64_t(std::int64_t)>([ni](std::int64_t g) { return g % ni; });
    return r;
  }
  if (t.kind == "coarsen_healpix" && t.target == "domain") {  // the nested children of each coarser cell
    const auto level = integer(t, "refinement_level");
    if (src.type != "healpix" || !level || *level < 0 || *level >= src.healpix_level)
      return std::nullopt;  // build_step refuses it, naming why
    const int fine = src.healpix_level, coarse = static_cast<int>(*level), shift = 2 * (fine - coarse);
    r.n_target = std::int64_t{12} << (2 * coarse);
    r.group_size = std::int64_t{1} << shift;
    if (src.healpix_nested)
      r.target_of = [shift](std::int64_t g) { return g >> shift; };
    else
      r.target_of = [=](std::int64_t g) {
        return grid::healpix_nest_to_ring(coarse, grid::healpix_ring_to_nest(fine, g) >> shift);
      };
    return r;
  }
  if ((t.kind == "reduce_domain" || t.kind == "reduce_axis") && t.target == "scalar") {
    r.n_target = 1;
    r.group_size = src.size();
    r.target_of = [](std::int64_t) { return std::int64_t{0}; };
    r.to_scalar = true;
    return r;
  }
  return std::nullopt;
}

const config::DomainDef* owner_domain(const config::ContextDef& ctx, const config::TransformationDef& t) {
  for (const config::DomainDef& d : ctx.domains)
    for (const config::TransformationDef& u : d.transformations)
      if (&u == &t) return &d;
  return nullptr;
}

TargetShape interpolation_target(const config::TransformationDef& t, const config::DomainDef& target) {
  TargetShape out;
  out.type = target.type.empty() ? "rectilinear" : target.type;
  if (out.type == "healpix") {  // the whole sphere at the domain's level
    if (!target.refinement_level || *target.refinement_level < 0 || *target.refinement_level > 13)
      throw config::ConfigError(target.where, "domain '" + target.id +
                                                  "' is filled by <interpolate_domain>: give its refinement_level "
                                                  "(0 to 13: the whole target's geometry is built on every model rank)");
    out.healpix_level = *target.refinement_level;
    out.healpix_nested = target.indexing_scheme != "ring";
    out.ni_glo = 12 * (std::int64_t{1} << (2 * out.healpix_level));
    out.nj_glo = 1;
  } else if (out.type != "rectilinear") {
    bad(t, "domain '" + target.id + "' is of type " + out.type +
               "; foehn interpolates to rectilinear domains (ni_glo x nj_glo, with generate_rectilinear_domain or "
               "its default, the whole sphere) and to healpix domains (refinement_level)");
  } else {
    if (!target.ni_glo || !target.nj_glo || *target.ni_glo < 1 || *target.nj_glo < 1)
      throw config::ConfigError(
          target.where, "domain '" + target.id + "' is filled by <interpolate_domain>: give its ni_glo and nj_glo");
    out.ni_glo = *target.ni_glo;
    out.nj_glo = *target.nj_glo;
  }
  if (const std::string* m = t.attr("method"); m && *m == "nearest" && t.attr("order"))
    bad(t, "order applies to conservative remapping, not to method=\"nearest\"");
  if (const auto order = integer(t, "order"); order && *order != 1 && *order != 2)
    bad(t, "order " + std::to_string(*order) + " is not 1 or 2 (first- or second-order conservative)");
  if (const std::string* u = t.attr("use_area"); u && *u == "true")
    bad(t,
        "use_area=\"true\" (the model's cell areas) is not supported yet: weights use the cells' areas on the "
        "sphere");
  const std::string* mode = t.attr("mode");
  const std::string* write = t.attr("write_weight");
  if (((mode && *mode != "compute") || (write && *write == "true")) && !t.attr("weight_filename"))
    bad(t, "mode=\"" + (mode ? *mode : std::string("compute")) +
               "\" with write_weight or reading needs weight_filename (foehn does not name weight files itself)");
  return out;
}

const config::AxisDef* owner_axis(const config::ContextDef& ctx, const config::TransformationDef& t) {
  for (const config::AxisDef& a : ctx.axes)
    for (const config::TransformationDef& u : a.transformations)
      if (&u == &t) return &a;
  return nullptr;
}

std::string vertical_source_coordinate(const config::TransformationDef& t) {
  const std::string* plain = t.attr("coordinate");
  const std::string* src = t.attr("coordinate_src");
  if (plain && src && *plain != *src)
    bad(t, "coordinate=\"" + *plain + "\" and coordinate_src=\"" + *src +
               "\" name two source coordinates (they mean the same: give one)");
  return src ? *src : plain ? *plain : std::string();
}

std::string vertical_target_coordinate(const config::TransformationDef& t) {
  const std::string* dst = t.attr("coordinate_dst");
  return dst ? *dst : std::string();
}

std::vector<double> vertical_target_levels(const config::TransformationDef& t, const config::AxisDef& target,
                                           const Component& source) {
  const bool per_point_targets = !vertical_target_coordinate(t).empty();
  if (target.value.empty() && !(per_point_targets && target.n_glo))
    throw config::ConfigError(target.where,
                              "axis '" + target.id + "' is filled by <interpolate_axis>: give its levels (value=...)" +
                                  std::string(per_point_targets ? " or, with coordinate_dst, n_glo" : ""));
  if (target.n_glo && !target.value.empty() && *target.n_glo != static_cast<std::int64_t>(target.value.size()))
    throw config::ConfigError(target.where, "axis '" + target.id + "': n_glo=" + std::to_string(*target.n_glo) +
                                                " but " + std::to_string(target.value.size()) + " values");
  const std::int64_t order = integer(t, "order").value_or(1);
  if (order != 1 && order != 2) bad(t, "order " + std::to_string(order) + " is not 1 or 2");
  if (source.kind == Component::Kind::axis && order >= source.ni_glo)
    bad(t, "order " + std::to_string(order) + " needs at least " + std::to_string(order + 1) +
               " source levels; the source axis has " + std::to_string(source.ni_glo));
  if (!target.value.empty()) return target.value;
  std::vector<double> index(static_cast<std::size_t>(*target.n_glo));  // coordinate_dst: levels by number
  std::iota(index.begin(), index.end(), 0.0);
  return index;
}

Step vertical_shape(const config::TransformationDef& t, const Component& source, const config::AxisDef& target) {
  if (source.kind != Component::Kind::axis) bad(t, "its source at this position of the grid is not an axis");
  const std::vector<double> levels = vertical_target_levels(t, target, source);
  Step s;
  s.target = whole_component(Component::Kind::axis, static_cast<std::int64_t>(levels.size()), 1);
  s.target.lon = levels;
  s.map.op = Operation::columns;
  s.map.n_source = source.data_size();
  s.map.n_target = s.target.data_size();
  s.text = t.kind + " " + size_text(source) + " -> " + size_text(s.target) + vertical_coordinate_text(t);
  return s;
}

std::string vertical_coordinate_text(const config::TransformationDef& t) {
  const std::string src = vertical_source_coordinate(t), dst = vertical_target_coordinate(t);
  if (src.empty() && dst.empty()) return "";
  return " (coordinate " + (src.empty() ? std::string("the axis's values") : "field '" + src + "'") + " to " +
         (dst.empty() ? std::string("the axis's values") : "field '" + dst + "'") + ")";
}

Step interpolation_shape(const config::TransformationDef& t, const Component& source, const config::DomainDef& target) {
  if (source.kind != Component::Kind::domain) bad(t, "its source at this position of the grid is not a domain");
  const TargetShape shape = interpolation_target(t, target);
  Step s;
  s.target = whole_component(Component::Kind::domain, shape.ni_glo, shape.nj_glo);
  s.target.type = shape.type;
  s.target.healpix_level = shape.healpix_level;
  s.target.healpix_nested = shape.healpix_nested;
  s.map.op = Operation::remap;
  s.map.n_source = source.data_size();
  s.map.n_target = s.target.data_size();
  s.text = t.kind + " " + size_text(source) + " -> " + size_text(s.target);
  return s;
}

}  // namespace foehn::transform
