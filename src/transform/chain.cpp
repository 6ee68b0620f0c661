#include "transform/chain.h"

#include <numeric>
#include <set>
#include <string_view>

#include "config/values.h"

namespace foehn::transform {

namespace {

using Kind = config::GridComponent::Kind;

const char* name_of(Kind k) { return k == Kind::domain ? "domain" : k == Kind::axis ? "axis" : "scalar"; }

// The element's ref and transformations, whatever its kind.
struct Element {
  const std::string* ref = nullptr;
  const std::vector<config::TransformationDef>* transformations = nullptr;
  config::Location where;
};

Element element(const config::ContextDef& ctx, Kind kind, const std::string& id) {
  if (kind == Kind::domain) {
    if (const auto* d = ctx.find_domain(id)) return {&d->ref, &d->transformations, d->where};
  } else if (kind == Kind::axis) {
    if (const auto* a = ctx.find_axis(id)) return {&a->ref, &a->transformations, a->where};
  } else if (const auto* s = ctx.find_scalar(id)) {
    return {&s->ref, &s->transformations, s->where};
  }
  return {};
}

// The element an id stands for once plain references are followed (an
// element with a ref and no transformation, as a grid's child
// `<axis axis_ref="a" positive="up"/>`, is that element's data: XIOS's
// inheritance).
std::string plain_root(const config::ContextDef& ctx, Kind kind, std::string id) {
  for (int hops = 0; hops < 64; ++hops) {  // a cycle of references is reported elsewhere
    const Element e = element(ctx, kind, id);
    if (!e.ref || e.ref->empty() || (e.transformations && !e.transformations->empty())) break;
    id = *e.ref;
  }
  return id;
}

Component::Kind component_kind(Kind k) {
  return k == Kind::domain ? Component::Kind::domain
         : k == Kind::axis ? Component::Kind::axis
                           : Component::Kind::scalar;
}

// interpolate_axis's coordinate fields must be fields of this context.
void check_coordinate_fields(const config::ContextDef& ctx, const config::TransformationDef& t) {
  for (const std::string& id : {vertical_source_coordinate(t), vertical_target_coordinate(t)}) {
    if (id.empty() || ctx.find_field(id)) continue;
    std::vector<std::string_view> names;
    for (const config::FieldDef& f : ctx.fields)
      if (!f.id.empty()) names.push_back(f.id);
    throw config::ConfigError(t.where, "<interpolate_axis> in <axis>: unknown coordinate field '" + id +
                                           "' (a field of this context giving the vertical coordinate at each point)" +
                                           config::detail::did_you_mean(id, names));
  }
}

}  // namespace

std::vector<config::GridComponent> grid_components(const config::ContextDef& ctx, const config::FieldDef& f) {
  std::vector<config::GridComponent> out;
  if (!f.grid_ref.empty()) {
    if (const config::GridDef* g = ctx.find_grid(f.grid_ref)) out = g->components;
    return out;
  }
  if (!f.domain_ref.empty()) out.push_back({Kind::domain, f.domain_ref, f.where});
  if (!f.axis_ref.empty()) out.push_back({Kind::axis, f.axis_ref, f.where});
  if (!f.scalar_ref.empty()) out.push_back({Kind::scalar, f.scalar_ref, f.where});
  return out;
}

bool transformed(const config::ContextDef& ctx, const config::GridComponent& c) {
  const Element e = element(ctx, c.kind, c.ref);
  return e.transformations && !e.transformations->empty();
}

std::vector<const config::TransformationDef*> chain_between(const config::ContextDef& ctx,
                                                            const config::GridComponent& source,
                                                            const config::GridComponent& target) {
  std::vector<const config::TransformationDef*> chain;
  if (source.kind == target.kind && plain_root(ctx, source.kind, source.ref) == plain_root(ctx, target.kind, target.ref))
    return chain;
  // Walk the target's references back while they carry transformations.
  std::vector<std::pair<std::string, Element>> path;  // target first
  std::set<std::string> seen;
  std::string id = target.ref;
  std::string root;  // the element the chain starts from ("": the source at this position)
  for (;;) {
    const Element e = element(ctx, target.kind, id);
    if (!e.transformations || e.transformations->empty()) {
      root = id;
      break;
    }
    if (!seen.insert(id).second)
      throw config::ConfigError(e.where, std::string(name_of(target.kind)) + " '" + id + "': cycle of references");
    path.emplace_back(id, e);
    if (e.ref->empty()) break;
    id = *e.ref;
  }
  if (path.empty())
    throw config::ConfigError(target.where, std::string(name_of(target.kind)) + " '" + target.ref +
                                                "' in the field's grid differs from " + name_of(source.kind) + " '" +
                                                source.ref +
                                                "' at the same position of its source field's grid, and has no "
                                                "transformation to make it from that one");
  if (!root.empty() && !(source.kind == target.kind &&
                          plain_root(ctx, source.kind, root) == plain_root(ctx, source.kind, source.ref)))
    throw config::ConfigError(path.back().second.where,
                              std::string(name_of(target.kind)) + " '" + path.back().first + "' transforms " +
                                  name_of(target.kind) + " '" + root + "', but the source field's grid has " +
                                  name_of(source.kind) + " '" + source.ref + "' at this position");
  // generate_rectilinear_domain describes its element (the target of an
  // interpolate_domain beside it); it is not a step of its own there.
  for (auto it = path.rbegin(); it != path.rend(); ++it) {
    bool generated = false, interpolated = false;
    const std::size_t first = chain.size();
    for (const config::TransformationDef& t : *it->second.transformations) {
      if (t.kind == "generate_rectilinear_domain") {
        generated = true;
        if (interpolated)
          throw config::ConfigError(t.where,
                                    "<generate_rectilinear_domain> must come before the <interpolate_domain> "
                                    "that fills the domain it describes");
        continue;
      }
      interpolated = interpolated || t.kind == "interpolate_domain";
      chain.push_back(&t);
    }
    // Alone, it is the interpolation (XIOS hands the source's values on
    // unchanged, whatever their shape): first of this element's steps.
    if (generated && !interpolated)
      for (const config::TransformationDef& t : *it->second.transformations)
        if (t.kind == "generate_rectilinear_domain") {
          chain.insert(chain.begin() + static_cast<std::ptrdiff_t>(first), &t);
          break;
        }
  }
  // Kinds: each transformation takes what the previous one made.
  Component::Kind kind = component_kind(source.kind);
  for (const config::TransformationDef* t : chain) {
    if (source_kind(*t) != kind)
      throw config::ConfigError(t->where, "<" + t->kind + "> in <" + t->target + "> takes a " +
                                              kind_name(source_kind(*t)) + ", but its source here is a " +
                                              kind_name(kind));
    kind = target_kind(*t);
    if (t->kind == "interpolate_axis") check_coordinate_fields(ctx, *t);
  }
  return chain;
}

std::vector<std::vector<const config::TransformationDef*>> chains_between(
    const config::ContextDef& ctx, const std::vector<config::GridComponent>& source,
    const std::vector<config::GridComponent>& target, const config::Location& where, const std::string& field) {
  if (source.size() != target.size())
    throw config::ConfigError(where, "field '" + field + "': its grid has " + std::to_string(target.size()) +
                                         " components and its source field's grid " + std::to_string(source.size()) +
                                         "; transformations match them by position");
  std::vector<std::vector<const config::TransformationDef*>> out;
  for (std::size_t p = 0; p < source.size(); ++p) out.push_back(chain_between(ctx, source[p], target[p]));
  return out;
}

Component whole_component(Component::Kind kind, std::int64_t ni_glo, std::int64_t nj_glo) {
  Component c;
  c.kind = kind;
  c.ni_glo = ni_glo;
  c.nj_glo = nj_glo;
  c.decomposed = false;
  c.owned.resize(static_cast<std::size_t>(ni_glo * nj_glo));
  std::iota(c.owned.begin(), c.owned.end(), 0);
  c.data_owner = c.owned;
  c.lon.assign(c.owned.size(), 0.0);
  c.lat.assign(c.owned.size(), 0.0);
  c.area.assign(c.owned.size(), 1.0);
  return c;
}

}  // namespace foehn::transform
