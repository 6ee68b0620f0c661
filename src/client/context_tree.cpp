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

}  // namespace

config::FieldDef* Context::any_field(const std::string& id) {
  for (auto& f : def_.fields)
    if (f.id == id) return &f;
  for (auto& file : def_.files)
    for (auto& f : file.fields)
      if (f.id == id) return &f;
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
  if (kind == "variable") {
    if (has_id(def_.variables, id)) return true;
    for (const auto& file : def_.files) {
      if (has_id(file.variables, id)) return true;
      for (const auto& f : file.fields)
        if (has_id(f.variables, id)) return true;
    }
    for (const auto& f : def_.fields)
      if (has_id(f.variables, id)) return true;
    return false;
  }
  static const std::vector<std::string> groups = {"field_group",  "file_group", "axis_group",    "domain_group",
                                                  "scalar_group", "grid_group", "variable_group"};
  if (std::find(groups.begin(), groups.end(), kind) == groups.end())
    fail(FOEHN_ERR_ARGUMENT, "foehn_has_element: unknown kind '" + kind +
                                 "' (field, file, domain, axis, scalar, grid, variable, or one of their *_group)");
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
  if (has_element(child_kind, id) || has_element(child_kind + "_group", id))
    fail(FOEHN_ERR_ARGUMENT, what + ": a " + child_kind + " '" + id + "' exists already in context '" + id_ + "'");
  const config::Location where{"(added by the model)", 0, parent_kind + "[id=" + parent_id + "]/" + child_kind};
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
  if (child_kind == "file" && parent_kind == "file_group") {
    config::FileDef f;
    f.id = id;
    f.where = where;
    def_.files.push_back(f);
    return id;
  }
  if (child_kind.ends_with("_group") && parent_kind == child_kind) {
    def_.group_ids[child_kind].push_back(id);
    if (child_kind == "field_group") def_.field_group_members[id];
    return id;
  }
  fail(FOEHN_ERR_ARGUMENT, what +
                               ": foehn adds fields to a field group or a file, files to a file group and "
                               "groups to groups of their kind; other children are not supported yet "
                               "(docs/xios-compatibility.md)");
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
