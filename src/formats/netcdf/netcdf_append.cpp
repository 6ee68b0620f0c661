// append="true": a file that exists already (from the run this one restarts)
// is opened, checked against this run's definitions and written after its
// last record. Nothing of it is redefined or rewritten.
#include <netcdf.h>

#include <string>
#include <vector>

#include "formats/continuation.h"
#include "formats/netcdf/netcdf_writer.h"

namespace foehn::formats::netcdf {

using output::ContextPlan;
using output::Dim;
using output::FileInfo;
using output::LocalBlock;
using output::VariableInfo;

void NetcdfWriter::refuse(const std::string& why) const {
  throw IoError(ds_.path() + ": cannot append to this file: " + why +
                " (append=\"true\" continues a file written by the same definitions)");
}

void NetcdfWriter::attach(const ContextPlan& plan, const FileInfo& f) {
  appended_ = true;
  lay_out(plan, f);
  check_time_axis(plan, f.resume_file_records);
  for (int vi : f.variables) check_variable(plan, vi);
  set_access(plan, f);
  bound_time_caches();
}

// The time axis: the time variables this run writes (time_layout.h), with
// the same units and calendar, so that their values go on, and a last
// record that ends by this run's start.
void NetcdfWriter::check_time_axis(const ContextPlan& plan, std::int64_t resume_records) {
  using Counter = TimeLayout::Counter;
  const std::optional<int> dim_time = ds_.find_dim(counter_name_);
  if (!dim_time) refuse("it has no dimension " + counter_name_);
  dim_time_ = *dim_time;
  const auto find = [&](const std::string& name) {
    const std::optional<int> var = ds_.find_var(name);
    if (!var) refuse("it has no " + name);
    return *var;
  };
  const auto find_dated = [&](const std::string& name, int& var, int& bounds_var) {
    var = find(name), bounds_var = find(name + "_bounds");
    for (const auto& [attribute, want] :
         {std::pair<const char*, std::string>{"units", time_units(plan)}, {"calendar", plan.calendar}}) {
      const std::string got = ds_.get_text(var, attribute);
      if (got != want)
        refuse("its " + name + " " + attribute + " is '" + got + "', this run's is '" + want +
               "' (keep the first run's calendar, time_origin and time_units)");
    }
  };
  if (time_.counter == Counter::record) time_var_ = find(counter_name_);
  if (time_.counter_bounds()) find_dated(counter_name_, time_var_, time_bounds_var_);
  if (time_.centered) find_dated("time_centered", time_centered_var_, time_centered_bounds_var_);
  if (time_.instant) find_dated("time_instant", time_instant_var_, time_instant_bounds_var_);
  const std::size_t records = ds_.dim_length(*dim_time);
  base_record_ = static_cast<std::int64_t>(records);
  if (resume_records >= 0) {
    // An exact restart goes on after the checkpoint's last record; records a
    // stopped run wrote after it are written again, in place.
    if (std::string why = checkpoint_beyond(base_record_, resume_records); !why.empty()) refuse(why);
    base_record_ = resume_records;
    return;
  }
  // Its last record's interval must end by this run's start: a run that
  // repeats a period would write its records twice. Every dated variable
  // has the end of the interval as its upper bound.
  const int last_bounds = time_bounds_var_ >= 0           ? time_bounds_var_
                          : time_centered_bounds_var_ >= 0 ? time_centered_bounds_var_
                                                           : time_instant_bounds_var_;
  if (records == 0 || last_bounds < 0) return;
  const std::size_t last[2] = {records - 1, 1};
  const double last_end = time_value_seconds(ds_.get_double(last_bounds, last), time_unit_);
  if (std::string why = repeats_a_period(plan, last_end, "file"); !why.empty()) refuse(why);
}

// One of this run's variables: present, of the same type and shape.
void NetcdfWriter::check_variable(const ContextPlan& plan, int vi) {
  const VariableInfo& v = plan.variables[vi];
  const std::optional<int> found = ds_.find_var(v.name);
  if (!found) refuse("it has no variable '" + v.name + "'");
  const int var = *found;
  const std::vector<int> dimids = ds_.var_dims(var);
  const std::size_t t = timeless_[vi] ? 0 : 1;
  if (ds_.var_type(var) != (v.prec == 8 ? NC_DOUBLE : NC_FLOAT)) refuse("its '" + v.name + "' has another precision");
  if (dimids.size() != t + v.dims.size()) refuse("its '" + v.name + "' has another number of dimensions");
  for (std::size_t d = 0; d < v.dims.size(); ++d) {
    const Dim& dim = v.dims[d];
    const std::size_t have = ds_.dim_length(dimids[d + t]);
    const LocalBlock ext =
        dim.kind == Dim::axis ? LocalBlock{} : domain_extent(part_, plan.domains[dim.index], dim.index);
    const std::int64_t want = dim.kind == Dim::axis       ? plan.axes[dim.index].size()
                              : dim.kind == Dim::domain_j ? ext.nj
                                                          : ext.ni;
    if (static_cast<std::int64_t>(have) != want)
      refuse("its '" + v.name + "' has " + std::to_string(have) + " points in dimension " + std::to_string(d + 1) +
             ", this run has " + std::to_string(want));
  }
  varids_[vi] = var;
  size_chunk_cache(vi, var);  // as when defined: netCDF's default would keep 64 MiB
}

}  // namespace foehn::formats::netcdf
