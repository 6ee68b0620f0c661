// Where each resolved attribute came from (AttributeOrigins on the structs
// of config.h), and the warnings about attributes that hide others.
//
// Attr::via is filled as attributes travel: collect.cpp labels what a group
// passes down ("<field_group id='g'>"), include() in xml_tree.cpp marks an
// included root's attributes, and inherit_from_target() below labels what a
// *_ref target passes on ("field_ref 't'", chained with " <- ").
#include "config/internal.h"
#include "config/values.h"

namespace foehn::config {

std::string ConfigWarning::str() const { return where.str() + ": warning: " + message; }

namespace detail {

namespace {

std::string via_text(const Attr& a) {
  if (!a.included) return a.via;
  return a.via.empty() ? "root of included file" : a.via + " (root of included file)";
}

// Whether the target's value was set for it (on itself or along its own
// reference chain), not just passed down by one of its groups: a group
// default hidden by another group's value is no surprise.
bool set_for_target(const Attr& a) {
  const auto last = a.via.rfind(" <- ");
  const std::string_view origin =
      last == std::string::npos ? std::string_view(a.via) : std::string_view(a.via).substr(last + 4);
  return origin.empty() || origin.front() != '<';
}

std::string label(const Element& e, std::string_view ref_attr) {
  const std::string kind = e.node ? e.node->name : "field";
  if (const std::string* id = e.get("id")) return kind + " '" + trim(*id) + "'";
  const std::string* ref = e.get(ref_attr);
  return "<" + kind + " " + std::string(ref_attr) + "='" + (ref ? trim(*ref) : std::string()) + "'>";
}

}  // namespace

SharedLocation LocationTable::share(const Location& where) {
  auto [it, fresh] = places_.try_emplace(where.file + '\n' + std::to_string(where.line) + '\n' + where.path);
  if (fresh) it->second = where;
  return it->second;
}

AttributeOrigins origins_of(const Element& e, LocationTable& places) {
  AttributeOrigins out;
  for (const auto& [name, a] : e.attrs)
    if (!a.bad) out.emplace(name, AttributeOrigin{trim(a.value), places.share(a.where), via_text(a)});
  return out;
}

std::string describe(const Attr& a) {
  const std::string via = via_text(a);
  return via.empty() ? a.where.str() : a.where.str() + ", " + via;
}

void inherit_from_target(Element& e, std::string_view ref_attr, std::vector<ConfigWarning>& warnings) {
  const Element& target = *e.ref_target;
  const std::string* target_id = target.get("id");
  const std::string by = std::string(ref_attr) + " '" + (target_id ? trim(*target_id) : std::string()) + "'";
  for (const auto& [name, attr] : target.attrs) {
    if (name == "id" || attr.bad) continue;
    const auto own = e.attrs.find(name);
    if (own == e.attrs.end()) {
      Attr copy = attr;
      copy.via = attr.via.empty() ? by : by + " <- " + attr.via;
      e.attrs.emplace(name, std::move(copy));
      continue;
    }
    // The element's own attribute is a deliberate choice; one that reached
    // it from a group (or an included root) silently hides the target's.
    const Attr& mine = own->second;
    if (name == ref_attr || mine.bad || (mine.via.empty() && !mine.included) || !set_for_target(attr) ||
        trim(mine.value) == trim(attr.value))
      continue;
    warnings.push_back({e.where, label(e, ref_attr) + ": " + name + "='" + trim(mine.value) + "' from " +
                                     describe(mine) + " overrides " + name + "='" + trim(attr.value) + "' of its " +
                                     by + " (" + describe(attr) + "); groups are applied before references"});
  }
}

}  // namespace detail

}  // namespace foehn::config
