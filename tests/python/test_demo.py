"""The demo's output is CF-compliant (cfchecks: 0 errors) and opens in
xarray with CF decoding and no warnings."""
import subprocess
import warnings

import pytest
import xarray as xr

from conftest import BUILD, ROOT


@pytest.fixture(scope="module")
def demo_output(tmp_path_factory):
    from conftest import run_mpmd
    out = tmp_path_factory.mktemp("demo")
    # 36 steps = 6 simulated hours on a small grid.
    run = run_mpmd(out, 2, 1, [BUILD / "apps/demo/demo_model", ROOT / "apps/demo/iodef.xml", 36, 72, 36, 5])
    assert run.returncode == 0, run.stdout + run.stderr
    assert "foehn report: clients" in run.stdout and "foehn report: servers" in run.stdout
    return out


def test_demo_files_pass_cfchecks(demo_output):
    files = sorted(str(p) for p in demo_output.glob("*.nc"))
    assert len(files) == 2
    result = subprocess.run(["bash", str(ROOT / "scripts/cfcheck.sh"), *files], capture_output=True, text=True)
    assert result.stdout.count("ERRORS detected: 0") == len(files), result.stdout + result.stderr
    assert result.returncode == 0


def test_demo_opens_in_xarray_without_warnings(demo_output):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with xr.open_dataset(demo_output / "demo_atm_3h.nc") as ds:
            assert set(ds.data_vars) == {"ta", "ua", "va", "ps"}
            assert ds.sizes == {"time_counter": 2, "lev": 5, "lat": 36, "lon": 72}
            assert ds["ta"].dtype == "float32"
            assert float(ds["ta"].min()) > 200 and float(ds["ta"].max()) < 320
