// The definition tree from code, for the XIOS-style API (xios_get_handle,
// xios_is_valid_*, xios_add_child): whether an element or a group exists,
// and new children appended to the resolved definitions before close of
// definition, as if the XML had held them. Their attributes then come
// through set_attribute (context_attributes.cpp).
#include <algorithm>
#include <string>

#include "client/context.h"
#include "client/errors.h"

namespace foehn::client {

namespace {

template <typename T>
bool has_id(const std::vector<T>& items, const std::string& id) {
  return std::any_of(items.begin(), items.end(), [&](const T& x) { return x.id == id; });
}

// "field_group" -> "field_definition": XIOS names each definition root as a
// group of its kind.
std::string root_of(const std::string& group_kind) {
  return group_kind.substr(0, group_kind.size() - std::string("_group").size()) + "_definition";
}

// XIOS's transformation classes (its handle types, xios_zoom_domain, ...)
// and the element foehn's XML names each by, inside which element.
struct TransformationClass {
  std::string_view name, element, target;
};
constexpr TransformationClass kTransformations[] = {
    {"zoom_domain", "zoom_domain", "domain"},
    {"extract_domain", "extract_domain", "domain"},
    {"interpolate_domain", "interpolate_domain", "domain"},
    {"generate_rectilinear_domain", "generate_rectilinear_domain", "domain"},
    {"zoom_axis", "zoom_axis", "axis"},
    {"extract_axis", "extract_axis", "axis"},
    {"inverse_axis", "inverse_axis", "axis"},
    {"interpolate_axis", "interpolate_axis", "axis"},
    {"reduce_domain_to_axis", "reduce_domain", "axis"},
    {"extract_domain_to_axis", "extract_domain", "axis"},
    {"reduce_axis_to_scalar", "reduce_axis", "scalar"},
    {"reduce_domain_to_scalar", "reduce_domain", "scalar"},
    {"extract_axis_to_scalar", "extract_axis", "scalar"},
    {"reorder_domain", "reorder_domain", "domain"},
    {"expand_domain", "expand_domain", "domain"},
    {"reduce_axis_to_axis", "reduce_axis", "axis"},
    {"duplicate_scalar_to_axis", "duplicate_scalar", "axis"},
    {"temporal_splitting", "temporal_splitting", "axis"},
    {"reduce_scalar_to_scalar", "reduce_scalar", "scalar"},
};

const TransformationClass* transformation_class(const std::string& kind) {
  for (const auto& t : kTransformations)
    if (t.name == kind) return &t;
  return nullptr;
}

}  // namespace

bool is_transformation_class(const std::string& kind) { return transformation_class(kind) != nullptr; }

config::TransformationDef* Context::transformation(const std::string& kind, const std::string& id) {
  const TransformationClass* c = transformation_class(kind);
  if (!c) return nullptr;
  auto search = [&](auto& items) -> config::TransformationDef* {
    for (auto& x : items)
      for (auto& t : x.transformations)
        if (t.kind == c->element && t.target == c->target)
          if (const std::string* own = t.attr("id"); own && *own == id) return &t;
    return nullptr;
  };
  return c->target == "domain" ? search(def_.domains) : c->target == "axis" ? search(def_.axes) : search(def_.scalars);
}

config::FieldDef* Context::any_field(const std::string& id) {
  for (auto& f : def_.fields)
    if (f.id == id) return &f;
  for (auto& file : def_.files)
    for (auto& f : file.fields)
      if (f.id == id) return &f;
  return nullptr;
}

config::Variable* Context::any_variable(const std::string& id) {
  auto in = [&](std::vector<config::Variable>& vars) -> config::Variable* {
    for (auto& v : vars)
      if (v.id == id) return &v;
    return nullptr;
  };
  if (config::Variable* v = in(def_.variables)) return v;
  for (auto& file : def_.files) {
    if (config::Variable* v = in(file.variables)) return v;
    for (auto& f : file.fields)
      if (config::Variable* v = in(f.variables)) return v;
  }
  for (auto& f : def_.fields)
    if (config::Variable* v = in(f.variables)) return v;
  return nullptr;
}

bool Context::has_element(const std::string& kind, const std::string& id) {
  check_open("foehn_has_element");
  if (kind == "field") return any_field(id) != nullptr;
  if (kind == "file") return has_id(def_.files, id);
  if (kind == "domain") return has_id(def_.domains, id);
  if (kind == "axis") return has_id(def_.axes, id);
  if (kind == "scalar") return has_id(def_.scalars, id);
  if (kind == "grid") return has_id(def_.grids, id);
  if (transformation_class(kind)) return transformation(kind, id) != nullptr;
  if (kind == "variable") return any_variable(id) != nullptr;
  static const std::vector<std::string> groups = {"field_group",  "file_group", "axis_group",    "domain_group",
                                                  "scalar_group", "grid_group", "variable_group"};
  if (std::find(groups.begin(), groups.end(), kind) == groups.end())
    fail(FOEHN_ERR_ARGUMENT, "foehn_has_element: unknown kind '" + kind +
                                 "' (field, file, domain, axis, scalar, grid, variable, one of their *_group, or a "
                                 "transformation: zoom_domain, reduce_domain_to_axis, ...)");
  if (id == root_of(kind)) return true;
  const auto it = def_.group_ids.find(kind);
  return it != def_.group_ids.end() && std::find(it->second.begin(), it->second.end(), id) != it->second.end();
}

std::string Context::add_child(const std::string& parent_kind, const std::string& parent_id,
                               const std::string& child_kind, const std::string& child_id) {
  check_open("foehn_add_child");
  const std::string what = "foehn_add_child: " + child_kind + (child_id.empty() ? "" : " '" + child_id + "'") + " in " +
                           parent_kind + " '" + parent_id + "'";
  if (closed_definition_) fail(FOEHN_ERR_STATE, what + ": context '" + id_ + "' is already defined");
  if (!has_element(parent_kind, parent_id))
    fail(FOEHN_ERR_ARGUMENT, what + ": no " + parent_kind + " '" + parent_id + "' in context '" + id_ + "'");
  // An anonymous child gets an id of its own, so that its handle can name it.
  const std::string id =
      child_id.empty() ? "foehn_" + child_kind + "_" + std::to_string(++anonymous_children_) : child_id;
  const config::Location where{"(added by the model)", 0, parent_kind + "[id=" + parent_id + "]/" + child_kind};
  if (parent_kind == "grid" && (child_kind == "domain" || child_kind == "axis" || child_kind == "scalar")) {
    using Kind = config::GridComponent::Kind;
    const Kind kind = child_kind == "domain" ? Kind::domain : child_kind == "axis" ? Kind::axis : Kind::scalar;
    auto grid = std::find_if(def_.grids.begin(), def_.grids.end(), [&](const auto& g) { return g.id == parent_id; });
    // A child named after an existing element refers to it (as <domain id="d"/>
    // in a grid's XML); any other takes the element its *_ref names, set next.
    const bool existing = has_element(child_kind, id);
    grid->components.push_back(config::GridComponent{kind, existing ? id : "", where});
    if (!existing) grid_children_[child_kind + " " + id] = {parent_id, grid->components.size() - 1};
    return id;
  }
  if (has_element(child_kind, id) || (!transformation_class(child_kind) && has_element(child_kind + "_group", id)))
    fail(FOEHN_ERR_ARGUMENT, what + ": a " + child_kind + " '" + id + "' exists already in context '" + id_ + "'");
  if (child_kind == "grid" && parent_kind == "grid_group") {
    config::GridDef g;
    g.id = id;
    g.where = where;
    def_.grids.push_back(g);
    return id;
  }
  if (child_kind == "field" && parent_kind == "field_group") {
    config::FieldDef f;
    f.id = id;
    f.where = where;
    def_.fields.push_back(f);
    if (parent_id != root_of(parent_kind)) def_.field_group_members[parent_id].push_back(id);
    return id;
  }
  if (child_kind == "field" && parent_kind == "file") {
    config::FieldDef f;
    f.id = id;
    f.where = where;
    std::find_if(def_.files.begin(), def_.files.end(), [&](const auto& x) {
      return x.id == parent_id;
    })->fields.push_back(f);
    return id;
  }
  if (child_kind == "variable" && (parent_kind == "file" || parent_kind == "field")) {
    // XIOS writes a file's <variable> as a global attribute and a field's as
    // an attribute of the field's variable; name, type and value come next
    // (xios_set_attr(var_hdl, name=..., type=...), xios_setvar(id, value)).
    config::Variable v;
    v.id = id;
    v.type = "string";
    v.where = where;
    if (parent_kind == "field")
      any_field(parent_id)->variables.push_back(v);
    else
      std::find_if(def_.files.begin(), def_.files.end(), [&](const auto& x) {
        return x.id == parent_id;
      })->variables.push_back(v);
    return id;
  }
  if (child_kind == "file" && parent_kind == "file_group") {
    config::FileDef f;
    f.id = id;
    f.where = where;
    def_.files.push_back(f);
    return id;
  }
  if (const TransformationClass* t = transformation_class(child_kind)) {
    // XIOS's <domain id="d" domain_ref="src"><zoom_domain/></domain>: the
    // transformation turns the parent's source into the parent.
    if (parent_kind != t->target)
      fail(FOEHN_ERR_ARGUMENT, what + ": a " + child_kind + " goes into a " + std::string(t->target));
    config::TransformationDef def;
    def.kind = t->element;
    def.target = t->target;
    def.attrs.emplace("id", id);
    def.where = where;
    auto append = [&](auto& items) {
      for (auto& x : items)
        if (x.id == parent_id) x.transformations.push_back(def);
    };
    if (parent_kind == "domain") append(def_.domains);
    if (parent_kind == "axis") append(def_.axes);
    if (parent_kind == "scalar") append(def_.scalars);
    return id;
  }
  if (child_kind.ends_with("_group") && parent_kind == child_kind) {
    def_.group_ids[child_kind].push_back(id);
    if (child_kind == "field_group") def_.field_group_members[id];
    return id;
  }
  fail(FOEHN_ERR_ARGUMENT, what +
                               ": foehn adds fields to a field group or a file, variables to a file or a "
                               "field, files to a file group and groups to groups of their kind, "
                               "transformations to domains, axes and scalars; other children are not "
                               "supported yet (docs/xios-compatibility.md)");
}

bool Context::set_grid_child_ref(const std::string& kind, const std::string& id, const std::string& ref,
                                 const std::string& what) {
  const auto child = grid_children_.find(kind + " " + id);
  if (child == grid_children_.end()) return false;
  if (!has_element(kind, ref))
    fail(FOEHN_ERR_ARGUMENT, what + ": no " + kind + " '" + ref + "' in context '" + id_ + "'");
  for (auto& g : def_.grids)
    if (g.id == child->second.first) g.components[child->second.second].ref = ref;
  return true;
}

void Context::check_grid_children() const {
  for (const auto& [child, place] : grid_children_)
    for (const auto& g : def_.grids)
      if (g.id == place.first && g.components[place.second].ref.empty()) {
        const std::string kind = child.substr(0, child.find(' '));
        fail(FOEHN_ERR_ARGUMENT, "foehn_close_definition: the " + kind + " '" + child.substr(kind.size() + 1) +
                                     "' added to grid '" + g.id + "' names no " + kind + " (set its " + kind +
                                     "_ref, e.g. xios_set_attr(" + kind + "_hdl, " + kind + "_ref=...))");
      }
}

std::string Context::field_component(const std::string& field_id, const std::string& kind, int index) {
  check_open("foehn_field_component");
  const std::string what = "foehn_field_component: field '" + field_id + "'";
  const config::FieldDef* f = any_field(field_id);
  if (!f) fail(FOEHN_ERR_ARGUMENT, what + ": no such field in context '" + id_ + "'");
  using Kind = config::GridComponent::Kind;
  const Kind wanted = kind == "domain" ? Kind::domain : kind == "axis" ? Kind::axis : Kind::scalar;
  if (kind != "domain" && kind != "axis" && kind != "scalar")
    fail(FOEHN_ERR_ARGUMENT, what + ": unknown kind '" + kind + "' (domain, axis or scalar)");
  std::vector<std::string> ids;
  if (const config::GridDef* g = f->grid_ref.empty() ? nullptr : def_.find_grid(f->grid_ref)) {
    for (const auto& c : g->components)
      if (c.kind == wanted) ids.push_back(c.ref);
  } else {
    const std::string& ref = wanted == Kind::domain ? f->domain_ref
                             : wanted == Kind::axis ? f->axis_ref
                                                    : f->scalar_ref;
    if (!ref.empty()) ids.push_back(ref);
  }
  if (index < 0 || index >= static_cast<int>(ids.size()))
    fail(FOEHN_ERR_ARGUMENT, what + " has " + std::to_string(ids.size()) + " " + kind + "(s); index " +
                                 std::to_string(index) + " is out of range");
  return ids[static_cast<std::size_t>(index)];
}

}  // namespace foehn::client
