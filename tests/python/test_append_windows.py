"""A run cut inside a window and continued with append="true" (no
restart_dir) keeps the windows of the unbroken run (issue 18 item 10):
every record has the unbroken run's time and bounds, the windows wholly
after the cut its values, and the window open at the cut holds the second
segment's samples only; both segments say so on stderr.

Run as a script under mpiexec, this file is itself the model
(`python test_append_windows.py FIRST LAST XML`: steps FIRST..LAST of the
unbroken run, the XML's start_date being step FIRST - 1)."""
import sys

import numpy as np

XML = """<simulation><context id="seg">
  <calendar type="noleap" start_date="{start}" time_origin="2000-01-01 00:00:00" timestep="1h"/>
  <domain_definition><domain id="dom" ni_glo="3" nj_glo="2"/></domain_definition>
  <field_definition prec="8"><field id="t" domain_ref="dom"/></field_definition>
  <file_definition type="one_file">
    <file id="stats" name="stats" output_freq="4h" append="true">
      <field field_ref="t" name="t_avg" operation="average"/>
      <field field_ref="t" name="t_sum" operation="accumulate"/>
      <field field_ref="t" name="t_min" operation="minimum"/>
      <field field_ref="t" name="t_max" operation="maximum"/>
      <field field_ref="t" name="t_inst" operation="instant"/>
      <field field_ref="t" name="t_off" operation="average" freq_op="2h" freq_offset="1h"/>
    </file>
  </file_definition>
</context></simulation>
"""
OPS = ("t_avg", "t_sum", "t_min", "t_max", "t_inst", "t_off")


def value(step):
    """The field at `step` (hours since the origin): not monotonic, so that
    minimum, maximum and mean differ."""
    i = np.arange(3.0)
    j = np.arange(2.0)[:, None]
    return (step * 7) % 5 + 0.25 * step + i + 10 * j


def model(first, last, xml):
    import foehn
    comm = foehn.init("seg", xml)
    rank, size = comm.Get_rank(), comm.Get_size()
    j0, j1 = rank * 2 // size, (rank + 1) * 2 // size
    with foehn.Context("seg", comm) as ctx:
        ctx.set_domain_rectilinear("dom", 3, 2, 0, j0, np.arange(3.0), np.arange(j0, j1, dtype=np.float64))
        ctx.close_definition()
        for step in range(first, last + 1):
            ctx.update_calendar(step - first + 1)
            ctx.write("t", np.ascontiguousarray(value(step)[j0:j1]))
    foehn.finalize()


if __name__ == "__main__":
    model(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3])
    sys.exit(0)

import netCDF4  # noqa: E402
import pytest  # noqa: E402

pytestmark = pytest.mark.usefixtures("importable_package")  # conftest.py


def run_segment(mpmd, where, clients, servers, first, last):
    xml = where / f"seg{first}.xml"
    xml.write_text(XML.format(start=f"2000-01-01 {first - 1:02d}:00:00"))
    run = mpmd(where, clients, servers, [sys.executable, __file__, first, last, xml.name], timeout=120)
    assert run.returncode == 0, run.stderr
    return run.stderr


def read(path):
    with netCDF4.Dataset(path) as ds:
        ds.set_auto_mask(False)
        out = {name: ds[name][:] for name in ("time_counter", "time_counter_bounds", "time_instant") + OPS}
    return out


def values_at(steps):
    """The field at each of `steps`, stacked (numpy reduces them)."""
    return np.array([value(s) for s in steps])


@pytest.mark.parametrize("clients,servers", [(1, 0), (1, 1)])
@pytest.mark.parametrize("cut", [3, 5])
def test_append_across_a_window_keeps_the_calendar(tmp_path, mpmd, clients, servers, cut):
    whole, parts = tmp_path / "whole", tmp_path / "parts"
    whole.mkdir(), parts.mkdir()
    run_segment(mpmd, whole, clients, servers, 1, 8)
    first = run_segment(mpmd, parts, clients, servers, 1, cut)
    second = run_segment(mpmd, parts, clients, servers, cut + 1, 8)
    ref, got = read(whole / "stats.nc"), read(parts / "stats.nc")

    # The unbroken run: windows [0, 4 h) and [4 h, 8 h).
    np.testing.assert_array_equal(ref["time_counter_bounds"], [[0, 14400], [14400, 28800]])
    # Record by record: the same times and bounds.
    for name in ("time_counter", "time_counter_bounds", "time_instant"):
        np.testing.assert_array_equal(got[name], ref[name], err_msg=name)

    # The window open at the cut: [0, 4 h) for cut 3, [4 h, 8 h) for cut 5.
    open_window = 0 if cut < 4 else 1
    end = 4 * (open_window + 1)
    kept = list(range(cut + 1, end + 1))  # the second segment's samples of it
    v = values_at(kept)
    off = [s for s in kept if s % 2 == 1]  # freq_op 2h, freq_offset 1h: samples at odd hours
    partial = {"t_avg": v.mean(0), "t_sum": v.sum(0), "t_min": v.min(0), "t_max": v.max(0),
               "t_inst": value(end), "t_off": values_at(off).mean(0) if off else np.full((2, 3), np.nan)}
    for name in OPS:
        for r in range(2):
            if r == open_window:
                np.testing.assert_allclose(got[name][r], partial[name], rtol=1e-14, err_msg=f"{name} record {r}")
            else:  # wholly in one segment: the unbroken run's values
                np.testing.assert_array_equal(got[name][r], ref[name][r], err_msg=f"{name} record {r}")
    # And the unbroken run itself against numpy.
    np.testing.assert_allclose(ref["t_avg"][1], np.mean([value(s) for s in range(5, 9)], axis=0), rtol=1e-14)

    # The first segment names what it loses; the second, what its first record lacks.
    lost = [line for line in first.splitlines() if "window that has not ended" in line]
    assert len(lost) == 5, first  # the five reductions (t_off sampled at 1 h and 3 h, or at 5 h)
    window = ("[2000-01-01 00:00:00, 2000-01-01 04:00:00)" if cut < 4
              else "[2000-01-01 04:00:00, 2000-01-01 08:00:00)")
    assert all("file 'stats' variable '" in line and f"window {window}" in line for line in lost), first
    assert f"field 't' (average) closes with {cut % 4} sample(s) since step {cut - cut % 4 + 1}" in first, first
    cont = [line for line in second.splitlines() if "began before this run's start" in line]
    assert len(cont) == 1, second
    assert f"the window {window} began before this run's start 2000-01-01 0{cut}:00:00" in cont[0], second
    assert "t_avg (average), t_sum (accumulate), t_min (minimum), t_max (maximum), t_off (average)" in cont[0]


@pytest.mark.parametrize("clients,servers", [(1, 0)])
def test_append_at_a_window_end_says_nothing(tmp_path, mpmd, clients, servers):
    whole, parts = tmp_path / "whole", tmp_path / "parts"
    whole.mkdir(), parts.mkdir()
    run_segment(mpmd, whole, clients, servers, 1, 8)
    first = run_segment(mpmd, parts, clients, servers, 1, 4)
    second = run_segment(mpmd, parts, clients, servers, 5, 8)
    assert "window that has not ended" not in first and "began before" not in second, first + second
    ref, got = read(whole / "stats.nc"), read(parts / "stats.nc")
    for name in ("time_counter", "time_counter_bounds", "time_instant") + OPS:
        np.testing.assert_array_equal(got[name], ref[name], err_msg=name)
