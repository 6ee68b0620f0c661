#include "formats/grib/grib_grid.h"

#include <uuid/uuid.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>

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

// The uuid of an unstructured domain's grid: a name-based UUID (RFC 4122
// version 5, SHA-1, through libuuid rather than a hand-written hash) in the
// URL namespace, of the bytes of the point count (int64) then lon, lat,
// bounds_lon and bounds_lat (float64), all little-endian as on x86 and in
// global index order: the same coordinates give the same uuid in any run,
// other coordinates another one. docs/grib.md says how to recompute it.
std::string grid_uuid(const output::DomainInfo& d) {
  static_assert(std::endian::native == std::endian::little, "the uuid's bytes are little-endian");
  std::vector<char> name(sizeof(std::int64_t));
  const std::int64_t points = d.size();
  std::memcpy(name.data(), &points, sizeof points);
  for (const std::vector<double>* v : {&d.lon, &d.lat, &d.bounds_lon, &d.bounds_lat}) {
    const std::size_t at = name.size();
    name.resize(at + v->size() * sizeof(double));
    if (!v->empty()) std::memcpy(name.data() + at, v->data(), v->size() * sizeof(double));
  }
  uuid_t url_namespace, out;
  uuid_parse("6ba7b811-9dad-11d1-80b4-00c04fd430c8", url_namespace);
  uuid_generate_sha1(out, url_namespace, name.data(), name.size());
  static const char hex[] = "0123456789abcdef";
  std::string text;
  for (const unsigned char byte : out) text += hex[byte >> 4], text += hex[byte & 15];
  return text;  // ecCodes' uuidOfHGrid: 32 hexadecimal digits
}

// Template 3.101 (ecCodes' unstructured_grid): the grid is known by its
// number (numberOfGridUsed, 0 unless the field's <variable>s say, as ICON's
// grids do), the reference's number 1 and the uuid of the coordinates;
// the values are in the domain's global index order.
GribHandle unstructured(const output::DomainInfo& d, const std::string& where) {
  GribHandle h = GribHandle::from_sample("regular_ll_sfc_grib2", where);
  h.set_long("gridDefinitionTemplateNumber", 101);
  h.set_long("numberOfGridUsed", 0);
  h.set_long("numberOfGridInReference", 1);
  h.set_string("uuidOfHGrid", grid_uuid(d));
  return h;
}

}  // namespace

GribHandle grid_handle(const output::DomainInfo& d, const std::string& where) {
  if (d.type == "rectilinear") return regular_ll(d, where);
  if (d.type == "gaussian") return gaussian(d, where);
  if (d.type == "unstructured") return unstructured(d, where);
  throw IoError(where + ": domain '" + d.id + "' of type " + d.type +
                " has no GRIB2 grid in foehn (rectilinear: regular_ll; gaussian: regular_gg, reduced_gg; "
                "unstructured: unstructured_grid)");
}

}  // namespace foehn::formats::grib
