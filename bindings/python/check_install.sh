#!/usr/bin/env bash
# Checks that the repository is pip-installable: pip builds the package with
# scikit-build-core (the venv's, so nothing is downloaded), installs it into
# a scratch directory, and the minimal Python model runs from there beside
# the installed foehn-server; its values must be exact.
# usage: bindings/python/check_install.sh [WORKDIR]   (default: build-pip)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
work=${1:-$here/build-pip}
py=$here/.venv/bin/python
source "$here/scripts/env.sh"
rm -rf "$work/site" "$work/run" && mkdir -p "$work/run"
"$py" -m pip install -q --disable-pip-version-check --no-build-isolation --no-deps \
  --config-settings=build-dir="$work/cmake" --target "$work/site" "$here"
cp "$here/docs/examples/iodef.xml" "$work/run/"
cd "$work/run"
PYTHONPATH="$work/site" timeout --signal=KILL 120 mpiexec --oversubscribe -n 2 \
  "$py" "$here/bindings/python/examples/minimal_model.py" : -n 1 "$work/site/bin/foehn-server" >run.log 2>&1 \
  || { cat run.log; exit 1; }
PYTHONPATH="$work/site" "$py" - "$work/site" <<'PY'
import importlib.util
import sys
import netCDF4
import numpy as np
where = importlib.util.find_spec("foehn").origin  # without importing it (that would start MPI)
assert where.startswith(sys.argv[1]), where  # the installed copy, not a build tree
with netCDF4.Dataset("minimal.nc") as ds:
    j, i = np.mgrid[0:4, 0:8]
    for r in range(4):
        np.testing.assert_array_equal(ds["tas"][r], 274.0 + r + i + 10 * j)
print("pip install: OK (the installed package and foehn-server wrote exact values)")
PY
