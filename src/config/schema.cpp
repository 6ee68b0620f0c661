// Which attributes each element takes, and what their values must look like.
//
// The tables list the XIOS attributes foehn accepts. An attribute that is not
// in its table is an error (with a suggestion), because a misspelt attribute
// silently ignored is the worst kind of configuration bug: the run goes on
// and writes the wrong thing. Values are checked here, where they are
// written, so a bad value on a group is reported even if every child
// overrides it.
#include <cstdint>
#include <limits>

#include "calendar/calendar.h"
#include "config/internal.h"
#include "config/values.h"

namespace foehn::config::detail {

namespace {

enum class Type {
  text, boolean, integer, real, real_list,
  duration,   // any duration (offsets)
  frequency,  // a duration that must be positive
  date, prec, choice, calendar_type, variable_type,
};

constexpr std::int64_t kNoMin = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kNoMax = std::numeric_limits<std::int64_t>::max();

struct Spec {
  std::string_view name;
  Type type = Type::text;
  std::string_view choices = {};  // for Type::choice: "a|b|c"
  std::int64_t min = kNoMin, max = kNoMax;  // for Type::integer
};

using Table = std::vector<Spec>;

const Table& field_table() {
  static const Table t = {
      {"id"}, {"name"}, {"long_name"}, {"standard_name"}, {"unit"}, {"comment"},
      {"operation", Type::choice, "instant|average|accumulate|minimum|maximum|once"},
      {"freq_op", Type::frequency}, {"freq_offset", Type::duration},
      {"field_ref"}, {"grid_ref"}, {"domain_ref"}, {"axis_ref"}, {"scalar_ref"}, {"expr"},
      {"prec", Type::prec}, {"enabled", Type::boolean},
      {"default_value", Type::real}, {"valid_min", Type::real}, {"valid_max", Type::real},
      {"detect_missing_value", Type::boolean},
      {"compression_level", Type::integer, {}, 0, 9}, {"level", Type::integer, {}, 0},
      {"add_offset", Type::real}, {"scale_factor", Type::real}, {"cell_methods"},
      {"cell_methods_mode", Type::choice, "overwrite|prefix|suffix|none"},
      {"check_if_active", Type::boolean},
      // Kept in FieldDef::extra.
      {"read_access", Type::boolean}, {"indexed_output", Type::boolean},
      {"conversion_by_netcdf", Type::boolean}, {"grid_path"}, {"compression_type"},
      {"compression_params", Type::real_list}, {"chunking_blocksize_target", Type::real},
      {"ts_enabled", Type::boolean}, {"ts_split_freq", Type::frequency},
      {"build_workflow_graph", Type::boolean},
  };
  return t;
}

const Table& file_field_group_table() {
  static const Table t = [] {
    Table table = field_table();
    table.push_back({"group_ref"});
    return table;
  }();
  return t;
}

const Table& file_table() {
  static const Table t = {
      {"id"}, {"name"}, {"name_suffix"}, {"description"}, {"comment"},
      {"output_freq", Type::frequency}, {"output_level", Type::integer, {}, 0},
      {"sync_freq", Type::frequency}, {"split_freq", Type::frequency}, {"split_freq_format"},
      {"min_digits", Type::integer, {}, 0},
      {"type", Type::choice, "one_file|multiple_file"},
      {"format", Type::choice, "netcdf4|netcdf4_classic"},
      {"par_access", Type::choice, "collective|independent"},
      {"append", Type::boolean}, {"enabled", Type::boolean},
      {"compression_level", Type::integer, {}, 0, 9},
      {"mode", Type::choice, "read|write"}, {"convention", Type::choice, "CF|UGRID|CDI|CDI UGRID|UGRID CDI"},
      {"time_counter", Type::choice,
       "centered|instant|record|exclusive|centered_exclusive|instant_exclusive|none"},
      {"time_units", Type::choice, "seconds|days"},
      {"timeseries", Type::choice, "none|only|both|exclusive"},
      // Kept in FileDef::extra.
      {"split_start_offset", Type::duration}, {"split_end_offset", Type::duration},
      {"split_last_date", Type::date}, {"convention_str"}, {"read_metadata_par", Type::boolean},
      {"time_counter_name"}, {"record_offset", Type::integer}, {"cyclic", Type::boolean},
      {"ts_prefix"}, {"time_stamp_name"}, {"time_stamp_format"}, {"uuid_name"}, {"uuid_format"},
      {"writer"}, {"pool_writer"}, {"gatherer"}, {"pool_gatherer"}, {"reader"}, {"pool_reader"},
      {"using_server2", Type::boolean},
  };
  return t;
}

const Table& axis_table() {
  static const Table t = {
      {"id"}, {"name"}, {"long_name"}, {"standard_name"}, {"unit"},
      {"positive", Type::choice, "up|down"}, {"n_glo", Type::integer, {}, 1},
      {"value", Type::real_list}, {"axis_ref"},
      // Kept in AxisDef::extra.
      {"comment"}, {"axis_type", Type::choice, "X|Y|Z|T"}, {"dim_name"}, {"bounds_name"},
      {"formula"}, {"formula_term"}, {"formula_bounds"}, {"formula_term_bounds"},
      {"prec", Type::prec}, {"chunking_weight", Type::real}, {"convert_from_factor", Type::real},
      {"label"}, {"bounds", Type::real_list},
  };
  return t;
}

const Table& domain_table() {
  static const Table t = {
      {"id"}, {"name"}, {"long_name"}, {"standard_name"},
      {"type", Type::choice, "rectilinear|curvilinear|gaussian|unstructured"},
      {"ni_glo", Type::integer, {}, 1}, {"nj_glo", Type::integer, {}, 1}, {"domain_ref"},
      // Kept in DomainDef::extra.
      {"comment"}, {"lon_name"}, {"lat_name"}, {"bounds_lon_name"}, {"bounds_lat_name"},
      {"dim_i_name"}, {"dim_j_name"}, {"nvertex", Type::integer, {}, 1}, {"nvertex_name"},
      {"radius", Type::real}, {"prec", Type::prec}, {"data_dim", Type::integer, {}, 1, 2},
      {"chunking_weight_i", Type::real}, {"chunking_weight_j", Type::real},
  };
  return t;
}

const Table& scalar_table() {
  static const Table t = {
      {"id"}, {"name"}, {"long_name"}, {"standard_name"}, {"unit"}, {"label"},
      {"value", Type::real}, {"scalar_ref"},
      // Kept in ScalarDef::extra.
      {"comment"}, {"axis_type", Type::choice, "X|Y|Z|T"}, {"positive", Type::choice, "up|down"},
      {"bounds_name"}, {"prec", Type::prec},
  };
  return t;
}

const Table& table_of(Schema schema) {
  static const Table none = {};
  static const Table id_only = {{"id"}};
  static const Table calendar = {{"type", Type::calendar_type}, {"timestep", Type::frequency},
                                 {"start_date", Type::date}, {"time_origin", Type::date},
                                 {"comment"},
                                 // user_defined calendars (checked together in resolve.cpp)
                                 {"day_length", Type::integer, {}, 1}, {"month_lengths", Type::real_list},
                                 {"year_length", Type::integer, {}, 1},
                                 {"leap_year_month", Type::integer, {}, 1, 12},
                                 {"leap_year_drift", Type::real}, {"leap_year_drift_offset", Type::real}};
  static const Table variable = {{"id"}, {"name"}, {"type", Type::variable_type}};
  static const Table grid = {{"id"}, {"name"}, {"description"}, {"comment"}};
  static const Table grid_domain = {{"id"}, {"domain_ref"}};
  static const Table grid_axis = {{"id"}, {"axis_ref"}};
  static const Table grid_scalar = {{"id"}, {"scalar_ref"}};
  switch (schema) {
    case Schema::simulation: return none;
    case Schema::context: return id_only;
    case Schema::calendar: return calendar;
    case Schema::variable: return variable;
    case Schema::variable_group: return id_only;
    case Schema::axis: return axis_table();
    case Schema::domain: return domain_table();
    case Schema::scalar: return scalar_table();
    case Schema::grid: return grid;
    case Schema::grid_domain: return grid_domain;
    case Schema::grid_axis: return grid_axis;
    case Schema::grid_scalar: return grid_scalar;
    case Schema::field: return field_table();
    case Schema::file_field_group: return file_field_group_table();
    case Schema::file: return file_table();
  }
  return none;
}

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
  } catch (const std::exception& e) {
    return e.what();
  }
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
    case Type::text:
      return;
    case Type::boolean:
      if (!parse_bool(v)) fail(a.where, bad + "expected true or false (.true., .false., 1 and 0 also work)");
      return;
    case Type::integer: {
      const auto i = parse_int(v);
      if (!i) fail(a.where, bad + "expected an integer");
      if (*i < spec.min || *i > spec.max) {
        if (spec.max == kNoMax) fail(a.where, bad + "expected an integer >= " + std::to_string(spec.min));
        fail(a.where, bad + "expected an integer from " + std::to_string(spec.min) + " to " +
                          std::to_string(spec.max));
      }
      return;
    }
    case Type::real:
      if (!parse_double(v)) fail(a.where, bad + "expected a number");
      return;
    case Type::real_list:
      if (!parse_double_list(v))
        fail(a.where, bad + "expected numbers, as \"1 2 3\" or \"(0,2)[1 2 3]\"");
      return;
    case Type::duration:
    case Type::frequency:
      if (const std::string why = duration_problem(a, spec.type == Type::frequency); !why.empty())
        fail(a.where, bad + why);
      return;
    case Type::date:
      try {
        calendar::parse_date(v);
      } catch (const std::exception& e) {
        fail(a.where, bad + e.what());
      }
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
    case Type::calendar_type:
      try {
        calendar::parse_calendar_type(v);
      } catch (const std::exception& e) {
        static const std::vector<std::string_view> names = {
            "Gregorian", "ProlepticGregorian", "Julian", "NoLeap", "AllLeap", "D360", "None",
            "standard", "gregorian", "proleptic_gregorian", "julian", "noleap", "365_day",
            "all_leap", "366_day", "360_day", "none", "user_defined"};
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
  static const std::vector<std::string_view> transformations = {
      "zoom_domain", "extract_domain", "interpolate_domain", "reduce_domain", "reorder_domain",
      "expand_domain", "generate_rectilinear_domain", "compute_connectivity_domain",
      "redistribute_domain", "zoom_axis", "extract_axis", "interpolate_axis", "reduce_axis",
      "inverse_axis", "temporal_splitting", "redistribute_axis", "duplicate_scalar_to_axis",
      "reduce_scalar", "redistribute_scalar", "extract_domain_to_axis", "reduce_domain_to_axis",
      "reduce_axis_to_scalar", "reduce_domain_to_scalar", "extract_axis_to_scalar"};
  static const std::vector<std::string_view> unsupported = {
      "pool_definition", "pool", "service", "coupler_in_definition", "coupler_out_definition",
      "coupler_in", "coupler_out", "coupler_in_group", "coupler_out_group"};
  static const std::vector<std::string_view> known = {
      "simulation", "context", "calendar", "variable_definition", "variable_group", "variable",
      "field_definition", "field_group", "field", "file_definition", "file_group", "file",
      "axis_definition", "axis_group", "axis", "domain_definition", "domain_group", "domain",
      "scalar_definition", "scalar_group", "scalar", "grid_definition", "grid_group", "grid"};
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
  } catch (const ConfigError& e) {
    report(e.where, e.message);
  }
}

void check_no_text(const Node& node) {
  if (node.text.empty()) return;
  std::string shown = node.text.substr(0, 40);
  if (shown.size() < node.text.size()) shown += "...";
  report(node.text_where, "unexpected text '" + shown + "' in <" + node.name + ">");
}

}  // namespace foehn::config::detail
