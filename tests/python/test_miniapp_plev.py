"""The miniapp's pressure-level output (apps/miniapp/iodef_plev.xml): t, u,
v, q interpolated by foehn from the model levels to pressure levels in ln p,
with the model's 3-D pressure `pres` (p = a_k + b_k * sp, sent each step)
as the coordinate. Checked against numpy: `pres` against the hybrid formula
and the run's own surface pressure, and each pressure-level value against
the same interpolation done in numpy on the same run's model-level file;
below-ground targets are the fill value. Attached (simple) and server mode
(overlapped) write the same values."""
import os

import netCDF4
import numpy as np
import pytest

from conftest import BUILD, ROOT

MINIAPP = BUILD / "apps/miniapp/miniapp"
IODEF = ROOT / "apps/miniapp/iodef_plev.xml"
LEVELS = 12
TINY = ["--grid", 16, "--levels", LEVELS, "--nproma", 7, "--steps", 36, "--work", 1]
PLEV = np.array([100000, 92500, 85000, 70000, 50000, 25000, 10000], dtype=np.float64)
FILL = np.float32(1e20)
RUNS = {"attached": (2, 0, ["--integration", "simple"]), "server": (2, 1, ["--integration", "overlapped"])}


def hybrid(levels):
    """a_k (Pa) and b_k of apps/miniapp/fields.h."""
    eta = (np.arange(levels) + 1.0) / levels
    return 8.0e4 * eta * (1.0 - eta), eta * eta


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    from conftest import run_mpmd
    dirs = {}
    saved = {k: os.environ.get(k) for k in ("OMP_NUM_THREADS", "OMP_WAIT_POLICY")}
    try:
        os.environ.update(OMP_NUM_THREADS="1", OMP_WAIT_POLICY="passive")
        for name, (clients, servers, options) in RUNS.items():
            d = tmp_path_factory.mktemp(f"plev_{name}")
            run = run_mpmd(d, clients, servers, [MINIAPP, *TINY, "--iodef", IODEF, "--output", "foehn", *options],
                           timeout=300)
            assert run.returncode == 0, run.stdout + run.stderr
            dirs[name] = d
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return dirs


def read(path, names):
    with netCDF4.Dataset(path) as ds:
        ds.set_auto_mask(False)
        return {n: np.asarray(ds[n][:]) for n in names}


def interpolate_in_ln_p(values, pressure):
    """(time, lev, cell) float32 values and pressures -> (time, plev, cell),
    linear in ln p between the two levels around each target (the kernel's
    Lagrange weights, summed lower level first), the fill value outside."""
    v, p = values.astype(np.float64), pressure.astype(np.float64)
    nt, nl, nc = v.shape
    out = np.full((nt, PLEV.size, nc), np.nan)
    cols = np.arange(nc)
    for t in range(nt):
        assert np.all(np.diff(p[t], axis=0) > 0), "pressure increases downwards in every column"
        for k, target in enumerate(PLEV):
            inside = (target >= p[t, 0]) & (target <= p[t, -1])
            lo = np.clip((p[t] <= target).sum(axis=0) - 1, 0, nl - 2)
            x, x0, x1 = np.log(target), np.log(p[t, lo, cols]), np.log(p[t, lo + 1, cols])
            w0, w1 = (x - x1) / (x0 - x1), (x - x0) / (x1 - x0)
            out[t, k] = np.where(inside, w0 * v[t, lo, cols] + w1 * v[t, lo + 1, cols], np.nan)
    return out


def test_pressure_is_the_hybrid_formula(runs):
    d = runs["attached"]
    sp = read(d / "miniapp_3h.nc", ["sp"])["sp"].astype(np.float64)
    pres = read(d / "miniapp_3h_pl.nc", ["pres"])["pres"].astype(np.float64)
    a, b = hybrid(LEVELS)
    np.testing.assert_allclose(pres, a[None, :, None] + b[None, :, None] * sp[:, None, :], rtol=1e-6)


def test_pressure_levels_match_numpy_on_the_model_levels(runs):
    d = runs["attached"]
    with netCDF4.Dataset(d / "miniapp_3h_pl.nc") as ds:
        np.testing.assert_array_equal(ds["plev"][:], PLEV)
        assert ds["t_pl"].dimensions == ("time_counter", "plev", "cell")
    pres = read(d / "miniapp_3h_pl.nc", ["pres"])["pres"]
    model = read(d / "miniapp_3h.nc", ["t", "u", "v", "q"])
    got = read(d / "miniapp_3h_pl.nc", ["t_pl", "u_pl", "v_pl", "q_pl"])
    assert pres.shape[0] == 2, "two 3-hourly records"
    for name in ("t", "u", "v", "q"):
        ref = interpolate_in_ln_p(model[name], pres)
        out = got[name + "_pl"]
        below = np.isnan(ref)
        assert below[:, 0].any() and not below[:, -1].any(), "1000 hPa is below ground somewhere, 100 hPa nowhere"
        assert np.all(out[below] == FILL), name
        scale = np.abs(ref[~below]).max()
        np.testing.assert_allclose(out[~below], ref[~below], rtol=3e-7, atol=3e-7 * scale, err_msg=name)


def test_attached_and_server_write_the_same_values(runs):
    names = ["t_pl", "u_pl", "v_pl", "q_pl", "pres"]
    a = read(runs["attached"] / "miniapp_3h_pl.nc", names)
    b = read(runs["server"] / "miniapp_3h_pl.nc", names)
    for n in names:
        assert a[n].tobytes() == b[n].tobytes(), n
