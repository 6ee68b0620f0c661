"""File periods end to end: split_freq (a new file per period, named with
the period's dates), sync_freq (records flushed to disk while the file is
open) and freq_offset (sampling instants start + offset + k*freq_op),
compared with values computed independently here.

Run as a script under mpiexec, this file is itself the model
(`python test_file_periods.py periods|sync|dynamic XML`); split files are
also checked with dynamic (model-told) time steps and a user_defined calendar."""
import ast
import subprocess
import sys

import numpy as np

NI, NJ = 6, 4
DAYS, STEPS_PER_DAY = 10, 4  # 6-hour steps
STEPS = DAYS * STEPS_PER_DAY
DAY = 86400.0
DYNAMIC_HOURS = [5, 13, 30, 47, 50, 75, 100, 101, 150]  # irregular model times (set_model_time)


def values(step):
    """The field at a step: exact in float64, distinct per step and point."""
    j, i = np.meshgrid(np.arange(NJ), np.arange(NI), indexing="ij")
    return 1000.0 * step + 10.0 * j + i


# ---------------------------------------------------------------- the model

def model(xml, mode):
    import foehn
    comm = foehn.init("periods", xml)
    rank, size = comm.Get_rank(), comm.Get_size()
    j0, j1 = rank * NJ // size, (rank + 1) * NJ // size
    lon = np.arange(NI, dtype=np.float64)
    lat = np.arange(j0, j1, dtype=np.float64)
    seen = []
    with foehn.Context("per", comm) as ctx:
        ctx.set_domain_rectilinear("dom", NI, NJ, 0, j0, lon, lat)
        ctx.close_definition()
        for step in range(1, (STEPS if mode == "periods" else len(DYNAMIC_HOURS) if mode == "dynamic" else 6) + 1):
            if mode == "dynamic":
                ctx.set_model_time(3600.0 * DYNAMIC_HOURS[step - 1])
            else:
                ctx.update_calendar(step)
            ctx.write("v", np.ascontiguousarray(values(step)[j0:j1]))
            if mode == "sync" and step == 5:
                # Attached, so records 1..5 are written; sync_freq 2ts has
                # flushed them up to step 4. Another process reads both files.
                seen = [read_records(name) for name in ("synced.nc", "unsynced.nc")]
    foehn.finalize()
    if mode == "sync":
        print("synced.nc seen:", seen[0])
        print("unsynced.nc seen:", seen[1])
    comm.Free()


def read_records(path):
    """The v values another process sees in the open file (-1: unreadable)."""
    code = ("import netCDF4, sys\n"
            "try:\n"
            "    ds = netCDF4.Dataset(sys.argv[1]); ds.set_auto_mask(False)\n"
            "    print(repr(ds['v'][:, 0, 0].tolist()))\n"
            "except Exception:\n"
            "    print('-1')\n")
    out = subprocess.run([sys.executable, "-c", code, path], capture_output=True, text=True, timeout=60)
    return out.stdout.strip()


if __name__ == "__main__":
    model(sys.argv[2], sys.argv[1])
    sys.exit(0)


# ---------------------------------------------------------------- the tests

import netCDF4  # noqa: E402
import pytest  # noqa: E402

from conftest import ROOT  # noqa: E402

XML = """<simulation><context id="per">
  <calendar type="gregorian" start_date="2000-01-01 00:00:00" timestep="6h"/>
  <domain_definition><domain id="dom" ni_glo="6" nj_glo="4"/></domain_definition>
  <field_definition domain_ref="dom" prec="8"><field id="v"/></field_definition>
  <file_definition>
    <file id="daily" output_freq="1d" split_freq="3d">
      <field field_ref="v" name="v_avg" operation="average"/>
      <field field_ref="v" name="v_inst" operation="instant"/>
    </file>
    <file id="half" output_freq="12h" split_freq="1d" split_freq_format="%y-%mo-%d">
      <field field_ref="v" name="v_inst" operation="instant"/>
    </file>
    <file id="sparse" output_freq="2d" split_freq="1d">
      <field field_ref="v" name="v_inst" operation="instant"/>
    </file>
    <file id="offset" output_freq="1d">
      <field field_ref="v" name="v_off" operation="average" freq_op="2ts" freq_offset="1ts"/>
      <field field_ref="v" name="v_max" operation="maximum" freq_op="3ts" freq_offset="2ts"/>
    </file>
  </file_definition>
</context></simulation>
"""

SYNC_XML = """<simulation><context id="per">
  <calendar type="noleap" start_date="2000-01-01" timestep="6h"/>
  <domain_definition><domain id="dom" ni_glo="6" nj_glo="4"/></domain_definition>
  <field_definition domain_ref="dom" prec="8"><field id="v"/></field_definition>
  <file_definition output_freq="1ts">
    <file id="synced" sync_freq="2ts"><field field_ref="v"/></file>
    <file id="unsynced"><field field_ref="v"/></file>
  </file_definition>
</context></simulation>
"""


pytestmark = pytest.mark.usefixtures("importable_package")  # conftest.py


def records(path):
    with netCDF4.Dataset(path) as ds:
        ds.set_auto_mask(False)
        return {name: ds[name][:] for name in ds.variables}


def test_split_offset_files(tmp_path, mpmd):
    xml = tmp_path / "periods.xml"
    xml.write_text(XML)
    run = mpmd(tmp_path, 2, 1, [sys.executable, __file__, "periods", xml])
    assert run.returncode == 0, run.stdout + run.stderr

    # split_freq 3d, default format %y%mo%d: each file's first day and its
    # last day (the period's end minus one second).
    daily = {f"daily_200001{d:02d}-200001{d + 2:02d}.nc": range(d, min(d + 3, DAYS + 1)) for d in (1, 4, 7, 10)}
    half = {f"half_2000-01-{d:02d}-2000-01-{d:02d}.nc": [d] for d in range(1, DAYS + 1)}
    # Records every 2 days in daily files: the days without a record (the
    # first one too) leave no file.
    sparse = {f"sparse_200001{d:02d}-200001{d:02d}.nc": d for d in range(2, DAYS + 1, 2)}
    written = sorted(p.name for p in tmp_path.glob("*.nc"))
    assert written == sorted(list(daily) + list(half) + list(sparse) + ["offset.nc"])
    for name, d in sparse.items():
        got = records(tmp_path / name)
        np.testing.assert_array_equal(got["time_counter"], [d * DAY])
        np.testing.assert_array_equal(got["v_inst"], [values(4 * d)])

    for name, days in daily.items():
        got = records(tmp_path / name)
        bounds = np.array([((d - 1) * DAY, d * DAY) for d in days])
        np.testing.assert_array_equal(got["time_counter_bounds"], bounds)
        np.testing.assert_array_equal(got["time_counter"], bounds.mean(axis=1))
        np.testing.assert_array_equal(got["v_inst"], [values(STEPS_PER_DAY * d) for d in days])
        np.testing.assert_array_equal(got["v_avg"], [np.mean([values(s) for s in range(4 * d - 3, 4 * d + 1)], axis=0)
                                                     for d in days])
    for name, (d,) in half.items():
        got = records(tmp_path / name)
        np.testing.assert_array_equal(got["time_counter"], [(d - 0.5) * DAY, d * DAY])
        np.testing.assert_array_equal(got["v_inst"], [values(4 * d - 2), values(4 * d)])

    # freq_offset: samples at start + offset + k*freq_op, computed here from the step numbers.
    got = records(tmp_path / "offset.nc")
    for var, op, offset, freq in [("v_off", np.mean, 1, 2), ("v_max", np.max, 2, 3)]:
        sampled = [s for s in range(1, STEPS + 1) if s >= offset and (s - offset) % freq == 0]
        want = [op([values(s) for s in sampled if 4 * d - 4 < s <= 4 * d], axis=0) for d in range(1, DAYS + 1)]
        np.testing.assert_array_equal(got[var], want, err_msg=var)
    assert got["v_off"][0, 0, 0] == 2000.0  # steps 1 and 3 of day 1


def test_sync_freq_flushes_records(tmp_path, mpmd):
    xml = tmp_path / "sync.xml"
    xml.write_text(SYNC_XML)
    run = mpmd(tmp_path, 1, 0, [sys.executable, __file__, "sync", xml])
    assert run.returncode == 0, run.stdout + run.stderr
    seen = {l.split(" seen: ")[0]: l.split(" seen: ")[1] for l in run.stdout.splitlines() if " seen: " in l}
    assert set(seen) == {"synced.nc", "unsynced.nc"}, run.stdout + run.stderr
    parse = lambda text: ast.literal_eval(text) if text.startswith("[") else []
    synced, unsynced = parse(seen["synced.nc"]), parse(seen["unsynced.nc"])
    # A reader sees the records up to the last sync (step 4), with their values...
    assert synced[:4] == [1000.0 * s for s in range(1, 5)] and len(synced) >= 4, run.stdout
    # ...where, without sync_freq, HDF5 has not flushed any record yet.
    assert len(unsynced) < len(synced), run.stdout
    # After close both files hold every record.
    for name in ("synced.nc", "unsynced.nc"):
        np.testing.assert_array_equal(records(tmp_path / name)["v"], [values(s) for s in range(1, 7)])


USER_XML = """<simulation><context id="per">
  <calendar type="user_defined" month_lengths="2 2 2 2 2 2 2 2 2 2 2 2" start_date="2000-01-01" timestep="6h"
            leap_year_month="{month}" leap_year_drift="{drift}" leap_year_drift_offset="{offset}"/>
  <domain_definition><domain id="dom" ni_glo="6" nj_glo="4"/></domain_definition>
  <field_definition domain_ref="dom" prec="8"><field id="v"/></field_definition>
  <file_definition>
    <file id="daily" output_freq="1d" split_freq="1mo"><field field_ref="v"/></file>
  </file_definition>
</context></simulation>
"""


# Leap rules whose leap days fall outside the 10 days written (2000 is not
# leap, or its leap day is in May or December).
@pytest.mark.parametrize("month,drift,offset", [(2, 0.25, 0.5), (5, 0.25, 0.0), (12, 0.3, 0.1)])
def test_split_in_a_user_defined_calendar(tmp_path, mpmd, month, drift, offset):
    # Months of 2 days: 10 days make 5 monthly files of 2 daily records,
    # the periods computed on the server from the calendar in the plan.
    xml = tmp_path / "user.xml"
    xml.write_text(USER_XML.format(month=month, drift=drift, offset=offset))
    run = mpmd(tmp_path, 1, 1, [sys.executable, __file__, "periods", xml])
    assert run.returncode == 0, run.stdout + run.stderr
    assert sorted(p.name for p in tmp_path.glob("*.nc")) == [f"daily_2000{m:02d}-2000{m:02d}.nc" for m in range(1, 6)]
    for m in range(1, 6):
        got = records(tmp_path / f"daily_2000{m:02d}-2000{m:02d}.nc")
        days = [2 * m - 1, 2 * m]
        np.testing.assert_array_equal(got["time_counter"], [d * DAY for d in days])
        np.testing.assert_array_equal(got["v"], [values(STEPS_PER_DAY * d) for d in days])
    # CF 4.4.1 describes the calendar on the time axis: month_lengths, and
    # leap_year (an example, every 4th year from it leap too) when XIOS'
    # rule gives that: year y is leap when offset + y * drift passes a whole
    # day.
    path = tmp_path / "daily_200001-200001.nc"
    with netCDF4.Dataset(path) as nc:
        t = nc["time_counter"]
        assert t.calendar == "user_defined"
        np.testing.assert_array_equal(t.month_lengths, [2] * 12)
        leap = [y for y in range(1, 401) if int(offset + drift * y) > int(offset + drift * (y - 1))]
        if drift == 0.25:
            assert int(t.leap_year) in leap and leap == list(range(leap[0], 401, 4))
            assert int(t.leap_year) <= 4
            assert int(getattr(t, "leap_month", 2)) == month  # absent: CF's February
        else:
            assert "leap_year" not in t.ncattrs()
            assert f"month {month} gains a day" in t.comment
    if month == 2:  # cfchecker 4.1.0 fails on any leap_month attribute
        check = subprocess.run(["bash", str(ROOT / "scripts/cfcheck.sh"), str(path)], capture_output=True, text=True)
        assert "ERRORS detected: 0" in check.stdout, check.stdout + check.stderr


DYNAMIC_XML = """<simulation><context id="per">
  <calendar type="gregorian" start_date="2000-01-01" timestep="1h"/>
  <domain_definition><domain id="dom" ni_glo="6" nj_glo="4"/></domain_definition>
  <field_definition domain_ref="dom" prec="8"><field id="v"/></field_definition>
  <file_definition>
    <file id="dyn" output_freq="1d" split_freq="2d"><field field_ref="v"/></file>
  </file_definition>
</context></simulation>
"""


def test_split_with_dynamic_steps(tmp_path, mpmd):
    # A step that reaches one or more daily instants makes one record,
    # stamped at the step; the record goes to the 2-day period that holds it.
    xml = tmp_path / "dynamic.xml"
    xml.write_text(DYNAMIC_XML)
    run = mpmd(tmp_path, 2, 1, [sys.executable, __file__, "dynamic", xml])
    assert run.returncode == 0, run.stdout + run.stderr
    hours = [0] + DYNAMIC_HOURS
    recorded = [(n, hours[n]) for n in range(1, len(hours)) if hours[n] // 24 > hours[n - 1] // 24]
    files = {}
    for n, h in recorded:
        k = (h - 1) // 48  # period k holds ends in (48k, 48(k+1)] hours
        files.setdefault(f"dyn_200001{2 * k + 1:02d}-200001{2 * k + 2:02d}.nc", []).append((n, h))
    assert sorted(p.name for p in tmp_path.glob("*.nc")) == sorted(files)
    for name, recs in files.items():
        got = records(tmp_path / name)
        np.testing.assert_array_equal(got["time_counter"], [3600.0 * h for _, h in recs], err_msg=name)
        np.testing.assert_array_equal(got["v"], [values(n) for n, _ in recs], err_msg=name)
