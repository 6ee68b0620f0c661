"""The proxy model (apps/miniapp): every writing scheme, on a tiny grid,
writes the same values of the same fields at the same times: the
sequential and direct parallel NetCDF baselines, foehn attached, and foehn
in server mode with the simple and the overlapped integration. The schemes
run on 1 to 4 model ranks (4 splits latitude rows between ranks, so the
halo exchange matters) and 1 or 2 OpenMP threads, which also checks that
the model's evolution depends on neither."""
import os

import netCDF4
import numpy as np
import pytest

from conftest import BUILD, ROOT

MINIAPP = BUILD / "apps/miniapp/miniapp"
IODEF = ROOT / "apps/miniapp/iodef.xml"
# O16 (1,600 points), 4 levels, NPROMA 7 (partial blocks), 36 steps of
# 600 s = 6 hours: two 3-hourly records.
TINY = ["--grid", 16, "--levels", 4, "--nproma", 7, "--steps", 36, "--work", 2]
FIELDS = ["u", "v", "t", "d", "vo", "q", "cc", "o3", "crwc", "cswc", "clwc", "ciwc", "sp"]
FILE = "miniapp_3h.nc"
# XIOS's time variables (docs/operations.md, "Time axes")
TIME_VARS = {"time_counter_bounds", "time_centered", "time_centered_bounds", "time_instant", "time_instant_bounds"}

# scheme -> (model ranks, server ranks, OpenMP threads, miniapp options)
SCHEMES = {
    "sequential": (2, 0, 1, ["--output", "sequential"]),
    "parallel": (4, 0, 1, ["--output", "parallel"]),
    "foehn_attached": (2, 0, 2, ["--output", "foehn"]),
    "foehn_server": (2, 1, 1, ["--output", "foehn", "--integration", "simple"]),
    "foehn_server_overlapped": (3, 2, 2, ["--output", "foehn", "--integration", "overlapped"]),
}


def run_miniapp(mpmd, workdir, clients, servers, options, iodef=IODEF):
    args = [MINIAPP, *TINY, "--iodef", iodef, "--summary", "summary.json", *options]
    run = mpmd(workdir, clients, servers, args, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    return run


def read(path, names):
    with netCDF4.Dataset(path) as ds:
        out = {name: np.asarray(ds[name][:]) for name in names + ["time_counter", "lat", "lon"]}
        out["_dims"] = {name: ds[name].dimensions for name in names}
        return out


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    from conftest import run_mpmd
    files = {}
    saved = {k: os.environ.get(k) for k in ("OMP_NUM_THREADS", "OMP_WAIT_POLICY")}
    try:
        for scheme, (clients, servers, threads, options) in SCHEMES.items():
            # Threads share the blocks; idle ones must not spin on 2 cores.
            os.environ.update(OMP_NUM_THREADS=str(threads), OMP_WAIT_POLICY="passive")
            workdir = tmp_path_factory.mktemp(scheme)
            run_miniapp(run_mpmd, workdir, clients, servers, options)
            files[scheme] = read(workdir / FILE, FIELDS)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return files


def test_every_scheme_writes_the_same_values(outputs):
    reference = outputs["sequential"]
    assert reference["time_counter"].tolist() == [10800.0, 21600.0]
    for scheme, data in outputs.items():
        for name in FIELDS + ["time_counter", "lat", "lon"]:
            assert data[name].shape == reference[name].shape, (scheme, name)
            assert np.array_equal(data[name], reference[name]), f"{scheme}: {name} differs from sequential"
        assert data["_dims"] == reference["_dims"], scheme


def test_fields_are_plausible_and_evolve(outputs):
    data = outputs["sequential"]
    assert data["t"].shape == (2, 4, 1600) and data["sp"].shape == (2, 1600)
    assert data["t"].dtype == np.float32
    assert 120 < data["t"].min() and data["t"].max() < 350
    assert 9.5e4 < data["sp"].min() and data["sp"].max() < 1.05e5
    assert 0 <= data["cc"].min() and data["cc"].max() <= 1
    for name in FIELDS:
        assert np.all(np.isfinite(data[name])), name
        assert not np.array_equal(data[name][0], data[name][1]), f"{name} does not change"


def test_fewer_fields_variant_matches_the_baseline(tmp_path, mpmd):
    few = ["u", "v", "t", "q", "cc", "o3", "sp"]
    (tmp_path / "seq").mkdir()
    (tmp_path / "foehn").mkdir()
    run_miniapp(mpmd, tmp_path / "seq", 1, 0, ["--output", "sequential", "--fields", ",".join(few)])
    run_miniapp(mpmd, tmp_path / "foehn", 2, 1, ["--output", "foehn"], iodef=ROOT / "apps/miniapp/iodef_few.xml")
    a, b = read(tmp_path / "seq" / FILE, few), read(tmp_path / "foehn" / FILE, few)
    with netCDF4.Dataset(tmp_path / "foehn" / FILE) as ds:
        assert set(ds.variables) - {"time_counter", "lev", "lat", "lon", "bounds_lat", "bounds_lon"} - TIME_VARS == set(few)
    for name in few:
        assert np.array_equal(a[name], b[name]), name


def test_average_variant_and_no_output(tmp_path, mpmd):
    (tmp_path / "mean").mkdir()
    (tmp_path / "none").mkdir()
    run_miniapp(mpmd, tmp_path / "mean", 2, 1, ["--output", "foehn"], iodef=ROOT / "apps/miniapp/iodef_average.xml")
    with netCDF4.Dataset(tmp_path / "mean" / "miniapp_3h_mean.nc") as ds:
        assert ds["t"].cell_methods.startswith("time: mean")
        assert ds["time_counter_bounds"][:].tolist() == [[0, 10800], [10800, 21600]]
        assert 120 < ds["t"][:].min() and ds["t"][:].max() < 350
    run = run_miniapp(mpmd, tmp_path / "none", 2, 0, ["--output", "none"])
    assert "output none" in run.stdout
    assert not list((tmp_path / "none").glob("*.nc"))
