"""Axes and scalars end to end (tests/mpi/axes_model.cpp, tests/mpi/data/axes.xml):
an axis decomposed unevenly by range (values and bounds from the model), one
decomposed by index (values from the XML), a whole axis with XML bounds
beside an unstructured domain, a scalar coordinate, a field of a scalar
alone, and a points x levels decomposition (ranks sharing columns split the
levels). The file must hold exactly the values computed here from the global
indices, CF axis metadata and bounds, the scalar as a 0-d coordinate, and
pass the CF checker."""
import subprocess

import netCDF4
import numpy as np
import pytest

from conftest import BUILD, ROOT

XML = ROOT / "tests/mpi/data/axes.xml"
STEPS = 4
CELLS, DEPTH, BAND, BIN, PLEV, COLS, LEV = 60, 10, 4, 7, 3, 24, 5


def run(mpmd, tmp_path, clients, servers):
    result = mpmd(tmp_path, clients, servers, [BUILD / "tests/mpi/axes_model", XML, "ok", STEPS])
    assert result.returncode == 0, result.stdout + result.stderr
    assert "axes_model ok: OK" in result.stdout
    return tmp_path / "axes_one.nc"


def expected(step):
    d, b = np.meshgrid(np.arange(DEPTH), np.arange(BAND), indexing="ij")
    g = np.arange(CELLS)
    k = np.arange(PLEV)[:, None]
    return {
        "prof": 1000.0 * step + 10.0 * d + b,                                   # (depth, band)
        "hist": (1000.0 * step + np.arange(BIN)).astype(np.float32),
        "t2m": 1000.0 * step + 0.5 * g,
        "tp": (1000.0 * step + 10.0 * k + 0.25 * g).astype(np.float32),        # (plev, cell)
        "gmean": 1000.0 * step + 0.5,                                           # model rank 0's value
        # points x levels decomposition: ranks sharing columns split the levels
        "tc": (1000.0 * step + 10.0 * np.arange(LEV)[:, None] + 0.25 * np.arange(COLS)).astype(np.float32),
    }


@pytest.mark.parametrize("clients,servers", [(3, 2), (3, 0)])
def test_axes_and_scalars_exact(tmp_path, mpmd, clients, servers):
    with netCDF4.Dataset(run(mpmd, tmp_path, clients, servers)) as ds:
        for r, step in enumerate([2, 4]):
            now, before = expected(step), expected(step - 1)
            for name in ("prof", "hist", "t2m", "tp", "gmean", "tc"):
                np.testing.assert_array_equal(ds[name][r], now[name], err_msg=name)
            np.testing.assert_array_equal(ds["prof_mean"][r], 0.5 * (now["prof"] + before["prof"]))
            np.testing.assert_array_equal(ds["gmean_mean"][r], 0.5 * (now["gmean"] + before["gmean"]))
        assert ds["prof"].dimensions == ("time_counter", "depth", "band")
        assert ds["gmean"].dimensions == ("time_counter",)
        # Two domains in the file: each takes its id as a suffix, as in XIOS.
        assert ds["tp"].dimensions == ("time_counter", "plev", "cell_dom")
        assert ds["tc"].dimensions == ("time_counter", "lev", "cell_col")
        np.testing.assert_array_equal(ds["lev"][:], np.arange(1.0, LEV + 1))
        # Axis values, bounds and metadata, whichever rank or the XML gave them.
        np.testing.assert_array_equal(ds["depth"][:], 10.0 * np.arange(DEPTH) + 5.0)
        np.testing.assert_array_equal(ds["depth_bounds"][:], np.stack([10.0 * np.arange(DEPTH), 10.0 * np.arange(DEPTH) + 10.0], 1))
        assert (ds["depth"].units, ds["depth"].positive, ds["depth"].axis, ds["depth"].bounds) == ("m", "down", "Z", "depth_bounds")
        np.testing.assert_array_equal(ds["bin"][:], 200.0 + 10.0 * np.arange(BIN))
        assert ds["bin"].axis == "X" and "bounds" not in ds["bin"].ncattrs()
        np.testing.assert_array_equal(ds["band_bounds"][:], np.stack([np.arange(BAND) + 0.5, np.arange(BAND) + 1.5], 1))
        np.testing.assert_array_equal(ds["plev_bounds"][:], [[100000, 70000], [70000, 37500], [37500, 10000]])
        # The scalar: a 0-d coordinate with the model's value, named by `coordinates`.
        height = ds["height"]
        assert height.dimensions == () and height[...] == 2.0
        assert (height.units, height.positive, height.standard_name) == ("m", "up", "height")
        assert ds["t2m"].coordinates.split() == ["time_instant", "lat_dom", "lon_dom", "height"]
        assert "coordinates" not in ds["gmean"].ncattrs() or "globe" not in ds["gmean"].coordinates


def test_axes_cf(tmp_path, mpmd):
    path = run(mpmd, tmp_path, 2, 1)
    check = subprocess.run(["bash", ROOT / "scripts/cfcheck.sh", path], capture_output=True, text=True)
    assert "ERRORS detected: 0" in check.stdout, check.stdout + check.stderr
