// The GRIB2 grid of each domain type (src/formats/grib/grib_grid.h), read
// back from the ecCodes handle: regular_ll from evenly spaced rectilinear
// coordinates (either latitude order), regular_gg when all Gaussian rows
// are as long, reduced_gg with the rows' lengths otherwise,
// unstructured_grid with the coordinates' uuid, and the refusals with their
// reason.
#include <gtest/gtest.h>

#include <numeric>
#include <string>
#include <vector>

#include "formats/grib/grib_grid.h"
#include "formats/writer.h"

namespace {

using foehn::formats::IoError;
using foehn::formats::grib::grid_handle;
using foehn::output::DomainInfo;

DomainInfo rectilinear(std::vector<double> lon, std::vector<double> lat) {
  DomainInfo d;
  d.id = "dom";
  d.ni_glo = static_cast<std::int64_t>(lon.size());
  d.nj_glo = static_cast<std::int64_t>(lat.size());
  d.lon = std::move(lon);
  d.lat = std::move(lat);
  return d;
}

// A gaussian domain of the given rows (latitudes north to south), points
// row by row, longitudes from 0.
DomainInfo gaussian(const std::vector<double>& rows_lat, const std::vector<int>& points) {
  DomainInfo d;
  d.id = "gauss";
  d.type = "gaussian";
  for (std::size_t r = 0; r < points.size(); ++r)
    for (int p = 0; p < points[r]; ++p) {
      d.lat.push_back(rows_lat[r]);
      d.lon.push_back(360.0 * p / points[r]);
    }
  d.ni_glo = static_cast<std::int64_t>(d.lat.size());
  d.nj_glo = 1;
  return d;
}

const std::vector<double> kRows = {70, 50, 30, 10, -10, -30, -50, -70};

TEST(GribGrid, RectilinearIsRegularLatLonInTheModelsRowOrder) {
  std::vector<double> lon(36), lat(19);
  for (int i = 0; i < 36; ++i) lon[i] = 10.0 * i;
  for (int j = 0; j < 19; ++j) lat[j] = -90.0 + 10.0 * j;
  const auto h = grid_handle(rectilinear(lon, lat), "f.grib2: field 'x'");
  EXPECT_EQ(h.get_string("gridType"), "regular_ll");
  EXPECT_EQ(h.get_long("Ni"), 36);
  EXPECT_EQ(h.get_long("Nj"), 19);
  EXPECT_EQ(h.get_long("jScansPositively"), 1);            // south to north, as given
  EXPECT_EQ(h.get_long("iDirectionIncrement"), 10000000);  // micro-degrees
  EXPECT_EQ(h.get_long("latitudeOfFirstGridPoint"), -90000000);
  EXPECT_EQ(h.get_long("longitudeOfLastGridPoint"), 350000000);
  std::reverse(lat.begin(), lat.end());
  EXPECT_EQ(grid_handle(rectilinear(lon, lat), "f").get_long("jScansPositively"), 0);
}

TEST(GribGrid, EqualRowsAreRegularGaussian) {
  const auto h = grid_handle(gaussian(kRows, std::vector<int>(8, 16)), "f");
  EXPECT_EQ(h.get_string("gridType"), "regular_gg");
  EXPECT_EQ(h.get_long("N"), 4);
  EXPECT_EQ(h.get_long("Ni"), 16);
  EXPECT_EQ(h.get_long("Nj"), 8);
  const std::vector<double> values(128, 1.5);  // the grid's points: ecCodes takes them
  h.set_values(values.data(), values.size());
  EXPECT_EQ(h.get_long("numberOfDataPoints"), 128);
  EXPECT_EQ(h.get_long("iDirectionIncrement"), 22500000);
}

TEST(GribGrid, UnequalRowsAreReducedGaussianWithTheirLengths) {
  const std::vector<int> pl = {20, 24, 28, 32, 32, 28, 24, 20};  // octahedral O4
  const auto h = grid_handle(gaussian(kRows, pl), "f");
  EXPECT_EQ(h.get_string("gridType"), "reduced_gg");
  EXPECT_EQ(h.get_long("N"), 4);
  EXPECT_EQ(h.get_long("PLPresent"), 1);
  const std::vector<double> values(std::accumulate(pl.begin(), pl.end(), 0UL), 1.5);
  h.set_values(values.data(), values.size());
  EXPECT_EQ(h.get_long("numberOfDataPoints"), 208);
  EXPECT_EQ(h.get_long("isOctahedral"), 1);
  EXPECT_EQ(h.get_long("latitudeOfFirstGridPoint"), 70000000);
}

// The uuid is a function of the coordinates alone (its value is checked
// against hashlib in tests/python/test_grib.py).
TEST(GribGrid, UnstructuredIsTemplate101WithTheCoordinatesUuid) {
  DomainInfo d;
  d.id = "cells";
  d.type = "unstructured";
  d.ni_glo = 5, d.nj_glo = 1;
  d.lon = {0, 72, 144, 216, 288};
  d.lat = {-40, -20, 0, 20, 40};
  const auto h = grid_handle(d, "u.grib2: field 'x'");
  EXPECT_EQ(h.get_string("gridType"), "unstructured_grid");
  EXPECT_EQ(h.get_long("gridDefinitionTemplateNumber"), 101);
  EXPECT_EQ(h.get_long("numberOfGridUsed"), 0);
  EXPECT_EQ(h.get_long("numberOfGridInReference"), 1);
  const std::string uuid = h.get_string("uuidOfHGrid");
  ASSERT_EQ(uuid.size(), 32u);
  EXPECT_EQ(uuid[12], '5');  // RFC 4122 version 5 (SHA-1)
  EXPECT_EQ(grid_handle(d, "again").get_string("uuidOfHGrid"), uuid);
  d.lat[2] = 1e-9;
  EXPECT_NE(grid_handle(d, "moved").get_string("uuidOfHGrid"), uuid);
}

TEST(GribGrid, RefusesWhatItCannotDescribe) {
  auto message = [](const DomainInfo& d) {
    try {
      grid_handle(d, "out.grib2: field 'x'");
    } catch (const IoError& e) { return std::string(e.what()); }
    return std::string("no error");
  };
  const std::string uneven = message(rectilinear({0, 10, 25}, {0, 10}));
  EXPECT_NE(uneven.find("out.grib2: field 'x': domain 'dom': GRIB2 regular_ll needs evenly spaced"), std::string::npos)
      << uneven;
  DomainInfo curvilinear = rectilinear({0, 10}, {0, 10});
  curvilinear.type = "curvilinear";
  EXPECT_NE(message(curvilinear).find("of type curvilinear has no GRIB2 grid"), std::string::npos);
  const std::string odd = message(gaussian({60, 0, -60}, {8, 8, 8}));
  EXPECT_NE(odd.find("an even number of latitude rows"), std::string::npos) << odd;
}

}  // namespace
