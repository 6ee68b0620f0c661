// append="true": a file that exists already (from the run this one restarts)
// is opened, checked against this run's definitions and written after its
// last record. Nothing of it is redefined or rewritten.
#include <netcdf.h>

#include <sstream>
#include <string>
#include <vector>

#include "calendar/calendar.h"
#include "filters/temporal.h"
#include "output/netcdf_file.h"

namespace foehn::output {

namespace {

std::string seconds_text(double s) {
  std::ostringstream out;
  out << s;
  return out.str();
}

std::string text_attribute(int ncid, int varid, const char* name) {
  std::size_t len = 0;
  if (nc_inq_attlen(ncid, varid, name, &len) != NC_NOERR) return "";
  std::string value(len, '\0');
  if (len > 0 && nc_get_att_text(ncid, varid, name, value.data()) != NC_NOERR) return "";
  return value;
}

}  // namespace

void NetcdfFile::attach(const ContextPlan& plan, int file_index) {
  const FileInfo& f = plan.files[file_index];
  appended_ = true;
  auto refuse = [&](const std::string& why) {
    throw IoError(path_ + ": cannot append to this file: " + why +
                  " (append=\"true\" continues a file written by the same definitions)");
  };
  const bool any_instant = lay_out(plan, f);

  // The time axis: same units and calendar, so that its values go on.
  int dim_time = -1;
  if (nc_inq_dimid(ncid_, "time_counter", &dim_time) != NC_NOERR || nc_inq_varid(ncid_, "time_counter", &time_var_) != NC_NOERR)
    refuse("it has no time_counter");
  for (const auto& [name, want] : {std::pair<const char*, std::string>{"units", plan.time_units}, {"calendar", plan.calendar}}) {
    const std::string got = text_attribute(ncid_, time_var_, name);
    if (got != want)
      refuse(std::string("its time_counter ") + name + " is '" + got + "', this run's is '" + want +
             "' (keep the first run's calendar and time_origin)");
  }
  if (centered_ && nc_inq_varid(ncid_, "time_counter_bounds", &time_bounds_var_) != NC_NOERR)
    refuse("it has no time_counter_bounds");
  if (centered_ && any_instant && nc_inq_varid(ncid_, "time_instant", &time_instant_var_) != NC_NOERR)
    refuse("it has no time_instant");
  std::size_t records = 0;
  check(nc_inq_dimlen(ncid_, dim_time, &records), "nc_inq_dimlen time_counter");
  base_record_ = static_cast<std::int64_t>(records);
  if (records > 0) {
    // Its last record's interval must end by this run's start: a run that
    // repeats a period would write its records twice.
    double last_end = 0;
    const std::size_t start[2] = {records - 1, 1}, one[2] = {1, 1};
    if (time_bounds_var_ >= 0) check(nc_get_vara_double(ncid_, time_bounds_var_, start, one, &last_end), "reading time_counter_bounds");
    else check(nc_get_vara_double(ncid_, time_var_, start, one, &last_end), "reading time_counter");
    const calendar::Calendar cal = plan.make_calendar();
    const double run_start = static_cast<double>(cal.to_instant(calendar::parse_date(plan.start_date)) -
                                                 cal.to_instant(calendar::parse_date(plan.time_origin))) /
                             static_cast<double>(calendar::kMicrosPerSecond);
    if (last_end > run_start)
      refuse("its records reach " + seconds_text(last_end) + " s since " + plan.time_origin + ", after this run's start (" +
             plan.start_date + ", " + seconds_text(run_start) + " s): restart where it ends, or remove the file");
  }

  // This run's variables: present, of the same type and shape.
  for (int vi : f.variables) {
    const VariableInfo& v = plan.variables[vi];
    int var = -1, ndims = 0;
    nc_type type = NC_NAT;
    if (nc_inq_varid(ncid_, v.name.c_str(), &var) != NC_NOERR) refuse("it has no variable '" + v.name + "'");
    check(nc_inq_vartype(ncid_, var, &type), "nc_inq_vartype");
    check(nc_inq_varndims(ncid_, var, &ndims), "nc_inq_varndims");
    const int t = timeless_[vi] ? 0 : 1;
    if (type != (v.prec == 8 ? NC_DOUBLE : NC_FLOAT)) refuse("its '" + v.name + "' has another precision");
    if (ndims != t + static_cast<int>(v.dims.size())) refuse("its '" + v.name + "' has another number of dimensions");
    std::vector<int> dimids(static_cast<std::size_t>(ndims));
    check(nc_inq_vardimid(ncid_, var, dimids.data()), "nc_inq_vardimid");
    for (std::size_t d = 0; d < v.dims.size(); ++d) {
      const Dim& dim = v.dims[d];
      std::size_t have = 0;
      check(nc_inq_dimlen(ncid_, dimids[d + static_cast<std::size_t>(t)], &have), "nc_inq_dimlen");
      const LocalBlock ext = dim.kind == Dim::axis ? LocalBlock{} : domain_extent(part_, plan.domains[dim.index], dim.index);
      const std::int64_t want = dim.kind == Dim::axis        ? static_cast<std::int64_t>(plan.axes[dim.index].values.size())
                                : dim.kind == Dim::domain_j ? ext.nj
                                                             : ext.ni;
      if (static_cast<std::int64_t>(have) != want)
        refuse("its '" + v.name + "' has " + std::to_string(have) + " points in dimension " + std::to_string(d + 1) +
               ", this run has " + std::to_string(want));
    }
    varids_[vi] = var;
  }
  set_access(plan, f);
}

}  // namespace foehn::output
