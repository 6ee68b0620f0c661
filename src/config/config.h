// The resolved configuration: what an XIOS-dialect XML file says, after
// includes, groups, inheritance and references have been applied.
//
// Every element remembers where it was defined (file and line), so that any
// later check (at close of definition, on the server) can point the user at
// the line to fix.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "calendar/calendar.h"

namespace foehn::config {

struct Location {
  std::string file;
  int line = 0;
  // The element path inside the context, e.g.
  // "context[id=atm]/file_definition/file[id=daily]/field[field_ref=tas]";
  // empty outside the XML tree.
  std::string path;
  std::string str() const;  // "iodef.xml:12" (or "iodef.xml" if line is 0)
};

// One error: "<file>:<line>: <path>: <message>" (no path part when empty).
struct ErrorItem {
  Location where;
  std::string message;
  std::string str() const;
};

// what() is "<file>:<line>: <path>: <message>", one line per error when the
// reader found several (`errors`; `where` and `message` are the first's),
// then "... and N more errors" when more than the reported ones were found.
struct ConfigError : std::runtime_error {
  ConfigError(Location where, const std::string& message);
  ConfigError(std::vector<ErrorItem> errors, std::size_t omitted);  // errors is not empty
  Location where;
  std::string message;
  std::vector<ErrorItem> errors;  // every error reported (one for a single error)
  std::size_t omitted = 0;        // errors found beyond the reported ones
};

// A Location held once and shared by every attribute origin that points at
// it: an element's attributes all do, and a group's attribute is passed to
// each member (one copy each, paths included, was a sixth of the model's
// heap at close of definition with 5,000 fields).
class SharedLocation {
 public:
  SharedLocation() = default;
  SharedLocation(Location where) : where_(std::make_shared<const Location>(std::move(where))) {}
  const Location& operator*() const { return where_ ? *where_ : nowhere(); }
  const Location* operator->() const { return &**this; }

 private:
  static const Location& nowhere();
  std::shared_ptr<const Location> where_;
};

// Where one resolved attribute came from: its value (as written, trimmed),
// the element it was written on, and how it reached the element: "" for the
// element's own attribute, else a description such as
// "<field_group id='g'>", "<field_definition>", "field_ref 't'" or
// "field_ref 't' <- <field_group id='g'>" (chains, nearest first), with
// " (root of included file)" when it was written on an included file's root.
struct AttributeOrigin {
  std::string value;
  SharedLocation where;
  std::string via;
};
// attribute name -> origin, for every attribute the element ends up with
// (after groups, includes and references; defaults are not listed).
using AttributeOrigins = std::map<std::string, AttributeOrigin>;

// Something legal but probably unintended, e.g. an attribute whose value
// hides another one set elsewhere. str() is "file:line: warning: message".
struct ConfigWarning {
  Location where;
  std::string message;
  std::string str() const;
};

struct Variable {
  std::string id;
  std::string type;   // bool, int, double, string (XIOS spellings accepted and normalised)
  std::string value;  // checked against the type at parse time
  Location where;
  std::string name;  // optional name= (file/field variables: the attribute name written)
  const std::string& output_name() const { return name.empty() ? id : name; }
};

// Attributes that the reader accepts and type-checks but that have no member
// of their own (yet): name -> value as written, after inheritance.
using ExtraAttributes = std::map<std::string, std::string>;

struct CalendarDef {
  bool present = false;
  std::string type;         // as written; checked with calendar::parse_calendar_type
  std::string timestep;     // duration text, may be empty (the API may set it)
  std::string start_date;   // date text, may be empty
  std::string time_origin;  // date text, may be empty (defaults to start_date)
  Location where;
  // type user_defined: month_lengths (12 values), leap_year_month,
  // leap_year_drift, leap_year_drift_offset (day_length must be 86400 and
  // year_length, if given, must match). Unset when month_lengths is not
  // given.
  std::optional<calendar::UserCalendar> user;

  // The calendar of `type` (user_defined: from `user`). Throws ConfigError
  // at `where` when the type is unknown or user_defined without
  // month_lengths.
  calendar::Calendar make_calendar() const;
};

// A spatial transformation written inside a domain, axis or scalar
// (<zoom_domain ibegin="2" .../>): the element's name, where its parent
// sits, and its attributes as written (checked by the reader; interpreted by
// src/transform/).
struct TransformationDef {
  std::string kind;    // the element's name: zoom_domain, extract_axis, reduce_domain, ...
  std::string target;  // the element it is in: domain, axis or scalar
  std::map<std::string, std::string, std::less<>> attrs;
  Location where;
  const std::string* attr(std::string_view name) const {
    const auto it = attrs.find(name);
    return it == attrs.end() ? nullptr : &it->second;
  }
};

struct AxisDef {
  std::string id, name, long_name, standard_name, unit, positive;
  std::optional<std::int64_t> n_glo;
  std::vector<double> value;   // optional values given in the XML
  std::vector<double> bounds;  // optional bounds in the XML: 2 per value (lower, upper)
  // axis_ref (the element it inherits from) and the transformations that
  // turn that element into this one, in order (empty: none).
  std::string ref;
  std::vector<TransformationDef> transformations;
  Location where;
  ExtraAttributes extra;     // comment, axis_type, dim_name, bounds_name, prec, formula, ...
  AttributeOrigins origins;  // where each resolved attribute came from
  // <variable> children: attributes of the coordinate variable (not XIOS,
  // which refuses them in an axis; docs/xios-compatibility.md)
  std::vector<Variable> variables;
};

struct DomainDef {
  std::string id, name, long_name, standard_name;
  std::string type;  // rectilinear (default), curvilinear, gaussian, unstructured, healpix
  std::optional<std::int64_t> ni_glo, nj_glo;
  std::optional<int> refinement_level;  // healpix: nside = 2^refinement_level
  std::string indexing_scheme;          // healpix: "nested" or "ring" ("": not given, nested)
  // domain_ref (the element it inherits from) and the transformations that
  // turn that element into this one, in order (empty: none).
  std::string ref;
  std::vector<TransformationDef> transformations;
  Location where;
  ExtraAttributes extra;     // comment, lon_name, lat_name, dim_i_name, nvertex, radius, prec, ...
  AttributeOrigins origins;  // where each resolved attribute came from
};

// A scalar (0-d grid component), from <scalar_definition>.
struct ScalarDef {
  std::string id, name, long_name, standard_name, unit, label;
  std::optional<double> value;
  // scalar_ref (the element it inherits from) and the transformations that
  // turn that element into this one, in order (empty: none).
  std::string ref;
  std::vector<TransformationDef> transformations;
  Location where;
  ExtraAttributes extra;     // comment, axis_type, positive, bounds_name, prec
  AttributeOrigins origins;  // where each resolved attribute came from
};

struct GridComponent {
  enum class Kind { domain, axis, scalar } kind;
  std::string ref;  // id of the domain/axis/scalar
  Location where;
};

struct GridDef {
  std::string id, name;
  std::vector<GridComponent> components;  // in declared order
  Location where;
  ExtraAttributes extra;     // description, comment
  AttributeOrigins origins;  // where each resolved attribute came from
};

// Lossy quantization (not XIOS): the algorithm (bitround, granular_bitround,
// bitgroom; empty if unset) and the significant bits or digits kept.
struct Quantization {
  std::string algorithm;
  std::optional<int> nsb, nsd;
};

struct FieldDef {
  std::string id, name, long_name, standard_name, unit, comment;
  std::string operation;             // instant (default), average, accumulate, minimum, maximum, once
  std::string freq_op, freq_offset;  // duration texts, may be empty
  std::string field_ref, grid_ref, domain_ref, axis_ref, scalar_ref;
  std::string expression;  // text content, trimmed; empty if none
  int prec = 4;            // 4 (float) or 8 (double); 2 is refused for now
  bool enabled = true;
  std::optional<double> default_value, valid_min, valid_max;
  bool detect_missing_value = false;
  std::optional<int> compression_level;
  std::optional<int> level;
  Location where;
  // Added beyond the first interface (CF packing and metadata in common use).
  std::optional<double> add_offset, scale_factor;
  std::string cell_methods;
  std::string cell_methods_mode;    // overwrite | prefix | suffix | none; empty if unset
  bool check_if_active = false;     // accepted for XIOS compatibility; foehn always checks
  std::vector<Variable> variables;  // <variable>s inside the field (become variable attributes)
  std::string compression_type;     // None | gzip | szip | SZ | ZFP; empty if unset
  Quantization quantization;        // empty unless set on the field (the file's is the default)
  std::string healpix_pyramid;      // "6..0": written at each HEALPix level (healpix_pyramid.cpp); empty if unset
  ExtraAttributes extra;            // read_access, grid_path, ts_enabled, ...
  AttributeOrigins origins;         // where each resolved attribute came from
  // The name written to the file: name if set, else id.
  const std::string& output_name() const { return name.empty() ? id : name; }
};

struct FileDef {
  std::string id, name, name_suffix, description;
  std::string output_freq;  // duration text (required for an enabled file)
  std::string split_freq, split_freq_format, sync_freq;
  std::string type = "one_file";   // one_file | multiple_file
  std::string format = "netcdf4";  // netcdf4 | netcdf4_classic
  std::string par_access = "collective";
  std::optional<int> output_level, compression_level, min_digits;
  bool append = false;
  bool enabled = true;
  std::vector<FieldDef> fields;     // resolved, enabled or not, in document order
  std::vector<Variable> variables;  // file-level <variable>s (become global attributes)
  Quantization quantization;        // the default of its fields
  Location where;
  // Added beyond the first interface; empty when not set in the XML.
  std::string comment;
  std::string mode;          // read | write
  std::string convention;    // CF | UGRID | CDI | CDI UGRID
  std::string time_counter;  // centered | instant | record | exclusive | centered_exclusive | instant_exclusive | none
  std::string time_units;    // seconds | days
  std::string timeseries;    // none | only | both | exclusive
  ExtraAttributes extra;     // split_start_offset, time_counter_name, uuid_name, writer, ...
  AttributeOrigins origins;  // where each resolved attribute came from
  const std::string& output_name() const { return name.empty() ? id : name; }
};

struct ContextDef {
  std::string id;
  CalendarDef calendar;
  std::vector<Variable> variables;
  std::vector<AxisDef> axes;
  std::vector<DomainDef> domains;
  std::vector<ScalarDef> scalars;  // added: <scalar_definition>
  std::vector<GridDef> grids;
  std::vector<FieldDef> fields;  // field_definition, resolved
  std::vector<FileDef> files;
  Location where;
  // The XIOS-style API's group handles: the ids of the groups per group
  // element ("field_group", "file_group", "axis_group", ...), and the ids of
  // the fields inside each field_group of field_definition, at any depth.
  std::map<std::string, std::vector<std::string>, std::less<>> group_ids;
  std::map<std::string, std::vector<std::string>, std::less<>> field_group_members;

  const AxisDef* find_axis(std::string_view id) const;
  const DomainDef* find_domain(std::string_view id) const;
  const GridDef* find_grid(std::string_view id) const;
  const FieldDef* find_field(std::string_view id) const;
  const FileDef* find_file(std::string_view id) const;
  const Variable* find_variable(std::string_view id) const;
  const ScalarDef* find_scalar(std::string_view id) const;
};

struct Simulation {
  std::vector<ContextDef> contexts;
  // Attributes that override a different value set elsewhere: an including
  // element over its included file's root, or an attribute inherited from a
  // group over the one of the field_ref (domain_ref, ...) target. Reading
  // goes on; `foehn check` prints them.
  std::vector<ConfigWarning> warnings;
  const ContextDef* find_context(std::string_view id) const;
};

// Reads a file (and the files it includes with src="..." relative to it).
// Throws ConfigError with file and line on any error. Errors after which
// reading can go on (unknown attributes and elements, bad values, dangling
// references, duplicate ids, ...) are collected, and one ConfigError lists
// them all (at most kMaxReportedErrors, then how many more).
constexpr std::size_t kMaxReportedErrors = 50;
Simulation parse_file(const std::string& path);
// Whether `file` writes `field`: the field is enabled and its level (default
// 1) is at most the file's output_level (default 5), as in XIOS.
bool is_output_field(const FileDef& file, const FieldDef& field);
// What a file of mode="read" asks that foehn's reader does not do, or ""
// (refused at close of definition, reported by foehn check).
std::string read_file_refusal(const FileDef& file);
// The same for one of its fields: an expression or a temporal operation.
std::string read_field_refusal(const FieldDef& field);

// Reads XML text; `name` is used in error messages, includes are relative to base_dir.
Simulation parse_string(std::string_view xml, const std::string& name, const std::string& base_dir);

// Why close of definition refuses an attribute of an element kind ("field",
// "file", "scalar", ...) that the reader accepts, or "" when foehn acts on it
// or keeps it (src/config/xios_attributes.tsv).
std::string_view refusal(std::string_view kind, std::string_view name);
// Whether foehn keeps an attribute of an element kind and reads it back with
// no effect ("stored" in src/config/xios_attributes.tsv).
bool stored_only(std::string_view kind, std::string_view name);

// Typed access to variables; throw ConfigError (at the variable's line) when
// the value does not fit the type. Return the fallback when absent.
bool variable_bool(const ContextDef& ctx, std::string_view id, bool fallback);
std::int64_t variable_int(const ContextDef& ctx, std::string_view id, std::int64_t fallback);
double variable_double(const ContextDef& ctx, std::string_view id, double fallback);
std::string variable_string(const ContextDef& ctx, std::string_view id, std::string fallback);

}  // namespace foehn::config
