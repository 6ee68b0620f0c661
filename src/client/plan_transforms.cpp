// The spatial transformations of close of definition (part of PlanBuilder,
// plan_builder.h): a field whose grid differs from its source field's by
// transformed components gets, from this rank's points of the source grid,
// the index maps of each step (src/transform/) and the settings of the
// components they make, which the rest of close of definition then treats
// like the model's own (exchanged, assembled, packed, written).
#include <cmath>
#include <cstdint>
#include <iostream>
#include <numbers>
#include <unordered_map>

#include "client/errors.h"
#include "client/plan_builder.h"
#include "transform/chain.h"
#include "transform/interp/interpolate_axis.h"
#include "transform/interp/interpolate_domain.h"
#include "transform/interp/reduce_across_ranks.h"

namespace foehn::client {

namespace {

[[noreturn]] void config_error(const config::Location& where, const std::string& message) {
  throw config::ConfigError(where, message);
}

// The weight of each owned point of a domain in area-weighted averages:
// rectilinear blocks with bounds, the cell's area on the unit sphere; else
// cos(latitude), proportional to the area on grids of uniform spacing.
std::vector<double> area_weights(const DomainSetting& s, const std::vector<double>& lat) {
  constexpr double rad = std::numbers::pi / 180.0;
  std::vector<double> area(lat.size());
  const bool bounded = s.type == "rectilinear" && s.has_block && s.nvertex == 2 &&
                       s.bounds_lat.size() == 2 * static_cast<std::size_t>(s.layout.nj) &&
                       s.bounds_lon.size() == 2 * static_cast<std::size_t>(s.layout.ni);
  for (std::size_t k = 0; k < lat.size(); ++k) {
    if (!bounded) {
      area[k] = std::cos(lat[k] * rad);
      continue;
    }
    const auto i = static_cast<std::size_t>((s.owned[k] % s.layout.ni_glo) - s.layout.ibegin);
    const auto j = static_cast<std::size_t>((s.owned[k] / s.layout.ni_glo) - s.layout.jbegin);
    const double dlon = std::abs(s.bounds_lon[2 * i + 1] - s.bounds_lon[2 * i]) * rad;
    area[k] = dlon * std::abs(std::sin(s.bounds_lat[2 * j + 1] * rad) - std::sin(s.bounds_lat[2 * j] * rad));
  }
  return area;
}

// Whether the grid's components other than position p hold the same points
// on every model rank (a reduction across ranks sends values carrying
// their layout). Collective over comm.
transform::interp::OtherComponents other_components(const std::vector<transform::Component>& now, std::size_t p,
                                                    MPI_Comm comm) {
  transform::interp::OtherComponents out;
  std::uint64_t hash = 1469598103934665603ull;  // FNV-1a over the other components' points
  const auto mix = [&hash](std::uint64_t v) { hash = (hash ^ v) * 1099511628211ull; };
  for (std::size_t q = 0; q < now.size(); ++q) {
    if (q == p) continue;
    out.has_domain = out.has_domain || now[q].kind == transform::Component::Kind::domain;
    mix(static_cast<std::uint64_t>(now[q].kind));
    mix(now[q].owned.size());
    for (std::int64_t g : now[q].owned) mix(static_cast<std::uint64_t>(g));
    for (std::int64_t d : now[q].data_owner) mix(static_cast<std::uint64_t>(d));
  }
  std::uint64_t lowest = hash, highest = hash;
  MPI_Allreduce(MPI_IN_PLACE, &lowest, 1, MPI_UINT64_T, MPI_MIN, comm);
  MPI_Allreduce(MPI_IN_PLACE, &highest, 1, MPI_UINT64_T, MPI_MAX, comm);
  out.same_on_every_rank = lowest == highest;
  return out;
}

}  // namespace

transform::Component PlanBuilder::source_component(const config::GridComponent& c) {
  transform::Component out;
  if (c.kind == config::GridComponent::Kind::scalar) {
    out.kind = transform::Component::Kind::scalar;
    out.owned = {0};
    out.data_owner = {0};
    out.lon = out.lat = {0.0};
    out.decomposed = false;
    return out;
  }
  if (c.kind == config::GridComponent::Kind::axis) {
    const config::AxisDef* a = def_.find_axis(c.ref);
    if (!a) config_error(c.where, "unknown axis '" + c.ref + "'");
    AxisSetting& s = axes_[c.ref];
    out.kind = transform::Component::Kind::axis;
    out.decomposed = s.decomposed;
    const std::int64_t n_glo = s.decomposed               ? s.n_glo
                               : (a->n_glo && !s.derived) ? *a->n_glo
                                                          : static_cast<std::int64_t>(s.values.size());
    if (n_glo <= 0)
      config_error(a->where, "axis '" + c.ref + "' has no values: give value= (or n_glo=) or call foehn_set_axis");
    out.ni_glo = n_glo;
    if (s.decomposed) {
      out.owned = s.index;
    } else {
      out.owned.resize(static_cast<std::size_t>(n_glo));
      for (std::int64_t k = 0; k < n_glo; ++k) out.owned[static_cast<std::size_t>(k)] = k;
    }
    // Values: the model's (its part, or the whole axis), else the XML's.
    if (!s.values.empty())
      out.lon = s.values;
    else if (!s.decomposed && static_cast<std::int64_t>(a->value.size()) == n_glo)
      out.lon = a->value;
    else
      out.lon.assign(out.owned.size(), std::nan(""));
    out.lat.assign(out.owned.size(), 0.0);
    // Bounds, like the values: the model's, else the XML's whole axis.
    if (!s.bounds.empty())
      out.bounds_lon = s.bounds;
    else if (!s.decomposed && static_cast<std::int64_t>(a->bounds.size()) == 2 * n_glo && !s.derived)
      out.bounds_lon = a->bounds;
    out.nvertex = out.bounds_lon.empty() ? 0 : 2;
    out.data_owner.resize(out.owned.size());
    for (std::size_t k = 0; k < out.owned.size(); ++k) out.data_owner[k] = static_cast<std::int64_t>(k);
    return out;
  }
  const config::DomainDef* d = def_.find_domain(c.ref);
  if (!d) config_error(c.where, "unknown domain '" + c.ref + "'");
  if (!domains_.count(c.ref))
    config_error(c.where, "domain '" + c.ref + "' is the source of a transformation but the model never described it");
  DomainSetting& s = domains_.at(c.ref);
  resolve_domain(c.ref, *d, s);
  out.kind = transform::Component::Kind::domain;
  out.type = s.type;
  out.ni_glo = s.layout.ni_glo;
  out.nj_glo = s.layout.nj_glo;
  out.healpix_level = s.healpix_level;
  out.healpix_nested = s.healpix_nested;
  out.owned = s.owned;
  const bool per_line = s.type == "rectilinear" && s.has_block;
  out.lon.resize(s.owned.size());
  out.lat.resize(s.owned.size());
  for (std::size_t k = 0; k < s.owned.size(); ++k) {
    const std::int64_t g = s.owned[k];
    out.lon[k] = per_line ? s.lon[static_cast<std::size_t>(g % out.ni_glo - s.layout.ibegin)] : s.lon[k];
    out.lat[k] = per_line ? s.lat[static_cast<std::size_t>(g / out.ni_glo - s.layout.jbegin)] : s.lat[k];
  }
  // Bounds per owned point (a rectilinear block gives them per column and row).
  if (s.nvertex > 0 && !s.bounds_lon.empty()) {
    const auto nv = static_cast<std::size_t>(s.nvertex);
    out.nvertex = s.nvertex;
    out.bounds_lon.resize(s.owned.size() * nv);
    out.bounds_lat.resize(s.owned.size() * nv);
    for (std::size_t k = 0; k < s.owned.size(); ++k) {
      const std::int64_t g = s.owned[k];
      const std::size_t at_lon = per_line ? static_cast<std::size_t>(g % out.ni_glo - s.layout.ibegin) : k;
      const std::size_t at_lat = per_line ? static_cast<std::size_t>(g / out.ni_glo - s.layout.jbegin) : k;
      for (std::size_t v = 0; v < nv; ++v) {
        out.bounds_lon[k * nv + v] = s.bounds_lon[at_lon * nv + v];
        out.bounds_lat[k * nv + v] = s.bounds_lat[at_lat * nv + v];
      }
    }
  }
  std::unordered_map<std::int64_t, std::int64_t> position;
  for (std::size_t k = 0; k < s.owned.size(); ++k) position.emplace(s.owned[k], static_cast<std::int64_t>(k));
  out.data_owner.resize(s.data.size());
  for (std::size_t p = 0; p < s.data.size(); ++p) out.data_owner[p] = s.data[p] < 0 ? -1 : position.at(s.data[p]);
  out.area = area_weights(s, out.lat);
  return out;
}

// XIOS recomputes a transformation's result from its source, resetting the
// sizes, indices, coordinates and masks the model set on it (its extract and
// zoom algorithms do so): foehn does the same, and says so once (first rank).
bool PlanBuilder::inherit_domain_setting(const std::string& id) {
  // As XIOS's inheritance at close of definition (the axes: plan_axis).
  const config::DomainDef* d = def_.find_domain(id);
  for (int hops = 0; d && d->transformations.empty() && !d->ref.empty() && hops < 1000; ++hops) {
    if (auto f = domains_.find(d->ref); f != domains_.end()) {
      DomainSetting copy = f->second;
      domains_[id] = std::move(copy);
      return true;
    }
    d = def_.find_domain(d->ref);
  }
  return false;
}

void PlanBuilder::ignore_model_setting(const config::GridComponent& c, const std::string& what) const {
  int rank = 0;
  if (placement_.comm != MPI_COMM_NULL) MPI_Comm_rank(placement_.comm, &rank);
  if (rank == 0)
    std::cerr << "foehn: warning: " << c.where.str() << ": " << what
              << " is made by a transformation: what the model set on it is ignored (as XIOS ignores it)\n";
}

// The settings of a component a transformation made, as if the model had
// described it: a block when the source was one and the points make a
// block, else an index list; masked where the source is.
void PlanBuilder::store_target(const config::GridComponent& c, const transform::Component& t, bool block_source) {
  const std::string what = std::string(transform::kind_name(t.kind)) + " '" + c.ref + "'";
  if (t.kind == transform::Component::Kind::scalar) {  // one value; an extracted level keeps its coordinate
    if (!t.lon.empty() && !std::isnan(t.lon[0]) && !settings_.scalars.count(c.ref))
      settings_.scalars[c.ref].value = t.lon[0];
    return;
  }
  if (t.kind == transform::Component::Kind::axis) {
    auto [it, fresh] = axes_.try_emplace(c.ref);
    AxisSetting& s = it->second;
    if (!fresh && !s.derived && (!s.values.empty() || s.decomposed)) ignore_model_setting(c, what);
    if (s.derived) {  // made already for another field: the same points, or two meanings for one id
      if (s.n_glo != t.ni_glo || (t.decomposed && s.index != t.owned))
        config_error(c.where, what + " is made by transformations from two different sources (give each its own id)");
      return;
    }
    s = AxisSetting{};
    s.derived = true;
    s.n_glo = t.ni_glo;
    s.decomposed = t.decomposed;
    if (t.decomposed) s.index = t.owned;
    s.values = t.lon;
    if (t.nvertex == 2) s.bounds = t.bounds_lon;
    s.axis_type = t.axis_type;
    if (const config::AxisDef* a = def_.find_axis(c.ref); a && a->unit.empty()) s.units = t.units;
    return;
  }
  if (auto it = domains_.find(c.ref); it != domains_.end() && !derived_from_.count(c.ref)) {
    ignore_model_setting(c, what);
    domains_.erase(it);
  }
  if (derived_from_.count(c.ref)) {
    const DomainSetting& made = domains_.at(c.ref);
    if (made.layout.ni_glo != t.ni_glo || made.layout.nj_glo != t.nj_glo || made.owned.size() != t.owned.size())
      config_error(c.where, what + " is made by transformations from two different sources (give each its own id)");
    return;
  }
  derived_from_[c.ref] = "transformed";
  DomainSetting s;
  s.type = t.type;
  s.healpix_level = t.healpix_level;
  s.healpix_nested = t.healpix_nested;
  s.ni_glo = s.layout.ni_glo = t.ni_glo;
  s.nj_glo = s.layout.nj_glo = t.nj_glo;
  const grid::Extent e = grid::extent_of(t.owned, t.ni_glo);
  bool as_block = block_source && static_cast<std::int64_t>(t.owned.size()) == e.size();
  for (std::size_t k = 0; as_block && k < t.owned.size(); ++k)  // row by row, i fastest
    as_block = t.owned[k] == (e.jbegin + static_cast<std::int64_t>(k) / std::max<std::int64_t>(e.ni, 1)) * t.ni_glo +
                                 e.ibegin + static_cast<std::int64_t>(k) % std::max<std::int64_t>(e.ni, 1);
  bool masked = false;
  for (std::int64_t d : t.data_owner) masked = masked || d < 0;
  if (masked) {
    s.layout.mask.resize(t.owned.size());
    for (std::size_t k = 0; k < t.owned.size(); ++k) s.layout.mask[k] = t.data_owner[k] < 0 ? 0 : 1;
  }
  if (as_block) {
    s.has_block = true;
    s.block = {e.ibegin, e.ni, e.jbegin, e.nj};
    s.layout.ibegin = e.ibegin, s.layout.ni = e.ni, s.layout.jbegin = e.jbegin, s.layout.nj = e.nj;
    if (s.type == "rectilinear") {  // a longitude (and its bounds) per column, a latitude per row
      const auto nv = static_cast<std::size_t>(t.nvertex);
      for (std::int64_t i = 0; i < e.ni; ++i) {
        const auto k = static_cast<std::size_t>(i);
        s.lon.push_back(t.lon[k]);
        s.bounds_lon.insert(s.bounds_lon.end(), t.bounds_lon.begin() + k * nv, t.bounds_lon.begin() + (k + 1) * nv);
      }
      for (std::int64_t j = 0; j < e.nj; ++j) {
        const auto k = static_cast<std::size_t>(j * e.ni);
        s.lat.push_back(t.lat[k]);
        s.bounds_lat.insert(s.bounds_lat.end(), t.bounds_lat.begin() + k * nv, t.bounds_lat.begin() + (k + 1) * nv);
      }
    } else {
      s.lon = t.lon, s.lat = t.lat;
      s.bounds_lon = t.bounds_lon, s.bounds_lat = t.bounds_lat;
    }
  } else {
    s.has_index = true;
    s.layout.by_index = true;
    for (std::int64_t g : t.owned) {
      s.layout.i_index.push_back(g % t.ni_glo);
      s.layout.j_index.push_back(g / t.ni_glo);
    }
    s.lon = t.lon, s.lat = t.lat;
    s.bounds_lon = t.bounds_lon, s.bounds_lat = t.bounds_lat;
  }
  s.nvertex = t.bounds_lon.empty() ? 0 : t.nvertex;
  domains_[c.ref] = std::move(s);
}

PlanBuilder::Transformations PlanBuilder::plan_transformations(const config::FieldDef& f, const std::string& source) {
  Transformations out;
  const config::FieldDef* src = def_.find_field(source);
  if (!src || src == &f || f.field_ref.empty()) return out;
  const std::vector<config::GridComponent> target = transform::grid_components(def_, f);
  const std::vector<config::GridComponent> origin = transform::grid_components(def_, *src);
  bool any = false;
  for (std::size_t p = 0; p < target.size(); ++p)
    any = any || ((p >= origin.size() || target[p].ref != origin[p].ref) && transform::transformed(def_, target[p]));
  if (!any) return out;
  const auto chains = transform::chains_between(def_, origin, target, f.where, f.id.empty() ? source : f.id);
  out.origin = origin;
  out.target = target;
  std::vector<transform::Component> now;
  std::vector<bool> block;  // a domain held as a block (targets of a zoom stay blocks)
  for (const config::GridComponent& c : origin) {
    now.push_back(source_component(c));
    block.push_back(c.kind == config::GridComponent::Kind::domain && !domains_.at(c.ref).layout.by_index);
  }
  std::string key = source;  // the source field, its grid and the steps so far
  for (const config::GridComponent& c : origin) key += "|" + c.ref;
  for (std::size_t p = 0; p < origin.size(); ++p) {
    if (chains[p].empty()) continue;
    for (std::size_t k = 0; k < chains[p].size(); ++k) {
      const config::TransformationDef* t = chains[p][k];
      key += "|" + std::to_string(p) + ":" + std::to_string(reinterpret_cast<std::uintptr_t>(t));
      if (auto built = built_steps_.find(key); built != built_steps_.end()) {
        if (transform::is_domain_interpolation(*t)) block[p] = true;
        out.texts.push_back(built->second.text);
        out.defs.push_back(t);
        out.maps.push_back(built->second.map);
        now[p] = built->second.target;
        continue;
      }
      transform::Step step;
      if (transform::is_domain_interpolation(*t)) {  // collective: every rank builds the same ones in the same order
        const auto shared = std::make_pair(t, origin[p].ref + "#" + std::to_string(k));
        auto it = interpolations_.find(shared);
        if (it == interpolations_.end()) {
          const config::DomainDef* owner = transform::owner_domain(def_, *t);
          if (!owner) config_error(t->where, "<" + t->kind + "> outside a domain");
          it = interpolations_.emplace(shared, transform::interp::build_interpolation(*t, *owner, now[p], placement_.comm))
                   .first;
        }
        step = it->second;
        block[p] = true;  // whole rows of the target per rank
      } else if (t->kind == "interpolate_axis") {
        const config::AxisDef* owner = transform::owner_axis(def_, *t);
        if (!owner) config_error(t->where, "<interpolate_axis> outside an axis");
        step = transform::interp::build_vertical(*t, *owner, now[p]);
      } else if (placement_.comm != MPI_COMM_NULL &&
                 (transform::reduction_targets(*t, now[p]) || transform::interp::across_ranks(*t))) {
        // collective, like interpolations: points of a target split between ranks are gathered on one
        step = transform::interp::build_reduction(*t, now[p], other_components(now, p, placement_.comm),
                                                  placement_.comm, f.output_name().empty() ? source : f.output_name());
      } else {
        step = transform::build_step(*t, now[p], transform::owner_axis(def_, *t));
      }
      std::size_t inner = 1, outer = 1;
      for (std::size_t q = 0; q < p; ++q) inner *= now[q].data_size();
      for (std::size_t q = p + 1; q < now.size(); ++q) outer *= now[q].data_size();
      step.map.inner = inner;
      step.map.outer = outer;
      step.map.prepare();
      out.texts.push_back(step.text);
      out.defs.push_back(t);
      out.maps.push_back(std::make_shared<const transform::Transform>(std::move(step.map)));
      now[p] = std::move(step.target);
      built_steps_.emplace(key, BuiltStep{now[p], out.maps.back(), out.texts.back()});
    }
    store_target(target[p], now[p], block[p]);
  }
  return out;
}

int PlanBuilder::add_transform_step(const Transformations& tr, std::size_t k, int input) {
  const auto& map = tr.maps[k];
  if (!map->needs_coordinates()) return graph_.add_transform(input, map);
  const int source = map->coordinate_source.empty() ? -1 : coordinate_node(tr, k, true);
  const int target = map->coordinate_target.empty() ? -1 : coordinate_node(tr, k, false);
  return graph_.add_transform(input, map, source, target);
}

// The node giving a coordinate field's values in the layout of step k's
// source (coordinate/coordinate_src: a field on the source field's grid,
// taken through the steps before k as the field is) or target
// (coordinate_dst: a field on the field's own grid, k the last step).
int PlanBuilder::coordinate_node(const Transformations& tr, std::size_t k, bool source_side) {
  const transform::Transform& map = *tr.maps[k];
  const config::TransformationDef& t = *tr.defs[k];
  const std::string& id = source_side ? map.coordinate_source : map.coordinate_target;
  const std::string attr =
      source_side ? (t.attr("coordinate_src") ? "coordinate_src" : "coordinate") : "coordinate_dst";
  const config::FieldDef* def = def_.find_field(id);
  if (!def) config_error(t.where, "<interpolate_axis>: unknown coordinate field '" + id + "'");
  const std::vector<config::GridComponent> grid = transform::grid_components(def_, *def);
  const std::vector<config::GridComponent>& want = source_side ? tr.origin : tr.target;
  // The target side may have its own axis of the target's size where the
  // field's grid has the interpolated one.
  bool same = grid.size() == want.size() && (source_side || k + 1 == tr.maps.size());
  for (std::size_t q = 0; same && q < grid.size(); ++q)
    same = grid[q].kind == want[q].kind &&
           (grid[q].ref == want[q].ref || (!source_side && tr.origin[q].ref != tr.target[q].ref));
  if (!same)
    config_error(t.where,
                 "<interpolate_axis>: " + attr + "=\"" + id + "\" must be on the grid of the " +
                     (source_side ? "interpolated field's source field (the same domain and axes in the same order)"
                                  : "interpolated field (the same domain and axes in the same order, any axis of "
                                    "the target's size in place of the interpolated one), with interpolate_axis "
                                    "the last transformation"));
  std::vector<std::string> path{"<interpolate_axis>"};  // for cycles through expressions
  int node = node_for_field(id, t.where, path);
  if (source_side)
    for (std::size_t q = 0; q < k; ++q) {  // the steps before this one, as the field takes them
      if (tr.maps[q]->needs_coordinates())
        config_error(t.where,
                     "<interpolate_axis>: a chain with two interpolations on coordinate fields is not supported");
      node = graph_.add_transform(node, tr.maps[q]);
    }
  const std::size_t have = graph_.node(node).values.size();
  const std::size_t need = source_side ? map.input_size() : map.output_size();
  if (have != need)
    config_error(t.where, "<interpolate_axis>: " + attr + "=\"" + id + "\" holds " + std::to_string(have) +
                              " values on this rank where the interpolation needs " + std::to_string(need));
  return node;
}

}  // namespace foehn::client
