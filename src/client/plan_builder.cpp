// The pure part of close of definition (plan_builder.h): the calendar, the
// files and their fields resolved against the XML and the model's settings,
// the output plan, and the filter graph of expressions in field text, the
// fields they read (source nodes) and chained temporal operations (@id).
// Graph nodes are added inputs first, so evaluating them in order at the
// end of a step is a topological order.
#include "client/plan_builder.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <iostream>
#include <sstream>

#include "client/errors.h"
#include "client/plan_compression.h"
#include "client/plan_grib.h"
#include "config/refusals.h"
#include "config/values.h"

namespace foehn::client {

namespace {

[[noreturn]] void config_error(const config::Location& where, const std::string& message) {
  throw config::ConfigError(where, message);
}

// Attributes the reader accepts but the writer does not act on yet
// (status refused in src/config/xios_attributes.tsv, config/refusals.h) are
// refused here, at their line, with the table's reason, rather than
// silently ignored.
void refuse_unsupported_field(const config::FieldDef& f, const std::string& id) {
  if (const std::string why = config::write_field_refusal(f); !why.empty())
    config_error(f.where, "field '" + id + "': " + why);
}

// The cell_methods written: the XML's cell_methods replaces the computed
// one (cell_methods_mode overwrite, the default), or goes before (prefix)
// or after it (suffix); mode none writes none.
std::string combined_cell_methods(const std::string& given, const std::string& mode, const std::string& computed) {
  if (mode == "none") return "";
  if (given.empty()) return computed;
  if (mode == "prefix") return computed.empty() ? given : given + " " + computed;
  if (mode == "suffix") return computed.empty() ? given : computed + " " + given;
  return given;
}

void refuse_unsupported_file(const config::FileDef& f, const std::string& id) {
  if (const std::string why = config::write_file_refusal(f); !why.empty())
    config_error(f.where, "file '" + id + "': " + why);
}

// XIOS's layout attributes of a written file (file extras): the names and
// formats of the timeStamp and uuid global attributes, record_offset.
void file_layout(const config::FileDef& file, const std::string& id, output::FileInfo& info) {
  const auto text = [&](const char* attr, std::string& to, bool may_be_empty) {
    const auto it = file.extra.find(attr);
    if (it == file.extra.end()) return;
    if (it->second.empty() && !may_be_empty) config_error(file.where, "file '" + id + "': " + attr + " is empty");
    to = it->second;
  };
  text("time_stamp_name", info.time_stamp_name, false);
  text("time_stamp_format", info.time_stamp_format, true);
  text("uuid_name", info.uuid_name, false);
  text("uuid_format", info.uuid_format, true);
  const auto offset = file.extra.find("record_offset");
  if (offset == file.extra.end()) return;
  info.record_offset = std::stoll(offset->second);  // an int, checked by the reader
  // XIOS starts again at record 0 in each split file and looks its records
  // up by time in an appended one: not done here yet.
  if (info.record_offset != 0 && (!info.split_freq.empty() || info.continuable))
    config_error(file.where,
                 "file '" + id + "': record_offset is not supported yet with split_freq, append or restart_dir");
}

// Where the file's output_freq is given (its line, or the file's).
config::Location output_freq_where(const config::FileDef& f) {
  const auto o = f.origins.find("output_freq");
  return o != f.origins.end() && o->second.where->line > 0 ? *o->second.where : f.where;
}


}  // namespace

PlanBuilder::PlanBuilder(const config::ContextDef& def, ModelSettings& settings, Placement placement)
    : def_(def),
      settings_(settings),
      domains_(settings.domains),
      axes_(settings.axes),
      placement_(std::move(placement)),
      id_(placement_.context_id),
      calendar_(out_.calendar),
      start_(out_.start),
      origin_(out_.origin),
      timestep_us_(out_.timestep_us),
      plan_(out_.plan),
      fields_(out_.fields),
      field_index_(out_.field_index),
      outputs_(out_.outputs),
      graph_(out_.graph),
      files_(out_.files) {}

BuiltPlan PlanBuilder::build() {
  resolve_definitions();
  return std::move(out_);
}

// split_freq, split_freq_format and sync_freq of a file, checked here (at
// the file's line) so that the servers only apply them.
void PlanBuilder::file_periods(const config::FileDef& file, const std::string& file_id, output::FileInfo& info) const {
  const auto period = [&](const std::string& attr, const std::string& text) {
    if (text.empty()) return std::string();
    const calendar::Duration d = calendar::parse_duration(text);
    try {
      calendar::Schedule(*calendar_, start_, d, calendar::Duration{}, timestep_us_);
    } catch (const calendar::TimeError& e) {
      config_error(file.where, "file '" + file_id + "': " + attr + " '" + text + "': " + e.what());
    }
    return calendar::format_duration(d);
  };
  info.split_freq = period("split_freq", file.split_freq);
  info.sync_freq = period("sync_freq", file.sync_freq);
  if (info.split_freq.empty()) {
    if (!file.split_freq_format.empty())
      config_error(file.where, "file '" + file_id + "': split_freq_format is set but split_freq is not");
    return;
  }
  try {
    const calendar::SplitPeriods periods(*calendar_, start_, calendar::parse_duration(info.split_freq), timestep_us_,
                                         file.split_freq_format);
    info.split_format = file.split_freq_format.empty()
                            ? calendar::default_split_format(calendar::parse_duration(info.split_freq), timestep_us_)
                            : file.split_freq_format;
  } catch (const calendar::TimeError& e) {
    config_error(file.where, "file '" + file_id + "': split_freq_format '" + file.split_freq_format + "': " + e.what());
  }
}

int PlanBuilder::plan_domain(const std::string& id, const config::Location& where) {
  auto it = std::find(plan_domain_ids_.begin(), plan_domain_ids_.end(), id);
  if (it != plan_domain_ids_.end()) return static_cast<int>(it - plan_domain_ids_.begin());
  const config::DomainDef* d = def_.find_domain(id);
  if (!d) config_error(where, "unknown domain '" + id + "'");
  if (!domains_.count(id) && !inherit_domain_setting(id))
    config_error(where,
                 "domain '" + id +
                     "' is used by an output field but the model never described it "
                     "(call foehn_set_domain_rectilinear or foehn_set_domain_type before foehn_close_definition)");
  DomainSetting& s = domains_.at(id);
  resolve_domain(id, *d, s);
  output::DomainInfo info;
  info.id = id;
  info.name = d->name;
  info.long_name = d->long_name;
  info.type = s.type;
  info.ni_glo = s.layout.ni_glo;
  info.nj_glo = s.layout.nj_glo;
  info.healpix_level = s.healpix_level;
  info.healpix_nested = s.healpix_nested;
  for (auto [attr, to] : {std::pair{"lon_name", &info.lon_name},
                          {"lat_name", &info.lat_name},
                          {"bounds_lon_name", &info.bounds_lon_name},
                          {"bounds_lat_name", &info.bounds_lat_name},
                          {"dim_i_name", &info.dim_i_name},
                          {"dim_j_name", &info.dim_j_name},
                          {"nvertex_name", &info.nvertex_name}})
    if (auto it = d->extra.find(attr); it != d->extra.end()) *to = it->second;
  plan_.domains.push_back(std::move(info));
  plan_domain_ids_.push_back(id);
  return static_cast<int>(plan_domain_ids_.size() - 1);
}

int PlanBuilder::plan_axis(const std::string& id, const config::Location& where) {
  auto it = std::find(plan_axis_ids_.begin(), plan_axis_ids_.end(), id);
  if (it != plan_axis_ids_.end()) return static_cast<int>(it - plan_axis_ids_.begin());
  const config::AxisDef* a = def_.find_axis(id);
  if (!a) config_error(where, "unknown axis '" + id + "'");
  if (!axes_.count(id))  // an axis that only names another (axis_ref, as a grid's child) takes what the model
    for (const config::AxisDef* r = a; r && r->transformations.empty() && !r->ref.empty(); r = def_.find_axis(r->ref))
      if (auto f = axes_.find(r->ref); f != axes_.end()) {  // said of that one, as XIOS's inheritance at close
        AxisSetting copy = f->second;
        axes_[id] = std::move(copy);
        break;
      }
  AxisSetting& s = axes_[id];  // the model may have said nothing: the XML's axis, whole
  output::AxisInfo info;
  info.id = id;
  info.name = a->name;
  info.long_name = a->long_name;
  info.standard_name = a->standard_name;
  info.units = s.units.empty() ? a->unit : s.units;
  info.positive = s.positive.empty() ? a->positive : s.positive;
  if (auto t = a->extra.find("axis_type"); t != a->extra.end())
    info.axis_type = t->second;
  else
    info.axis_type = s.axis_type;
  if (auto b = a->extra.find("bounds_name"); b != a->extra.end()) info.bounds_name = b->second;
  if (auto n = a->extra.find("dim_name"); n != a->extra.end()) info.dim_name = n->second;
  // A parametric vertical coordinate, as XIOS writes it: formula_term goes
  // out as CF's formula_terms; *_bounds go on the bounds variable.
  auto formula = [&](const char* from, const char* to, std::vector<output::Attribute>& into) {
    if (auto f = a->extra.find(from); f != a->extra.end()) into.push_back({to, "string", f->second});
  };
  formula("formula", "formula", info.attributes);
  formula("formula_term", "formula_terms", info.attributes);
  formula("formula_bounds", "formula", info.bounds_attributes);
  formula("formula_term_bounds", "formula_terms", info.bounds_attributes);
  for (const auto& var : a->variables) info.attributes.push_back({var.output_name(), var.type, var.value});
  // The global size: the model's decomposition, else the XML's, else the
  // values the model gives for the whole axis.
  const std::string what = "axis '" + id + "' in context '" + id_ + "': ";
  const std::int64_t n_glo = s.decomposed               ? s.n_glo
                             : (a->n_glo && !s.derived) ? *a->n_glo
                                                        : static_cast<std::int64_t>(s.values.size());
  if (n_glo <= 0)
    config_error(where, "axis '" + id + "' has no values: give value= (or n_glo=) in the XML or call foehn_set_axis");
  s.local = s.decomposed ? static_cast<std::int64_t>(s.index.size()) : n_glo;
  if (!s.values.empty() && static_cast<std::int64_t>(s.values.size()) != s.local)
    fail(FOEHN_ERR_ARGUMENT, what + "foehn_set_axis gives " + std::to_string(s.values.size()) + " values for the " +
                                 std::to_string(s.local) +
                                 (s.decomposed ? " values of this rank's part" : " of the axis"));
  if (!s.bounds.empty() && static_cast<std::int64_t>(s.bounds.size()) != 2 * s.local)
    fail(FOEHN_ERR_ARGUMENT, what + "foehn_set_axis_bounds gives " + std::to_string(s.bounds.size()) +
                                 " bounds; it needs 2 per local value (" + std::to_string(2 * s.local) + ")");
  if (s.values.empty() && a->value.empty() && s.local > 0)
    config_error(where, "axis '" + id + "' has no values: give value= in the XML or call foehn_set_axis");
  // Decomposed axes get the values of the other ranks in exchange_axes.
  if (!s.decomposed && !s.values.empty())
    info.values = s.values;
  else if (!a->value.empty())
    info.values = a->value;
  else
    info.values.assign(static_cast<std::size_t>(n_glo), std::nan(""));
  if (!s.decomposed && !s.bounds.empty())
    info.bounds = s.bounds;
  else if (!a->bounds.empty() && !s.derived)  // a transformed axis has none of its source's
    info.bounds = a->bounds;
  if (!info.positive.empty() && info.positive != "up" && info.positive != "down")
    config_error(a->where, "axis '" + id + "': positive must be 'up' or 'down', not '" + info.positive + "'");
  plan_.axes.push_back(std::move(info));
  plan_axis_ids_.push_back(id);
  return static_cast<int>(plan_axis_ids_.size() - 1);
}

int PlanBuilder::plan_scalar(const std::string& id, const config::Location& where) {
  auto it = std::find(plan_scalar_ids_.begin(), plan_scalar_ids_.end(), id);
  if (!id.empty() && it != plan_scalar_ids_.end()) return static_cast<int>(it - plan_scalar_ids_.begin());
  output::ScalarInfo info;  // an anonymous <scalar/> in a grid: no coordinate
  info.id = id;
  if (!id.empty()) {
    const config::ScalarDef* c = def_.find_scalar(id);
    if (!c) config_error(where, "unknown scalar '" + id + "'");
    if (!c->label.empty()) config_error(c->where, "scalar '" + id + "': label is not supported yet");
    info.name = c->name;
    info.long_name = c->long_name;
    info.standard_name = c->standard_name;
    info.units = c->unit;
    if (auto p = c->extra.find("positive"); p != c->extra.end()) info.positive = p->second;
    if (auto t = c->extra.find("axis_type"); t != c->extra.end()) info.axis_type = t->second;
    info.has_value = c->value.has_value();
    info.value = c->value.value_or(0.0);
    if (auto s = settings_.scalars.find(id); s != settings_.scalars.end()) {
      info.has_value = true;
      info.value = s->second.value;
      if (!s->second.units.empty()) info.units = s->second.units;
    }
  }
  plan_.scalars.push_back(std::move(info));
  plan_scalar_ids_.push_back(id);
  return static_cast<int>(plan_scalar_ids_.size() - 1);
}

PlanBuilder::GridShape PlanBuilder::resolve_grid(const config::FieldDef& f, const std::string& id) {
  // The grid's components in Fortran order (fastest first), then the
  // variable's dimensions in C order (slowest first).
  std::vector<config::GridComponent> components;
  if (!f.grid_ref.empty()) {
    const config::GridDef* g = def_.find_grid(f.grid_ref);
    if (!g) config_error(f.where, "unknown grid '" + f.grid_ref + "'");
    components = g->components;
  } else {
    if (!f.domain_ref.empty()) components.push_back({config::GridComponent::Kind::domain, f.domain_ref, f.where});
    if (!f.axis_ref.empty()) components.push_back({config::GridComponent::Kind::axis, f.axis_ref, f.where});
    if (!f.scalar_ref.empty()) components.push_back({config::GridComponent::Kind::scalar, f.scalar_ref, f.where});
  }
  if (components.empty())
    config_error(f.where, "field '" + id + "' has no grid: set grid_ref, domain_ref, axis_ref or scalar_ref");
  GridShape shape;
  std::vector<output::Dim> fortran_dims;
  int domains = 0;
  const bool with_domain = std::any_of(components.begin(), components.end(),
                                       [](const auto& c) { return c.kind == config::GridComponent::Kind::domain; });
  for (const auto& c : components) {
    if (c.kind == config::GridComponent::Kind::scalar) {  // no dimension, one value
      shape.scalars.push_back(plan_scalar(c.ref, c.where));
      continue;
    }
    if (c.kind == config::GridComponent::Kind::domain) {
      if (++domains > 1) config_error(c.where, "field '" + id + "': a grid may hold one domain only");
      const int d = plan_domain(c.ref, c.where);
      fortran_dims.push_back({output::Dim::domain_i, d});
      if (!plan_.domains[d].one_dimensional()) fortran_dims.push_back({output::Dim::domain_j, d});
      const grid::DomainLayout& l = domains_.at(c.ref).layout;
      shape.local *= grid::data_size(l);
      const std::string text = l.data_dim == 2 && !l.compressed
                                   ? std::to_string(l.data_ni) + " x " + std::to_string(l.data_nj)
                               : l.data_dim == 0 && !l.by_index && !plan_.domains[d].one_dimensional()
                                   ? std::to_string(l.ni) + " x " + std::to_string(l.nj)
                                   : std::to_string(grid::data_size(l));
      shape.text += (shape.text.empty() ? "" : " x ") + text;
    } else {
      const int a = plan_axis(c.ref, c.where);
      fortran_dims.push_back({output::Dim::axis, a});
      const AxisSetting& setting = axes_.at(c.ref);
      // Attached writers write their own box: a domain block times a range
      // of each axis.
      bool range = true;
      for (std::size_t k = 1; k < setting.index.size(); ++k)
        range = range && setting.index[k] == setting.index[k - 1] + 1;
      if (with_domain && setting.decomposed && placement_.attached && !range)
        fail(FOEHN_ERR_ARGUMENT, (c.where.file.empty() ? "" : c.where.str() + ": ") + "field '" + id + "': axis '" +
                                     c.ref +
                                     "' is decomposed by an index list in a grid with a domain; without servers "
                                     "(attached mode) give it as a range (foehn_set_axis_decomposition)");
      const std::int64_t n = setting.local;
      shape.local *= n;
      shape.text += (shape.text.empty() ? "" : " x ") + std::to_string(n);
    }
  }
  shape.dims.assign(fortran_dims.rbegin(), fortran_dims.rend());
  if (shape.text.empty()) shape.text = "1";  // scalars only
  shape.masked = masked_positions(components, f.grid_ref, id, f.where);
  return shape;
}

int PlanBuilder::register_field(const config::FieldDef& def, const GridShape& shape) {
  auto [it, inserted] = field_index_.try_emplace(def.id, static_cast<int>(fields_.size()));
  if (inserted) fields_.push_back(Field{def.id, -1, "", {}, -1, std::numeric_limits<double>::quiet_NaN(), {}});
  Field& field = fields_[it->second];
  if (field.local_size >= 0 && field.local_size != shape.local)
    config_error(def.where, "field '" + def.id + "' is used on two grids of different sizes (" + field.shape_text +
                                " and " + shape.text + ")");
  field.local_size = shape.local;
  field.shape_text = shape.text;
  field.masked = shape.masked;
  if (def.detect_missing_value && def.default_value) field.missing = *def.default_value;
  return it->second;
}

std::string PlanBuilder::data_source(const config::FieldDef& f) const {
  // The model writes the root of a field_ref chain; the fields that refer
  // to it (without an expression of their own) carry its data.
  std::string source = f.field_ref.empty() ? f.id : f.field_ref;
  for (int hops = 0; hops < 1000; ++hops) {
    const config::FieldDef* def = def_.find_field(source);
    if (!def || !def->expression.empty() || def->field_ref.empty()) break;
    source = def->field_ref;
  }
  return source;
}

// XIOS writes a field with indexed_output="true" on a domain whose model
// ranks leave points out compressed by gathering; foehn writes the whole
// domain, fill where no value came (docs/xios-compatibility.md).
void PlanBuilder::warn_uncompressed(const config::FieldDef& f, const std::string& source) const {
  const auto it = f.extra.find("indexed_output");
  if (it == f.extra.end() || !config::detail::parse_bool(it->second).value_or(false)) return;
  int rank = 0;
  if (placement_.comm != MPI_COMM_NULL) MPI_Comm_rank(placement_.comm, &rank);
  if (rank == 0)
    std::cerr << "foehn: warning: " << f.where.str() << ": field '" << source
              << "': indexed_output is not done: the field is written uncompressed, fill where no value is sent\n";
}

void PlanBuilder::resolve_field(int file_index, const config::FieldDef& f, const config::FileDef& file) {
  const std::string source = data_source(f);
  refuse_unsupported_field(f, source);
  warn_uncompressed(f, source);
  filters::TemporalOp op;
  try {
    op = filters::parse_temporal_op(f.operation);
  } catch (const std::invalid_argument& e) { config_error(f.where, "field '" + source + "': " + e.what()); }
  // Transformed components get their settings before the grid is resolved.
  const Transformations transformations = f.expression.empty() ? plan_transformations(f, source) : Transformations{};
  const GridShape shape = resolve_grid(f, source);
  output::VariableInfo v;
  v.dims = shape.dims;
  v.scalars = shape.scalars;
  v.field_id = source;
  v.name = f.output_name().empty() ? source : f.output_name();
  v.long_name = f.long_name;
  v.standard_name = f.standard_name;
  v.units = f.unit;
  v.comment = f.comment;
  v.operation = std::string(filters::temporal_op_name(op));
  v.op = static_cast<std::int32_t>(op);
  v.cell_methods = combined_cell_methods(f.cell_methods, f.cell_methods_mode, cell_methods(op, f.freq_op));
  v.prec = f.prec;
  resolve_compression(f, file, source, v);
  auto data_value = [](double x) {  // exact text of a double
    std::ostringstream out;
    out.precision(17);
    out << x;
    return out.str();
  };
  if (f.valid_min) v.attributes.push_back({"valid_min", "data", data_value(*f.valid_min)});
  if (f.valid_max) v.attributes.push_back({"valid_max", "data", data_value(*f.valid_max)});
  for (const auto& var : f.variables) v.attributes.push_back({var.output_name(), var.type, var.value});
  v.file = file_index;
  v.reduce_on_server = reduce_on_server_ && filters::reduces(op);
  if (f.default_value || f.detect_missing_value) {
    v.has_fill = true;
    v.fill_value = f.default_value.value_or(f.prec == 8 ? 9.9692099683868690e+36 : 9.96921e+36);
  }
  check_grib_field(f, file, source, v, plan_);
  for (int other : plan_.files[file_index].variables)
    if (plan_.variables[other].name == v.name)
      config_error(f.where, "file '" + plan_.files[file_index].id + "' already has a variable named '" + v.name +
                                "' (set name= to tell them apart)");
  const int vi = static_cast<int>(plan_.variables.size());
  plan_.variables.push_back(std::move(v));
  plan_.files[file_index].variables.push_back(vi);

  OutputDef out;
  out.plan_index = vi;
  out.file = file_index;
  out.elem = f.prec == 8 ? 8 : 4;
  out.on_server = plan_.variables[vi].reduce_on_server;
  out.local_size = shape.local;
  const double missing = f.detect_missing_value && f.default_value ? *f.default_value : std::nan("");
  Sampler sampling;  // freq_op
  if (filters::reduces(op)) {
    sampling.schedule = make_schedule(f.freq_op, f.where, "freq_op", f.freq_offset);
    // The first sampling instant is the first one after the start date
    // (start + freq_offset when the offset is positive).
    if (sampling.schedule) sampling.next_k = sampling.schedule->first_at_or_after(start_ + 1);
  } else if (!f.freq_offset.empty() && !calendar::parse_duration(f.freq_offset).is_zero()) {
    config_error(f.where, "field '" + source +
                              "': freq_offset applies to sampled operations (average, "
                              "accumulate, minimum, maximum), not to '" +
                              f.operation + "'");
  }
  const int oi = static_cast<int>(outputs_.size());
  int input = -1;  // the graph node that feeds the output; -1: its field's writes
  if (!f.expression.empty()) {
    // An expression of its own (not the one inherited from its field_ref)
    // may name the referenced field: that is that field's value, no cycle.
    const config::FieldDef* target = f.field_ref.empty() ? nullptr : def_.find_field(f.field_ref);
    const bool inherited = target && target->expression == f.expression;
    std::vector<std::string> path{inherited ? source : own_label(f, file)};
    input = node_for_expression(path.front(), f.expression, source, f, shape, path);
  } else {
    const config::FieldDef* def = def_.find_field(source);
    config::FieldDef own = def ? *def : f;  // the model writes the referenced field
    own.id = source;
    if (transformations.maps.empty()) {
      fields_[register_field(own, shape)].outputs.push_back(oi);
    } else {  // the model writes the source grid; the transformations make this grid
      const GridShape from = resolve_grid(own, source);
      const int h = register_field(own, from);
      if (fields_[h].source < 0) fields_[h].source = graph_.add_source(static_cast<std::size_t>(from.local));
      input = fields_[h].source;
      for (std::size_t k = 0; k < transformations.maps.size(); ++k) {
        input = add_transform_step(transformations, k, input);
        // A temporal_splitting's partly filled axis goes into checkpoints by
        // global index: ending the chain, its values are on this field's grid.
        if (transformations.maps[k]->op == transform::Operation::split && k + 1 == transformations.maps.size())
          out_.chain_dims[input] = shape.dims;
      }
      if (transformations.maps.front()->input_size() != static_cast<std::size_t>(from.local) ||
          transformations.maps.back()->output_size() != static_cast<std::size_t>(shape.local))
        config_error(f.where, "field '" + source + "': the transformations take " +
                                  std::to_string(transformations.maps.front()->input_size()) + " values and give " +
                                  std::to_string(transformations.maps.back()->output_size()) + ", the grids hold " +
                                  from.text + " and " + shape.text + " (an internal error: please report it)");
    }
  }
  // Reduced here unless the servers reduce the samples.
  const bool reduce_here = filters::reduces(op) && !out.on_server;
  filters::TemporalStage stage(op, reduce_here ? static_cast<std::size_t>(shape.local) : 0, missing, start_);
  out.node = graph_.add_output(input, std::move(stage), std::move(sampling));
  const auto w = field_index_.find(source);  // grid and scalar masks hide points (NaN): a fill value is needed
  if (!shape.masked.empty() || (w != field_index_.end() && !fields_[w->second].masked.empty())) {
    auto& var = plan_.variables[vi];
    var.fill_value = var.has_fill ? var.fill_value : (f.prec == 8 ? 9.9692099683868690e+36 : 9.96921e+36);
    var.has_fill = true;
  }
  outputs_.push_back(std::move(out));
}

std::unique_ptr<calendar::Schedule> PlanBuilder::make_schedule(const std::string& period, const config::Location& where,
                                                               const std::string& what,
                                                               const std::string& offset) const {
  const calendar::Duration off = offset.empty() ? calendar::Duration{} : calendar::parse_duration(offset);
  if (off.months < 0 || off.microseconds < 0 || off.timesteps < 0)
    config_error(where, "freq_offset '" + offset + "' must not be negative");
  if ((period.empty() || period == "1ts") && off.is_zero()) return nullptr;  // every step
  const calendar::Duration d = calendar::parse_duration(period.empty() ? "1ts" : period);
  if (d.is_zero() || d.months < 0 || d.microseconds < 0 || d.timesteps < 0)
    config_error(where, what + " '" + period + "' must be positive");
  try {
    return std::make_unique<calendar::Schedule>(*calendar_, start_, d, off, timestep_us_);
  } catch (const calendar::TimeError& e) { config_error(where, what + " '" + period + "': " + e.what()); }
}

std::string PlanBuilder::cell_methods(filters::TemporalOp op, const std::string& freq_op) const {
  if (!filters::reduces(op)) return "time: point";
  // The interval between samples: freq_op, or the model time step.
  std::string interval = std::to_string(timestep_us_ / calendar::kMicrosPerSecond) + " s";
  if (!freq_op.empty() && freq_op != "1ts") {
    const calendar::Duration d = calendar::parse_duration(freq_op);
    if (d.months == 0) {
      const std::int64_t us = d.microseconds + d.timesteps * timestep_us_;
      interval = std::to_string(us / calendar::kMicrosPerSecond) + " s";
    } else if (d.microseconds == 0 && d.timesteps == 0) {
      interval = d.months % 12 == 0 ? std::to_string(d.months / 12) + " year" : std::to_string(d.months) + " month";
    } else {
      interval = calendar::format_duration(d);
    }
  }
  return "time: " + std::string(filters::cf_method(op)) + " (interval: " + interval + ")";
}

void PlanBuilder::resolve_definitions() {
  // Calendar: the model's settings over the XML's.
  const auto& c = settings_.calendar;
  const std::string where = c.where.file.empty() ? "context '" + id_ + "'" : c.where.str();
  if (c.type.empty())
    fail(FOEHN_ERR_CONFIG, where + ": no calendar type (set <calendar type=...> or foehn_set_calendar)");
  if (c.start_date.empty()) fail(FOEHN_ERR_CONFIG, where + ": no calendar start_date");
  if (c.timestep.empty()) fail(FOEHN_ERR_CONFIG, where + ": no calendar timestep");
  calendar_ = std::make_unique<calendar::Calendar>(c.make_calendar());
  const calendar::Date start_date = calendar::parse_date(c.start_date);
  const calendar::Date origin_date = calendar::parse_date(c.time_origin.empty() ? c.start_date : c.time_origin);
  calendar_->validate(start_date);
  calendar_->validate(origin_date);
  start_ = calendar_->to_instant(start_date);
  origin_ = calendar_->to_instant(origin_date);
  const calendar::Duration ts = calendar::parse_duration(c.timestep);
  if (ts.months != 0 || ts.timesteps != 0 || ts.microseconds <= 0)
    fail(FOEHN_ERR_CONFIG, where + ": the timestep '" + c.timestep + "' must be a positive duration in d/h/mi/s");
  timestep_us_ = ts.microseconds;
  const std::string placement = config::variable_string(def_, "temporal_placement", "client");
  if (placement != "client" && placement != "server") {
    const auto* var = def_.find_variable("temporal_placement");
    config_error(var->where, "temporal_placement must be 'client' or 'server', not '" + placement + "'");
  }
  reduce_on_server_ = placement == "server" && !placement_.attached;

  plan_.context_id = id_;
  plan_.key = placement_.key;
  plan_.calendar = calendar::cf_calendar_name(calendar_->type());
  plan_.time_units = "seconds since " + calendar::format_date(origin_date);
  plan_.start_date = calendar::format_date(start_date);
  plan_.time_origin = calendar::format_date(origin_date);
  if (c.user) {
    const calendar::UserCalendar& u = *c.user;
    plan_.user_calendar.assign(u.month_lengths.begin(), u.month_lengths.end());
    plan_.user_calendar.insert(plan_.user_calendar.end(),
                               {u.leap_year_month, u.leap_year_drift, u.leap_year_drift_offset});
  }
  plan_.timestep_us = timestep_us_;
  plan_.sync_seconds = config::variable_double(def_, "sync_seconds", plan_.sync_seconds);
  if (!std::isfinite(plan_.sync_seconds))
    fail(FOEHN_ERR_CONFIG, "context '" + id_ +
                               "': sync_seconds must be a number of seconds (0: flush after "
                               "every record, negative: only at sync_freq and close)");
  if (!placement_.attached) {
    // Two-level servers: the last level2 ranks write, the others receive.
    const std::int64_t nservers = placement_.server_ranks;
    const std::int64_t l2 = config::variable_int(def_, "server_level2_ranks", 0);
    const std::int64_t pools = config::variable_int(def_, "server_level2_pools", 1);
    if (l2 < 0 || l2 >= nservers)
      fail(FOEHN_ERR_CONFIG, "context '" + id_ + "': server_level2_ranks = " + std::to_string(l2) +
                                 " must be at least 0 and less than the number of server ranks (" +
                                 std::to_string(nservers) + "), leaving level 1 at least one rank");
    if (l2 > 0 && (pools < 1 || pools > l2))
      fail(FOEHN_ERR_CONFIG, "context '" + id_ + "': server_level2_pools = " + std::to_string(pools) +
                                 " must be between 1 and server_level2_ranks (" + std::to_string(l2) + ")");
    const std::int64_t forward = config::variable_int(def_, "server_level1_forward_bytes", 0);
    if (forward < 0)
      fail(FOEHN_ERR_CONFIG, "context '" + id_ + "': server_level1_forward_bytes = " + std::to_string(forward) +
                                 " must be at least 0 (0: twice one record of a level-1 rank's blocks)");
    plan_.level2_ranks = static_cast<std::int32_t>(l2);
    plan_.level2_pools = l2 > 0 ? static_cast<std::int32_t>(pools) : 1;
    plan_.level1_forward_bytes = forward;
  }
  plan_.client_ranks = placement_.client_ranks;

  for (const config::FileDef& file : def_.files) {
    if (!file.enabled) continue;
    const std::string file_id = file.id.empty() ? file.output_name() : file.id;
    if (file.mode == "read") {
      resolve_read_file(file, file_id);
      continue;
    }
    refuse_unsupported_file(file, file_id);
    if (file.output_freq.empty()) config_error(file.where, "file '" + file_id + "' has no output_freq");
    if (const std::string why = config::output_freq_refusal(file, timestep_us_); !why.empty())
      config_error(output_freq_where(file), "file '" + file_id + "': " + why);
    const calendar::Duration freq = calendar::parse_duration(file.output_freq);
    if (freq.is_zero() || freq.months < 0 || freq.microseconds < 0 || freq.timesteps < 0)
      config_error(file.where, "file '" + file_id + "': output_freq '" + file.output_freq + "' must be positive");
    output::FileInfo info;
    info.id = file_id;
    // formats::file_name adds the period, the part and the format's extension.
    info.base_path = std::filesystem::absolute(file.output_name() + file.name_suffix).string();
    info.defined_at = file.where.str();
    info.title =
        file.description.empty() ? "foehn output file '" + file_id + "' of context '" + id_ + "'" : file.description;
    info.output_freq = file.output_freq;
    info.one_file = file.type != "multiple_file";
    info.format = file.format;
    info.convention = file.convention;
    info.append = file.append;
    info.continuable = file.append || !config::variable_string(def_, "restart_dir", "").empty();
    info.min_digits = file.min_digits.value_or(0);
    info.time_counter = file.time_counter;
    if (auto name = file.extra.find("time_counter_name"); name != file.extra.end())
      info.time_counter_name = name->second;
    info.time_in_days = file.time_units == "days";
    file_periods(file, file_id, info);
    file_layout(file, file_id, info);
    for (const auto& var : file.variables) info.attributes.push_back({var.output_name(), var.type, var.value});
    const int fi = static_cast<int>(plan_.files.size());
    plan_.files.push_back(std::move(info));
    FileSchedule fs;
    fs.sampler.schedule =
        std::make_unique<calendar::Schedule>(*calendar_, start_, freq, calendar::Duration{}, timestep_us_);
    fs.record_start = start_;
    files_.push_back(std::move(fs));
    for (const config::FieldDef& f : file.fields)
      if (config::is_output_field(file, f)) resolve_field(fi, f, file);
    if (plan_.files[fi].variables.empty())
      config_error(file.where, "file '" + file_id +
                                   "' has no enabled field (fields above its output_level, default 5, are left out)");
  }
  for (const ReadField& r : out_.reads)
    if (auto it = field_index_.find(r.id); it != field_index_.end() && !fields_[it->second].outputs.empty())
      fail(FOEHN_ERR_CONFIG, r.defined_at + ": field '" + r.id + "' is read from file '" + r.file_id +
                                 "' and also written to a file: a field is read or written, not both");
  // Fields the model may write that no file uses are still known ids.
  for (const config::FieldDef& f : def_.fields)
    if (!field_index_.count(f.id)) {
      field_index_.emplace(f.id, static_cast<int>(fields_.size()));
      fields_.push_back(Field{f.id, -1, "", {}, -1, std::numeric_limits<double>::quiet_NaN(), {}});
    }
}

void PlanBuilder::resolve_domain(const std::string& id, const config::DomainDef& def, DomainSetting& s) {
  if (s.type.empty()) s.type = def.type.empty() ? "rectilinear" : def.type;
  // A type the reader defaulted is no claim (a zoom of a curvilinear domain
  // is curvilinear); one the XML or the model gave must match.
  if (!def.type.empty() && def.type != s.type && (def.origins.count("type") || !derived_from_.count(id)))
    throw config::ConfigError(
        def.where, "domain '" + id + "' has type '" + def.type + "' but the model describes it as '" + s.type + "'");
  const std::string what = "domain '" + id + "' in context '" + id_ + "': ";
  if (!s.has_block && !s.has_index)
    fail(FOEHN_ERR_ARGUMENT, what + "no local points (call foehn_set_domain_block or foehn_set_domain_index)");
  try {
    s.owned = grid::owned_points(s.layout);
    s.data = grid::data_points(s.layout, s.owned);
  } catch (const std::invalid_argument& e) { fail(FOEHN_ERR_ARGUMENT, what + e.what()); }
  // Rectilinear blocks give a longitude per column and a latitude per row;
  // everything else one of each per local point.
  const bool per_line = s.type == "rectilinear" && s.has_block;
  const auto nlon = static_cast<std::size_t>(per_line ? s.layout.ni : s.owned.size());
  const auto nlat = static_cast<std::size_t>(per_line ? s.layout.nj : s.owned.size());
  if (s.lon.size() != nlon || s.lat.size() != nlat)
    fail(FOEHN_ERR_ARGUMENT, what + "expected " + std::to_string(nlon) + " longitudes and " + std::to_string(nlat) +
                                 " latitudes (" + (per_line ? "one per local column and row" : "one per local point") +
                                 "), given " + std::to_string(s.lon.size()) + " and " + std::to_string(s.lat.size()) +
                                 " (foehn_set_domain_coordinates)");
  if (s.type == "rectilinear" && s.nvertex != 0 && s.nvertex != 2)
    fail(FOEHN_ERR_ARGUMENT,
         what + "rectilinear bounds have 2 values per longitude and latitude, not " + std::to_string(s.nvertex));
}

bool domain_points_shared(const output::ContextPlan& plan, int index) {
  // Several ranks may hold the same points when every grid of the domain
  // splits an axis among them (a 2-D decomposition: points x levels).
  bool used = false, shared = true;
  for (const output::VariableInfo& v : plan.variables)
    if (plan.layout(v).domain == index) {
      used = true;
      shared = shared && plan.decomposed_axes(v);
    }
  return shared && used;
}

std::string assemble_gathered_domain(output::ContextPlan& plan, int index, const std::vector<output::ClientPart>& parts,
                                     bool keep_client_points) {
  const bool all_dense =
      std::all_of(parts.begin(), parts.end(), [](const output::ClientPart& p) { return p.dense; });
  GatheredDomain gathered(plan, index, parts.size(), all_dense, keep_client_points);
  for (std::size_t r = 0; r < parts.size(); ++r) gathered.add(r, parts[r]);
  return gathered.finish();
}

GatheredDomain::GatheredDomain(output::ContextPlan& plan, int index, std::size_t nparts, bool all_dense,
                               bool keep_client_points)
    : plan_(plan),
      index_(index),
      keep_(keep_client_points),
      assembler_(plan.domains[static_cast<std::size_t>(index)], nparts, all_dense, domain_points_shared(plan, index)) {
  for (const output::VariableInfo& v : plan.variables)
    split_axes_ = split_axes_ || (plan.layout(v).domain == index && plan.decomposed_axes(v));
  // The grids of the domain hold whole axes: one holder per point suffices.
  if (split_axes_) holders_.resize(static_cast<std::size_t>(plan.domains[static_cast<std::size_t>(index)].size()));
}

void GatheredDomain::add(std::size_t r, const output::ClientPart& p) {
  if (!error_.empty()) return;
  error_ = assembler_.add(r, p);
  if (!split_axes_) return;
  const std::int64_t ni_glo = plan_.domains[static_cast<std::size_t>(index_)].ni_glo;
  if (p.by_index) {
    for (std::int64_t k = 0; k < p.n_owned; ++k) holders_[static_cast<std::size_t>(p.owned[k])].push_back(static_cast<int>(r));
    return;
  }
  for (std::int64_t j = p.extent.jbegin; j < p.extent.jbegin + p.extent.nj; ++j)
    for (std::int64_t i = p.extent.ibegin; i < p.extent.ibegin + p.extent.ni; ++i)
      holders_[static_cast<std::size_t>(j * ni_glo + i)].push_back(static_cast<int>(r));
}

std::string GatheredDomain::finish() {
  if (!error_.empty()) return error_;
  if (std::string e = assembler_.finish(); !e.empty()) return e;
  output::DomainInfo& info = plan_.domains[static_cast<std::size_t>(index_)];
  // A file of convention="CDI" writes the rows of its gaussian domains:
  // the points must make rows (the writers would fail later).
  for (const output::VariableInfo& v : plan_.variables)
    if (info.type == "gaussian" && plan_.layout(v).domain == index_ && plan_.files[v.file].has_convention("CDI")) {
      output::ReducedRows rows;
      if (std::string e = output::reduced_rows(info, rows); !e.empty())
        return "file '" + plan_.files[v.file].id + "': " + e;
      break;
    }
  if (!keep_)  // only attached writers use each client's own points
    for (output::ClientPoints& cp : info.points) std::vector<std::int64_t>().swap(cp.owned);
  if (!split_axes_) return "";
  for (const output::VariableInfo& v : plan_.variables)
    if (plan_.layout(v).domain == index_ && plan_.decomposed_axes(v))
      if (std::string e = output::check_shared_points(plan_, v, holders_); !e.empty()) return e;
  return "";
}

}  // namespace foehn::client
