# Finds MPI, the MPI build of netCDF-C and pugixml.
# Debian's netcdf-mpi pkg-config file advertises -I/usr/include, which has no
# (or the serial) netcdf.h, so the MPI include directory is located by its
# netcdf_par.h and put first on the include path.
find_package(MPI REQUIRED COMPONENTS C CXX)
find_package(pugixml CONFIG REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(NCMPI REQUIRED IMPORTED_TARGET netcdf-mpi)
find_path(NETCDF_PAR_INCLUDE_DIR netcdf_par.h
  HINTS /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/netcdf/mpi/include
  NO_DEFAULT_PATH REQUIRED)
file(STRINGS "${NETCDF_PAR_INCLUDE_DIR}/netcdf_meta.h" _nc_par4 REGEX "define NC_HAS_PARALLEL4 +1")
if(NOT _nc_par4)
  message(FATAL_ERROR "netCDF at ${NETCDF_PAR_INCLUDE_DIR} lacks parallel NetCDF-4 (NC_HAS_PARALLEL4)")
endif()
add_library(foehn_netcdf INTERFACE)
target_include_directories(foehn_netcdf BEFORE INTERFACE ${NETCDF_PAR_INCLUDE_DIR})
target_link_libraries(foehn_netcdf INTERFACE PkgConfig::NCMPI MPI::MPI_C)
