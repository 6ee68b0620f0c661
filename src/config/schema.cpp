// Which attributes each element takes, and what their values must look like.
//
// The tables list the XIOS attributes foehn accepts; they are generated from
// src/config/xios_attributes.tsv (cmake/gen_attributes.py). An attribute that is not
// in its table is an error (with a suggestion), because a misspelt attribute
// silently ignored is the worst kind of configuration bug: the run goes on
// and writes the wrong thing. Values are checked here, where they are
// written, so a bad value on a group is reported even if every child
// overrides it.
#include <cstdint>
#include <limits>

#include "calendar/calendar.h"
#include "calendar/date_expression.h"
#include "config/internal.h"
#include "config/values.h"

namespace foehn::config::detail {

namespace {

enum class Type {
  text,
  boolean,
  integer,
  real,
  real_list,
  duration,   // any duration (offsets)
  frequency,  // a duration that must be positive
  date,
  prec,
  choice,
  calendar_type,
  variable_type,
};

constexpr std::int64_t kNoMin = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kNoMax = std::numeric_limits<std::int64_t>::max();

struct Spec {
  std::string_view name;
  Type type = Type::text;
  std::string_view choices = {};            // for Type::choice: "a|b|c"
  std::int64_t min = kNoMin, max = kNoMax;  // for Type::integer
};

using Table = std::vector<Spec>;

// A refused attribute: accepted by the reader (so that its value is checked
// and the error points at its line), refused at close of definition.
struct Refusal {
  std::string_view kind, name, why;
};

// table_of(Schema), kRefused and kStored, from src/config/xios_attributes.tsv.
#include "schema_tables.inc"

std::vector<std::string_view> split_choices(std::string_view choices) {
  std::vector<std::string_view> out;
  while (!choices.empty()) {
    const auto bar = choices.find('|');
    out.push_back(choices.substr(0, bar));
    if (bar == std::string_view::npos) break;
    choices.remove_prefix(bar + 1);
  }
  return out;
}

std::string join(const std::vector<std::string_view>& words) {
  std::string out;
  for (std::size_t i = 0; i < words.size(); ++i) out += (i ? ", " : "") + std::string(words[i]);
  return out;
}

// Checks a duration with the calendar library; frequencies must be positive.
// Returns the problem, or "".
std::string duration_problem(const Attr& a, bool positive) {
  calendar::Duration d;
  try {
    d = calendar::parse_duration(trim(a.value));
  } catch (const std::exception& e) { return e.what(); }
  if (positive && (d.is_zero() || d.months < 0 || d.microseconds < 0 || d.timesteps < 0))
    return "a frequency must be positive";
  return "";
}

// Throws a ConfigError for a bad value (check_attributes turns it into a
// report).
void check_value(const Attr& a, const Spec& spec, const std::string& element) {
  const std::string v = trim(a.value);
  const std::string bad = "bad " + a.name + " '" + a.value + "' on <" + element + ">: ";
  switch (spec.type) {
    case Type::text: return;
    case Type::boolean:
      if (!parse_bool(v)) fail(a.where, bad + "expected true or false (.true., .false., 1 and 0 also work)");
      return;
    case Type::integer: {
      const auto i = parse_int(v);
      if (!i) fail(a.where, bad + "expected an integer");
      if (*i < spec.min || *i > spec.max) {
        if (spec.max == kNoMax) fail(a.where, bad + "expected an integer >= " + std::to_string(spec.min));
        fail(a.where, bad + "expected an integer from " + std::to_string(spec.min) + " to " + std::to_string(spec.max));
      }
      return;
    }
    case Type::real:
      if (!parse_double(v)) fail(a.where, bad + "expected a number");
      return;
    case Type::real_list:
      if (!parse_double_list(v)) fail(a.where, bad + "expected numbers, as \"1 2 3\" or \"(0,2)[1 2 3]\"");
      return;
    case Type::duration:
    case Type::frequency:
      if (const std::string why = duration_problem(a, spec.type == Type::frequency); !why.empty())
        fail(a.where, bad + why);
      return;
    case Type::date: try { calendar::parse_date_expression(v);
      } catch (const std::exception& e) { fail(a.where, bad + e.what()); }
      return;
    case Type::prec:
      if (v == "2") fail(a.where, bad + "16-bit packed output is not supported; use 4 or 8");
      if (v != "4" && v != "8") fail(a.where, bad + "expected 4 or 8");
      return;
    case Type::choice: {
      const auto choices = split_choices(spec.choices);
      for (std::string_view c : choices)
        if (v == c) return;
      fail(a.where, bad + "expected one of " + join(choices) + did_you_mean(v, choices));
    }
    case Type::calendar_type: try { calendar::parse_calendar_type(v);
      } catch (const std::exception& e) {
        static const std::vector<std::string_view> names = {
            "Gregorian", "ProlepticGregorian",  "Julian", "NoLeap", "AllLeap", "D360",     "None",    "standard",
            "gregorian", "proleptic_gregorian", "julian", "noleap", "365_day", "all_leap", "366_day", "360_day",
            "none",      "user_defined"};
        fail(a.where, bad + e.what() + did_you_mean(v, names));
      }
      return;
    case Type::variable_type:
      if (!normalise_variable_type(v))
        fail(a.where, bad + "expected bool, int, double or string (or an XIOS spelling of them)");
      return;
  }
}

// Spellings from older XIOS versions and documents, too far from the current
// name for the edit distance to find.
std::string hint(const std::string& attr, const Node& node) {
  if (attr == "freq_output") return "; did you mean 'output_freq'?";
  if (attr == "field_group_ref") return "; to include a group of fields write <field_group group_ref=\"...\"/>";
  if (attr == "group_ref") return "; group_ref is allowed only on a <field_group> inside a <file>";
  if (node.name == "context" && attr == "calendar_type") return "; the calendar is a <calendar type=...> element";
  return "";
}

// Throws the error for an element that may not appear where it is.
[[noreturn]] void unknown_element_error(const Node& child, const Node& parent,
                                        const std::vector<std::string_view>& allowed) {
  static const std::vector<std::string_view> transformations = {"zoom_domain",
                                                                "extract_domain",
                                                                "interpolate_domain",
                                                                "reduce_domain",
                                                                "reorder_domain",
                                                                "expand_domain",
                                                                "generate_rectilinear_domain",
                                                                "compute_connectivity_domain",
                                                                "redistribute_domain",
                                                                "zoom_axis",
                                                                "extract_axis",
                                                                "interpolate_axis",
                                                                "reduce_axis",
                                                                "inverse_axis",
                                                                "temporal_splitting",
                                                                "redistribute_axis",
                                                                "duplicate_scalar",
                                                                "duplicate_scalar_to_axis",
                                                                "reduce_scalar",
                                                                "redistribute_scalar",
                                                                "extract_domain_to_axis",
                                                                "reduce_domain_to_axis",
                                                                "reduce_axis_to_scalar",
                                                                "reduce_domain_to_scalar",
                                                                "extract_axis_to_scalar"};
  static const std::vector<std::string_view> unsupported = {
      "pool_definition", "pool",        "service",          "coupler_in_definition", "coupler_out_definition",
      "coupler_in",      "coupler_out", "coupler_in_group", "coupler_out_group"};
  static const std::vector<std::string_view> known = {
      "simulation",        "context",      "calendar", "variable_definition", "variable_group", "variable",
      "field_definition",  "field_group",  "field",    "file_definition",     "file_group",     "file",
      "axis_definition",   "axis_group",   "axis",     "domain_definition",   "domain_group",   "domain",
      "scalar_definition", "scalar_group", "scalar",   "grid_definition",     "grid_group",     "grid"};
  const auto contains = [](const std::vector<std::string_view>& list, std::string_view name) {
    for (std::string_view s : list)
      if (s == name) return true;
    return false;
  };
  const std::string what = "<" + child.name + "> in <" + parent.name + ">";
  if (contains(transformations, child.name))
    fail(child.where, "spatial transformation " + what + " is not supported yet");
  if (contains(unsupported, child.name)) fail(child.where, "XIOS3 element " + what + " is not supported");
  std::string list;
  for (std::string_view a : allowed) list += (list.empty() ? "<" : ", <") + std::string(a) + ">";
  if (contains(known, child.name))
    fail(child.where, "element " + what + " is not allowed here (allowed: " + (list.empty() ? "none" : list) + ")");
  fail(child.where, "unknown element " + what + did_you_mean(child.name, allowed, "<", ">"));
}

}  // namespace

void check_attributes(const Node& node, Schema schema) {
  const Table& table = table_of(schema);
  for (const Attr& a : node.attrs) {
    const Spec* spec = nullptr;
    for (const Spec& s : table)
      if (s.name == a.name) spec = &s;
    if (!spec) {
      std::vector<std::string_view> names;
      for (const Spec& s : table) names.push_back(s.name);
      std::string suggestion = did_you_mean(a.name, names);
      if (suggestion.empty()) suggestion = hint(a.name, node);
      report(a.where, "unknown attribute '" + a.name + "' on <" + node.name + ">" + suggestion);
      a.bad = true;
      continue;
    }
    try {
      check_value(a, *spec, node.name);
    } catch (const ConfigError& e) {
      report(e.where, e.message);
      a.bad = true;
    }
  }
}

void unknown_element(const Node& child, const Node& parent, const std::vector<std::string_view>& allowed) {
  try {
    unknown_element_error(child, parent, allowed);
  } catch (const ConfigError& e) { report(e.where, e.message); }
}

void check_no_text(const Node& node) {
  if (node.text.empty()) return;
  std::string shown = node.text.substr(0, 40);
  if (shown.size() < node.text.size()) shown += "...";
  report(node.text_where, "unexpected text '" + shown + "' in <" + node.name + ">");
}

}  // namespace foehn::config::detail

namespace foehn::config {

std::string_view refusal(std::string_view kind, std::string_view name) {
  for (const detail::Refusal& r : detail::kRefused)
    if (r.kind == kind && r.name == name) return r.why;
  return {};
}

bool stored_only(std::string_view kind, std::string_view name) {
  for (const detail::Refusal& r : detail::kStored)
    if (r.kind == kind && r.name == name) return true;
  return false;
}

}  // namespace foehn::config
