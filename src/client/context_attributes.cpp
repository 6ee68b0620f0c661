// Attributes and variables at run time, for the XIOS-style calls
// (xios_set_attr, xios_set_*_attr, xios_is_defined_*_attr, xios_getvar):
// read the resolved definitions, and change field, field group and file
// attributes before close of definition as if the XML had said so (domain,
// axis, scalar and grid attributes set here are kept, with no effect, but
// for an axis's formula attributes, which are written).
#include <algorithm>
#include <string>

#include "calendar/calendar.h"
#include "client/context.h"
#include "client/errors.h"
#include "client/step_driver.h"
#include "config/transformation_attributes.h"
#include "config/values.h"

namespace foehn::client {

namespace {

bool parse_enabled(const std::string& what, const std::string& value) {
  const auto b = config::detail::parse_bool(value);
  if (!b) fail(FOEHN_ERR_ARGUMENT, what + ": '" + value + "' is not a boolean (true or false)");
  return *b;
}

int parse_whole(const std::string& what, const std::string& value) {
  const auto v = config::detail::parse_int(value);
  if (!v) fail(FOEHN_ERR_ARGUMENT, what + ": '" + value + "' is not an integer");
  return static_cast<int>(*v);
}

double parse_real(const std::string& what, const std::string& value) {
  const auto v = config::detail::parse_double(value);
  if (!v) fail(FOEHN_ERR_ARGUMENT, what + ": '" + value + "' is not a number");
  return *v;
}

// quantization, quantization_nsb or quantization_nsd of a field or file
// (docs/compression.md); false for another attribute. The checks against
// the field's precision come at close of definition, as for the XML's.
bool apply_quantization(config::Quantization& q, const std::string& what, const std::string& name,
                        const std::string& value) {
  if (name == "quantization") {
    if (value != "bitround" && value != "granular_bitround" && value != "bitgroom")
      fail(FOEHN_ERR_ARGUMENT, what + ": '" + value + "' is not bitround, granular_bitround or bitgroom");
    q.algorithm = value;
  } else if (name == "quantization_nsb" || name == "quantization_nsd") {
    const int keep = parse_whole(what, value);
    if (keep < 1) fail(FOEHN_ERR_ARGUMENT, what + ": '" + value + "' is not 1 or more");
    (name == "quantization_nsb" ? q.nsb : q.nsd) = keep;
  } else {
    return false;
  }
  return true;
}

// Sets one attribute of a field definition as the reader would have; an
// attribute without a member of its own is kept in `extra` (read back, no effect).
void apply_field_attribute(config::FieldDef& f, const std::string& what, const std::string& name,
                           const std::string& value) {
  if (name == "enabled")
    f.enabled = parse_enabled(what, value);
  else if (name == "name")
    f.name = value;
  else if (name == "long_name")
    f.long_name = value;
  else if (name == "standard_name")
    f.standard_name = value;
  else if (name == "unit")
    f.unit = value;
  else if (name == "comment")
    f.comment = value;
  else if (name == "freq_op")
    f.freq_op = value;
  else if (name == "freq_offset")
    f.freq_offset = value;
  else if (name == "operation")
    f.operation = value;
  else if (name == "prec")
    f.prec = value == "8" ? 8 : 4;
  else if (name == "grid_ref")
    f.grid_ref = value;
  else if (name == "domain_ref")
    f.domain_ref = value;
  else if (name == "axis_ref")
    f.axis_ref = value;
  else if (name == "scalar_ref")
    f.scalar_ref = value;
  else if (name == "default_value")
    f.default_value = parse_real(what, value);
  else if (name == "valid_min")
    f.valid_min = parse_real(what, value);
  else if (name == "valid_max")
    f.valid_max = parse_real(what, value);
  else if (name == "add_offset")
    f.add_offset = parse_real(what, value);
  else if (name == "scale_factor")
    f.scale_factor = parse_real(what, value);
  else if (name == "detect_missing_value")
    f.detect_missing_value = parse_enabled(what, value);
  else if (name == "check_if_active")
    f.check_if_active = parse_enabled(what, value);
  else if (name == "compression_level")
    f.compression_level = parse_whole(what, value);
  else if (apply_quantization(f.quantization, what, name, value))
    return;
  else if (name == "level")
    f.level = parse_whole(what, value);
  else if (name == "cell_methods")
    f.cell_methods = value;
  else if (name == "cell_methods_mode")
    f.cell_methods_mode = value;
  else if (config::stored_only("field", name))
    f.extra[name] = value;
  else
    fail(FOEHN_ERR_ARGUMENT, what + " cannot be set at run time (docs/xios-compatibility.md)");
}

// field_ref set from code: the field takes every attribute of its target
// that it does not set itself, as the reader does for a field_ref in the XML.
void take_from_target(config::FieldDef& f, const config::FieldDef& target, const std::string& what) {
  f.field_ref = target.id;
  for (const auto& [name, origin] : target.origins) {
    if (name == "id" || name == "field_ref" || name == "expr" || f.origins.count(name) ||
        !config::refusal("field", name).empty())
      continue;
    apply_field_attribute(f, what, name, origin.value);
    config::AttributeOrigin inherited = origin;
    inherited.via = "field_ref '" + target.id + "'" + (origin.via.empty() ? "" : " <- " + origin.via);
    f.origins[name] = inherited;
  }
  if (f.expression.empty()) f.expression = target.expression;
}

// Whether `f` gets `name` from the field `id` by its field_ref chain (and
// not from its own attribute or a group, which win over references).
bool inherits_from(const config::ContextDef& def, const config::FieldDef& f, const std::string& id,
                   const std::string& name) {
  bool refers = false;
  for (const config::FieldDef* g = &f; g && !g->field_ref.empty(); g = def.find_field(g->field_ref))
    if (g->field_ref == id) {
      refers = true;
      break;
    }
  if (!refers) return false;
  const auto o = f.origins.find(name);
  return o == f.origins.end() || o->second.via.find("field_ref '" + id + "'") != std::string::npos;
}

}  // namespace

const std::string* Context::attribute(const std::string& kind, const std::string& id, const std::string& name) {
  check_open("foehn_get_attribute");
  const config::AttributeOrigins* origins = nullptr;
  if (kind == "calendar") {
    const std::string* v = name == "type"          ? &settings_.calendar.type
                           : name == "start_date"  ? &settings_.calendar.start_date
                           : name == "time_origin" ? &settings_.calendar.time_origin
                           : name == "timestep"    ? &settings_.calendar.timestep
                                                   : nullptr;
    if (!v)
      fail(FOEHN_ERR_ARGUMENT,
           "foehn_get_attribute: calendar has no attribute '" + name + "' (type, start_date, time_origin, timestep)");
    return v->empty() ? nullptr : v;
  }
  if (is_transformation_class(kind)) {
    const config::TransformationDef* t = transformation(kind, id);
    if (!t) fail(FOEHN_ERR_ARGUMENT, "foehn_get_attribute: no " + kind + " '" + id + "' in context '" + id_ + "'");
    const std::string* value = t->attr(name);
    if (!value) return nullptr;
    attribute_text_ = *value;
    return &attribute_text_;
  }
  if (kind == "variable") {
    // A <variable> (of the context, a file or a field): its name when given,
    // its type (string when not given, so always defined).
    const config::Variable* v = any_variable(id);
    if (!v) fail(FOEHN_ERR_ARGUMENT, "foehn_get_attribute: no variable '" + id + "' in context '" + id_ + "'");
    if (name != "name" && name != "type")
      fail(FOEHN_ERR_ARGUMENT, "foehn_get_attribute: variable has no attribute '" + name + "' (name, type)");
    const std::string& value = name == "name" ? v->name : v->type;
    if (value.empty()) return nullptr;
    attribute_text_ = value;
    return &attribute_text_;
  }
  if (kind == "field") {
    if (const auto* f = any_field(id)) origins = &f->origins;
  } else if (kind == "file") {
    if (const auto* f = def_.find_file(id)) origins = &f->origins;
  } else if (kind == "domain") {
    if (const auto* d = def_.find_domain(id)) origins = &d->origins;
  } else if (kind == "axis") {
    if (const auto* a = def_.find_axis(id)) origins = &a->origins;
  } else if (kind == "grid") {
    if (const auto* g = def_.find_grid(id)) origins = &g->origins;
  } else if (kind == "scalar") {
    if (const auto* s = def_.find_scalar(id)) origins = &s->origins;
  } else if (kind == "field_group" || kind == "file_group") {
    // What the model set on the group (the XML's group attributes live on in their members).
    const auto group = group_attributes_.find(kind + " " + id);
    if (group == group_attributes_.end()) {
      if (!has_element(kind, id))
        fail(FOEHN_ERR_ARGUMENT, "foehn_get_attribute: no " + kind + " '" + id + "' in context '" + id_ + "'");
      return nullptr;
    }
    origins = &group->second;
  } else {
    fail(FOEHN_ERR_ARGUMENT,
         "foehn_get_attribute: unknown kind '" + kind +
             "' (field, field_group, file, file_group, domain, axis, grid, scalar, variable, calendar)");
  }
  if (!origins) fail(FOEHN_ERR_ARGUMENT, "foehn_get_attribute: no " + kind + " '" + id + "' in context '" + id_ + "'");
  const auto o = origins->find(name);
  if (o == origins->end()) return nullptr;
  attribute_text_ = o->second.value;
  return &attribute_text_;
}

void Context::set_attribute(const std::string& kind, const std::string& id, const std::string& name,
                            const std::string& value) {
  check_open("foehn_set_attribute");
  const std::string what = "foehn_set_attribute: " + kind + " '" + id + "' attribute '" + name + "'";
  if (closed_definition_) fail(FOEHN_ERR_STATE, what + ": context '" + id_ + "' is already defined");
  const config::AttributeOrigin origin{value, config::Location{"(set by the model)", 0, {}}, "the model"};
  if (kind == "variable") {
    // xios_setvar sets the text of a <variable> (of the context, a file or a
    // field), checked against its type; xios_set_variable_attr its name and type.
    config::Variable* v = any_variable(id);
    if (!v) fail(FOEHN_ERR_ARGUMENT, what + ": no such variable in context '" + id_ + "'");
    if (name == "name") {
      v->name = value;
      return;
    }
    if (name != "value" && name != "type")
      fail(FOEHN_ERR_ARGUMENT, what + ": a variable takes its name, type and value from code");
    const auto type = name == "type" ? config::detail::normalise_variable_type(value) : std::optional(v->type);
    if (!type) fail(FOEHN_ERR_ARGUMENT, what + ": '" + value + "' is not a variable type (bool, int, double, string)");
    // The value must read as the type, whichever of the two is set now; a
    // type may come before the value (a variable added from code has none yet).
    const std::string& text = name == "value" ? value : v->value;
    const bool fits = *type == "bool"     ? config::detail::parse_bool(text).has_value()
                      : *type == "int"    ? config::detail::parse_int(text).has_value()
                      : *type == "double" ? config::detail::parse_double(text).has_value()
                                          : true;
    if (!fits && !(name == "type" && text.empty()))
      fail(FOEHN_ERR_ARGUMENT, what + ": '" + text + "' is not a " + *type);
    if (name == "type")
      v->type = *type;
    else
      v->value = value;
    return;
  }
  if (kind == "calendar") {
    set_calendar_attribute(what, name, value);
    return;
  }
  if (is_transformation_class(kind)) {
    config::TransformationDef* t = transformation(kind, id);
    if (!t) fail(FOEHN_ERR_ARGUMENT, what + ": no such " + kind + " in context '" + id_ + "'");
    if (name == "id") fail(FOEHN_ERR_ARGUMENT, what + ": an id cannot change");
    if (const std::string problem = config::transformation_attribute_problem(t->kind, t->target, name, value);
        !problem.empty())
      fail(FOEHN_ERR_ARGUMENT, what + ": " + problem);
    t->attrs[name] = value;
    return;
  }
  if (kind == "field_group") {
    // A group passes the attribute to each of its fields that does not set it itself.
    const auto members = def_.field_group_members.find(id);
    if (members == def_.field_group_members.end() && id != "field_definition")
      fail(FOEHN_ERR_ARGUMENT, what + ": no such field_group in field_definition of context '" + id_ + "'");
    std::vector<std::string> ids;
    if (members != def_.field_group_members.end())
      ids = members->second;
    else
      for (const auto& f : def_.fields) ids.push_back(f.id);
    group_attributes_["field_group " + id][name] = origin;
    for (const auto& field_id : ids) {
      const config::FieldDef* f = def_.find_field(field_id);
      if (!f) continue;
      const auto own = f->origins.find(name);
      if (own == f->origins.end() || !own->second.via.empty()) set_attribute("field", field_id, name, value);
    }
    return;
  }
  if (kind == "field") {
    config::FieldDef* self = any_field(id);
    if (!self) fail(FOEHN_ERR_ARGUMENT, what + ": no such field in context '" + id_ + "'");
    if (name == "id") fail(FOEHN_ERR_ARGUMENT, what + ": an id cannot change");
    if (const auto why = config::refusal("field", name); !why.empty())
      fail(FOEHN_ERR_ARGUMENT, what + " is refused: " + std::string(why));
    if (name == "operation" && value != "instant" && value != "average" && value != "accumulate" &&
        value != "minimum" && value != "maximum" && value != "once")
      fail(FOEHN_ERR_ARGUMENT,
           what + ": '" + value + "' is not one of instant, average, accumulate, minimum, maximum, once");
    if (name == "prec" && value != "4" && value != "8")
      fail(FOEHN_ERR_ARGUMENT, what + ": '" + value + "' is not 4 or 8");
    if (name == "freq_op" || name == "freq_offset") calendar::parse_duration(value);
    if (name == "enabled") parse_enabled(what, value);
    if (name == "field_ref") {
      const config::FieldDef* target = any_field(value);
      if (!target || target == self)
        fail(FOEHN_ERR_ARGUMENT, what + ": no other field '" + value + "' in context '" + id_ + "'");
      const config::FieldDef copy = *target;  // the target may move when fields are added
      take_from_target(*self, copy, what);
      self->origins[name] = origin;
      return;
    }
    // The field itself, then every field (definitions and file fields) that takes it by reference.
    std::vector<config::FieldDef*> targets;
    for (auto& f : def_.fields) targets.push_back(&f);
    for (auto& file : def_.files)
      for (auto& f : file.fields) targets.push_back(&f);
    std::vector<config::FieldDef*> changed;
    for (auto* f : targets)
      if (f->id == id || inherits_from(def_, *f, id, name)) changed.push_back(f);
    for (auto* f : changed) {
      apply_field_attribute(*f, what, name, value);
      f->origins[name] = origin;
    }
    return;
  }
  if (kind == "file") {
    auto it = std::find_if(def_.files.begin(), def_.files.end(), [&](const config::FileDef& f) { return f.id == id; });
    if (it == def_.files.end()) fail(FOEHN_ERR_ARGUMENT, what + ": no such file in context '" + id_ + "'");
    if (name == "id") fail(FOEHN_ERR_ARGUMENT, what + ": an id cannot change");
    if (const auto why = config::refusal("file", name); !why.empty())
      fail(FOEHN_ERR_ARGUMENT, what + " is refused: " + std::string(why));
    if (name == "enabled") it->enabled = parse_enabled(what, value);
    if (name == "append") it->append = parse_enabled(what, value);
    if (name == "output_freq" || name == "split_freq" || name == "sync_freq") calendar::parse_duration(value);
    if (name == "output_level" || name == "compression_level" || name == "min_digits") {
      const int level = parse_whole(what, value);
      if (level < 0) fail(FOEHN_ERR_ARGUMENT, what + ": '" + value + "' is not 0 or more");
      (name == "output_level"        ? it->output_level
       : name == "compression_level" ? it->compression_level
                                     : it->min_digits) = level;
    }
    const bool quantization = apply_quantization(it->quantization, what, name, value);
    if (name == "type" && value != "one_file" && value != "multiple_file")
      fail(FOEHN_ERR_ARGUMENT, what + ": '" + value + "' is not one_file or multiple_file");
    // Text members as the reader keeps them; anything else is kept in `extra`.
    std::string* text = name == "name"                ? &it->name
                        : name == "name_suffix"       ? &it->name_suffix
                        : name == "description"       ? &it->description
                        : name == "output_freq"       ? &it->output_freq
                        : name == "split_freq"        ? &it->split_freq
                        : name == "split_freq_format" ? &it->split_freq_format
                        : name == "sync_freq"         ? &it->sync_freq
                        : name == "type"              ? &it->type
                        : name == "format"            ? &it->format
                        : name == "par_access"        ? &it->par_access
                        : name == "comment"           ? &it->comment
                        : name == "mode"              ? &it->mode
                        : name == "convention"        ? &it->convention
                        : name == "time_counter"      ? &it->time_counter
                        : name == "time_units"        ? &it->time_units
                        : name == "timeseries"        ? &it->timeseries
                                                      : nullptr;
    const bool typed = name == "enabled" || name == "append" || name == "output_level" || name == "compression_level" ||
                       name == "min_digits" || quantization;
    if (text)
      *text = value;
    else if (config::stored_only("file", name) || name == "time_counter_name" || name == "record_offset" ||
             name.starts_with("time_stamp_") || name.starts_with("uuid_"))
      it->extra[name] = value;
    else if (!typed)
      fail(FOEHN_ERR_ARGUMENT, what + " cannot be set at run time (docs/xios-compatibility.md)");
    it->origins[name] = origin;
    return;
  }
  // Domains, axes, scalars and grids take their acted-on attributes through
  // the foehn_set_domain_* / foehn_set_axis* calls; what comes here is kept
  // and read back (the table's "stored" attributes), with no effect.
  config::ExtraAttributes* extra = nullptr;
  config::AttributeOrigins* origins = nullptr;
  auto pick = [&](auto& items) {
    for (auto& x : items)
      if (x.id == id) {
        extra = &x.extra;
        origins = &x.origins;
      }
  };
  if (name == kind + "_ref" && (kind == "domain" || kind == "axis" || kind == "scalar")) {
    if (set_grid_child_ref(kind, id, value, what)) return;
    fail(FOEHN_ERR_ARGUMENT, what + ": from code, " + name + " names what a " + kind +
                                 " added to a grid (xios_add_child(grid_hdl, " + kind +
                                 "_hdl)) stands for; elsewhere it comes from the XML");
  }
  if (kind == "domain") pick(def_.domains);
  if (kind == "axis") pick(def_.axes);
  if (kind == "scalar") pick(def_.scalars);
  if (kind == "grid") pick(def_.grids);
  if (kind != "domain" && kind != "axis" && kind != "scalar" && kind != "grid")
    fail(FOEHN_ERR_ARGUMENT, what + ": unknown kind (field, field_group, file, domain, axis, scalar, grid)");
  if (!extra) fail(FOEHN_ERR_ARGUMENT, what + ": no such " + kind + " in context '" + id_ + "'");
  // An axis's formula attributes and dim_name are written from `extra` (plan_builder.cpp).
  const bool axis_formula = kind == "axis" && (name == "formula" || name == "formula_term" || name == "dim_name" ||
                                               name == "formula_bounds" || name == "formula_term_bounds");
  // A domain's netCDF names are read from `extra` too (plan_builder.cpp).
  const bool domain_naming =
      kind == "domain" && (name == "lon_name" || name == "lat_name" || name == "dim_i_name" || name == "dim_j_name" ||
                           name == "bounds_lon_name" || name == "bounds_lat_name" || name == "nvertex_name");
  if (!config::stored_only(kind, name) && !axis_formula && !domain_naming)
    fail(FOEHN_ERR_ARGUMENT,
         what + ": only attributes foehn keeps without acting on them can be set at run time on a " + kind +
             "; the others come from the XML or the foehn_set_domain_* / foehn_set_axis* "
             "calls (docs/xios-compatibility.md)");
  (*extra)[name] = value;
  (*origins)[name] = origin;
}

const std::string* Context::variable(const std::string& id) const {
  check_open("foehn_get_variable");
  const auto* v = def_.find_variable(id);
  return v ? &v->value : nullptr;
}

bool Context::is_used(int handle) const { return driver_ && driver_->is_used(handle); }

}  // namespace foehn::client
