// Stage 3: the Node tree of one context -> Elements per kind.
//
// Group inheritance happens here: walking down from a *_definition root
// through nested *_group elements, each level's attributes are laid over the
// ones inherited from above, and an element's own attributes are laid over
// those. So the nearest definition wins: child > innermost group > ... >
// *_definition root. A group's id (and group_ref) is never inherited.
//
// This stage also checks the structure (which element may contain which),
// every attribute name and value (schema.cpp), and that ids are unique per
// kind within the context.
#include <map>

#include "config/internal.h"
#include "config/values.h"

namespace foehn::config::detail {

namespace {

struct Kind {
  std::string_view element, group;
  Schema schema;
};

constexpr Kind kAxis{"axis", "axis_group", Schema::axis};
constexpr Kind kDomain{"domain", "domain_group", Schema::domain};
constexpr Kind kScalar{"scalar", "scalar_group", Schema::scalar};
constexpr Kind kGrid{"grid", "grid_group", Schema::grid};
constexpr Kind kField{"field", "field_group", Schema::field};

// XIOS's context takes <calendar> and the *_definition elements of its node
// types and skips anything else without a word: foehn warns and goes on,
// but for an element foehn knows put in the wrong place (still an error:
// <field> in <context> is a mistake worth stopping for).
bool is_ignored_by_xios(const Node& child) {
  const std::string_view name = child.name;
  const auto ends_with = [&](std::string_view suffix) {
    return name.size() > suffix.size() && name.substr(name.size() - suffix.size()) == suffix;
  };
  static const std::vector<std::string_view> elements = {
      "simulation", "context", "variable", "field", "file", "axis", "domain", "scalar", "grid", "temporal_splitting"};
  for (std::string_view e : elements)
    if (name == e) return false;
  return name != "calendar" && !ends_with("_definition") && !ends_with("_group") && !ends_with("_axis") &&
         !ends_with("_domain") && !ends_with("_scalar") && name != "pool" && name != "service";
}

AttrMap inherit(const AttrMap& inherited, const Node& node) {
  AttrMap out = inherited;
  // Bad attributes (already reported) come along, marked, so that later
  // checks know the value was written; Element::get skips them.
  for (const Attr& a : node.attrs) out[a.name] = a;
  return out;
}

// The attributes a group passes down to its children.
AttrMap inherit_from_group(const AttrMap& inherited, const Node& group) {
  AttrMap out = inherit(inherited, group);
  const Attr* id = group.attr("id");
  const std::string label = "<" + group.name + (id ? " id='" + id->value + "'>" : ">");
  for (const Attr& a : group.attrs)
    if (!a.bad && out[a.name].via.empty()) out[a.name].via = label;
  out.erase("id");
  out.erase("group_ref");
  return out;
}

class Collector {
 public:
  RawContext run(const Node& context) {
    raw_.node = &context;
    check_attributes(context, Schema::context);
    check_no_text(context);

    // Definitions may come in any order (a file may use a field_group that
    // is defined further down), so sort the children first.
    std::map<std::string_view, std::vector<const Node*>> parts;
    static const std::vector<std::string_view> allowed = {"calendar",          "variable_definition", "axis_definition",
                                                          "domain_definition", "scalar_definition",   "grid_definition",
                                                          "field_definition",  "file_definition"};
    for (const Node& child : context.children) {
      bool known = false;
      for (std::string_view a : allowed) known = known || child.name == a;
      if (known)
        parts[child.name].push_back(&child);
      else if (is_ignored_by_xios(child))  // XIOS's own iodef.xml misspells <scalar_defintion>
        raw_.warnings.push_back({child.where, "element <" + child.name +
                                                  "> in <context> is ignored, as XIOS ignores it" +
                                                  did_you_mean(child.name, allowed, "<", ">")});
      else
        unknown_element(child, context, allowed);
    }

    for (const Node* calendar : parts["calendar"]) {
      if (raw_.calendar) {
        report(calendar->where, "second <calendar> in context (the first is at " + raw_.calendar->where.str() + ")");
        continue;
      }
      check_attributes(*calendar, Schema::calendar);
      check_no_text(*calendar);
      if (!calendar->children.empty()) unknown_element(calendar->children.front(), *calendar, {});
      raw_.calendar = calendar;
    }
    for (const Node* n : parts["variable_definition"]) walk_variables(*n);
    for (const Node* n : parts["axis_definition"]) walk(*n, {}, kAxis, raw_.axes);
    for (const Node* n : parts["domain_definition"]) walk(*n, {}, kDomain, raw_.domains);
    for (const Node* n : parts["scalar_definition"]) walk(*n, {}, kScalar, raw_.scalars);
    for (const Node* n : parts["grid_definition"]) walk(*n, {}, kGrid, raw_.grids);
    for (const Node* n : parts["field_definition"]) walk(*n, {}, kField, raw_.fields);
    for (const Node* n : parts["file_definition"]) walk_files(*n, {});
    for (const auto& [kind, ids] : ids_)
      if (kind.ends_with("_group"))
        for (const auto& [id, where] : ids) raw_.group_ids[kind].push_back(id);
    raw_.field_group_members = group_fields_;
    return std::move(raw_);
  }

 private:
  RawContext raw_;
  // kind ("field", "field_group", ...) -> id -> where it was defined
  std::map<std::string, std::map<std::string, Location, std::less<>>, std::less<>> ids_;
  // field_group id (in field_definition) -> ids of the fields inside it, at any depth
  std::map<std::string, std::vector<std::string>, std::less<>> group_fields_;
  std::vector<std::string> open_groups_;  // field_group ids enclosing the current field

  void register_id(std::string_view kind, const Node& node) {
    const Attr* id = node.attr("id");
    if (!id) return;
    if (trim(id->value).empty()) {
      report(id->where, "empty id on <" + node.name + ">");
      return;
    }
    auto& seen = ids_[std::string(kind)];
    const auto [it, fresh] = seen.emplace(id->value, id->where);
    if (!fresh)
      report(id->where,
             "duplicate " + std::string(kind) + " id '" + id->value + "' (first defined at " + it->second.str() + ")");
  }

  // A *_definition or *_group element and everything below it.
  void walk(const Node& group, const AttrMap& inherited, const Kind& kind, std::vector<Element>& out) {
    check_attributes(group, kind.schema);
    check_no_text(group);
    register_id(kind.group, group);
    const AttrMap here = inherit_from_group(inherited, group);
    const Attr* group_id = group.attr("id");
    if (&kind == &kField && group_id) {
      group_fields_[group_id->value];  // an empty group is still a group
      open_groups_.push_back(group_id->value);
    }

    for (const Node& child : group.children) {
      if (child.name == kind.group) {
        walk(child, here, kind, out);
      } else if (child.name == kind.element) {
        check_attributes(child, kind.schema);
        register_id(kind.element, child);
        check_element_children(child, kind);
        out.push_back(make_element(child, here));
        if (&kind == &kField) {
          if (const Attr* id = child.attr("id"))
            for (const std::string& g : open_groups_) group_fields_[g].push_back(id->value);
        }
      } else {
        unknown_element(child, group, {kind.element, kind.group});
      }
    }
    if (&kind == &kField && group_id) open_groups_.pop_back();
  }

  static Element make_element(const Node& node, const AttrMap& inherited) {
    Element e{&node, inherit(inherited, node), node.where};
    // A field's text is its expression; storing it as the expr attribute
    // lets field_ref pass it on like any other attribute.
    if (!node.text.empty()) {
      if (node.attr("expr"))
        report(node.text_where, "<" + node.name + "> has both an expr attribute and an expression as text");
      e.attrs["expr"] = Attr{"expr", node.text, node.text_where, "", false};
    }
    return e;
  }

  // What may appear inside an element: grid components in a grid, variables
  // in a field or an axis, spatial transformations in a domain, axis or scalar
  // (transformations.cpp), nothing elsewhere.
  static void check_element_children(const Node& element, const Kind& kind) {
    if (&kind != &kField) check_no_text(element);
    for (const Node& c : element.children) {
      if (&kind == &kGrid) {
        // A grid's child may define its element in place (grid_children.cpp):
        // it takes every attribute of its kind.
        const Schema s = c.name == "domain"   ? Schema::domain
                         : c.name == "axis"   ? Schema::axis
                         : c.name == "scalar" ? Schema::scalar
                                              : Schema::simulation;
        if (s == Schema::simulation) {
          unknown_element(c, element, {"domain", "axis", "scalar"});
          continue;
        }
        check_attributes(c, s);
        check_no_text(c);
        for (const Node& t : c.children) {  // transformations defining a new component here
          if (is_transformation(t, c))
            check_transformation(t, c);
          else
            unknown_element(t, c, {});
        }
      } else if ((&kind == &kField || &kind == &kAxis) && c.name == "variable") {
        check_variable(c);  // an axis's: attributes of its coordinate variable
      } else if (is_transformation(c, element)) {
        check_transformation(c, element);
      } else {
        unknown_element(c, element,
                        &kind == &kField || &kind == &kAxis ? std::vector<std::string_view>{"variable"}
                                                            : std::vector<std::string_view>{});
      }
    }
  }

  static void check_variable(const Node& v) {
    check_attributes(v, Schema::variable);
    if (!v.children.empty()) unknown_element(v.children.front(), v, {});
  }

  void walk_variables(const Node& group) {
    check_attributes(group, Schema::variable_group);
    check_no_text(group);
    register_id("variable_group", group);
    for (const Node& child : group.children) {
      if (child.name == "variable_group") {
        walk_variables(child);
      } else if (child.name == "variable") {
        check_variable(child);
        if (!child.attr("id")) {
          report(child.where, "a <variable> in variable_definition needs an id");
          continue;
        }
        register_id("variable", child);
        raw_.variables.push_back(&child);
      } else {
        unknown_element(child, group, {"variable", "variable_group"});
      }
    }
  }

  void walk_files(const Node& group, const AttrMap& inherited) {
    check_attributes(group, Schema::file);
    check_no_text(group);
    register_id("file_group", group);
    const AttrMap here = inherit_from_group(inherited, group);
    for (const Node& child : group.children) {
      if (child.name == "file_group") {
        walk_files(child, here);
      } else if (child.name == "file") {
        check_attributes(child, Schema::file);
        check_no_text(child);
        register_id("file", child);
        RawFile file;
        file.file = Element{&child, inherit(here, child), child.where};
        walk_file_fields(child, {}, file);
        raw_.files.push_back(std::move(file));
      } else {
        unknown_element(child, group, {"file", "file_group"});
      }
    }
  }

  // The contents of a <file> or of a <field_group> inside one. Fields in a
  // file inherit from the field_groups around them (not from the file: file
  // and field attributes are different sets).
  void walk_file_fields(const Node& parent, const AttrMap& inherited, RawFile& file) {
    const bool in_file = parent.name == "file";
    for (const Node& child : parent.children) {
      if (child.name == "field") {
        check_attributes(child, Schema::field);
        register_id("field", child);
        check_element_children(child, kField);
        file.fields.push_back(make_element(child, inherited));
      } else if (child.name == "field_group") {
        check_attributes(child, Schema::file_field_group);
        check_no_text(child);
        register_id("field_group", child);
        const AttrMap here = inherit_from_group(inherited, child);
        if (const Attr* ref = child.attr("group_ref")) include_group(*ref, here, file);
        walk_file_fields(child, here, file);
      } else if (child.name == "variable" && in_file) {
        check_variable(child);
        file.variables.push_back(&child);
      } else {
        unknown_element(child, parent,
                        in_file ? std::vector<std::string_view>{"field", "field_group", "variable"}
                                : std::vector<std::string_view>{"field", "field_group"});
      }
    }
  }

  // group_ref: one file field per field (with an id) of the referenced
  // field_group of field_definition, each a field_ref to it, placed where
  // the group_ref is written and carrying the attributes of the file's groups.
  void include_group(const Attr& ref, const AttrMap& here, RawFile& file) {
    const std::string id = trim(ref.value);
    const auto it = group_fields_.find(id);
    if (it == group_fields_.end()) {
      std::vector<std::string_view> known;
      for (const auto& [g, fields] : group_fields_) known.push_back(g);
      report(ref.where,
             "group_ref refers to unknown field_group '" + id + "' (of field_definition)" + did_you_mean(id, known));
      return;
    }
    for (const std::string& field_id : it->second) {
      Element e{nullptr, here, ref.where};
      const std::string via = "<field_group group_ref='" + id + "'>";
      e.attrs["field_ref"] = Attr{"field_ref", field_id, ref.where, via, false};
      file.fields.push_back(std::move(e));
    }
  }
};

}  // namespace

const std::string* Element::get(std::string_view attr_name) const {
  const auto it = attrs.find(attr_name);
  return it == attrs.end() || it->second.bad ? nullptr : &it->second.value;
}

RawContext collect_context(const Node& context) { return Collector().run(context); }

}  // namespace foehn::config::detail
