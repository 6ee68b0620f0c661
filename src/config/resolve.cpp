// Stage 4: *_ref inheritance, reference checks, and conversion to config.h.
//
// field_ref (and domain_ref on a domain, axis_ref on an axis, scalar_ref on
// a scalar) makes an element inherit every attribute it does not have after
// group inheritance from the element it refers to, which has itself been
// resolved first (chains work; cycles are errors). The id is never
// inherited. So for a field the order is: own attribute > enclosing groups >
// *_definition root > field_ref target (with the same order applied to it).
#include <map>
#include <set>

#include "calendar/calendar.h"
#include "calendar/date_expression.h"
#include "config/calendar_setup.h"
#include "config/internal.h"
#include "config/values.h"

namespace foehn::config::detail {

namespace {

using Index = std::map<std::string, const Element*, std::less<>>;

Index index_by_id(const std::vector<Element*>& elements) {
  Index index;
  for (const Element* e : elements)
    if (const std::string* id = e->get("id")) index.emplace(*id, e);
  return index;
}

template <typename Map>
void unknown_reference(const Attr& ref, std::string_view kind, const Map& known) {
  std::vector<std::string_view> names;
  for (const auto& [id, unused] : known) names.push_back(id);
  const std::string target = trim(ref.value);
  report(ref.where,
         ref.name + " refers to unknown " + std::string(kind) + " '" + target + "'" + did_you_mean(target, names));
}

// Applies `ref_attr` inheritance to `elements` (all elements of one kind in
// the context). Iterative, so a long chain cannot exhaust the stack.
void resolve_refs(const std::vector<Element*>& elements, std::string_view ref_attr, std::string_view kind,
                  std::vector<ConfigWarning>& warnings) {
  std::map<std::string, Element*, std::less<>> index;
  for (Element* e : elements)
    if (const std::string* id = e->get("id")) index.emplace(*id, e);
  std::set<const Element*> done;
  for (Element* start : elements) {
    std::vector<Element*> path;
    std::set<const Element*> on_path;
    for (Element* cur = start; cur && !done.count(cur);) {
      path.push_back(cur);
      on_path.insert(cur);
      const auto ref = cur->attrs.find(ref_attr);
      if (ref == cur->attrs.end() || ref->second.bad) break;
      const auto target = index.find(trim(ref->second.value));
      if (target == index.end()) {
        unknown_reference(ref->second, kind, index);  // reported; the element keeps its own attributes
        break;
      }
      Element* next = target->second;
      if (on_path.count(next)) {
        std::string chain;
        bool in_cycle = false;
        for (const Element* p : path) {
          in_cycle = in_cycle || p == next;
          if (in_cycle) chain += *p->get("id") + " -> ";
        }
        report(ref->second.where, std::string(ref_attr) + " cycle: " + chain + *next->get("id"));
        break;
      }
      cur->ref_target = next;
      cur = next;
    }
    // The last element of the path is resolved (it has no ref, or its target
    // is done); fill in from the back.
    for (auto it = path.rbegin(); it != path.rend(); ++it) {
      Element* e = *it;
      if (e->ref_target) inherit_from_target(*e, ref_attr, warnings);
      done.insert(e);
    }
  }
}

std::vector<Element*> pointers(std::vector<Element>& elements) {
  std::vector<Element*> out;
  for (Element& e : elements) out.push_back(&e);
  return out;
}

// ---- reading validated attribute values ------------------------------------
// Values were checked by schema.cpp where they were written, so these only
// convert.

std::string text(const Element& e, std::string_view name) {
  const std::string* v = e.get(name);
  return v ? trim(*v) : std::string();
}
template <typename T>
std::optional<T> integer(const Element& e, std::string_view name) {
  const std::string* v = e.get(name);
  if (!v) return std::nullopt;
  return static_cast<T>(*parse_int(*v));
}
std::optional<double> real(const Element& e, std::string_view name) {
  const std::string* v = e.get(name);
  return v ? parse_double(*v) : std::nullopt;
}
bool boolean(const Element& e, std::string_view name, bool fallback) {
  const std::string* v = e.get(name);
  return v ? *parse_bool(*v) : fallback;
}
Quantization quantization(const Element& e) {
  return {text(e, "quantization"), integer<int>(e, "quantization_nsb"), integer<int>(e, "quantization_nsd")};
}
ExtraAttributes extras(const Element& e, std::initializer_list<std::string_view> dedicated) {
  ExtraAttributes out;
  for (const auto& [name, attr] : e.attrs) {
    if (attr.bad) continue;
    bool own_member = false;
    for (std::string_view d : dedicated) own_member = own_member || d == name;
    if (!own_member) out.emplace(name, trim(attr.value));
  }
  return out;
}

void check_ref(const Element& e, std::string_view attr, std::string_view kind, const Index& index) {
  const auto it = e.attrs.find(attr);
  if (it != e.attrs.end() && !it->second.bad && !index.count(trim(it->second.value)))
    unknown_reference(it->second, kind, index);
}

// Variables inside an element, checked for duplicate names.
std::vector<Variable> variables_of(const std::vector<const Node*>& nodes) {
  std::vector<Variable> out;
  std::map<std::string, Location> seen;
  for (const Node* n : nodes) {
    Variable v = make_variable(*n);
    const auto [it, fresh] = seen.emplace(v.output_name(), v.where);
    if (!fresh) {
      report(v.where, "duplicate variable '" + v.output_name() + "' (first defined at " + it->second.str() + ")");
      continue;
    }
    out.push_back(std::move(v));
  }
  return out;
}

class Resolver {
 public:
  explicit Resolver(RawContext& raw) : raw_(raw) {}

  ContextDef run() {
    ContextDef ctx;
    ctx.where = raw_.node->where;
    if (const Attr* id = raw_.node->attr("id")) ctx.id = trim(id->value);
    if (raw_.calendar) ctx.calendar = calendar(*raw_.calendar);
    for (const Node* v : raw_.variables) ctx.variables.push_back(make_variable(*v));

    grid_children_ = define_grid_children(raw_);  // before references: it adds elements
    resolve_refs(pointers(raw_.axes), "axis_ref", "axis", raw_.warnings);
    resolve_refs(pointers(raw_.domains), "domain_ref", "domain", raw_.warnings);
    resolve_refs(pointers(raw_.scalars), "scalar_ref", "scalar", raw_.warnings);
    axes_ = index_by_id(pointers(raw_.axes));
    domains_ = index_by_id(pointers(raw_.domains));
    scalars_ = index_by_id(pointers(raw_.scalars));
    grids_ = index_by_id(pointers(raw_.grids));

    // One field_ref namespace: fields of field_definition and fields with an
    // id inside files may both be referenced.
    std::vector<Element*> all_fields = pointers(raw_.fields);
    for (RawFile& f : raw_.files)
      for (Element& e : f.fields) all_fields.push_back(&e);
    resolve_refs(all_fields, "field_ref", "field", raw_.warnings);

    for (const Element& e : raw_.axes) ctx.axes.push_back(axis(e));
    for (const Element& e : raw_.domains) ctx.domains.push_back(domain(e));
    for (const Element& e : raw_.scalars) ctx.scalars.push_back(scalar(e));
    for (const Element& e : raw_.grids) ctx.grids.push_back(grid(e));
    for (const Element& e : raw_.fields) ctx.fields.push_back(field(e));
    for (const RawFile& f : raw_.files) ctx.files.push_back(file(f));
    expand_healpix_pyramids(ctx);
    ctx.group_ids = raw_.group_ids;
    ctx.field_group_members = raw_.field_group_members;
    return ctx;
  }

 private:
  RawContext& raw_;
  mutable LocationTable places_;  // of the attribute origins (a cache: the definitions do not change)
  Index axes_, domains_, scalars_, grids_;
  GridChildren grid_children_;

  static CalendarDef calendar(const Node& node) {
    Element e{&node, {}, node.where};
    for (const Attr& a : node.attrs)
      if (!a.bad) e.attrs[a.name] = a;
    CalendarDef c;
    c.present = true;
    c.where = node.where;
    c.type = text(e, "type");
    c.timestep = text(e, "timestep");
    c.start_date = text(e, "start_date");
    c.time_origin = text(e, "time_origin");
    user_calendar(node, e, c);
    // Dates were checked for form; with the calendar known, check that they
    // exist in it (no Feb 30, no Feb 29 in a noleap calendar).
    if (!c.type.empty() && (calendar::parse_calendar_type(c.type) != calendar::CalendarType::user_defined || c.user)) {
      const calendar::Calendar cal = c.make_calendar();
      for (const char* name : {"start_date", "time_origin"}) {
        const std::string value = text(e, name);
        if (value.empty()) continue;
        try {
          cal.validate(calendar::parse_date_expression(value).date);
        } catch (const std::exception& ex) {
          report(node.where,
                 "bad " + std::string(name) + " '" + value + "' for a " + c.type + " calendar: " + ex.what());
        }
      }
      // XIOS's date expressions ("2012-02-28 15:00:00 + 1d") become plain dates here.
      try {
        evaluate_date_expressions(c);
      } catch (const ConfigError& ex) { report(node.where, ex.what()); }
    }
    return c;
  }

  // The attributes of a user_defined calendar, checked together: reported
  // at the calendar's line; c.user is set only when they make a calendar.
  static void user_calendar(const Node& node, const Element& e, CalendarDef& c) {
    static constexpr const char* kUserAttrs[] = {"day_length",      "month_lengths",   "year_length",
                                                 "leap_year_month", "leap_year_drift", "leap_year_drift_offset"};
    const bool user = !c.type.empty() && calendar::parse_calendar_type(c.type) == calendar::CalendarType::user_defined;
    if (!user) {
      for (const char* name : kUserAttrs)
        if (e.get(name))
          report(node.where, std::string(name) + " is only for a calendar of type user_defined, not '" + c.type + "'");
      return;
    }
    try {
      c.user = make_user_calendar([&](const char* name) { return e.get(name); });
    } catch (const calendar::TimeError& ex) { report(node.where, std::string("bad user_defined calendar: ") + ex.what()); }
  }

  AxisDef axis(const Element& e) const {
    AxisDef a;
    a.id = text(e, "id"), a.name = text(e, "name"), a.long_name = text(e, "long_name");
    a.standard_name = text(e, "standard_name"), a.unit = text(e, "unit"), a.positive = text(e, "positive");
    a.n_glo = integer<std::int64_t>(e, "n_glo");
    if (const std::string* v = e.get("value")) a.value = *parse_double_list(*v);
    if (!a.value.empty()) {
      const auto n = static_cast<std::int64_t>(a.value.size());
      if (a.n_glo && *a.n_glo != n)
        report(e.attrs.at("value").where,
               "axis '" + a.id + "' has n_glo=" + std::to_string(*a.n_glo) + " but " + std::to_string(n) + " values");
      a.n_glo = n;  // the values say how long the axis is
    }
    if (const std::string* b = e.get("bounds")) {
      a.bounds = *parse_double_list(*b);
      if (!a.n_glo || static_cast<std::int64_t>(a.bounds.size()) != 2 * *a.n_glo)
        fail(e.attrs.at("bounds").where,
             "axis '" + a.id + "' has " + std::to_string(a.bounds.size()) + " bounds; it needs 2 per value (2 x n_glo" +
                 (a.n_glo ? " = " + std::to_string(2 * *a.n_glo) : ", and n_glo or value") + ")");
    }
    a.where = e.where, a.origins = origins_of(e, places_);
    a.extra = extras(e, {"id", "name", "long_name", "standard_name", "unit", "positive", "n_glo", "value", "bounds"});
    a.ref = text(e, "axis_ref");
    a.transformations = transformations_of(e);
    settle_name(a, e);
    if (e.node) {
      std::vector<const Node*> variables;
      for (const Node& c : e.node->children)
        if (c.name == "variable") variables.push_back(&c);
      a.variables = variables_of(variables);
    }
    return a;
  }

  // The element's own transformation children, in order (never inherited
  // through a reference: they turn the referenced element into this one).
  static std::vector<TransformationDef> transformations_of(const Element& e) {
    std::vector<TransformationDef> out;
    if (!e.node) return out;
    for (const Node& c : e.node->children)
      if (is_transformation(c, *e.node)) out.push_back(make_transformation(c, *e.node));
    return out;
  }

  DomainDef domain(const Element& e) const {
    DomainDef d;
    d.id = text(e, "id"), d.name = text(e, "name"), d.long_name = text(e, "long_name");
    d.standard_name = text(e, "standard_name");
    d.type = e.get("type") ? text(e, "type") : "rectilinear";
    d.ni_glo = integer<std::int64_t>(e, "ni_glo");
    d.nj_glo = integer<std::int64_t>(e, "nj_glo");
    d.refinement_level = integer<int>(e, "refinement_level");
    d.indexing_scheme = text(e, "indexing_scheme");
    d.where = e.where, d.origins = origins_of(e, places_);
    d.extra = extras(e, {"id", "name", "long_name", "standard_name", "type", "ni_glo", "nj_glo", "refinement_level",
                         "indexing_scheme"});
    d.ref = text(e, "domain_ref");
    d.transformations = transformations_of(e);
    settle_name(d, e);
    return d;
  }

  ScalarDef scalar(const Element& e) const {
    ScalarDef s;
    s.id = text(e, "id"), s.name = text(e, "name"), s.long_name = text(e, "long_name");
    s.standard_name = text(e, "standard_name"), s.unit = text(e, "unit"), s.label = text(e, "label");
    s.value = real(e, "value");
    s.where = e.where, s.origins = origins_of(e, places_);
    s.extra = extras(e, {"id", "name", "long_name", "standard_name", "unit", "label", "value"});
    s.ref = text(e, "scalar_ref");
    s.transformations = transformations_of(e);
    settle_name(s, e);
    return s;
  }

  // The name of an element a grid's child defines (grid_children.cpp).
  template <typename Def>
  void settle_name(Def& def, const Element& e) const {
    const auto it = grid_children_.find(e.node);
    if (it == grid_children_.end() || !it->second.defined) return;
    if (it->second.name == GridChild::Name::own_only && !e.node->attr("name")) def.name.clear();
    if (it->second.name == GridChild::Name::ref_id_if_empty && def.name.empty()) def.name = it->second.ref;
  }

  GridDef grid(const Element& e) const {
    GridDef g;
    g.id = text(e, "id"), g.name = text(e, "name");
    g.where = e.where, g.origins = origins_of(e, places_);
    g.extra = extras(e, {"id", "name"});
    for (const Node& c : e.node->children)
      if (c.name == "domain" || c.name == "axis" || c.name == "scalar") g.components.push_back(component(c));
    return g;
  }

  // The element a grid's child stands for: defined there or elsewhere
  // (define_grid_children decided which).
  GridComponent component(const Node& c) const {
    using Kind = GridComponent::Kind;
    const Kind kind = c.name == "domain" ? Kind::domain : c.name == "axis" ? Kind::axis : Kind::scalar;
    const Index& index = kind == Kind::domain ? domains_ : kind == Kind::axis ? axes_ : scalars_;
    const GridChild& child = grid_children_.at(&c);
    if (child.reference_only && !child.id.empty() && !index.count(child.id))
      unknown_reference(*c.attr(c.name + "_ref"), c.name, index);
    return GridComponent{kind, child.id, c.where};
  }

  FieldDef field(const Element& e) const {
    check_ref(e, "grid_ref", "grid", grids_);
    check_ref(e, "domain_ref", "domain", domains_);
    check_ref(e, "axis_ref", "axis", axes_);
    check_ref(e, "scalar_ref", "scalar", scalars_);
    FieldDef f;
    f.id = text(e, "id"), f.name = text(e, "name"), f.long_name = text(e, "long_name");
    f.standard_name = text(e, "standard_name"), f.unit = text(e, "unit"), f.comment = text(e, "comment");
    f.operation = e.get("operation") ? text(e, "operation") : "instant";
    f.freq_op = text(e, "freq_op"), f.freq_offset = text(e, "freq_offset");
    f.field_ref = text(e, "field_ref"), f.grid_ref = text(e, "grid_ref");
    f.domain_ref = text(e, "domain_ref"), f.axis_ref = text(e, "axis_ref"), f.scalar_ref = text(e, "scalar_ref");
    f.expression = text(e, "expr");
    f.prec = integer<int>(e, "prec").value_or(4);
    f.enabled = boolean(e, "enabled", true);
    f.default_value = real(e, "default_value"), f.valid_min = real(e, "valid_min");
    f.valid_max = real(e, "valid_max");
    f.detect_missing_value = boolean(e, "detect_missing_value", false);
    f.compression_level = integer<int>(e, "compression_level");
    f.level = integer<int>(e, "level");
    f.add_offset = real(e, "add_offset"), f.scale_factor = real(e, "scale_factor");
    f.cell_methods = text(e, "cell_methods"), f.cell_methods_mode = text(e, "cell_methods_mode");
    f.check_if_active = boolean(e, "check_if_active", false);
    f.compression_type = text(e, "compression_type");
    f.quantization = quantization(e);
    f.healpix_pyramid = text(e, "healpix_pyramid");
    f.where = e.where, f.origins = origins_of(e, places_);
    f.extra = extras(e, {"id",
                         "name",
                         "long_name",
                         "standard_name",
                         "unit",
                         "comment",
                         "operation",
                         "freq_op",
                         "freq_offset",
                         "field_ref",
                         "grid_ref",
                         "domain_ref",
                         "axis_ref",
                         "scalar_ref",
                         "expr",
                         "prec",
                         "enabled",
                         "default_value",
                         "valid_min",
                         "valid_max",
                         "detect_missing_value",
                         "compression_level",
                         "level",
                         "add_offset",
                         "scale_factor",
                         "cell_methods",
                         "cell_methods_mode",
                         "check_if_active",
                         "compression_type",
                         "quantization",
                         "quantization_nsb",
                         "quantization_nsd",
                         "healpix_pyramid"});
    // Field variables: the field's own, then those of its field_ref chain
    // that it does not redefine.
    std::vector<const Node*> nodes;
    std::set<std::string> names;  // names defined nearer the field
    for (const Element* t = &e; t; t = t->ref_target) {
      if (!t->node) continue;
      std::set<std::string> here;
      for (const Node& c : t->node->children) {
        if (c.name != "variable") continue;
        const Attr* n = c.attr("name") ? c.attr("name") : c.attr("id");
        const std::string key = n ? trim(n->value) : std::string();
        if (!names.count(key)) nodes.push_back(&c);
        here.insert(key);
      }
      names.insert(here.begin(), here.end());
    }
    f.variables = variables_of(nodes);
    return f;
  }

  FileDef file(const RawFile& raw) const {
    const Element& e = raw.file;
    FileDef f;
    f.id = text(e, "id"), f.name = text(e, "name"), f.name_suffix = text(e, "name_suffix");
    f.description = text(e, "description"), f.output_freq = text(e, "output_freq");
    f.split_freq = text(e, "split_freq"), f.split_freq_format = text(e, "split_freq_format");
    f.sync_freq = text(e, "sync_freq");
    if (e.get("type")) f.type = text(e, "type");
    if (e.get("format")) f.format = text(e, "format");
    if (e.get("par_access")) f.par_access = text(e, "par_access");
    f.output_level = integer<int>(e, "output_level");
    f.compression_level = integer<int>(e, "compression_level");
    f.min_digits = integer<int>(e, "min_digits");
    f.append = boolean(e, "append", false);
    f.enabled = boolean(e, "enabled", true);
    f.comment = text(e, "comment"), f.mode = text(e, "mode"), f.convention = text(e, "convention");
    f.time_counter = text(e, "time_counter"), f.time_units = text(e, "time_units");
    f.timeseries = text(e, "timeseries");
    f.quantization = quantization(e);
    f.where = e.where, f.origins = origins_of(e, places_);
    f.extra = extras(e, {"id",
                         "name",
                         "name_suffix",
                         "description",
                         "output_freq",
                         "split_freq",
                         "split_freq_format",
                         "sync_freq",
                         "type",
                         "format",
                         "par_access",
                         "output_level",
                         "compression_level",
                         "min_digits",
                         "append",
                         "enabled",
                         "comment",
                         "mode",
                         "convention",
                         "time_counter",
                         "time_units",
                         "timeseries",
                         "quantization",
                         "quantization_nsb",
                         "quantization_nsd"});
    if (f.output_name().empty()) report(e.where, "a <file> needs an id or a name");
    // (A bad output_freq was reported where it was written.)
    if (f.enabled && f.mode != "read" && !e.attrs.count("output_freq"))
      report(e.where, "file '" + f.output_name() + "' has no output_freq");
    // CDI's reduced Gaussian grid is the whole grid; a writer's part of it
    // (a range of cells) is not one.
    if (f.convention.find("CDI") != std::string::npos && f.type == "multiple_file")
      report(e.where, "file '" + f.output_name() + "': convention=\"" + f.convention +
                          "\" needs type=\"one_file\" (each file of multiple_file holds a part of the grid)");

    std::map<std::string, Location> written;  // output names of enabled fields
    for (const Element& fe : raw.fields) {
      FieldDef field_def = field(fe);
      // A file field without a name or id of its own is written under the
      // id of the field it refers to (XIOS does the same).
      if (field_def.output_name().empty()) {
        if (fe.ref_target)
          field_def.name = *fe.ref_target->get("id");
        else if (field_def.field_ref.empty())
          report(fe.where, "a <field> in a file needs a field_ref, an id or a name");
        else
          field_def.name = field_def.field_ref;  // a dangling field_ref, already reported
      }
      if (field_def.enabled) {
        const auto [it, fresh] = written.emplace(field_def.output_name(), field_def.where);
        if (!fresh)
          report(fe.where, "file '" + f.output_name() + "' already has a field named '" + field_def.output_name() +
                               "' (at " + it->second.str() + "); set a different name=");
      }
      f.fields.push_back(std::move(field_def));
    }
    f.variables = variables_of(raw.variables);
    return f;
  }
};

}  // namespace

Variable make_variable(const Node& node) {
  Variable v;
  if (const Attr* id = node.attr("id")) v.id = trim(id->value);
  if (const Attr* name = node.attr("name")) v.name = trim(name->value);
  v.where = node.where;
  if (v.output_name().empty()) report(node.where, "a <variable> needs an id or a name");
  // No type means a string, the one type every value fits.
  v.type = node.attr("type") ? *normalise_variable_type(node.attr("type")->value) : "string";
  v.value = node.text;
  const std::string bad = "bad value '" + v.value + "' for " + v.type + " variable '" + v.output_name() + "': ";
  if (v.type == "bool" && !parse_bool(v.value))
    report(node.where, bad + "expected true or false (.true., .false., 1 and 0 also work)");
  if (v.type == "int" && !parse_int(v.value)) report(node.where, bad + "expected an integer");
  if (v.type == "double" && !parse_double(v.value)) report(node.where, bad + "expected a number");
  return v;
}

ContextDef resolve_context(RawContext& raw) { return Resolver(raw).run(); }

}  // namespace foehn::config::detail
