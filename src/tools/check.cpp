// The checks of `foehn check` beyond the reader's. The reader checks the
// form of every value; here values are checked against each other (a
// duration against the calendar) and against what writing needs.
#include "tools/check.h"

#include <map>
#include <optional>

#include "calendar/calendar.h"
#include "config/refusals.h"
#include "tools/field_grid.h"
#include "tools/transformations.h"

namespace foehn::tools {

namespace {

using config::ConfigError;
using config::Location;

struct ContextChecker {
  const config::ContextDef& ctx;
  CheckResult& result;
  std::optional<calendar::CalendarType> type;  // unset: the model sets it through the API

  void problem(const Location& where, const std::string& message) { result.problems.emplace_back(where, message); }

  void check_calendar() {
    const config::CalendarDef& c = ctx.calendar;
    if (!c.present) return;
    if (!c.type.empty()) type = calendar::parse_calendar_type(c.type);  // checked by the reader
    if (c.timestep.empty()) return;
    const calendar::Duration step = calendar::parse_duration(c.timestep);
    // Instants advance by a fixed number of microseconds per step.
    if (step.months != 0 || step.timesteps != 0)
      problem(c.where,
              "calendar timestep '" + c.timestep + "' must be a fixed time (d, h, mi, s), not months, years or 'ts'");
  }

  // A duration (attribute `attr` = `text`) must be usable with the calendar.
  void check_duration(const Location& where, const std::string& attr, const std::string& text) {
    if (text.empty()) return;
    const calendar::Duration d = calendar::parse_duration(text);  // form checked by the reader
    if (type == calendar::CalendarType::none && d.months != 0)
      problem(where, attr + " '" + text + "' counts months or years, which the 'none' calendar does not have");
  }

  // split_freq_format: known codes, and a split_freq to go with it.
  void check_split_format(const config::FileDef& file) {
    if (file.split_freq_format.empty()) return;
    if (file.split_freq.empty())
      problem(file.where, "split_freq_format '" + file.split_freq_format + "' is set but split_freq is not");
    try {
      calendar::format_date_as(calendar::Date{}, file.split_freq_format);
    } catch (const calendar::TimeError& e) {
      problem(file.where, "split_freq_format '" + file.split_freq_format + "': " + e.what());
    }
  }

  // With every size of the source grid in the XML, each step is built as
  // `foehn plan` builds it: a box outside its domain is reported here.
  void check_transformation_sizes(const config::FieldDef& field) {
    struct UnknownSize {};
    try {
      field_transformations(ctx, field, [&](const config::GridComponent& c) -> std::pair<std::int64_t, std::int64_t> {
        using Kind = config::GridComponent::Kind;
        if (c.kind == Kind::scalar) return {1, 1};
        if (c.kind == Kind::axis) {
          const config::AxisDef* a = ctx.find_axis(c.ref);
          if (a && a->n_glo) return {*a->n_glo, 1};
          if (a && !a->value.empty()) return {static_cast<std::int64_t>(a->value.size()), 1};
          throw UnknownSize{};
        }
        const config::DomainDef* d = ctx.find_domain(c.ref);
        const bool one_d = d && (d->type == "gaussian" || d->type == "unstructured" || d->type == "healpix");
        if (d && d->ni_glo && (d->nj_glo || one_d)) return {*d->ni_glo, d->nj_glo.value_or(1)};
        throw UnknownSize{};  // the model gives it: checked at close of definition
      });
    } catch (const UnknownSize&) {}
  }

  // A file of mode="read": what the reader refuses, the read frequency and
  // each field's grid.
  void check_read_file(const config::FileDef& file) {
    ++result.files;
    if (const std::string why = config::read_file_refusal(file); !why.empty())
      problem(file.where, "file '" + file.id + "' (mode=\"read\"): " + why);
    check_duration(file.where, "output_freq", file.output_freq);
    for (const config::FieldDef& field : file.fields) {
      if (!is_output_field(file, field)) continue;
      ++result.fields;
      if (const std::string why = config::read_field_refusal(field); !why.empty())
        problem(field.where, "field '" + field.id + "' of read file '" + file.id + "': " + why);
      try {
        field_grid(ctx, field);
      } catch (const ConfigError& e) { result.problems.push_back(e); }
      check_duration(field.where, "freq_offset", field.freq_offset);
    }
  }

  void check_file(const config::FileDef& file) {
    if (file.enabled && file.mode == "read") return check_read_file(file);
    if (!is_output_file(file)) return;
    ++result.files;
    // What close of definition would refuse, at the same line.
    if (const std::string why = config::write_file_refusal(file); !why.empty())
      problem(file.where, "file '" + file.id + "': " + why);
    check_duration(file.where, "output_freq", file.output_freq);
    if (!ctx.calendar.timestep.empty()) {
      const calendar::Duration step = calendar::parse_duration(ctx.calendar.timestep);
      if (step.months == 0 && step.timesteps == 0)
        if (const std::string why = config::output_freq_refusal(file, step.microseconds); !why.empty())
          problem(file.where, "file '" + file.id + "': " + why);
    }
    check_duration(file.where, "split_freq", file.split_freq);
    check_duration(file.where, "sync_freq", file.sync_freq);
    check_split_format(file);
    for (const config::FieldDef& field : file.fields) {
      if (!is_output_field(file, field)) continue;
      ++result.fields;
      if (const std::string why = config::write_field_refusal(field); !why.empty())
        problem(field.where, "field '" + (field.id.empty() ? field.field_ref : field.id) + "': " + why);
      try {
        field_grid(ctx, field);
        if (check_field_chains(ctx, field)) check_transformation_sizes(field);  // chains match by position
      } catch (const ConfigError& e) { result.problems.push_back(e); }
      check_duration(field.where, "freq_op", field.freq_op);
      check_duration(field.where, "freq_offset", field.freq_offset);
      // Only sampled operations have sampling instants to shift.
      if (!field.freq_offset.empty() && (field.operation == "instant" || field.operation == "once") &&
          !calendar::parse_duration(field.freq_offset).is_zero())
        problem(field.where, "freq_offset '" + field.freq_offset +
                                 "' applies to average, accumulate, minimum and "
                                 "maximum, not to operation '" +
                                 field.operation + "'");
    }
  }
};

// Two enabled files of any contexts with the same name (and name_suffix)
// would write one path: one clobbers the other, or the parallel writes
// corrupt it. Split periods and multiple_file parts add to that same name,
// so they clash too.
void check_name_clashes(const config::Simulation& sim, CheckResult& result) {
  struct First {
    const config::FileDef* file;
    const std::string* context;
  };
  std::map<std::string, First> seen;
  for (const config::ContextDef& ctx : sim.contexts)
    for (const config::FileDef& file : ctx.files) {
      if (!is_output_file(file)) continue;
      const std::string name = file.output_name() + file.name_suffix;
      const auto [it, fresh] = seen.try_emplace(name, First{&file, &ctx.id});
      if (fresh) continue;
      result.problems.emplace_back(file.where, "file '" + file.id + "' of context '" + ctx.id + "' writes '" + name +
                                                   "', as file '" + it->second.file->id + "' of context '" +
                                                   *it->second.context + "' (" + it->second.file->where.str() +
                                                   ") does: give one of them another name");
    }
}

// A name with a directory part outside the run directory: allowed (XIOS
// writes it too), but easy to get wrong, so said.
void warn_outside_run_directory(const config::Simulation& sim, CheckResult& result) {
  for (const config::ContextDef& ctx : sim.contexts)
    for (const config::FileDef& file : ctx.files) {
      if (!is_output_file(file)) continue;
      const std::string name = file.output_name() + file.name_suffix;
      if (name.starts_with('/') || name.starts_with("../") || name.find("/../") != std::string::npos)
        result.warnings.push_back(
            {file.where, "file '" + file.id + "' writes '" + name + "', outside the run directory"});
    }
}

}  // namespace

bool is_output_file(const config::FileDef& file) { return file.enabled && file.mode != "read"; }

CheckResult check_simulation(const config::Simulation& sim) {
  CheckResult result;
  result.contexts = sim.contexts.size();
  result.warnings = sim.warnings;
  for (const config::ContextDef& ctx : sim.contexts) {
    ContextChecker checker{ctx, result, std::nullopt};
    checker.check_calendar();
    for (const config::FileDef& file : ctx.files) checker.check_file(file);
  }
  check_name_clashes(sim, result);
  warn_outside_run_directory(sim, result);
  return result;
}

CheckResult check_file(const std::string& path) {
  try {
    return check_simulation(config::parse_file(path));
  } catch (const ConfigError& e) {
    CheckResult result;
    result.add_reader_errors(e);
    return result;
  }
}

void CheckResult::add_reader_errors(const ConfigError& e) {
  for (const config::ErrorItem& item : e.errors) problems.emplace_back(item.where, item.message);
  omitted += e.omitted;
}

}  // namespace foehn::tools
