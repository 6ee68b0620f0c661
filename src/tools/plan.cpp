// Building the plan: grid sizes, records from the calendar, byte counts.
// Every product is checked for overflow: a typo in a size must give an
// error, not a negative total.
#include "tools/plan.h"

#include <algorithm>
#include <cmath>

#include <stdexcept>

#include "calendar/calendar.h"
#include "tools/check.h"
#include "tools/field_grid.h"
#include "tools/transformations.h"

namespace foehn::tools {

namespace {

using config::ConfigError;
using config::ContextDef;

std::int64_t times(std::int64_t a, std::int64_t b, const std::string& what) {
  std::int64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out)) throw std::overflow_error(what + " does not fit in 64 bits");
  return out;
}
std::int64_t plus(std::int64_t a, std::int64_t b, const std::string& what) {
  std::int64_t out = 0;
  if (__builtin_add_overflow(a, b, &out)) throw std::overflow_error(what + " does not fit in 64 bits");
  return out;
}

std::string list_ids(const auto& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item.id;
  return out.empty() ? "none" : out;
}

std::int64_t domain_points(const ContextDef& ctx, const std::string& id, const PlanOptions& o) {
  if (const auto it = o.domain_points.find(id); it != o.domain_points.end()) return it->second;
  const config::DomainDef& d = *ctx.find_domain(id);  // the reader checked the reference
  // Reduced Gaussian and unstructured domains are one-dimensional on disk.
  const bool one_d = d.type == "gaussian" || d.type == "unstructured" || d.type == "healpix";
  if (d.ni_glo && (d.nj_glo || one_d)) return times(*d.ni_glo, d.nj_glo.value_or(1), "domain '" + id + "' size");
  const std::string what = d.ni_glo ? "has ni_glo but no nj_glo" : "has no size (no ni_glo/nj_glo in the XML)";
  throw ConfigError(
      d.where, "domain '" + id + "' " + what + "; pass --domain " + id + (one_d ? "=NPOINTS" : "=NI,NJ (or =NPOINTS)"));
}

std::int64_t axis_points(const ContextDef& ctx, const std::string& id, const PlanOptions& o) {
  if (const auto it = o.axis_points.find(id); it != o.axis_points.end()) return it->second;
  const config::AxisDef& a = *ctx.find_axis(id);
  if (a.n_glo) return *a.n_glo;
  throw ConfigError(a.where, "axis '" + id + "' has no size (no n_glo or value in the XML); pass --axis " + id + "=N");
}

std::int64_t grid_points(const ContextDef& ctx, const FieldGrid& grid, const PlanOptions& o) {
  std::int64_t n = 1;
  for (const config::GridComponent& c : grid.components) {
    using Kind = config::GridComponent::Kind;
    const std::int64_t k = c.kind == Kind::domain ? domain_points(ctx, c.ref, o)
                           : c.kind == Kind::axis ? axis_points(ctx, c.ref, o)
                                                  : 1;  // a scalar is one point
    n = times(n, k, "grid '" + grid.label + "' size");
  }
  return n;
}

// The global (ni, nj) of a component that transformations start from: a
// domain's ni_glo x nj_glo (--domain ID=NPOINTS: ni_glo x the rest, or a
// row of NPOINTS), an axis's n, a scalar's one value.
std::pair<std::int64_t, std::int64_t> component_size(const ContextDef& ctx, const config::GridComponent& c,
                                                     const PlanOptions& o) {
  using Kind = config::GridComponent::Kind;
  if (c.kind == Kind::scalar) return {1, 1};
  if (c.kind == Kind::axis) return {axis_points(ctx, c.ref, o), 1};
  const std::int64_t n = domain_points(ctx, c.ref, o);
  if (const auto it = o.domain_ni.find(c.ref); it != o.domain_ni.end()) return {it->second, n / it->second};
  const config::DomainDef& d = *ctx.find_domain(c.ref);
  if (d.ni_glo && *d.ni_glo > 0 && n % *d.ni_glo == 0) return {*d.ni_glo, n / *d.ni_glo};
  return {n, 1};
}

// The calendar of a context, from the options first, then the XML.
struct ContextTime {
  calendar::Calendar cal;
  std::int64_t start = 0, end = 0, timestep_us = 0;
};

ContextTime context_time(const ContextDef& ctx, const PlanOptions& o) {
  const config::CalendarDef& c = ctx.calendar;
  const config::Location where = c.present ? c.where : ctx.where;
  const std::string type = o.calendar_type.empty() ? c.type : o.calendar_type;
  const std::string start = o.start_date.empty() ? c.start_date : o.start_date;
  const std::string step = o.timestep.empty() ? c.timestep : o.timestep;
  if (type.empty())
    throw ConfigError(where,
                      "context '" + ctx.id + "' has no calendar type; set <calendar type=...> or pass --calendar TYPE");
  if (start.empty())
    throw ConfigError(where, "context '" + ctx.id + "' has no calendar start_date; set it or pass --start-date DATE");
  const auto option = [&](const char* name, const auto& f) {
    try {
      return f();
    } catch (const calendar::TimeError& e) { throw std::invalid_argument(std::string(name) + ": " + e.what()); }
  };
  config::CalendarDef def = c;  // the XML's user_defined months, with the type from the options
  def.type = type;
  def.where = where;
  ContextTime t{option("--calendar", [&] {
    calendar::parse_calendar_type(type);  // an unknown --calendar is an option error
    return def.make_calendar();
  })};
  t.start = option("--start-date", [&] { return t.cal.to_instant(calendar::parse_date(start)); });
  if (!step.empty()) {
    const calendar::Duration d = option("--timestep", [&] { return calendar::parse_duration(step); });
    if (d.months != 0 || d.timesteps != 0 || d.microseconds <= 0)
      throw std::invalid_argument("--timestep: '" + step + "' must be a positive fixed time (d, h, mi, s)");
    t.timestep_us = d.microseconds;
  }
  const calendar::Duration duration = option("--duration", [&] { return calendar::parse_duration(o.duration); });
  t.end = option("--duration", [&] { return t.cal.add(t.start, duration, t.timestep_us); });
  if (t.end < t.start) throw std::invalid_argument("--duration: '" + o.duration + "' is negative");
  return t;
}

// Output instants start + k*output_freq with k >= 1 and at most the end: the
// first record is written one output period after the start.
std::int64_t count_records(const config::FileDef& file, const ContextTime& t) {
  try {
    const calendar::Schedule s(t.cal, t.start, calendar::parse_duration(file.output_freq), calendar::Duration{},
                               t.timestep_us);
    if (t.end == INT64_MAX) throw calendar::TimeError("the end of the run is the end of representable time");
    return s.first_at_or_after(t.end + 1) - 1;
  } catch (const calendar::TimeError& e) {
    throw ConfigError(file.where, "output_freq '" + file.output_freq + "' of file '" + file.output_name() +
                                      "': " + e.what() + (t.timestep_us ? "" : " (pass --timestep for 'ts')"));
  }
}

// split_freq: the periods that hold a record (a period without records
// leaves no file; calendar::SplitPeriods), or the first period's file,
// created at the start, when there are no records. Walks the records or
// the periods, whichever are fewer.
std::int64_t count_files(const config::FileDef& file, const ContextTime& t, std::int64_t records) {
  if (file.split_freq.empty() || records == 0) return 1;
  constexpr std::int64_t kMaxWalk = 10'000'000;
  try {
    const calendar::Schedule out(t.cal, t.start, calendar::parse_duration(file.output_freq), calendar::Duration{},
                                 t.timestep_us);
    const calendar::SplitPeriods split(t.cal, t.start, calendar::parse_duration(file.split_freq), t.timestep_us,
                                       file.split_freq_format);
    const std::int64_t first = split.period_of(out.instant(1)), last = split.period_of(out.instant(records));
    std::int64_t files = 0;
    if (std::min(records, last - first + 1) > kMaxWalk)
      throw calendar::TimeError("more than " + std::to_string(kMaxWalk) + " records and split periods to count");
    if (records <= last - first + 1) {
      std::int64_t previous = -1;
      for (std::int64_t k = 1; k <= records; ++k) {
        const std::int64_t period = split.period_of(out.instant(k));
        if (period != previous) ++files, previous = period;
      }
    } else {
      // Period p holds the record ends in (start_p, start_p+1]: the output
      // instants with index in [first_at_or_after(start_p + 1), first_at_or_after(start_p+1 + 1)).
      for (std::int64_t p = first; p <= last; ++p)
        if (out.first_at_or_after(split.period_start(p + 1) + 1) > out.first_at_or_after(split.period_start(p) + 1))
          ++files;
    }
    return files;
  } catch (const calendar::TimeError& e) {
    throw ConfigError(file.where, "split_freq '" + file.split_freq + "' of file '" + file.output_name() +
                                      "': " + e.what() + (t.timestep_us ? "" : " (pass --timestep for 'ts')"));
  }
}

FilePlan plan_file(const ContextDef& ctx, const config::FileDef& file, const ContextTime& t, const PlanOptions& o) {
  FilePlan p;
  p.id = file.id, p.name = file.output_name() + file.name_suffix, p.type = file.type;
  p.output_freq = file.output_freq, p.where = file.where;
  p.records = count_records(file, t);
  p.split_freq = file.split_freq;
  p.files = count_files(file, t, p.records);
  double estimated = 0;
  for (const config::FieldDef& f : file.fields) {
    if (!is_output_field(file, f)) continue;
    const FieldGrid grid = field_grid(ctx, f);
    const FieldTransformations made =
        field_transformations(ctx, f, [&](const config::GridComponent& c) { return component_size(ctx, c, o); });
    FieldPlan fp{f.output_name(), f.operation, grid.label, made.any ? made.points : grid_points(ctx, grid, o), f.prec};
    fp.transformations = made.steps;
    fp.bytes_per_record = times(fp.points, fp.prec, "field '" + fp.name + "' record size");
    std::int64_t& sum = f.operation == "once" ? p.once_bytes : p.bytes_per_record;
    sum = plus(sum, fp.bytes_per_record, "file '" + p.name + "' record size");
    // The field's deflate and quantization, its own winning over its file's
    // (szip is not estimated: counted raw).
    int level = f.compression_level.value_or(file.compression_level.value_or(0));
    if (f.compression_type == "None" || f.compression_type == "szip" || file.format == "grib2") level = 0;
    const config::Quantization& q = f.quantization.algorithm.empty() ? file.quantization : f.quantization;
    const std::optional<int> nsb = f.quantization.nsb ? f.quantization.nsb : file.quantization.nsb;
    const std::optional<int> nsd = f.quantization.nsd ? f.quantization.nsd : file.quantization.nsd;
    const int keep = q.algorithm == "bitround" ? nsb.value_or(52) : nsd.value_or(15);
    fp.compressed_fraction = compressed_fraction(fp.prec, level, q.algorithm, keep, fp.points);
    p.compressed = p.compressed || level > 0;
    estimated += static_cast<double>(fp.bytes_per_record) * fp.compressed_fraction *
                 static_cast<double>(f.operation == "once" ? std::min<std::int64_t>(p.records, 1) : p.records);
    p.fields.push_back(std::move(fp));
  }
  p.total_bytes = plus(times(p.bytes_per_record, p.records, "file '" + p.name + "' size"),
                       p.records > 0 ? p.once_bytes : 0, "file '" + p.name + "' size");
  p.estimated_bytes = static_cast<std::int64_t>(std::llround(estimated));
  return p;
}

void check_overrides(const std::vector<const ContextDef*>& contexts, const PlanOptions& o) {
  for (const auto& [id, n] : o.domain_points) {
    bool found = false;
    for (const ContextDef* c : contexts) found = found || c->find_domain(id);
    if (!found)
      throw std::invalid_argument("--domain: no domain '" + id + "' (domains: " + list_ids(contexts.front()->domains) +
                                  ")");
  }
  for (const auto& [id, n] : o.axis_points) {
    bool found = false;
    for (const ContextDef* c : contexts) found = found || c->find_axis(id);
    if (!found)
      throw std::invalid_argument("--axis: no axis '" + id + "' (axes: " + list_ids(contexts.front()->axes) + ")");
  }
}

}  // namespace

Plan make_plan(const config::Simulation& sim, const PlanOptions& o) {
  std::vector<const ContextDef*> contexts;
  for (const ContextDef& c : sim.contexts) {
    bool has_output = false;
    for (const config::FileDef& f : c.files) has_output = has_output || is_output_file(f);
    if (o.context.empty() ? has_output : c.id == o.context) contexts.push_back(&c);
  }
  if (!o.context.empty() && contexts.empty())
    throw std::invalid_argument("--context: no context '" + o.context + "' (contexts: " + list_ids(sim.contexts) + ")");
  if (contexts.empty()) throw std::invalid_argument("no context has an enabled output file");
  check_overrides(contexts, o);

  Plan plan;
  plan.duration = o.duration;
  for (const ContextDef* ctx : contexts) {
    const ContextTime t = context_time(*ctx, o);
    ContextPlan cp;
    cp.id = ctx->id, cp.calendar = calendar::cf_calendar_name(t.cal.type());
    cp.start = calendar::format_date(t.cal.to_date(t.start)), cp.end = calendar::format_date(t.cal.to_date(t.end));
    cp.simulated_days = static_cast<double>(t.end - t.start) / (86'400.0 * calendar::kMicrosPerSecond);
    for (const config::FileDef& f : ctx->files) {
      if (!is_output_file(f)) continue;
      cp.files.push_back(plan_file(*ctx, f, t, o));
      cp.total_bytes = plus(cp.total_bytes, cp.files.back().total_bytes, "context '" + ctx->id + "' total");
    }
    plan.total_bytes = plus(plan.total_bytes, cp.total_bytes, "the total");
    if (cp.simulated_days > 0) plan.bytes_per_day += static_cast<double>(cp.total_bytes) / cp.simulated_days;
    plan.contexts.push_back(std::move(cp));
  }
  return plan;
}

}  // namespace foehn::tools
