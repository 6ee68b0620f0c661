// File names: base name, split_freq period dates, multiple_file part number
// (zero-padded to the widest part number or min_digits), the format's
// extension. Expected names are those the Python tests read
// (test_file_periods.py, test_file_options.py, test_spine.py).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "calendar/calendar.h"
#include "formats/file_naming.h"
#include "formats/registry.h"

namespace foehn::formats {
namespace {

FileName whole(std::string base, std::string period = "") {
  return FileName{std::move(base), std::move(period), -1, 1, 0};
}
FileName part(std::string base, int number, int parts, int min_digits = 0, std::string period = "") {
  return FileName{std::move(base), std::move(period), number, parts, min_digits};
}

TEST(FormatsNaming, WholeFileTakesTheFormatsExtension) {
  EXPECT_EQ(file_name(whole("/out/spine_one"), traits_of("netcdf4").extension), "/out/spine_one.nc");
  EXPECT_EQ(file_name(whole("offset"), traits_of("netcdf4_classic").extension), "offset.nc");
  EXPECT_EQ(file_name(whole("run/ifs.v2"), ".grib2"), "run/ifs.v2.grib2");
  EXPECT_EQ(file_name(whole("bare"), ""), "bare");
}

TEST(FormatsNaming, PartNumbersArePaddedToTheWidestPart) {
  // test_file_options.py: parts_0.nc, parts_1.nc (2 parts, no min_digits).
  EXPECT_EQ(file_name(part("parts", 0, 2), ".nc"), "parts_0.nc");
  EXPECT_EQ(file_name(part("parts", 1, 2), ".nc"), "parts_1.nc");
  EXPECT_EQ(file_name(part("one", 0, 1), ".nc"), "one_0.nc");
  // 11 parts: 0..10, two digits.
  EXPECT_EQ(file_name(part("multi", 3, 11), ".nc"), "multi_03.nc");
  EXPECT_EQ(file_name(part("multi", 10, 11), ".nc"), "multi_10.nc");
  // 10 parts: 0..9, one digit.
  EXPECT_EQ(file_name(part("multi", 9, 10), ".nc"), "multi_9.nc");
  EXPECT_EQ(file_name(part("multi", 7, 101), ".nc"), "multi_007.nc");
}

TEST(FormatsNaming, MinDigitsWidensButNeverNarrows) {
  // test_file_options.py: min_digits="3" with 2 parts gives parts_000.nc, parts_001.nc.
  EXPECT_EQ(file_name(part("parts", 0, 2, 3), ".nc"), "parts_000.nc");
  EXPECT_EQ(file_name(part("parts", 1, 2, 3), ".nc"), "parts_001.nc");
  EXPECT_EQ(file_name(part("p", 12, 13, 1), ".nc"), "p_12.nc");
  EXPECT_EQ(file_name(part("p", 5, 13, 4), ".nc"), "p_0005.nc");
}

TEST(FormatsNaming, SplitPeriodDatesComeBeforeThePart) {
  // test_file_periods.py: split_freq="3d" from 2000-01-01, default format.
  const calendar::Calendar cal(calendar::CalendarType::gregorian);
  const std::int64_t start = cal.to_instant(calendar::Date{2000, 1, 1, 0, 0, 0, 0});
  const calendar::Duration three_days = calendar::parse_duration("3d");
  const calendar::SplitPeriods daily(cal, start, three_days, 0, calendar::default_split_format(three_days, 0));
  EXPECT_EQ(file_name(whole("daily", daily.name_part(0)), ".nc"), "daily_20000101-20000103.nc");
  EXPECT_EQ(file_name(whole("daily", daily.name_part(3)), ".nc"), "daily_20000110-20000112.nc");
  // split_freq_format="%y-%mo-%d", 1d periods: half_2000-01-02-2000-01-02.nc.
  const calendar::SplitPeriods half(cal, start, calendar::parse_duration("1d"), 0, "%y-%mo-%d");
  EXPECT_EQ(file_name(whole("half", half.name_part(1)), ".nc"), "half_2000-01-02-2000-01-02.nc");
  // multiple_file and split_freq together: the part number last.
  EXPECT_EQ(file_name(part("daily", 1, 2, 0, daily.name_part(0)), ".nc"), "daily_20000101-20000103_1.nc");
}

// The parts of any count on disk (a run continuing them with another
// count finds them so): only <base>[_<period>]_<digits><ext><suffix>.
TEST(FormatsNaming, PartFilesFindsThePartsOfAnyCount) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("foehn_part_files_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (const char* n : {"s_0.nc", "s_1.nc", "s_10.nc", "s_01.grib2", "s_2.nc.old", "s_x.nc", "s_.nc", "s.nc",
                        "s_1_0.nc", "t_0.nc", "s_20000101-20000103_3.nc"})
    std::ofstream(dir / n) << "x";
  const auto names = [](const std::vector<fs::path>& paths) {
    std::vector<std::string> out;
    for (const fs::path& p : paths) out.push_back(p.filename().string());
    return out;
  };
  const std::string base = (dir / "s").string();
  EXPECT_EQ(names(part_files(whole(base), ".nc")), (std::vector<std::string>{"s_0.nc", "s_1.nc", "s_10.nc"}));
  EXPECT_EQ(names(part_files(whole(base), ".nc", ".old")), (std::vector<std::string>{"s_2.nc.old"}));
  EXPECT_EQ(names(part_files(part(base, 1, 2), ".grib2")), (std::vector<std::string>{"s_01.grib2"}));
  EXPECT_EQ(names(part_files(whole(base, "20000101-20000103"), ".nc")),
            (std::vector<std::string>{"s_20000101-20000103_3.nc"}));
  EXPECT_TRUE(part_files(whole((dir / "none" / "s").string()), ".nc").empty());  // no directory
  fs::remove_all(dir);
}

}  // namespace
}  // namespace foehn::formats
