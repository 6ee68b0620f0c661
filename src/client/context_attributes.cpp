// Attributes and variables at run time, for the XIOS-style calls
// (xios_set_field_attr, xios_is_defined_*_attr, xios_getvar): read the
// resolved definitions, and change a few field and file attributes before
// close of definition as if the XML had said so.
#include <algorithm>
#include <string>

#include "calendar/calendar.h"
#include "client/context.h"
#include "client/errors.h"
#include "client/step_driver.h"
#include "config/values.h"

namespace foehn::client {

namespace {

const std::vector<std::string> kFieldAttributes = {"enabled",   "long_name", "standard_name", "unit",
                                                   "operation", "freq_op",   "prec"};
const std::vector<std::string> kFileAttributes = {"enabled",    "name",      "output_freq", "type",
                                                  "split_freq", "sync_freq", "name_suffix", "output_level"};

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

bool parse_enabled(const std::string& what, const std::string& value) {
  const auto b = config::detail::parse_bool(value);
  if (!b) fail(FOEHN_ERR_ARGUMENT, what + ": '" + value + "' is not a boolean (true or false)");
  return *b;
}

// Sets one attribute of a field definition (a name of kFieldAttributes, checked).
void apply_field_attribute(config::FieldDef& f, const std::string& what, const std::string& name,
                           const std::string& value) {
  if (name == "enabled")
    f.enabled = parse_enabled(what, value);
  else if (name == "long_name")
    f.long_name = value;
  else if (name == "standard_name")
    f.standard_name = value;
  else if (name == "unit")
    f.unit = value;
  else if (name == "freq_op")
    f.freq_op = value;
  else if (name == "operation")
    f.operation = value;
  else if (name == "prec")
    f.prec = value == "8" ? 8 : 4;
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
  if (kind == "field") {
    if (const auto* f = def_.find_field(id)) origins = &f->origins;
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
  } else {
    fail(FOEHN_ERR_ARGUMENT,
         "foehn_get_attribute: unknown kind '" + kind + "' (field, file, domain, axis, grid, scalar, calendar)");
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
  const config::AttributeOrigin origin{value, {"(set by the model)", 0, {}}, "the model"};
  if (kind == "field") {
    if (std::find(kFieldAttributes.begin(), kFieldAttributes.end(), name) == kFieldAttributes.end())
      fail(FOEHN_ERR_ARGUMENT, what + " cannot be set at run time (fields: " + joined(kFieldAttributes) + ")");
    if (!def_.find_field(id))
      fail(FOEHN_ERR_ARGUMENT, what + ": no such field in field_definition of context '" + id_ + "'");
    if (name == "operation" && value != "instant" && value != "average" && value != "accumulate" &&
        value != "minimum" && value != "maximum" && value != "once")
      fail(FOEHN_ERR_ARGUMENT,
           what + ": '" + value + "' is not one of instant, average, accumulate, minimum, maximum, once");
    if (name == "prec" && value != "4" && value != "8")
      fail(FOEHN_ERR_ARGUMENT, what + ": '" + value + "' is not 4 or 8");
    if (name == "freq_op") calendar::parse_duration(value);
    if (name == "enabled") parse_enabled(what, value);
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
    if (std::find(kFileAttributes.begin(), kFileAttributes.end(), name) == kFileAttributes.end())
      fail(FOEHN_ERR_ARGUMENT, what + " cannot be set at run time (files: " + joined(kFileAttributes) + ")");
    auto it = std::find_if(def_.files.begin(), def_.files.end(), [&](const config::FileDef& f) { return f.id == id; });
    if (it == def_.files.end()) fail(FOEHN_ERR_ARGUMENT, what + ": no such file in context '" + id_ + "'");
    if (name == "enabled") it->enabled = parse_enabled(what, value);
    if (name == "name") it->name = value;
    if (name == "output_freq" || name == "split_freq" || name == "sync_freq") calendar::parse_duration(value);
    if (name == "output_freq") it->output_freq = value;
    if (name == "split_freq") it->split_freq = value;
    if (name == "sync_freq") it->sync_freq = value;
    if (name == "name_suffix") it->name_suffix = value;
    if (name == "output_level") {
      const auto level = config::detail::parse_int(value);
      if (!level || *level < 0) fail(FOEHN_ERR_ARGUMENT, what + ": '" + value + "' is not a level (0 or more)");
      it->output_level = static_cast<int>(*level);
    }
    if (name == "type") {
      if (value != "one_file" && value != "multiple_file")
        fail(FOEHN_ERR_ARGUMENT, what + ": '" + value + "' is not one_file or multiple_file");
      it->type = value;
    }
    it->origins[name] = origin;
    return;
  }
  fail(FOEHN_ERR_ARGUMENT, what + ": only field and file attributes can be set at run time; " + kind +
                               " attributes come from the XML or the foehn_set_domain_* / foehn_set_axis calls");
}

const std::string* Context::variable(const std::string& id) const {
  check_open("foehn_get_variable");
  const auto* v = def_.find_variable(id);
  return v ? &v->value : nullptr;
}

bool Context::is_used(int handle) const { return driver_ && driver_->is_used(handle); }

}  // namespace foehn::client
