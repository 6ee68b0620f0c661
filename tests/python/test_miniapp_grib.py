"""The critical-path baseline (bench/critical_path.py): the proxy model
writes GRIB2 sequentially (ecCodes, octahedral reduced Gaussian grid,
simple packing), CDO converts it to NetCDF, and the converted values equal
the file foehn writes directly, to the packing's precision: with B bits a
message of values spanning [min, max] keeps them to within one step of
(max - min) / (2^B - 1) (GRIB's binary scale is the smallest power of two
that fits the range; rounding loses at most half of it)."""
import shutil
import subprocess

import netCDF4
import numpy as np
import pytest

from conftest import BUILD, ROOT

MINIAPP = BUILD / "apps/miniapp/miniapp"
TINY = ["--grid", 16, "--levels", 4, "--nproma", 7, "--steps", 36, "--work", 2, "--iodef", ROOT / "apps/miniapp/iodef.xml"]
FIELDS = ["u", "v", "t", "d", "vo", "q", "cc", "o3", "crwc", "cswc", "clwc", "ciwc", "sp"]
BITS = 12

pytestmark = pytest.mark.skipif(shutil.which("cdo") is None, reason="cdo is not installed (scripts/bootstrap.sh)")


def test_grib_converted_by_cdo_equals_foehn_to_packing_precision(tmp_path, mpmd):
    (tmp_path / "grib").mkdir()
    (tmp_path / "foehn").mkdir()
    run = mpmd(tmp_path / "grib", 2, 0, [MINIAPP, *TINY, "--output", "grib", "--grib-bits", BITS])
    assert run.returncode == 0, run.stdout + run.stderr
    assert "output grib" in run.stdout
    run = mpmd(tmp_path / "foehn", 2, 1, [MINIAPP, *TINY, "--output", "foehn"])
    assert run.returncode == 0, run.stdout + run.stderr
    convert = subprocess.run(["cdo", "-s", "-f", "nc4", "copy", "miniapp_3h.grib2", "converted.nc"],
                             cwd=tmp_path / "grib", capture_output=True, text=True)
    assert convert.returncode == 0, convert.stderr
    with netCDF4.Dataset(tmp_path / "grib/converted.nc") as g, netCDF4.Dataset(tmp_path / "foehn/miniapp_3h.nc") as f:
        # The same instants: 3 and 6 hours after the start.
        times = netCDF4.num2date(g["time"][:], g["time"].units, g["time"].calendar)
        assert [(t.day, t.hour) for t in times] == [(1, 3), (1, 6)]
        assert f["time_counter"][:].tolist() == [10800.0, 21600.0]
        for name in FIELDS:
            exact = np.asarray(f[name][:], dtype=np.float64)
            packed = np.asarray(g[name][:], dtype=np.float64).reshape(exact.shape)
            # One GRIB message per time and level: its own range, its own step.
            levels = exact.reshape(exact.shape[0], -1, exact.shape[-1])
            span = levels.max(axis=-1, keepdims=True) - levels.min(axis=-1, keepdims=True)
            # Beyond the packing: the reference value is a float32, and CDO
            # writes float32; both round at 2^-24 of the magnitude.
            tolerance = span / (2 ** BITS - 1) + 2.0 ** -23 * np.abs(levels).max(axis=-1, keepdims=True)
            error = np.abs(packed.reshape(levels.shape) - levels)
            assert np.all(error <= tolerance), f"{name}: max error {error.max()} beyond {tolerance.min()}"
            assert np.all(span > 0), name  # a constant field would make the check empty
            # and the packing is not lossless: the comparison has something to check
            if name == "t":
                assert error.max() > 0
