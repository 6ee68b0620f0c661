"""The output-heavy configuration (apps/miniapp/heavy.cpp), shrunk to a
few KB: its fields equal a numpy re-computation of the model, and foehn in
server mode writes exactly what the model's own serial netCDF-4 writer
(the throughput baseline of bench/output_heavy.py) writes."""
import re

import netCDF4
import numpy as np

from conftest import BUILD, ROOT

HEAVY = BUILD / "apps/miniapp/miniapp_heavy"
NI, NJ, LEVELS, FIELDS, STEPS, EVERY, WORK = 36, 18, 3, 4, 12, 6, 2
NAMES = ["u", "v", "t", "d"]
# kFields3d (apps/miniapp/fields.h): mean and amplitude of the first fields.
MEAN_AMP = [(5.0, 15.0), (0.0, 8.0), (250.0, 40.0), (0.0, 2e-5)]
OPTIONS = ["--ni", NI, "--nj", NJ, "--levels", LEVELS, "--fields", FIELDS, "--steps", STEPS, "--every", EVERY,
           "--work", WORK, "--summary", "summary.json"]


def reference():
    """The model's state at each output step, computed independently."""
    lon = np.radians((np.arange(NI) + 0.5) * 360.0 / NI)
    lat = np.radians(-90.0 + (np.arange(NJ) + 0.5) * 180.0 / NJ)
    shrink = 1.0 - 0.5 * np.arange(LEVELS) / LEVELS
    courant = 0.3 * np.cos(lat)[None, :, None] * shrink[:, None, None]
    out = {n: [] for n in NAMES}
    for f, name in enumerate(NAMES):
        mean, amp = MEAN_AMP[f]
        x = mean + amp * np.cos(lat)[None, :, None] * np.cos(lon + f)[None, None, :] * shrink[:, None, None]
        for step in range(1, STEPS + 1):
            for _ in range(WORK):
                w, e = np.roll(x, 1, axis=2), np.roll(x, -1, axis=2)
                x = x - courant * (x - w) + 0.05 * (e - 2 * x + w)
            if step % EVERY == 0:
                out[name].append(x.copy())
    return {n: np.array(v) for n, v in out.items()}


def test_foehn_and_plain_netcdf_write_the_model_state(tmp_path, mpmd):
    iodef = re.sub(r'\s*<field field_ref="(\w+)"/>',
                   lambda m: m.group(0) if m.group(1) in NAMES else "", (ROOT / "apps/miniapp/iodef_heavy.xml").read_text())
    (tmp_path / "iodef_heavy.xml").write_text(iodef)
    files = {}
    for scheme, clients, servers in (("foehn", 2, 1), ("netcdf", 3, 0)):
        d = tmp_path / scheme
        d.mkdir()
        run = mpmd(d, clients, servers, [HEAVY, *OPTIONS, "--output", scheme, "--iodef", tmp_path / "iodef_heavy.xml"])
        assert run.returncode == 0, run.stdout + run.stderr
        assert f"output {scheme}" in run.stdout
        files[scheme] = d / "heavy_6ts.nc"
    expected = reference()
    with netCDF4.Dataset(files["foehn"]) as a, netCDF4.Dataset(files["netcdf"]) as b:
        assert a["time_counter"][:].tolist() == b["time_counter"][:].tolist() == [3600.0, 7200.0]
        for name in ("lat", "lon", "lev"):
            assert np.array_equal(a[name][:], b[name][:]), name
        for name in NAMES:
            assert a[name].dimensions == ("time_counter", "lev", "lat", "lon")
            assert a[name].dtype == np.float64
            assert np.array_equal(a[name][:], b[name][:]), f"{name}: foehn differs from the plain writer"
            np.testing.assert_allclose(np.asarray(a[name][:]), expected[name], rtol=1e-12, atol=1e-18, err_msg=name)
