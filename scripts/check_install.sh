#!/usr/bin/env bash
# Installs foehn from a build tree and builds and runs the minimal models of
# docs/examples against the installed files only, by each route of
# docs/getting-started.md: CMake find_package, pkg-config with mpicc and
# mpif90, and docs/examples/Makefile (pkg-config; modules foehn and xios), and
# XIOS's per-kind modules (icontext, idomain, ...). Twice:
#   1. cmake --install into a fresh prefix, moved afterwards (it must be relocatable);
#   2. the Debian package (cpack -G DEB): installed with apt-get where this
#      runs as root with apt (CI), and removed afterwards; elsewhere unpacked
#      into a directory and used from there.
# The build tree is moved aside meanwhile, so nothing can come from it.
# usage: scripts/check_install.sh BUILD_DIR
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(cd "${1:?usage: check_install.sh BUILD_DIR}" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
examples=$here/docs/examples

run() {  # run DIR PROGRAM SERVER: the model alone (attached), then beside a server; both write minimal.nc
  local dir=$1 program=$2 server=$3
  (cd "$dir" && cp "$examples/iodef.xml" . &&
    mpiexec -n 2 --oversubscribe "./$program" >run.log 2>&1 &&
    mpiexec -n 2 --oversubscribe "./$program" : -n 1 "$server" >>run.log 2>&1 &&
    test -s minimal.nc) || { echo "check_install: $program failed:"; cat "$dir/run.log"; exit 1; }
  echo "check_install: $program ran, attached and beside $server"
}

# build_and_run NAME PREFIX (empty: the system's default paths)
build_and_run() {
  local name=$1 prefix=$2 dir=$work/$1 server
  server=${prefix:+$prefix/bin/}foehn-server
  if [ -n "$prefix" ]; then export PKG_CONFIG_PATH=$prefix/lib/pkgconfig; else unset PKG_CONFIG_PATH; fi
  mkdir -p "$dir/cmake" "$dir/pkg"
  cat >"$dir/cmake/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.22)
project(minimal_models C Fortran)
find_package(foehn CONFIG REQUIRED)
add_executable(minimal_model_c $examples/minimal_model.c)
target_link_libraries(minimal_model_c PRIVATE foehn::foehn)
if(TARGET foehn::fortran)
  add_executable(minimal_model_xios $examples/minimal_model_xios.f90)
  target_link_libraries(minimal_model_xios PRIVATE foehn::fortran)
endif()
CMAKE
  cmake -S "$dir/cmake" -B "$dir/cmake/build" -G Ninja ${prefix:+-DCMAKE_PREFIX_PATH="$prefix"} \
    >"$dir/cmake.log" 2>&1 || { cat "$dir/cmake.log"; exit 1; }
  cmake --build "$dir/cmake/build" >"$dir/cmake_build.log" 2>&1 || { cat "$dir/cmake_build.log"; exit 1; }
  run "$dir/cmake/build" minimal_model_c "$server"
  [ -x "$dir/cmake/build/minimal_model_xios" ] && run "$dir/cmake/build" minimal_model_xios "$server"
  # shellcheck disable=SC2046
  mpicc -o "$dir/pkg/minimal_model_c" "$examples/minimal_model.c" $(pkg-config --cflags --libs foehn)
  run "$dir/pkg" minimal_model_c "$server"
  if pkg-config --exists foehn-fortran; then
    # shellcheck disable=SC2046
    mpif90 -o "$dir/pkg/minimal_model_f" "$examples/minimal_model.f90" $(pkg-config --cflags --libs foehn-fortran)
    run "$dir/pkg" minimal_model_f "$server"
    mkdir -p "$dir/make"
    make -C "$dir/make" -f "$examples/Makefile" >"$dir/make.log" 2>&1 || { cat "$dir/make.log"; exit 1; }
    for program in minimal_model_c minimal_model_f minimal_model_xios; do run "$dir/make" "$program" "$server"; done
    # XIOS's per-kind modules are installed beside xios.mod (issue 21): a model that uses them compiles.
    printf '%s\n' 'program xios_modules' '  use icontext' '  use idomain' '  use idomain_attr' '  use iaxis' \
      '  use iaxis_attr' '  use iscalar' '  use ifield' '  use ifield_attr' '  use ifile' '  use ifile_attr' \
      '  use igrid' '  use idate' '  use iduration' '  use ixml_tree' '  use icalendar' '  use ivariable' \
      '  implicit none' '  type(xios_fieldgroup) :: group' '  if (allocated(group%id)) stop 1' \
      'end program xios_modules' >"$dir/pkg/xios_modules.f90"
    # shellcheck disable=SC2046
    mpif90 -o "$dir/pkg/xios_modules" "$dir/pkg/xios_modules.f90" $(pkg-config --cflags --libs foehn-fortran) ||
      { echo "check_install: XIOS's per-kind modules (icontext, idomain, ...) are not installed"; exit 1; }
    echo "check_install: XIOS's per-kind modules compile"
  fi
  echo "check_install: $name: OK ($(pkg-config --libs foehn))"
}

cmake --install "$build" --prefix "$work/first" >"$work/install.log"
(cd "$build" && cpack -G DEB >"$work/cpack.log" 2>&1) || { cat "$work/cpack.log"; exit 1; }
cp "$build"/foehn_*.deb "$work/"
deb=$(ls "$work"/foehn_*.deb)
# The build tree is out of the way while the installed files are used: put
# back on exit, whatever happens.
hidden=$build.hidden-by-check_install
mv "$build" "$hidden"
cleanup() {
  [ -d "$hidden" ] && mv "$hidden" "$build"
  if [ -n "${apt_installed:-}" ]; then apt-get purge -y -qq foehn >/dev/null 2>&1 || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# 1. A prefix, moved.
mv "$work/first" "$work/prefix"
build_and_run prefix "$work/prefix"

# 2. The Debian package.
echo "check_install: $(basename "$deb"): $(du -h "$deb" | cut -f1), Depends: $(dpkg-deb -f "$deb" Depends)"
installed() { dpkg -s foehn 2>/dev/null | grep -q "^Status: install ok installed"; }
if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null && ! installed; then
  apt_installed=1
  apt-get install -y -qq "$deb" >"$work/apt.log" 2>&1 || { cat "$work/apt.log"; exit 1; }
  build_and_run deb-installed ""
else
  dpkg-deb -x "$deb" "$work/unpacked"
  build_and_run deb-unpacked "$work/unpacked/usr"
fi
