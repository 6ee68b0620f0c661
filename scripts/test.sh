#!/usr/bin/env bash
# Runs every test on a fresh machine: installs what is missing, builds,
# runs the unit and MPI tests (ctest) and the Python tests (pytest), installs
# into a scratch prefix and builds the minimal models against it, then
# rebuilds with AddressSanitizer + UndefinedBehaviorSanitizer and runs the
# unit and MPI tests again.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"
bash scripts/bootstrap.sh
source scripts/env.sh
# Each stage says when it starts (seconds since the start), so a slow stage shows.
stage() { echo "== $* (at ${SECONDS} s)"; }
# Line tables only (-g1): backtraces and sanitizer reports still name
# file:line, and the builds take about a third less time than with full
# debug information (-g), which only a debugger needs.
line_tables=(-DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG"
  -DCMAKE_Fortran_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG")

stage build
bash scripts/build.sh "$here/build" "${line_tables[@]}"
stage unit and MPI tests
ctest --test-dir build --output-on-failure -j 2
stage Python tests
FOEHN_BUILD_DIR="$here/build" .venv/bin/python -m pytest -q tests/python
stage "installed library: cmake --install, then the minimal models built against the prefix only"
bash scripts/check_install.sh "$here/build"
stage "sanitizers (address, undefined): unit and MPI tests"
bash scripts/build.sh "$here/build-asan" -DFOEHN_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_FLAGS_DEBUG=-g1 -DCMAKE_C_FLAGS_DEBUG=-g1 -DCMAKE_Fortran_FLAGS_DEBUG=-g1
# Open MPI and HDF5 keep allocations until exit; leak checking is left to
# the unit tests, which do not start MPI.
ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j 2 -L mpi
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --test-dir build-asan --output-on-failure -j 2 -L unit
stage "fuzzing (libFuzzer, ASan + UBSan): XML reader, durations, dates"
bash scripts/fuzz.sh
stage "Python package: pip install from the repository (scikit-build-core), run from the install"
bash bindings/python/check_install.sh "$here/build-pip"
stage "all passed"
