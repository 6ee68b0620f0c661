// What a grid's <domain>/<axis>/<scalar> child stands for (runs before the
// *_ref resolution of resolve.cpp).
//
// XIOS creates the child as an element of the context (CGrid::parse hands it
// to the object factory): with an id that no element of its kind has, it is
// a new element, usable by that id everywhere; with an id that one has, it is
// that element, and the child's attributes are set on it; with only a *_ref,
// it is an anonymous element inheriting from the reference. foehn does the
// same, except that a bare <axis axis_ref="a"/> stays a plain reference to
// `a` (XIOS's anonymous copy would be identical and written under the name
// of `a`).
#include "config/internal.h"
#include "config/values.h"

namespace foehn::config::detail {

namespace {

struct KindTable {
  std::string_view ref_attr;
  std::vector<Element>& elements;
  std::map<std::string, std::size_t, std::less<>> by_id;  // first definition wins (collect reported duplicates)

  KindTable(std::string_view ref, std::vector<Element>& of_kind) : ref_attr(ref), elements(of_kind) {
    for (std::size_t i = 0; i < elements.size(); ++i)
      if (const std::string* id = elements[i].get("id")) by_id.emplace(trim(*id), i);
  }
};

bool has_transformations(const Node& c) {
  for (const Node& t : c.children)
    if (is_transformation(t, c)) return true;
  return false;
}

// Attributes beyond the id and the reference.
bool has_own_attributes(const Node& c, std::string_view ref_attr) {
  for (const Attr& a : c.attrs)
    if (!a.bad && a.name != "id" && a.name != ref_attr) return true;
  return false;
}

// The child names an element defined elsewhere: its attributes are set on
// that element (as in XIOS, for every grid and field using it).
void merge_into(const Node& c, Element& existing, std::vector<ConfigWarning>& warnings) {
  for (const Attr& a : c.attrs) {
    if (a.bad || a.name == "id") continue;
    const auto it = existing.attrs.find(a.name);
    if (it != existing.attrs.end() && trim(it->second.value) != trim(a.value))
      warnings.push_back({c.where, "<" + c.name + " id='" + *existing.get("id") + "'> in a grid sets " + a.name +
                                       "='" + trim(a.value) + "' on the " + c.name + " defined at " +
                                       existing.where.str() + ", replacing '" + trim(it->second.value) +
                                       "' (from " + describe(it->second) + ") wherever it is used"});
    existing.attrs[a.name] = a;
  }
}

GridChild child(const Node& c, KindTable& table, const std::string& grid_id, std::size_t position,
                std::vector<ConfigWarning>& warnings) {
  const Attr* id = c.attr("id");
  const Attr* ref = c.attr(table.ref_attr);
  const bool transforms = has_transformations(c);
  GridChild out;
  out.ref = ref ? trim(ref->value) : std::string();
  if (id) {
    out.id = trim(id->value);
    const auto existing = table.by_id.find(out.id);
    if (existing != table.by_id.end()) {
      if (transforms)
        report(c.where, "<" + c.name + " id='" + out.id + "'> in a grid names the " + c.name + " defined at " +
                            table.elements[existing->second].where.str() +
                            "; transformations here would change it everywhere: give this " + c.name +
                            " a new id");
      else
        merge_into(c, table.elements[existing->second], warnings);
      return out;
    }
  } else if (!transforms && !has_own_attributes(c, table.ref_attr)) {
    if (!ref && c.name != "scalar")
      report(c.where, "a <" + c.name + "> in a grid needs an id (a new " + c.name + ", or one defined elsewhere) or " +
                          std::string(table.ref_attr));
    out.id = out.ref;  // a reference (empty: an anonymous scalar)
    out.reference_only = true;
    return out;
  } else {
    out.id = (out.ref.empty() ? c.name : out.ref) + "_" + grid_id + "_" + std::to_string(position);
  }
  Element e{&c, {}, c.where};
  for (const Attr& a : c.attrs)
    if (!a.bad) e.attrs[a.name] = a;
  if (!id) e.attrs["id"] = Attr{"id", out.id, c.where, "", false};
  table.by_id.emplace(out.id, table.elements.size());
  table.elements.push_back(std::move(e));
  out.defined = true;
  out.name = transforms ? GridChild::Name::own_only : id ? GridChild::Name::inherited : GridChild::Name::ref_id_if_empty;
  return out;
}

}  // namespace

GridChildren define_grid_children(RawContext& raw) {
  KindTable domains("domain_ref", raw.domains), axes("axis_ref", raw.axes), scalars("scalar_ref", raw.scalars);
  GridChildren out;
  for (const Element& grid : raw.grids) {
    if (!grid.node) continue;
    const std::string* grid_id = grid.get("id");
    std::size_t position = 0;
    for (const Node& c : grid.node->children) {
      KindTable* table = c.name == "domain" ? &domains : c.name == "axis" ? &axes : c.name == "scalar" ? &scalars : nullptr;
      if (!table) continue;
      ++position;
      out.emplace(&c, child(c, *table, grid_id ? trim(*grid_id) : std::string(), position, raw.warnings));
    }
  }
  return out;
}

}  // namespace foehn::config::detail
