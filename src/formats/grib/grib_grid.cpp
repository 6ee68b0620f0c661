#include "formats/grib/grib_grid.h"

#include <algorithm>
#include <cmath>

#include "formats/writer.h"

namespace foehn::formats::grib {

namespace {

// The constant step of `values`, or NaN when they are not evenly spaced
// (to a millionth of a degree, GRIB2's resolution).
double even_step(const std::vector<double>& values) {
  if (values.size() < 2) return std::nan("");
  const double step = (values.back() - values.front()) / static_cast<double>(values.size() - 1);
  for (std::size_t k = 1; k < values.size(); ++k)
    if (std::abs(values[k] - values[k - 1] - step) > 1e-6) return std::nan("");
  return step;
}

GribHandle regular_ll(const output::DomainInfo& d, const std::string& where) {
  const double dlon = even_step(d.lon), dlat = even_step(d.lat);
  if (!(dlon > 0) || std::isnan(dlat) || dlat == 0)
    throw IoError(where + ": domain '" + d.id +
                  "': GRIB2 regular_ll needs evenly spaced longitudes (west to east) and latitudes");
  GribHandle h = GribHandle::from_sample("regular_ll_sfc_grib2", where);
  h.set_long("Ni", static_cast<long>(d.ni_glo));
  h.set_long("Nj", static_cast<long>(d.nj_glo));
  // foehn's rows are in the order of the latitudes given: north to south
  // is GRIB's default scan, south to north sets jScansPositively.
  h.set_long("jScansPositively", dlat > 0 ? 1 : 0);
  h.set_double("latitudeOfFirstGridPointInDegrees", d.lat.front());
  h.set_double("latitudeOfLastGridPointInDegrees", d.lat.back());
  h.set_double("longitudeOfFirstGridPointInDegrees", d.lon.front());
  h.set_double("longitudeOfLastGridPointInDegrees", d.lon.back());
  h.set_double("iDirectionIncrementInDegrees", dlon);
  h.set_double("jDirectionIncrementInDegrees", std::abs(dlat));
  return h;
}

GribHandle gaussian(const output::DomainInfo& d, const std::string& where) {
  output::ReducedRows rows;
  if (const std::string why = output::reduced_rows(d, rows); !why.empty())
    throw IoError(where + ": " + why + " (GRIB2's Gaussian grids need the same)");
  const long widest = *std::max_element(rows.points.begin(), rows.points.end());
  const bool regular = std::all_of(rows.points.begin(), rows.points.end(), [&](int p) { return p == widest; });
  GribHandle h = GribHandle::from_sample(regular ? "regular_gg_sfc_grib2" : "reduced_gg_sfc_grib2", where);
  h.set_long("N", static_cast<long>(rows.lat.size() / 2));
  h.set_long("Nj", static_cast<long>(rows.lat.size()));
  if (regular) {
    h.set_long("Ni", widest);
    h.set_double("iDirectionIncrementInDegrees", 360.0 / static_cast<double>(widest));
  } else {
    h.set_longs("pl", std::vector<long>(rows.points.begin(), rows.points.end()));
  }
  h.set_double("latitudeOfFirstGridPointInDegrees", rows.lat.front());
  h.set_double("latitudeOfLastGridPointInDegrees", rows.lat.back());
  h.set_double("longitudeOfFirstGridPointInDegrees", d.lon.empty() ? 0.0 : d.lon.front());
  h.set_double("longitudeOfLastGridPointInDegrees", 360.0 - 360.0 / static_cast<double>(widest));
  return h;
}

}  // namespace

GribHandle grid_handle(const output::DomainInfo& d, const std::string& where) {
  if (d.type == "rectilinear") return regular_ll(d, where);
  if (d.type == "gaussian") return gaussian(d, where);
  throw IoError(where + ": domain '" + d.id + "' of type " + d.type +
                " has no GRIB2 grid in foehn yet (rectilinear: regular_ll; gaussian: regular_gg, reduced_gg)");
}

}  // namespace foehn::formats::grib
