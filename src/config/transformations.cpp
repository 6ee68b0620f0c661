// The spatial transformations the reader accepts inside a <domain>, <axis>
// or <scalar> (XIOS's names and attributes), and the check of their
// attributes. What they mean is src/transform/'s business; here only their
// form is checked, at their line. XIOS transformations not in this table are
// refused by unknown_element ("not supported yet").
#include <vector>

#include "config/internal.h"
#include "config/transformation_attributes.h"
#include "config/values.h"

namespace foehn::config::detail {

namespace {

enum class AttrType { integer, integer_list, real, boolean, choice };

struct TransformationAttr {
  std::string_view name;
  AttrType type;
  std::string_view choices = {};  // choice: "a|b"
};

struct TransformationSpec {
  std::string_view element, parent;  // <element> inside <parent>
  std::vector<TransformationAttr> attrs;
};

const std::vector<TransformationSpec>& specs() {
  const TransformationAttr id{"id", AttrType::choice, ""};  // any text
  const TransformationAttr operation{"operation", AttrType::choice, "sum|min|max|average"};
  const TransformationAttr local{"local", AttrType::boolean};
  const TransformationAttr weights{"weights", AttrType::choice, "count|area"};  // ours: area-weighted averages
  const TransformationAttr direction{"direction", AttrType::choice, "iDir|jDir"};
  const std::vector<TransformationAttr> box = {id,
                                               {"ibegin", AttrType::integer},
                                               {"ni", AttrType::integer},
                                               {"jbegin", AttrType::integer},
                                               {"nj", AttrType::integer},
                                               {"zoom_ibegin", AttrType::integer},  // older XIOS spellings
                                               {"zoom_ni", AttrType::integer},
                                               {"zoom_jbegin", AttrType::integer},
                                               {"zoom_nj", AttrType::integer}};
  const std::vector<TransformationAttr> range = {
      id, {"begin", AttrType::integer}, {"n", AttrType::integer}, {"index", AttrType::integer_list}};
  auto text = [&](std::string_view name) { return TransformationAttr{name, AttrType::choice, ""}; };
  auto real = [](std::string_view name) { return TransformationAttr{name, AttrType::real}; };
  const std::vector<TransformationAttr> interpolation = {
      id,
      {"order", AttrType::integer},
      {"renormalize", AttrType::boolean},
      {"detect_missing_value", AttrType::boolean},
      {"quantity", AttrType::boolean},
      {"use_area", AttrType::boolean},
      {"mode", AttrType::choice, "compute|read|read_or_compute"},
      {"write_weight", AttrType::boolean},
      text("weight_filename"),
      {"read_write_convention", AttrType::choice, "c|fortran"},
      {"method", AttrType::choice, "conservative|nearest"}};  // ours: nearest neighbour
  const std::vector<TransformationAttr> generated = {id,
                                                     real("lon_start"),
                                                     real("lon_end"),
                                                     real("lat_start"),
                                                     real("lat_end"),
                                                     real("bounds_lon_start"),
                                                     real("bounds_lon_end"),
                                                     real("bounds_lat_start"),
                                                     real("bounds_lat_end")};
  const std::vector<TransformationAttr> vertical = {id,
                                                    {"order", AttrType::integer},
                                                    {"extrapolate", AttrType::boolean},
                                                    text("coordinate"),
                                                    text("coordinate_src"),
                                                    text("coordinate_dst"),
                                                    {"type", AttrType::choice, "polynomial"},
                                                    {"log_coordinate", AttrType::boolean}};  // ours: in ln(coordinate)
  static const std::vector<TransformationSpec> all = {
      {"interpolate_domain", "domain", interpolation},
      {"interpolate_axis", "axis", vertical},
      {"generate_rectilinear_domain", "domain", generated},
      {"zoom_domain", "domain", box},
      {"extract_domain", "domain", box},
      {"zoom_axis", "axis", range},
      {"extract_axis", "axis", range},
      {"inverse_axis", "axis", {id}},
      {"extract_domain", "axis", {id, direction, {"position", AttrType::integer}}},
      {"reduce_domain", "axis", {id, operation, direction, local, weights}},
      {"extract_axis", "scalar", {id, {"position", AttrType::integer}}},
      {"reduce_axis", "scalar", {id, operation, local}},
      {"reduce_domain", "scalar", {id, operation, local, weights}},
      {"reduce_axis", "axis", {id, operation}},           // across the model ranks holding the axis
      {"reduce_scalar", "scalar", {id, operation, local}},  // across the model ranks
      {"duplicate_scalar", "axis", {id}},
      {"temporal_splitting", "axis", {id}},  // a scalar's successive steps along the axis
      {"coarsen_healpix", "domain", {id, {"refinement_level", AttrType::integer}}},  // ours: HEALPix pyramids
      {"reorder_domain",
       "domain",
       {id, {"invert_lat", AttrType::boolean}, real("shift_lon_fraction"), real("min_lon"), real("max_lon")}},
      // XIOS's halo for later transformations; the written domain is the same (docs/transformations.md)
      {"expand_domain",
       "domain",
       {id,
        {"order", AttrType::integer},
        {"type", AttrType::choice, "node|edge"},
        {"i_periodic", AttrType::boolean},
        {"j_periodic", AttrType::boolean}}},
  };
  return all;
}

// Why `value` does not fit `spec` ("" when it does).
std::string value_problem(const std::string& value, std::string_view name, const TransformationAttr& spec,
                          std::string_view element) {
  const std::string v = trim(value);
  const std::string bad = "bad value '" + value + "' for " + std::string(name) + " on <" + std::string(element) + ">: ";
  switch (spec.type) {
    case AttrType::integer: return parse_int(v) ? "" : bad + "expected an integer";
    case AttrType::real: return parse_double(v) ? "" : bad + "expected a number";
    case AttrType::integer_list: return parse_double_list(v) ? "" : bad + "expected a list of integers";
    case AttrType::boolean: return parse_bool(v) ? "" : bad + "expected true or false";
    case AttrType::choice: {
      if (spec.choices.empty()) return "";
      std::string_view rest = spec.choices;
      std::vector<std::string_view> names;
      while (!rest.empty()) {
        const auto bar = rest.find('|');
        names.push_back(rest.substr(0, bar));
        if (bar == std::string_view::npos) break;
        rest.remove_prefix(bar + 1);
      }
      for (std::string_view n : names)
        if (n == v) return "";
      return bad + "expected one of " + std::string(spec.choices) + did_you_mean(v, names);
    }
  }
  return "";
}

void check_value(const Attr& a, const TransformationAttr& spec, const std::string& element) {
  if (const std::string problem = value_problem(a.value, a.name, spec, element); !problem.empty())
    report(a.where, problem);
}

}  // namespace

bool is_transformation(const Node& child, const Node& parent) {
  for (const TransformationSpec& s : specs())
    if (s.element == child.name && s.parent == parent.name) return true;
  return false;
}

void check_transformation(const Node& child, const Node& parent) {
  for (const TransformationSpec& s : specs()) {
    if (s.element != child.name || s.parent != parent.name) continue;
    for (const Attr& a : child.attrs) {
      const TransformationAttr* spec = nullptr;
      for (const TransformationAttr& t : s.attrs)
        if (t.name == a.name) spec = &t;
      if (!spec) {
        std::vector<std::string_view> names;
        for (const TransformationAttr& t : s.attrs) names.push_back(t.name);
        report(a.where, "unknown attribute '" + a.name + "' on <" + child.name + "> in <" + parent.name + ">" +
                            did_you_mean(a.name, names));
        a.bad = true;
        continue;
      }
      check_value(a, *spec, child.name);
    }
    check_no_text(child);
    if (!child.children.empty()) unknown_element(child.children.front(), child, {});
    return;
  }
}

std::string attribute_problem(std::string_view element, std::string_view parent, std::string_view name,
                              const std::string& value) {
  for (const TransformationSpec& s : specs()) {
    if (s.element != element || s.parent != parent) continue;
    std::vector<std::string_view> names;
    for (const TransformationAttr& t : s.attrs) {
      if (t.name == name) return value_problem(value, name, t, element);
      names.push_back(t.name);
    }
    return "unknown attribute '" + std::string(name) + "' on <" + std::string(element) + "> in <" +
           std::string(parent) + ">" + did_you_mean(name, names);
  }
  return "no <" + std::string(element) + "> inside a <" + std::string(parent) + "> (docs/transformations.md)";
}

TransformationDef make_transformation(const Node& child, const Node& parent) {
  TransformationDef t;
  t.kind = child.name;
  t.target = parent.name;
  t.where = child.where;
  for (const Attr& a : child.attrs)
    if (!a.bad) t.attrs.emplace(a.name, trim(a.value));
  return t;
}

}  // namespace foehn::config::detail

namespace foehn::config {

std::string transformation_attribute_problem(std::string_view element, std::string_view parent, std::string_view name,
                                             const std::string& value) {
  return detail::attribute_problem(element, parent, name, value);
}

}  // namespace foehn::config
