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
    assert "foehn report: clients" in run.stderr and "foehn report: servers" in run.stderr
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
            # XIOS's layout: the time bounds too (docs/operations.md, "Time axes").
            assert set(ds.data_vars) == {"ta", "ua", "va", "ps", "time_counter_bounds", "time_instant_bounds"}
            assert ds.sizes == {"time_counter": 2, "axis_nbounds": 2, "lev": 5, "lat": 36, "lon": 72}
            assert ds["ta"].dtype == "float32"
            assert float(ds["ta"].min()) > 200 and float(ds["ta"].max()) < 320


def test_json_report_is_consistent(demo_output):
    """The JSON report's figures agree with each other and with the files."""
    import json

    import netCDF4
    import numpy as np
    report = json.loads((demo_output / "foehn_report.json").read_text())
    assert report["foehn_report_version"] == 2 and report["mode"] == "server"
    assert len(report["clients"]) == 2 and len(report["servers"]) == 1
    for c in report["clients"]:
        assert 0 <= c["wait_ratio"] <= 1
        assert 0 <= c["inside_seconds"] <= c["wall_seconds"]
        assert c["wait_seconds"] <= c["inside_seconds"]
        assert 0 < c["smallest_sufficient_buffer_bytes"] <= c["buffer_bytes"]
    server = report["servers"][0]
    assert 0 <= server["busy_ratio"] <= 1
    assert server["bytes_received"] == sum(c["bytes_sent"] for c in report["clients"])
    # Bytes written: the data of every output variable in every file.
    data_bytes = 0
    for path in demo_output.glob("*.nc"):
        with netCDF4.Dataset(path) as ds:
            for name, var in ds.variables.items():
                if "time_counter" in var.dimensions and not name.startswith("time_"):
                    data_bytes += int(np.prod(var.shape)) * var.dtype.itemsize
    assert server["bytes_written"] == data_bytes
    assert isinstance(report["advice"], list)


def test_foehn_report_command_summarises_and_compares(demo_output):
    import subprocess
    tool = str(BUILD / "apps/foehn/foehn")
    path = str(demo_output / "foehn_report.json")
    one = subprocess.run([tool, "report", path], capture_output=True, text=True)
    assert one.returncode == 0, one.stderr
    assert "2 client(s), 1 server(s)" in one.stdout and "worst client waiting ratio" in one.stdout
    two = subprocess.run([tool, "report", path, path], capture_output=True, text=True)
    assert two.returncode == 0 and "+0.0 %" in two.stdout
    bad = subprocess.run([tool, "report", str(demo_output / "demo_atm_3h.nc")], capture_output=True, text=True)
    assert bad.returncode == 1 and "not JSON" in bad.stderr
