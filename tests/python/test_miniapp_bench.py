"""The benchmark drivers of the proxy models run end to end on tiny sizes
(bench/output_heavy.py, bench/critical_path.py) and their figures add up:
bytes written equal the data of every record, the converted GRIB file
exists, totals are run plus conversion. Timing itself is their job, not
this test's."""
import json
import os
import subprocess
import sys

from conftest import BUILD, ROOT


def run_driver(script, tmp_path, *options):
    env = dict(os.environ, OMP_NUM_THREADS="1")
    proc = subprocess.run([sys.executable, ROOT / "bench" / script, "--build", BUILD, "--out", tmp_path / "out",
                           "--runs-dir", tmp_path / "runs", "--reps", "1", *map(str, options)],
                          capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


def test_output_heavy_driver(tmp_path):
    ni, nj, levels, fields, steps, every = 24, 12, 3, 5, 12, 4
    run_driver("output_heavy.py", tmp_path, "--ni", ni, "--nj", nj, "--levels", levels, "--fields", fields, "--steps",
               steps, "--every", every, "--work", 1,
               "--schemes", "none,foehn-server,netcdf-writer,netcdf-beside-model,sequential")
    result = json.loads((tmp_path / "out/output_heavy.json").read_text())
    record = ni * nj * levels * fields * 8
    for scheme in ("foehn-server", "netcdf-writer", "netcdf-beside-model", "sequential"):
        row = result["schemes"][scheme]
        assert row["bytes_written"] == record * steps // every, scheme
        assert row["record_bytes"] == record
    assert result["schemes"]["foehn-server"]["server_max_rss_bytes"] > 0
    assert set(result["met"]) == {"wall_ratio", "throughput_ratio", "server_rss_mib", "model_growth_records"}
    assert "| foehn-server |" in (tmp_path / "out/output_heavy.md").read_text()


def test_critical_path_driver(tmp_path):
    run_driver("critical_path.py", tmp_path, "--grid", 16, "--levels", 3, "--steps", 18, "--paths",
               "grib-cdo,foehn-server-overlapped")
    result = json.loads((tmp_path / "out/critical_path.json").read_text())
    grib = [r for r in result["runs"] if r["path"] == "grib-cdo"][0]
    assert grib["convert_seconds"] > 0
    assert grib["total_seconds"] == grib["wall_seconds"] + grib["convert_seconds"]
    # 13 fields: 12 on 3 levels and sp, one record, one GRIB message each
    assert grib["grib_bytes"] > 37 * 1600 * 2
    assert (tmp_path / "runs/grib-cdo/miniapp_3h_from_grib.nc").stat().st_size > 0
    foehn = [r for r in result["runs"] if r["path"] == "foehn-server-overlapped"][0]
    assert foehn["convert_seconds"] == 0 and foehn["total_seconds"] == foehn["wall_seconds"]
