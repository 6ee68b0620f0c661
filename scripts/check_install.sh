#!/usr/bin/env bash
# Installs foehn from a build tree into a fresh prefix, moves the prefix (it
# must be relocatable), and builds and runs the minimal models of
# docs/examples against the installed tree only, by each route of
# docs/getting-started.md: CMake find_package, pkg-config with mpicc, and
# pkg-config with mpif90 (module foehn and module xios).
# usage: scripts/check_install.sh BUILD_DIR
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:?usage: check_install.sh BUILD_DIR}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/first" >"$work/install.log"
mv "$work/first" "$work/prefix"  # a moved prefix must still work
prefix=$work/prefix
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
examples=$here/docs/examples

run() {  # run DIR PROGRAM: the model alone (attached), then beside a server; both write minimal.nc
  local dir=$1 program=$2
  (cd "$dir" && cp "$examples/iodef.xml" . &&
    mpiexec -n 2 --oversubscribe "./$program" >run.log 2>&1 &&
    mpiexec -n 2 --oversubscribe "./$program" : -n 1 "$prefix/bin/foehn-server" >>run.log 2>&1 &&
    test -s minimal.nc) || { echo "check_install: $program failed:"; cat "$dir/run.log"; exit 1; }
  echo "check_install: $program ran, attached and beside $prefix/bin/foehn-server"
}

# 1. CMake: find_package(foehn CONFIG) and the imported targets.
mkdir -p "$work/cmake_c"
cat >"$work/cmake_c/CMakeLists.txt" <<CMAKE
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
cmake -S "$work/cmake_c" -B "$work/cmake_c/build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" >"$work/cmake.log" 2>&1 \
  || { cat "$work/cmake.log"; exit 1; }
cmake --build "$work/cmake_c/build" >"$work/cmake_build.log" 2>&1 || { cat "$work/cmake_build.log"; exit 1; }
run "$work/cmake_c/build" minimal_model_c
[ -x "$work/cmake_c/build/minimal_model_xios" ] && run "$work/cmake_c/build" minimal_model_xios

# 2. pkg-config with the MPI compiler wrappers, as a plain Makefile would.
mkdir -p "$work/pkg"
# shellcheck disable=SC2046
mpicc -o "$work/pkg/minimal_model_c" "$examples/minimal_model.c" $(pkg-config --cflags --libs foehn)
run "$work/pkg" minimal_model_c
if pkg-config --exists foehn-fortran; then
  # shellcheck disable=SC2046
  mpif90 -o "$work/pkg/minimal_model_f" "$examples/minimal_model.f90" $(pkg-config --cflags --libs foehn-fortran)
  run "$work/pkg" minimal_model_f
fi
echo "check_install: OK (prefix $(du -sh "$prefix" | cut -f1), $(pkg-config --libs foehn))"
