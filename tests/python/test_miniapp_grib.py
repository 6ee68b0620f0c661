"""The critical-path baseline (bench/critical_path.py): the proxy model
writes GRIB2 sequentially (ecCodes, octahedral reduced Gaussian grid,
simple packing), CDO converts it to NetCDF, and the converted values equal
the file foehn writes directly, to the packing's precision: with B bits a
message of values spanning [min, max] keeps them to within one step of
(max - min) / (2^B - 1) (GRIB's binary scale is the smallest power of two
that fits the range; rounding loses at most half of it).
The same fields as GRIB2 from foehn's servers (iodef_grib.xml, docs/grib.md)
give the sequential scheme's messages: the same keys, grid and packed
values, from 1 server or 2 alike."""
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


GRIB_KEYS = ("paramId", "typeOfLevel", "level", "gridType", "N", "Nj", "numberOfDataPoints", "bitsPerValue",
             "packingType", "dataDate", "dataTime", "validityDate", "validityTime", "isOctahedral")


def grib_messages(path):
    """(keys, pl, values) of every message, with Python eccodes."""
    import eccodes
    out = []
    with open(path, "rb") as f:
        while (h := eccodes.codes_grib_new_from_file(f)) is not None:
            out.append(({k: eccodes.codes_get(h, k) for k in GRIB_KEYS}, eccodes.codes_get_array(h, "pl"),
                        eccodes.codes_get_values(h)))
            eccodes.codes_release(h)
    return out


def test_foehn_server_grib_equals_the_sequential_grib_scheme(tmp_path, mpmd):
    """The thesis' critical path with foehn's servers: the miniapp's fields
    as GRIB2 from 2 servers and from 1 (identical files), against the
    sequential scheme's GRIB2 (same grid, keys and packed values), the
    NetCDF of the same run (within the packing error), and CDO's reading
    of the octahedral grid as gaussian_reduced."""
    args = [*TINY[:-1], ROOT / "apps/miniapp/iodef_grib.xml"]
    for name, clients, servers, extra in (("two", 2, 2, []), ("one", 2, 1, []),
                                          ("sequential", 2, 0, ["--output", "grib", "--grib-bits", 16])):
        (tmp_path / name).mkdir()
        run = mpmd(tmp_path / name, clients, servers, [MINIAPP, *args, *(extra or ["--output", "foehn"])])
        assert run.returncode == 0, run.stdout + run.stderr
    two = (tmp_path / "two/miniapp_3h.grib2").read_bytes()
    assert two == (tmp_path / "one/miniapp_3h.grib2").read_bytes()
    got = grib_messages(tmp_path / "two/miniapp_3h.grib2")
    want = grib_messages(tmp_path / "sequential/miniapp_3h.grib2")
    assert len(got) == len(want) == 2 * (12 * 4 + 1)  # 2 records of 12 fields on 4 levels and sp
    for (keys, pl, values), (seq_keys, seq_pl, seq_values) in zip(got, want):
        assert keys == seq_keys
        assert keys["gridType"] == "reduced_gg" and keys["N"] == 16 and keys["isOctahedral"] == 1
        np.testing.assert_array_equal(pl, seq_pl)
        np.testing.assert_array_equal(values, seq_values)  # one packing of the same float values
    # Against the same run's NetCDF: within one packing step per message.
    with netCDF4.Dataset(tmp_path / "two/miniapp_3h.nc") as nc:
        it = iter(got)
        for r in range(2):
            for name in FIELDS:
                exact = np.asarray(nc[name][r], dtype=np.float64)
                for level in exact.reshape(-1, exact.shape[-1]):
                    keys, pl, values = next(it)
                    span = level.max() - level.min()
                    assert np.max(np.abs(values - level)) <= span / (2 ** 16 - 1), (name, keys["level"])
    griddes = [subprocess.run(["cdo", "-s", "griddes", str(tmp_path / d / "miniapp_3h.grib2")],
                              capture_output=True, text=True) for d in ("two", "sequential")]
    assert griddes[0].returncode == 0, griddes[0].stderr
    text = griddes[0].stdout
    assert "gridtype  = gaussian_reduced" in text and "numLPE    = 16" in text and "gridsize  = 1600" in text, text
    # O16's rows: 20 + 4 (k - 1) points from each pole; latitudes the Gauss-Legendre nodes.
    pl = np.concatenate([20 + 4 * np.arange(16), (20 + 4 * np.arange(16))[::-1]])
    reduced = text.split("reducedPoints =")[1].split("=")[0].split()
    np.testing.assert_array_equal(np.array(reduced[:32], dtype=int), pl)
    nodes, _ = np.polynomial.legendre.leggauss(32)
    yvals = np.array(text.split("yvals     =")[1].split("=")[0].split()[:32], dtype=float)
    np.testing.assert_allclose(yvals, np.degrees(np.arcsin(nodes[::-1])), atol=1e-6)
    assert griddes[0].stdout == griddes[1].stdout
