# What `cmake --install` puts into a prefix, for models to link foehn as a
# library (docs/getting-started.md, "Linking a model against an installed foehn"):
#   lib/libfoehn.so          the C and C++ library: the module libraries inside, one file
#   lib/libfoehn_fortran.so  the Fortran modules' library, over libfoehn
#   include/foehn/foehn.h    the C API; include/foehn/fortran/*.mod the Fortran modules
#   bin/foehn-server, bin/foehn
#   lib/cmake/foehn/         find_package(foehn CONFIG): foehn::foehn, foehn::fortran
#   lib/pkgconfig/           foehn.pc, foehn-fortran.pc
# Both ways carry MPI (the header includes mpi.h); netCDF, HDF5 and pugixml
# are the library's own (linked into it, not exposed), so a model cannot
# pick up the serial netCDF by mistake. Everything is relative to the
# prefix: it can move.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# The build tree's own targets stay static module libraries (tests link a
# module alone); the installed library is one shared object holding them.
# (CMake wants a source of its own for a shared library: an empty one.)
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/foehn_shared.cpp "// libfoehn: the module libraries, whole (cmake/Install.cmake)\n")
add_library(foehn_shared SHARED ${CMAKE_CURRENT_BINARY_DIR}/foehn_shared.cpp)
set_target_properties(foehn_shared PROPERTIES OUTPUT_NAME foehn VERSION ${PROJECT_VERSION}
                      SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR} EXPORT_NAME foehn
                      INSTALL_RPATH "$ORIGIN")
target_link_libraries(foehn_shared PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,foehn_client>")
target_link_libraries(foehn_shared PUBLIC MPI::MPI_C)
target_include_directories(foehn_shared INTERFACE $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
install(TARGETS foehn_shared EXPORT foehnTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES ${PROJECT_SOURCE_DIR}/include/foehn/foehn.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/foehn)
install(TARGETS foehn-server foehn_tool RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
set_target_properties(foehn-server foehn_tool PROPERTIES INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR}")

# libfoehn_fortran and the modules: bindings/fortran/CMakeLists.txt (Fortran's scope).

install(EXPORT foehnTargets NAMESPACE foehn:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/foehn)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/foehnConfig.cmake.in
                              ${CMAKE_CURRENT_BINARY_DIR}/foehnConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/foehn)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/foehnConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/foehnConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/foehnConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/foehn)

# pkg-config: paths from the .pc file's own place (${pcfiledir}), so the
# prefix can move. MPI comes from the MPI compiler wrappers (mpicc, mpif90)
# the model builds with, or from the ompi-c / ompi-fort pkg-config modules.
string(REGEX REPLACE "[^/]+" ".." foehn_pc_to_prefix "${CMAKE_INSTALL_LIBDIR}/pkgconfig")  # lib/pkgconfig: ../..
foreach(pc foehn foehn-fortran)
  if(pc STREQUAL "foehn-fortran" AND NOT FOEHN_FORTRAN)
    continue()
  endif()
  configure_file(${PROJECT_SOURCE_DIR}/cmake/${pc}.pc.in ${CMAKE_CURRENT_BINARY_DIR}/${pc}.pc @ONLY)
  install(FILES ${CMAKE_CURRENT_BINARY_DIR}/${pc}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()

# The user's documentation and the minimal models, beside the library.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE ${PROJECT_SOURCE_DIR}/CHANGELOG.md DESTINATION ${CMAKE_INSTALL_DOCDIR})

# A Debian package of the same tree (cpack -G DEB in the build directory),
# installed under /usr. Its dependencies are the Debian packages of the
# shared libraries it links (dpkg-shlibdeps finds them: the MPI netCDF,
# pugixml, Open MPI, the Fortran runtime), and what a model needs to build
# against it (the MPI compiler wrappers and headers, pkg-config).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME foehn)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "foehn developers <foehn@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "asynchronous MPI I/O server for weather and climate models")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libopenmpi-dev, pkg-config")
set(CPACK_DEBIAN_PACKAGE_SECTION science)
include(CPack)
