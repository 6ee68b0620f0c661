// Every netCDF call goes through NcDataset::call: a failure names the file,
// the variable (or the file itself), the call and netCDF's own message.
// Serial netCDF needs no MPI_Init.
#include <gtest/gtest.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "formats/netcdf/nc_dataset.h"
#include "formats/writer.h"

namespace foehn::formats::netcdf {
namespace {

std::string error_of(const auto& f) {
  try {
    f();
  } catch (const IoError& e) { return e.what(); }
  return "no error";
}

class NcDatasetErrors : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("foehn_nc_errors_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

TEST_F(NcDatasetErrors, CreateInAMissingDirectoryNamesPathAndCall) {
  const std::string path = (dir_ / "missing" / "out.nc").string();
  const std::string e = error_of([&] { NcDataset::create(path, NC_NETCDF4, MPI_COMM_SELF, false); });
  EXPECT_EQ(e.rfind(path + ": file: nc_create: ", 0), 0u) << e;
  EXPECT_GT(e.size(), (path + ": file: nc_create: ").size()) << "netCDF's message is missing: " << e;
}

TEST_F(NcDatasetErrors, AttributeOnAnUnknownVariable) {
  const std::string path = (dir_ / "att.nc").string();
  NcDataset ds = NcDataset::create(path, NC_NETCDF4, MPI_COMM_SELF, false);
  EXPECT_EQ(error_of([&] { ds.put_text(42, "units", "K"); }),
            path + ": variable id 42: nc_put_att_text units: " + nc_strerror(NC_ENOTVAR));
  ds.close();
}

TEST_F(NcDatasetErrors, BadDeflateLevelNamesTheVariable) {
  const std::string path = (dir_ / "deflate.nc").string();
  NcDataset ds = NcDataset::create(path, NC_NETCDF4, MPI_COMM_SELF, false);
  const int t = ds.def_dim("time_counter", NC_UNLIMITED);
  const int ts = ds.def_var("ts", NC_FLOAT, {t});
  EXPECT_EQ(error_of([&] { ds.def_deflate(ts, 12); }),
            path + ": variable 'ts': nc_def_var_deflate: " + nc_strerror(NC_EINVAL));
  EXPECT_EQ(error_of([&] { ds.def_var("ts", NC_FLOAT, {t}); }),
            path + ": variable 'ts': nc_def_var: " + nc_strerror(NC_ENAMEINUSE));
  ds.close();
  EXPECT_FALSE(ds.is_open());
}

TEST_F(NcDatasetErrors, LookupsTellAbsentFromFailed) {
  const std::string path = (dir_ / "lookup.nc").string();
  NcDataset ds = NcDataset::create(path, NC_NETCDF4, MPI_COMM_SELF, false);
  EXPECT_FALSE(ds.find_var("nothing").has_value());
  EXPECT_FALSE(ds.find_dim("nothing").has_value());
  EXPECT_EQ(error_of([&] { ds.var_id("nothing"); }),
            path + ": variable 'nothing': nc_inq_varid: " + nc_strerror(NC_ENOTVAR));
  const int x = ds.def_dim("x", 3);
  EXPECT_EQ(ds.find_dim("x"), x);
  EXPECT_EQ(ds.get_text(NC_GLOBAL, "title"), "");
  ds.put_text(NC_GLOBAL, "title", "t");
  EXPECT_EQ(ds.get_text(NC_GLOBAL, "title"), "t");
  EXPECT_TRUE(ds.get_ints(NC_GLOBAL, "DOMAIN_number_total").empty());
  ds.put_ints(NC_GLOBAL, "DOMAIN_dom_position_first", {3, 7});
  ds.put_ints(NC_GLOBAL, "DOMAIN_number_total", {2});
  EXPECT_EQ(ds.get_ints(NC_GLOBAL, "DOMAIN_dom_position_first"), (std::vector<int>{3, 7}));
  EXPECT_EQ(ds.get_ints(NC_GLOBAL, "DOMAIN_number_total"), (std::vector<int>{2}));
  EXPECT_EQ(error_of([&] { ds.get_ints(99, "x"); }), path + ": variable id 99: nc_inq_attlen x: " + nc_strerror(NC_ENOTVAR));
  ds.close();
}

// Issue 18 item 16: netCDF reports any failure of HDF5's create as EACCES
// ("Permission denied"); the reason is found from the directory.
TEST_F(NcDatasetErrors, CreateInAMissingDirectorySaysSo) {
  const std::string path = (dir_ / "missing" / "out.nc").string();
  const std::string e = error_of([&] { NcDataset::create(path, NC_NETCDF4, MPI_COMM_SELF, false); });
  EXPECT_EQ(e, path + ": file: nc_create: directory " + (dir_ / "missing").string() + ": No such file or directory");
}

TEST_F(NcDatasetErrors, CreateUnderAFileSaysItIsNotADirectory) {
  const auto file = dir_ / "plain";
  { std::ofstream(file) << "x"; }
  const std::string path = (file / "out.nc").string();
  const std::string e = error_of([&] { NcDataset::create(path, NC_NETCDF4, MPI_COMM_SELF, false); });
  EXPECT_EQ(e, path + ": file: nc_create: " + file.string() + " is not a directory");
}

// errno's reason is named only for the calls that write, which reset it:
// an errno left by an earlier failure (a full disk) is not blamed later.
TEST_F(NcDatasetErrors, AStaleErrnoIsNotBlamed) {
  const std::string path = (dir_ / "stale.nc").string();
  NcDataset ds = NcDataset::create(path, NC_NETCDF4, MPI_COMM_SELF, false);
  const int t = ds.def_dim("time_counter", NC_UNLIMITED);
  const int ts = ds.def_var("ts", NC_FLOAT, {t});
  errno = ENOSPC;
  EXPECT_EQ(error_of([&] { ds.def_deflate(ts, 12); }),
            path + ": variable 'ts': nc_def_var_deflate: " + nc_strerror(NC_EINVAL));
  ds.end_definition();
  const std::size_t start = 0, count = 1;
  const float value = 1;
  ds.put(ts, &start, &count, &value);
  errno = ENOSPC;
  EXPECT_EQ(error_of([&] { ds.put_text(42, "units", "K"); }),
            path + ": variable id 42: nc_put_att_text units: " + nc_strerror(NC_ENOTVAR));
  ds.close();
}

}  // namespace
}  // namespace foehn::formats::netcdf
