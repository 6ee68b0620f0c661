"""Zarr stores (docs/kmscale.md) across runs, with test_restart.py's model:
- time bounds: averaged and instant fields in one store, time_counter,
  time_counter_bounds and time_instant decoded by xarray equal to the
  NetCDF file of the same run, the values too;
- exact restarts (foehn_checkpoint, restart_dir, docs/restart.md): runs
  cut inside averaging windows on other numbers of model ranks and servers,
  and a killed run resumed from its last checkpoint (records written after
  it written again in place), give the unbroken run's store file for file,
  byte for byte;
- append="true": a second segment's records follow the first's (the first
  segment's chunks untouched), the store is the unbroken run's; a segment
  that would repeat a period is refused, the store untouched;
- multiple_file stores on another writer count: refused (append and exact
  restart), naming the counts, the part stores untouched."""
import datetime
import json
import sys

import cftime
import numpy as np
import pytest
import xarray as xr

from test_restart import STEPS, run_segment, start_date

pytestmark = pytest.mark.usefixtures("importable_package")  # conftest.py

XML = """<simulation><context id="rst">
  VARIABLES
  <calendar type="noleap" start_date="START" time_origin="2000-01-01 00:00:00" timestep="1h"/>
  <domain_definition><domain id="dom"/></domain_definition>
  <axis_definition><axis id="lev" unit="1"/></axis_definition>
  <grid_definition><grid id="g3"><domain domain_ref="dom"/><axis axis_ref="lev"/></grid></grid_definition>
  <field_definition>
    <field id="t" domain_ref="dom" prec="8" unit="K"/>
    <field id="q" domain_ref="dom" prec="8" default_value="1e20" detect_missing_value="true"/>
    <field id="u" grid_ref="g3" prec="4"/>
  </field_definition>
  <file_definition type="one_file">
    <file id="stats" name="stats_5h" output_freq="5h" format="zarr" APPEND>FIELDS</file>
    <file id="stats_nc" name="stats_nc" output_freq="5h" APPEND>FIELDS</file>
  </file_definition>
</context></simulation>
""".replace("FIELDS", """
      <field field_ref="t" name="t_avg" operation="average"/>
      <field field_ref="t" name="t_max" operation="maximum"/>
      <field field_ref="t" name="t_inst" operation="instant"/>
      <field field_ref="q" name="q_avg" operation="average"/>
      <field field_ref="u" name="u_avg2h" operation="average" freq_op="2h"/>""")
RESTART_XML = XML.replace("VARIABLES", '<variable_definition><variable id="restart_dir" type="string">restart'
                          '</variable></variable_definition>').replace("APPEND", "")
APPEND_XML = XML.replace("VARIABLES", "").replace("APPEND", 'append="true"')
NAMES = ("t_avg", "t_max", "t_inst", "q_avg", "u_avg2h")


def store_files(store):
    return {str(p.relative_to(store)): p.read_bytes() for p in sorted(store.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def unbroken(tmp_path_factory):
    """The unbroken run (attached, 1 model rank): its directory."""
    from conftest import BUILD, run_mpmd
    work = tmp_path_factory.mktemp("unbroken_zarr")
    with pytest.MonkeyPatch.context() as mp:  # importable_package, for this module-wide run
        mp.setenv("PYTHONPATH", str(BUILD / "python"))
        run = run_segment(run_mpmd, work, 1, 0, 1, STEPS, xml_text=RESTART_XML)
    assert run.returncode == 0, run.stderr
    return work


def test_time_bounds_and_values_equal_the_netcdf_file(unbroken):
    with xr.open_zarr(unbroken / "stats_5h.zarr") as z, xr.open_dataset(unbroken / "stats_nc.nc") as nc:
        assert z.sizes["time_counter"] == STEPS // 5
        for name in ("time_counter", "time_counter_bounds", "time_instant"):
            assert isinstance(z[name].values.flat[0], cftime.DatetimeNoLeap), name  # decoded (noleap calendar)
            np.testing.assert_array_equal(z[name].values, nc[name].values, err_msg=name)
        # independent reference: records every 5 h from 2000-01-01 00:00
        ends = [cftime.DatetimeNoLeap(2000, 1, 1) + datetime.timedelta(hours=5 * k) for k in range(1, STEPS // 5 + 1)]
        half = datetime.timedelta(hours=2.5)
        assert list(z["time_counter_bounds"].values[:, 1]) == ends
        assert list(z["time_counter_bounds"].values[:, 0]) == [e - 2 * half for e in ends]
        assert list(z["time_counter"].values) == [e - half for e in ends]
        assert list(z["time_instant"].values) == ends
        for name in NAMES:
            np.testing.assert_array_equal(z[name].values, nc[name].values, err_msg=name)
            assert z[name].attrs["cell_methods"] == nc[name].attrs["cell_methods"], name
        assert z["t_max"].attrs["cell_methods"].startswith("time: maximum")


@pytest.mark.parametrize("cuts,counts", [([7, 13], [(1, 1), (2, 1), (1, 2)]), ([3, 11], [(2, 0), (1, 1), (3, 0)])],
                         ids=["servers", "attached"])
def test_cut_runs_write_the_unbroken_store(tmp_path, mpmd, unbroken, cuts, counts):
    bounds = [0, *cuts, STEPS]
    for k, (clients, servers) in enumerate(counts):
        first, last = bounds[k] + 1, bounds[k + 1]
        run = run_segment(mpmd, tmp_path, clients, servers, first, last, str(last) if last < STEPS else "-",
                          xml_text=RESTART_XML)
        assert run.returncode == 0, f"segment {k + 1}: " + run.stderr
        if k > 0:
            assert f"resumes from the state of {start_date(first)}" in run.stderr
    assert store_files(tmp_path / "stats_5h.zarr") == store_files(unbroken / "stats_5h.zarr")


def test_a_killed_run_resumed_from_its_last_checkpoint(tmp_path, mpmd, unbroken):
    """Checkpoints at 6 and 9, killed after 17: whatever reached the store
    after the checkpoint (here made certain: the 10 and 15 h records, their
    time chunks garbage, as a job killed while writing leaves) is written
    again by the run from 10, in place, and the shape set back."""
    run = run_segment(mpmd, tmp_path, 2, 1, 1, STEPS, "6,9", die_after=17, xml_text=RESTART_XML)
    assert run.returncode != 0
    store = tmp_path / "stats_5h.zarr"
    # the 5 h record, synced by the checkpoint at 9 (the arrays' shapes may
    # disagree: the job was killed between rewriting two of them)
    assert json.loads((store / "time_counter" / ".zarray").read_text())["shape"][0] >= 1
    for meta in store.rglob(".zarray"):
        z = json.loads(meta.read_text())
        if meta.parent.name in ("time_counter", "time_counter_bounds", "time_instant") or len(z["shape"]) > 1 \
                and meta.parent.name in NAMES:
            z["shape"][0] = 3
            meta.write_text(json.dumps(z))
    for record in (1, 2):
        (store / "time_counter" / str(record)).write_bytes(b"garbage")
    run = run_segment(mpmd, tmp_path, 1, 1, 10, STEPS, xml_text=RESTART_XML)
    assert run.returncode == 0, run.stderr
    assert store_files(tmp_path / "stats_5h.zarr") == store_files(unbroken / "stats_5h.zarr")


def test_append_continues_the_store(tmp_path, mpmd, unbroken):
    run = run_segment(mpmd, tmp_path, 1, 1, 1, 10, xml_text=APPEND_XML)
    assert run.returncode == 0, run.stderr
    store = tmp_path / "stats_5h.zarr"
    first = store_files(store)
    chunk = store / "t_avg" / "0.0.0"
    stamp = chunk.stat().st_mtime_ns
    # The same segment again would write 0-10 h twice: refused, the store untouched.
    run = run_segment(mpmd, tmp_path, 1, 0, 1, 10, xml_text=APPEND_XML)
    assert run.returncode != 0
    assert "cannot continue this Zarr store: its records reach 36000 s since 2000-01-01 00:00:00, after this " \
           "run's start" in run.stderr, run.stderr
    assert store_files(store) == first
    run = run_segment(mpmd, tmp_path, 2, 0, 11, STEPS, xml_text=APPEND_XML)
    assert run.returncode == 0, run.stderr
    assert chunk.stat().st_mtime_ns == stamp  # the first segment's chunks are not rewritten
    assert store_files(store) == store_files(unbroken / "stats_5h.zarr")
    with xr.open_zarr(store) as z, xr.open_dataset(tmp_path / "stats_nc.nc") as nc:
        np.testing.assert_array_equal(z["time_counter_bounds"].values, nc["time_counter_bounds"].values)
        np.testing.assert_array_equal(z["t_avg"].values, nc["t_avg"].values)


PARTS_APPEND = APPEND_XML.replace('format="zarr" append="true"', 'format="zarr" type="multiple_file" append="true"')
PARTS_RESTART = RESTART_XML.replace('format="zarr"', 'format="zarr" type="multiple_file"')


def part_stores(work):
    return {p.name: store_files(p) for p in sorted(work.glob("stats_5h_*.zarr"))}


def test_multiple_file_stores_with_another_writer_count_are_refused(tmp_path, mpmd):
    """Zarr part stores are not re-partitioned (docs/restart.md): append="true"
    on another server count is refused naming the file, both counts and what
    to do, the part stores untouched; an exact restart is refused by the
    configuration check, naming the counts; on the same count append goes on."""
    run = run_segment(mpmd, tmp_path, 1, 2, 1, 10, xml_text=PARTS_APPEND)
    assert run.returncode == 0, run.stderr
    before = part_stores(tmp_path)
    assert sorted(before) == ["stats_5h_0.zarr", "stats_5h_1.zarr"]
    run = run_segment(mpmd, tmp_path, 1, 1, 11, STEPS, xml_text=PARTS_APPEND)
    assert run.returncode != 0
    assert "file 'stats' (" in run.stderr and "stats_5h.zarr, multiple_file, append=\"true\"): 2 part stores on " \
           "disk, this run writes 1; Zarr part stores are not re-partitioned: run with 2 writers" in run.stderr, \
        run.stderr
    assert part_stores(tmp_path) == before
    run = run_segment(mpmd, tmp_path, 2, 2, 11, STEPS, xml_text=PARTS_APPEND)  # the same count: continued
    assert run.returncode == 0, run.stderr
    for name, files in part_stores(tmp_path).items():
        assert files[".zattrs"] == before[name][".zattrs"]
        assert json.loads(files["time_counter/.zarray"])["shape"] == [4], name
    work = tmp_path / "exact"
    work.mkdir()
    run = run_segment(mpmd, work, 1, 2, 1, 7, "7", xml_text=PARTS_RESTART)
    assert run.returncode == 0, run.stderr
    run = run_segment(mpmd, work, 1, 1, 8, STEPS, xml_text=PARTS_RESTART)
    assert run.returncode != 0
    assert "multiple_file in parts of 2 servers" in run.stderr and "of 1 servers" in run.stderr, run.stderr
    assert "a Zarr multiple_file store the same number of parts" in run.stderr


if __name__ == "__main__":
    sys.exit("run with pytest")
