// The list of output formats: its entries, their traits, and the error for
// a format that is not in it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "formats/registry.h"

namespace foehn::formats {
namespace {

TEST(FormatsRegistry, ListsTheFormatsInOrder) {
  std::vector<std::string> names;
  for (const FormatEntry& e : known_formats()) names.emplace_back(e.name);
  EXPECT_EQ(names, (std::vector<std::string>{"netcdf4", "netcdf4_classic", "grib2", "zarr"}));
  for (const FormatEntry& e : known_formats()) EXPECT_NE(e.open, nullptr) << e.name;
}

TEST(FormatsRegistry, NetcdfTraits) {
  for (const char* name : {"netcdf4", "netcdf4_classic"}) {
    SCOPED_TRACE(name);
    const WriterTraits& t = traits_of(name);
    EXPECT_TRUE(t.collective);
    EXPECT_TRUE(t.growable_time);
    EXPECT_TRUE(t.compression);
    EXPECT_TRUE(t.quantization);
    EXPECT_EQ(t.extension, ".nc");
  }
  EXPECT_EQ(&format_entry("netcdf4").traits, &traits_of("netcdf4"));
  EXPECT_NE(format_entry("netcdf4").open, format_entry("netcdf4_classic").open);
}

// GRIB2: every writer of a file takes part; packing is per field (its
// GRIB keys), so neither compression nor quantization attributes.
TEST(FormatsRegistry, Grib2Traits) {
  const WriterTraits& t = traits_of("grib2");
  EXPECT_TRUE(t.collective);
  EXPECT_TRUE(t.growable_time);
  EXPECT_FALSE(t.compression);
  EXPECT_FALSE(t.quantization);
  EXPECT_EQ(t.extension, ".grib2");
}

// Zarr: every writer of a store writes its own chunks; zlib compression after
// quantization (formats/quantize.h).
TEST(FormatsRegistry, ZarrTraits) {
  const WriterTraits& t = traits_of("zarr");
  EXPECT_TRUE(t.collective);
  EXPECT_TRUE(t.growable_time);
  EXPECT_TRUE(t.compression);
  EXPECT_TRUE(t.quantization);
  EXPECT_EQ(t.extension, ".zarr");
}

TEST(FormatsRegistry, UnknownFormatNamesTheKnownOnes) {
  for (const char* name : {"grib3", "", "NETCDF4", "netcdf4 "}) {
    SCOPED_TRACE(name);
    try {
      format_entry(name);
      ADD_FAILURE() << "no error";
    } catch (const IoError& e) {
      EXPECT_EQ(std::string(e.what()),
                "unknown output format '" + std::string(name) + "' (known: netcdf4, netcdf4_classic, grib2, zarr)");
    }
  }
  EXPECT_THROW(traits_of("zarr3"), IoError);
}

}  // namespace
}  // namespace foehn::formats
