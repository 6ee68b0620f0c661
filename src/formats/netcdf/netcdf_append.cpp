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
  const bool any_instant = lay_out(plan, f);
  check_time_axis(plan, any_instant, f.resume_file_records);
  for (int vi : f.variables) check_variable(plan, vi);
  set_access(plan, f);
  bound_time_caches();
}

// The time axis: same units and calendar, so that its values go on, and a
// last record that ends by this run's start.
void NetcdfWriter::check_time_axis(const ContextPlan& plan, bool any_instant, std::int64_t resume_records) {
  const std::optional<int> dim_time = ds_.find_dim("time_counter");
  const std::optional<int> time_var = ds_.find_var("time_counter");
  if (!dim_time || !time_var) refuse("it has no time_counter");
  time_var_ = *time_var;
  for (const auto& [name, want] :
       {std::pair<const char*, std::string>{"units", plan.time_units}, {"calendar", plan.calendar}}) {
    const std::string got = ds_.get_text(time_var_, name);
    if (got != want)
      refuse(std::string("its time_counter ") + name + " is '" + got + "', this run's is '" + want +
             "' (keep the first run's calendar and time_origin)");
  }
  if (centered_) time_bounds_var_ = ds_.find_var("time_counter_bounds").value_or(-1);
  if (centered_ && time_bounds_var_ < 0) refuse("it has no time_counter_bounds");
  if (centered_ && any_instant) time_instant_var_ = ds_.find_var("time_instant").value_or(-1);
  if (centered_ && any_instant && time_instant_var_ < 0) refuse("it has no time_instant");
  const std::size_t records = ds_.dim_length(*dim_time);
  base_record_ = static_cast<std::int64_t>(records);
  if (resume_records >= 0) {
    // An exact restart goes on after the checkpoint's last record; records a
    // stopped run wrote after it are written again, in place.
    if (std::string why = checkpoint_beyond(base_record_, resume_records); !why.empty()) refuse(why);
    base_record_ = resume_records;
    return;
  }
  if (records == 0) return;
  // Its last record's interval must end by this run's start: a run that
  // repeats a period would write its records twice.
  const std::size_t last[2] = {records - 1, 1};
  const double last_end = ds_.get_double(time_bounds_var_ >= 0 ? time_bounds_var_ : time_var_, last);
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
