// The public entry points of the reader and the small helpers of config.h.
// The work is done in stages; see internal.h for the map.
#include <algorithm>
#include <filesystem>
#include <numeric>
#include <set>
#include <string>
#include <unordered_map>

#include "calendar/calendar.h"
#include "calendar/date_expression.h"
#include "config/calendar_setup.h"
#include "config/internal.h"
#include "config/refusals.h"
#include "config/values.h"

namespace foehn::config {

bool is_output_field(const FileDef& file, const FieldDef& field) {
  constexpr int kDefaultOutputLevel = 5, kDefaultLevel = 1;  // XIOS' defaults
  return field.enabled && field.level.value_or(kDefaultLevel) <= file.output_level.value_or(kDefaultOutputLevel);
}

std::string read_file_refusal(const FileDef& file) {
  if (file.type == "multiple_file") return "type=\"multiple_file\" is not supported: a read file is one file";
  if (!file.split_freq.empty()) return "split_freq is not supported: a read file is one file";
  if (file.format == "grib2") return "format=\"grib2\" is not supported: foehn reads netCDF files";
  for (const auto& [name, value] : file.extra)
    if (const auto why = refusal("file", name); !why.empty())
      return "attribute '" + name + "' is not supported yet: " + std::string(why);
  return "";
}

std::string write_file_refusal(const FileDef& f) {
  auto quoted = [](const char* attr, const std::string& value) {
    return std::string(attr) + "=\"" + value + "\" is not supported yet";
  };
  if (f.par_access != "collective") return quoted("par_access", f.par_access);
  if (!f.mode.empty() && f.mode != "write" && f.mode != "read") return quoted("mode", f.mode);
  static const std::set<std::string> conventions = {"", "CF", "UGRID", "CDI", "CDI UGRID", "UGRID CDI"};
  if (!conventions.count(f.convention)) return quoted("convention", f.convention);
  if (f.format == "zarr") {  // a Zarr store keeps foehn's own time variables (docs/zarr.md)
    if (!f.time_counter.empty() && f.time_counter != "instant" && f.time_counter != "centered")
      return quoted("time_counter", f.time_counter) + " for a Zarr store";
    if (!f.time_units.empty() && f.time_units != "seconds")
      return quoted("time_units", f.time_units) + " for a Zarr store";
    for (const char* netcdf_only :
         {"time_counter_name", "record_offset", "time_stamp_name", "time_stamp_format", "uuid_name", "uuid_format"})
      if (f.extra.count(netcdf_only))
        return "attribute '" + std::string(netcdf_only) + "' is not supported yet for a Zarr store";
  }
  if (!f.timeseries.empty() && f.timeseries != "none") return quoted("timeseries", f.timeseries);
  if (f.format == "grib2" && f.extra.count("record_offset"))  // GRIB messages have no record index
    return "attribute 'record_offset' is not supported yet for a GRIB2 file";
  for (const auto& [name, value] : f.extra)
    if (const auto why = refusal("file", name); !why.empty())
      return "attribute '" + name + "' is not supported yet: " + std::string(why);
  return "";
}

std::string output_freq_refusal(const FileDef& f, std::int64_t timestep_us) {
  if (timestep_us <= 0 || f.output_freq.empty()) return "";
  calendar::Duration freq;
  try {
    freq = calendar::parse_duration(f.output_freq);
  } catch (const calendar::TimeError&) { return ""; }  // the reader reports the form
  // Months and years are whole days (a user calendar's day too is assumed
  // whole steps only when 86400 s is).
  constexpr std::int64_t kDay = 86400LL * calendar::kMicrosPerSecond;
  if (freq.microseconds % timestep_us == 0 && (freq.months == 0 || kDay % timestep_us == 0)) return "";
  return "output_freq '" + f.output_freq + "' is not a whole number of time steps (" +
         calendar::format_duration({0, timestep_us, 0}) +
         "): XIOS writes such a file at the first step at or after each output date, so its records "
         "fall at uneven intervals; give a multiple of the time step (or count it in 'ts')";
}

std::string write_field_refusal(const FieldDef& f) {
  auto refused = [](const std::string& attr) {
    return "attribute '" + attr + "' is not supported yet: " + std::string(refusal("field", attr));
  };
  if (f.add_offset) return refused("add_offset");
  if (f.scale_factor) return refused("scale_factor");
  for (const auto& [name, value] : f.extra)
    if (!refusal("field", name).empty()) return refused(name);
  return "";
}

std::string read_field_refusal(const FieldDef& field) {
  if (!field.expression.empty()) return "an expression cannot be read from a file";
  if (!field.operation.empty() && field.operation != "instant")
    return "operation '" + field.operation + "' is not supported: records are read as they are";
  return "";
}

const Location& SharedLocation::nowhere() {
  static const Location none;
  return none;
}

std::string Location::str() const { return line > 0 ? file + ":" + std::to_string(line) : file; }

std::string ErrorItem::str() const {
  return where.str() + ": " + (where.path.empty() ? "" : where.path + ": ") + message;
}

ConfigError::ConfigError(Location where_, const std::string& message_)
    : std::runtime_error(ErrorItem{where_, message_}.str()),
      where(where_),
      message(message_),
      errors{ErrorItem{std::move(where_), message_}} {}

namespace {
std::string list_errors(const std::vector<ErrorItem>& errors, std::size_t omitted) {
  std::string out;
  for (const ErrorItem& e : errors) out += (out.empty() ? "" : "\n") + e.str();
  if (omitted > 0) out += "\n... and " + std::to_string(omitted) + " more error" + (omitted > 1 ? "s" : "");
  return out;
}
}  // namespace

ConfigError::ConfigError(std::vector<ErrorItem> errors_, std::size_t omitted_)
    : std::runtime_error(list_errors(errors_, omitted_)),
      where(errors_.at(0).where),
      message(errors_.at(0).message),
      errors(std::move(errors_)),
      omitted(omitted_) {}

namespace detail {

void fail(const Location& where, const std::string& message) { throw ConfigError(where, message); }

namespace {
// The errors of the read in progress on this thread (null outside a read:
// report() then throws like fail()).
struct ErrorSink {
  std::vector<ErrorItem> errors;
  std::size_t omitted = 0;
};
thread_local ErrorSink* current_sink = nullptr;
}  // namespace

void report(const Location& where, const std::string& message) {
  if (!current_sink) fail(where, message);
  if (current_sink->errors.size() < kMaxReportedErrors)
    current_sink->errors.push_back({where, message});
  else
    ++current_sink->omitted;
}

}  // namespace detail

namespace {

template <typename T>
const T* find_by_id(const std::vector<T>& items, std::string_view id) {
  for (const T& item : items)
    if (item.id == id) return &item;
  return nullptr;
}

// Fields by id through an index of the list last searched: close of
// definition looks each field up several times, and a linear search made
// 20,000 fields quadratic (bench/definition_scale.py). The index is only a
// hint (the list may have changed in place): a hit is checked, a miss
// searched linearly, so the answer is always the linear search's.
const FieldDef* find_field_indexed(const std::vector<FieldDef>& items, std::string_view id) {
  constexpr std::size_t kIndexFrom = 64;  // short lists: the linear search is as fast
  if (items.size() < kIndexFrom) return find_by_id(items, id);
  thread_local const FieldDef* indexed_data = nullptr;
  thread_local std::size_t indexed_size = 0;
  thread_local std::unordered_map<std::string, std::size_t> index;
  if (indexed_data != items.data() || indexed_size != items.size()) {
    index.clear();
    for (std::size_t k = 0; k < items.size(); ++k) index.emplace(items[k].id, k);  // the first of equal ids
    indexed_data = items.data(), indexed_size = items.size();
  }
  if (auto it = index.find(std::string(id)); it != index.end() && items[it->second].id == id) {
    return &items[it->second];
  }
  return find_by_id(items, id);
}

// XIOS makes one context per id: a second <context id="atm"> (often one that
// includes a file, after one that sets variables) continues the first, its
// attributes overriding the first's and its children added after the first's.
// Objects inside still need distinct ids (foehn reports a repeated field id
// even when the two halves of a context define it: XIOS would merge those
// silently, and that is more often a mistake than intended).
// A <context> without an id stops the merge: it is returned in *no_id, to
// fail after the contexts before it were read (their errors come first).
std::vector<detail::Node> merge_repeated_contexts(const detail::Node& root, const detail::Node** no_id) {
  using namespace detail;
  std::vector<Node> contexts;
  for (const Node& child : root.children) {
    if (child.name != "context") {
      unknown_element(child, root, {"context"});
      continue;
    }
    const Attr* id = child.attr("id");
    if (!id || trim(id->value).empty()) {
      *no_id = &child;
      break;
    }
    Node* first = nullptr;
    for (Node& c : contexts)
      if (trim(c.attr("id")->value) == trim(id->value)) first = &c;
    if (!first) {
      contexts.push_back(child);
      continue;
    }
    for (const Attr& a : child.attrs) {
      auto same = std::find_if(first->attrs.begin(), first->attrs.end(), [&](const Attr& o) { return o.name == a.name; });
      if (same == first->attrs.end())
        first->attrs.push_back(a);
      else if (a.name != "id")
        *same = a;
    }
    for (const Node& c : child.children) first->children.push_back(c);
    if (first->text.empty()) first->text = child.text, first->text_where = child.text_where;
  }
  return contexts;
}

Simulation read_all(std::string_view xml, const std::string& name, const std::string& base_dir,
                    const std::string& key) {
  using namespace detail;
  std::vector<ConfigWarning> warnings;
  const Node root = read_tree(xml, name, base_dir, key, &warnings);
  if (root.name != "simulation") fail(root.where, "the root element must be <simulation>, not <" + root.name + ">");
  check_attributes(root, Schema::simulation);
  check_no_text(root);

  Simulation sim;
  sim.warnings = std::move(warnings);
  const Node* no_id = nullptr;
  for (Node& context : merge_repeated_contexts(root, &no_id)) {
    RawContext raw = collect_context(context);
    sim.contexts.push_back(resolve_context(raw));
    for (ConfigWarning& w : raw.warnings) sim.warnings.push_back(std::move(w));
  }
  if (no_id) fail(no_id->where, "a <context> needs an id");
  return sim;
}

// Reads with an error sink: errors after which reading can go on are
// collected; the first fatal one (or the end) throws them all together.
Simulation read(std::string_view xml, const std::string& name, const std::string& base_dir, const std::string& key) {
  detail::ErrorSink sink;
  detail::ErrorSink* const outer = detail::current_sink;
  detail::current_sink = &sink;
  struct Restore {
    detail::ErrorSink* outer;
    ~Restore() { detail::current_sink = outer; }
  } restore{outer};
  Simulation sim;
  try {
    sim = read_all(xml, name, base_dir, key);
  } catch (const ConfigError& fatal) {
    if (sink.errors.empty()) throw;
    // A fatal error after collected ones: list them all, in the order found.
    for (const ErrorItem& e : fatal.errors) {
      if (sink.errors.size() < kMaxReportedErrors)
        sink.errors.push_back(e);
      else
        ++sink.omitted;
    }
  }
  if (!sink.errors.empty()) throw ConfigError(std::move(sink.errors), sink.omitted);
  return sim;
}

const Variable& checked(const ContextDef& ctx, std::string_view id, const char* wanted, const Variable* v, bool ok) {
  if (!ok)
    throw ConfigError(v->where, "variable '" + std::string(id) + "' of context '" + ctx.id + "' is '" + v->value +
                                    "', not " + wanted);
  return *v;
}

}  // namespace

const AxisDef* ContextDef::find_axis(std::string_view id) const { return find_by_id(axes, id); }
const DomainDef* ContextDef::find_domain(std::string_view id) const { return find_by_id(domains, id); }
const ScalarDef* ContextDef::find_scalar(std::string_view id) const { return find_by_id(scalars, id); }
const GridDef* ContextDef::find_grid(std::string_view id) const { return find_by_id(grids, id); }
const FieldDef* ContextDef::find_field(std::string_view id) const { return find_field_indexed(fields, id); }
const FileDef* ContextDef::find_file(std::string_view id) const { return find_by_id(files, id); }
const Variable* ContextDef::find_variable(std::string_view id) const { return find_by_id(variables, id); }

calendar::Calendar CalendarDef::make_calendar() const {
  try {
    const calendar::CalendarType t = calendar::parse_calendar_type(type);
    if (t != calendar::CalendarType::user_defined) return calendar::Calendar(t);
    if (!user) throw calendar::TimeError("a user_defined calendar needs month_lengths (12 values)");
    return calendar::Calendar(*user);
  } catch (const calendar::TimeError& e) { throw ConfigError(where, e.what()); }
}

calendar::UserCalendar make_user_calendar(const std::function<const std::string*(const char*)>& get) {
  using calendar::TimeError;
  const auto integer = [&](const char* name) -> std::optional<std::int64_t> {
    const std::string* v = get(name);
    if (!v) return std::nullopt;
    const auto n = detail::parse_int(*v);
    if (!n) throw TimeError(std::string(name) + " '" + *v + "': expected a whole number");
    return n;
  };
  const std::string* months = get("month_lengths");
  if (!months) throw TimeError("a user_defined calendar needs month_lengths (12 numbers of days)");
  if (const auto day = integer("day_length"); day && *day != 86400)
    throw TimeError("day_length " + std::to_string(*day) + ": only days of 86400 s are supported");
  calendar::UserCalendar u;
  const auto lengths = detail::parse_double_list(*months);
  bool whole = lengths && lengths->size() == 12;
  for (std::size_t k = 0; whole && k < 12; ++k) {
    whole = (*lengths)[k] == static_cast<double>(static_cast<int>((*lengths)[k]));
    u.month_lengths[k] = static_cast<int>((*lengths)[k]);
  }
  if (!whole) throw TimeError("month_lengths '" + *months + "': expected 12 whole numbers of days");
  u.leap_year_month = static_cast<int>(integer("leap_year_month").value_or(0));
  for (auto [name, out] : {std::pair{"leap_year_drift", &u.leap_year_drift},
                           std::pair{"leap_year_drift_offset", &u.leap_year_drift_offset}})
    if (const std::string* v = get(name)) *out = calendar::parse_millionths(*v);
  const calendar::Calendar cal(u);  // checks the lengths and the leap rule
  const std::int64_t common_year = 86400LL * std::accumulate(u.month_lengths.begin(), u.month_lengths.end(), 0);
  if (const auto year = integer("year_length"); year && *year != common_year)
    throw TimeError("year_length " + std::to_string(*year) + " s is not the sum of month_lengths (" +
                    std::to_string(common_year) + " s)");
  return u;
}

void evaluate_date_expressions(CalendarDef& c) {
  const bool any = c.start_date.find('+') != std::string::npos || c.time_origin.find('+') != std::string::npos;
  if (!any) return;
  const calendar::Calendar cal = c.make_calendar();
  std::int64_t timestep_us = 0;
  try {
    if (!c.timestep.empty()) {
      const calendar::Duration ts = calendar::parse_duration(c.timestep);
      if (ts.months == 0 && ts.timesteps == 0) timestep_us = ts.microseconds;
    }
  } catch (const calendar::TimeError&) {}  // a bad timestep is reported where it is read
  for (auto [name, date] : {std::pair{"start_date", &c.start_date}, std::pair{"time_origin", &c.time_origin}}) {
    if (date->find('+') == std::string::npos) continue;
    try {
      *date = calendar::format_date(calendar::evaluate_date_expression(cal, *date, timestep_us));
    } catch (const calendar::TimeError& e) { throw ConfigError(c.where, std::string(name) + ": " + e.what()); }
  }
}

const ContextDef* Simulation::find_context(std::string_view id) const {
  for (const ContextDef& c : contexts)
    if (c.id == id) return &c;
  return nullptr;
}

Simulation parse_file(const std::string& path) {
  std::string text;
  if (!detail::read_text_file(path, text)) throw ConfigError(Location{path, 0, {}}, "cannot read file");
  const std::string dir = std::filesystem::path(path).parent_path().string();
  return read(text, path, dir, detail::canonical_key(path));
}

Simulation parse_string(std::string_view xml, const std::string& name, const std::string& base_dir) {
  // In-memory text has no path of its own; its name stands in for include
  // cycle detection.
  return read(xml, name, base_dir, "<string>" + name);
}

// Typed access: the value is read as the type asked for, whatever type the
// variable was declared with, as long as the text fits (an int variable can
// be read as a double, a string "true" as a bool).
bool variable_bool(const ContextDef& ctx, std::string_view id, bool fallback) {
  const Variable* v = ctx.find_variable(id);
  if (!v) return fallback;
  const auto b = detail::parse_bool(v->value);
  checked(ctx, id, "a boolean (true, false, .true., .false., 1 or 0)", v, b.has_value());
  return *b;
}

std::int64_t variable_int(const ContextDef& ctx, std::string_view id, std::int64_t fallback) {
  const Variable* v = ctx.find_variable(id);
  if (!v) return fallback;
  const auto i = detail::parse_int(v->value);
  checked(ctx, id, "an integer", v, i.has_value());
  return *i;
}

double variable_double(const ContextDef& ctx, std::string_view id, double fallback) {
  const Variable* v = ctx.find_variable(id);
  if (!v) return fallback;
  const auto d = detail::parse_double(v->value);
  checked(ctx, id, "a number", v, d.has_value());
  return *d;
}

std::string variable_string(const ContextDef& ctx, std::string_view id, std::string fallback) {
  const Variable* v = ctx.find_variable(id);
  return v ? v->value : fallback;
}

}  // namespace foehn::config
