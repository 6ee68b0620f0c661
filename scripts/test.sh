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

echo "== build"
bash scripts/build.sh "$here/build"
echo "== unit and MPI tests"
ctest --test-dir build --output-on-failure -j 2
echo "== Python tests"
FOEHN_BUILD_DIR="$here/build" .venv/bin/python -m pytest -q tests/python
echo "== installed library: cmake --install, then the minimal models built against the prefix only"
bash scripts/check_install.sh "$here/build"
echo "== sanitizers (address, undefined): unit and MPI tests"
bash scripts/build.sh "$here/build-asan" -DFOEHN_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
# Open MPI and HDF5 keep allocations until exit; leak checking is left to
# the unit tests, which do not start MPI.
ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j 2 -L mpi
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --test-dir build-asan --output-on-failure -j 2 -L unit
echo "== fuzzing (libFuzzer, ASan + UBSan): XML reader, durations, dates"
bash scripts/fuzz.sh
echo "== Python package: pip install from the repository (scikit-build-core), run from the install"
bash bindings/python/check_install.sh "$here/build-pip"
