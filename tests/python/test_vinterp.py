"""interpolate_axis on a coordinate field end to end (vinterp_model.py,
vinterp.xml): model levels to pressure levels with the model's 3-D pressure
sent each step (varying per column and per step), against the analytic
profiles the model wrote (linear in p, linear in ln p); below-ground points
fill without extrapolate and are extrapolated linearly with it; per-column
targets (coordinate_dst); missing levels skipped. Attached with 1 and 2
model ranks (rows split) and 1 model + 1 server write the same bits.
`foehn check` refuses an unknown coordinate field at its line; `foehn plan`
shows the chain."""
import subprocess

import netCDF4
import numpy as np
import pytest

import vinterp_model as vm
from conftest import BUILD, ROOT

pytestmark = pytest.mark.usefixtures("importable_package")

XML = ROOT / "tests/python/vinterp.xml"
MODEL = ROOT / "tests/python/vinterp_model.py"
PYTHON = ROOT / ".venv/bin/python"
TOOL = BUILD / "apps/foehn/foehn"
STEPS = 3
RUNS = [(1, 0), (2, 0), (1, 1)]
PLEV = np.array([1000.0, 850.0, 500.0])
NAMES = ("t_pl", "t_pl_x", "tl_pl", "t_pl_o2", "t_tlev")


def values(path, name):
    with netCDF4.Dataset(path) as ds:
        ds.set_auto_mask(False)
        return np.asarray(ds[name][:], dtype=np.float64)


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    from conftest import run_mpmd
    dirs = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PYTHONPATH", str(BUILD / "python"))
        for clients, servers in RUNS:
            d = tmp_path_factory.mktemp(f"vi{clients}x{servers}")
            result = run_mpmd(d, clients, servers, [PYTHON, MODEL, XML, STEPS], timeout=300)
            assert result.returncode == 0, result.stdout + result.stderr
            assert "vinterp_model: OK" in result.stdout
            dirs[(clients, servers)] = d
    return dirs


def valid_range(step):
    """The pressure range of each column's valid levels (the hole in p skipped)."""
    p = vm.pressure(step)
    (lp, jp, ip), _ = vm.holes(0, vm.NJ)
    p[lp, jp, ip] = np.nan
    return np.nanmin(p, 0), np.nanmax(p, 0)


def check(got, expected, inside):
    assert got.shape == expected.shape
    assert np.all(got[~inside] == vm.MISSING), "targets outside the column are the fill value"
    np.testing.assert_allclose(got[inside], expected[inside], rtol=1e-12, atol=0)


def test_pressure_levels_are_the_analytic_values(outputs):
    path = outputs[(1, 0)] / "vinterp_pl.nc"
    with netCDF4.Dataset(path) as ds:
        np.testing.assert_array_equal(ds["plev"][:], PLEV)
    below = 0
    for step in range(1, STEPS + 1):
        b, a = vm.slope_offset(step)
        lo, hi = valid_range(step)
        p = PLEV[:, None, None]
        inside = (p >= lo[None]) & (p <= hi[None])
        below += int((~inside).sum())
        check(values(path, "t_pl")[step - 1], a + b * p, inside)
        check(values(path, "t_pl_o2")[step - 1], a + b * p, inside)
        check(values(path, "tl_pl")[step - 1], a + 30.0 * b * np.log(p), inside)
        # extrapolate="true": below ground too, the line through the two lowest levels (exact for a line)
        np.testing.assert_allclose(values(path, "t_pl_x")[step - 1], np.broadcast_to(a + b * p, (3, vm.NJ, vm.NI)),
                                   rtol=1e-12, atol=0)
        pt = vm.target_pressure(step)
        check(values(path, "t_tlev")[step - 1], a + b * pt, np.ones(pt.shape, bool))
    assert below > 10, "the case has below-ground points (surface pressure under 1000 hPa)"


def test_same_bits_whatever_the_ranks_and_servers(outputs):
    """Every variable's bytes (the HDF5 containers differ in their own
    bookkeeping, not in the data)."""
    for run in RUNS[1:]:
        for name in (*NAMES, "plev", "tlev", "time_counter", "lat", "lon"):
            a, b = values(outputs[(1, 0)] / "vinterp_pl.nc", name), values(outputs[run] / "vinterp_pl.nc", name)
            assert a.tobytes() == b.tobytes(), (run, name)


def test_check_refuses_an_unknown_coordinate_field(tmp_path):
    ok = subprocess.run([TOOL, "check", XML], capture_output=True, text=True, timeout=60)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    text = XML.read_text()
    bad = text.replace('<interpolate_axis coordinate="p" extrapolate="true"/>',
                       '<interpolate_axis coordinate="pp" extrapolate="true"/>')
    assert bad != text
    (tmp_path / "bad.xml").write_text(bad)
    line = bad.splitlines().index('        <interpolate_axis coordinate="pp" extrapolate="true"/>') + 1
    out = subprocess.run([TOOL, "check", tmp_path / "bad.xml"], capture_output=True, text=True, timeout=60)
    assert out.returncode != 0
    assert f"bad.xml:{line}" in out.stdout + out.stderr
    assert "unknown coordinate field 'pp'" in out.stdout + out.stderr
    assert "did you mean 'p'" in out.stdout + out.stderr


def test_plan_shows_the_chain():
    out = subprocess.run([TOOL, "plan", "--domain", f"dom={vm.NI},{vm.NJ}", XML], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert "interpolate_axis 10 -> 3 (coordinate field 'p' to the axis's values)" in out.stdout, out.stdout
    assert "interpolate_axis 10 -> 2 (coordinate field 'p' to field 'pt')" in out.stdout, out.stdout
