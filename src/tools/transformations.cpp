#include "tools/transformations.h"

#include "transform/build.h"
#include "transform/chain.h"

namespace foehn::tools {

namespace {

// The field the model writes: the end of the field_ref chain (an
// expression or a field without field_ref ends it).
const config::FieldDef* root_source(const config::ContextDef& ctx, const config::FieldDef& f) {
  if (f.field_ref.empty() || !f.expression.empty()) return nullptr;
  const config::FieldDef* src = ctx.find_field(f.field_ref);
  for (int hops = 0; src && hops < 1000 && src->expression.empty() && !src->field_ref.empty(); ++hops)
    src = ctx.find_field(src->field_ref);
  return src;
}

using Chains = std::vector<std::vector<const config::TransformationDef*>>;

// The source's components and the chains, or false when the field's grid
// is not made by transformations (the plan builder's rule).
bool chains_of(const config::ContextDef& ctx, const config::FieldDef& f, std::vector<config::GridComponent>& origin,
               Chains& chains) {
  const config::FieldDef* src = root_source(ctx, f);
  if (!src) return false;
  const auto target = transform::grid_components(ctx, f);
  origin = transform::grid_components(ctx, *src);
  bool any = false;
  for (std::size_t p = 0; p < target.size(); ++p)
    any = any || ((p >= origin.size() || target[p].ref != origin[p].ref) && transform::transformed(ctx, target[p]));
  if (!any) return false;
  chains = transform::chains_between(ctx, origin, target, f.where, f.output_name());
  return true;
}

}  // namespace

bool check_field_chains(const config::ContextDef& ctx, const config::FieldDef& f) {
  std::vector<config::GridComponent> origin;
  Chains chains;
  return chains_of(ctx, f, origin, chains);
}

FieldTransformations field_transformations(const config::ContextDef& ctx, const config::FieldDef& f,
                                           const ComponentSize& size) {
  FieldTransformations out;
  std::vector<config::GridComponent> origin;
  Chains chains;
  if (!chains_of(ctx, f, origin, chains)) return out;
  out.any = true;
  using Kind = config::GridComponent::Kind;
  for (std::size_t p = 0; p < origin.size(); ++p) {
    const auto [ni, nj] = size(origin[p]);
    const auto kind = origin[p].kind == Kind::domain ? transform::Component::Kind::domain
                      : origin[p].kind == Kind::axis ? transform::Component::Kind::axis
                                                     : transform::Component::Kind::scalar;
    transform::Component c = transform::whole_component(kind, ni, nj);
    for (const config::TransformationDef* t : chains[p]) {
      const config::DomainDef* owner = transform::is_domain_interpolation(*t) ? transform::owner_domain(ctx, *t) : nullptr;
      const config::AxisDef* axis = t->kind == "interpolate_axis" ? transform::owner_axis(ctx, *t) : nullptr;
      transform::Step step = owner  ? transform::interpolation_shape(*t, c, *owner)
                             : axis ? transform::vertical_shape(*t, c, *axis)
                                    : transform::build_step(*t, c, transform::owner_axis(ctx, *t));
      out.steps.push_back(step.text);
      c = std::move(step.target);
    }
    out.points *= static_cast<std::int64_t>(c.owned.size());
  }
  return out;
}

}  // namespace foehn::tools
