"""Exact restarts (issue 22, docs/restart.md): a run cut into segments at
steps inside averaging, accumulation, minimum, maximum and @-chained
windows, with missing values, writes files whose every variable (data,
time, bounds) is bit for bit that of the unbroken run, whatever the numbers
of model ranks and servers of each segment; refusals say why and damage no
file.

Run as a script under mpiexec, this file is itself the model
(`python test_restart.py XML FIRST LAST CHECKPOINTS [DIE_AFTER [dynamic]]`):
it runs global steps FIRST..LAST (the XML's start date is that of step
FIRST - 1), calls foehn_checkpoint after the steps listed (comma-separated,
or "-"), with DIE_AFTER (> 0) aborts the job after that step, as a killed
job would stop (with "kill9", every model rank kills itself with SIGKILL
instead), and with "dynamic" tells its time (foehn_set_model_time) with
irregular steps of 30, 60 and 90 minutes."""
import os
import signal
import sys

import numpy as np

NI, NJ, NLEV = 6, 4, 3

XML = """<simulation><context id="rst">
  <variable_definition>
    <variable id="restart_dir" type="string">restart</variable>
  </variable_definition>
  <calendar type="noleap" start_date="START" time_origin="2000-01-01 00:00:00" timestep="1h"/>
  <domain_definition><domain id="dom"/></domain_definition>
  <axis_definition><axis id="lev" unit="1"/></axis_definition>
  <grid_definition><grid id="g3"><domain domain_ref="dom"/><axis axis_ref="lev"/></grid></grid_definition>
  <field_definition>
    <field id="t" domain_ref="dom" prec="8" unit="K"/>
    <field id="q" domain_ref="dom" prec="8" default_value="1e20" detect_missing_value="true"/>
    <field id="u" grid_ref="g3" prec="4"/>
    <field id="tavg" field_ref="t" operation="average"/>
    <field id="tmin" field_ref="t" operation="minimum"/>
  </field_definition>
  <file_definition type="one_file">
    <file id="stats" name="stats_5h" output_freq="5h">
      <field field_ref="t" name="t_avg" operation="average"/>
      <field field_ref="t" name="t_sum" operation="accumulate"/>
      <field field_ref="t" name="t_min" operation="minimum"/>
      <field field_ref="t" name="t_max" operation="maximum"/>
      <field field_ref="t" name="t_inst" operation="instant"/>
      <field field_ref="t" name="t_once" operation="once"/>
      <field field_ref="q" name="q_avg" operation="average"/>
      <field field_ref="q" name="q_max" operation="maximum"/>
      <field field_ref="u" name="u_avg" operation="average"/>
      <field field_ref="u" name="u_avg2h" operation="average" freq_op="2h"/>
    </file>
    <file id="chains" name="chains_6h" output_freq="6h">
      <field name="max_of_3h_means" domain_ref="dom" prec="8" operation="maximum" freq_op="3h">@tavg</field>
      <field name="mean_of_4h_min" domain_ref="dom" prec="8" operation="average" freq_op="4h">@tmin * 2</field>
    </file>
    <file id="split" name="split_2h" output_freq="2h" split_freq="6h">
      <field field_ref="t" name="t_avg" operation="average"/>
      <field field_ref="u" name="u_max" operation="maximum"/>
      <field field_ref="t" name="t_once" operation="once"/>
    </file>
  </file_definition>
</context></simulation>
"""


def seconds_at(step, dynamic):
    """The time of a global step since 2000-01-01: hours, or irregular steps."""
    return sum(1800 * (1 + s % 3) for s in range(1, step + 1)) if dynamic else 3600 * step


def start_date(first, dynamic=False):
    """The date of global step first - 1."""
    t = seconds_at(first - 1, dynamic)
    return f"2000-01-{1 + t // 86400:02d} {t % 86400 // 3600:02d}:{t % 3600 // 60:02d}:00"


def values(step, j0, j1):
    i = np.arange(NI)[None, :]
    j = np.arange(j0, j1)[:, None]
    t = 10 * np.sin(0.3 * i + 0.7 * j + 0.37 * step) + 0.01 * step
    q = np.where((i + 2 * j + step) % 4 == 0, 1e20, t * 3)
    u = np.stack([t * (k + 1) + k for k in range(NLEV)]).astype(np.float32)
    return t, q, u


def model(xml, first, last, checkpoints, die_after, dynamic, kill9):
    import foehn
    comm = foehn.init("restart", xml)
    rank, size = comm.Get_rank(), comm.Get_size()
    j0, j1 = rank * NJ // size, (rank + 1) * NJ // size
    ctx = foehn.Context("rst", comm)
    ctx.set_domain_rectilinear("dom", NI, NJ, 0, j0, np.arange(NI, dtype=np.float64), np.arange(j0, j1, dtype=np.float64))
    ctx.set_axis("lev", np.arange(1.0, NLEV + 1))
    ctx.close_definition()
    for step in range(first, last + 1):
        if dynamic:
            ctx.set_model_time(float(seconds_at(step, True) - seconds_at(first - 1, True)))
        else:
            ctx.update_calendar(step - first + 1)
        t, q, u = values(step, j0, j1)
        ctx.write("t", t)
        ctx.write("q", q)
        ctx.write("u", u)
        if step in checkpoints:
            ctx.checkpoint()
        if step == die_after:
            sys.stderr.flush()
            if kill9:  # nothing more from this process: no MPI call, no exit handler
                os.kill(os.getpid(), signal.SIGKILL)
            comm.Abort(3)
    ctx.close()
    foehn.finalize()


if __name__ == "__main__":
    cps = set() if sys.argv[4] == "-" else {int(s) for s in sys.argv[4].split(",")}
    words = sys.argv[6:]
    model(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), cps, int(sys.argv[5]) if len(sys.argv) > 5 else -1,
          "dynamic" in words, "kill9" in words)
    sys.exit(0)

import netCDF4  # noqa: E402
import pytest  # noqa: E402

pytestmark = pytest.mark.usefixtures("importable_package")  # conftest.py

STEPS = 20  # 4 records of 5 h, 3 of 6 h (the last window of chains_6h stays open at the end)
# split_2h: a file every 6 h, records at 2, 4, 6 h | 8, 10, 12 h | ... | 20 h. The
# cuts at 7 and 13 fall at a split boundary (the period's file complete, the
# next record in a new one), those at 3, 9 and 11 inside a period.
SPLIT_FILES = ["split_2h_2000010100-2000010105.nc", "split_2h_2000010106-2000010111.nc",
               "split_2h_2000010112-2000010117.nc", "split_2h_2000010118-2000010123.nc"]
FILES = ["stats_5h.nc", "chains_6h.nc", *SPLIT_FILES]


def output_files(work):
    return sorted(p.name for p in work.glob("*.nc"))


def run_segment(mpmd, workdir, clients, servers, first, last, checkpoints="-", die_after=None, xml_text=XML,
                dynamic=False, kill9=False):
    xml = workdir / f"iodef_{first}.xml"
    xml.write_text(xml_text.replace("START", start_date(first, dynamic)))
    args = [sys.executable, __file__, xml.name, first, last, checkpoints, die_after or 0]
    args += (["dynamic"] if dynamic else []) + (["kill9"] if kill9 else [])
    return mpmd(workdir, clients, servers, args, timeout=90)


def raw_variables(path):
    """Every variable of a file as raw values (no masking or scaling)."""
    with netCDF4.Dataset(path) as ds:
        ds.set_auto_maskandscale(False)
        return {name: np.array(v[:]) for name, v in ds.variables.items()}


def unbroken_run(tmp_path_factory, dynamic):
    """The reference: one run of every step (attached, one rank)."""
    from conftest import BUILD, run_mpmd
    work = tmp_path_factory.mktemp("unbroken")
    with pytest.MonkeyPatch.context() as mp:  # importable_package, for this module-wide run
        mp.setenv("PYTHONPATH", str(BUILD / "python"))
        run = run_segment(run_mpmd, work, 1, 0, 1, STEPS, dynamic=dynamic)
    assert run.returncode == 0, run.stderr
    return {f: raw_variables(work / f) for f in output_files(work)}


@pytest.fixture(scope="module")
def unbroken(tmp_path_factory):
    return unbroken_run(tmp_path_factory, False)


@pytest.fixture(scope="module")
def unbroken_dynamic(tmp_path_factory):
    return unbroken_run(tmp_path_factory, True)


def assert_identical(work, unbroken):
    assert output_files(work) == sorted(unbroken)  # no file of a split period missing or extra
    for f in unbroken:
        got = raw_variables(work / f)
        assert sorted(got) == sorted(unbroken[f]), f
        for name, want in unbroken[f].items():
            assert got[name].dtype == want.dtype, (f, name)
            assert got[name].shape == want.shape, (f, name, got[name].shape, want.shape)
            # Bit for bit: the raw bytes, NaN and fill values included.
            assert got[name].tobytes() == want.tobytes(), (f, name, got[name], want)


def test_reference_is_what_numpy_computes(unbroken):
    """The unbroken run itself against numpy, so that the comparisons below
    compare with right values."""
    assert sorted(unbroken) == sorted(FILES)
    stats = unbroken["stats_5h.nc"]
    for r in range(STEPS // 5):
        steps = range(5 * r + 1, 5 * r + 6)
        t = np.stack([values(s, 0, NJ)[0] for s in steps])
        np.testing.assert_allclose(stats["t_avg"][r], t.mean(axis=0), rtol=1e-13)
        np.testing.assert_array_equal(stats["t_min"][r], t.min(axis=0))
        np.testing.assert_array_equal(stats["t_max"][r], t.max(axis=0))
        q = np.stack([values(s, 0, NJ)[1] for s in steps])
        q_max = np.where((q == 1e20).all(axis=0), 1e20, np.where(q == 1e20, -np.inf, q).max(axis=0))
        np.testing.assert_array_equal(stats["q_max"][r], q_max)
        np.testing.assert_array_equal(stats["time_counter_bounds"][r], [5 * r * 3600.0, (5 * r + 5) * 3600.0])
    np.testing.assert_array_equal(stats["t_once"], values(5, 0, NJ)[0])  # no time dimension
    for period, name in enumerate(SPLIT_FILES):
        split = unbroken[name]
        ends = [e for e in range(2, STEPS + 1, 2) if period * 6 < e <= period * 6 + 6]
        np.testing.assert_array_equal(split["time_counter"], [3600.0 * e - 3600 for e in ends])  # centred
        for r, end in enumerate(ends):
            t = np.stack([values(s, 0, NJ)[0] for s in (end - 1, end)])
            np.testing.assert_allclose(split["t_avg"][r], t.mean(axis=0), rtol=1e-13)
            u = np.stack([values(s, 0, NJ)[2] for s in (end - 1, end)])
            np.testing.assert_array_equal(split["u_max"][r], u.max(axis=0))


def cut_runs(mpmd, work, cuts, counts, dynamic=False):
    """Segments ending at the steps in `cuts` (a checkpoint each, inside
    windows), the last ending at STEPS; counts: (clients, servers) each."""
    bounds = [0, *cuts, STEPS]
    for k, (clients, servers) in enumerate(counts):
        first, last = bounds[k] + 1, bounds[k + 1]
        run = run_segment(mpmd, work, clients, servers, first, last, str(last) if last < STEPS else "-",
                          dynamic=dynamic)
        assert run.returncode == 0, f"segment {k + 1}: " + run.stderr
        if k > 0:
            assert f"resumes from the state of {start_date(first, dynamic)}" in run.stderr
            # and the report says which state (report_file would have it as "resumed")
            assert f"foehn report: resumed context 'rst': state of {start_date(first, dynamic)}" in run.stderr


@pytest.mark.parametrize(
    "cuts,counts",
    [
        ([7], [(1, 0), (2, 0)]),  # attached: 1 then 2 model ranks
        ([7, 13], [(1, 0), (2, 0), (1, 0)]),
        ([7, 13], [(1, 1), (2, 1), (1, 2)]),  # servers: 1+1 -> 2+1 -> 1+2
        ([3, 11], [(2, 1), (1, 0), (3, 2)]),  # server mode and attached in one chain
    ],
    ids=["attached-2", "attached-3", "servers-3", "mixed-3"],
)
def test_cut_runs_write_the_unbroken_files(tmp_path, mpmd, unbroken, cuts, counts):
    cut_runs(mpmd, tmp_path, cuts, counts)
    assert_identical(tmp_path, unbroken)


def test_dynamic_time_steps(tmp_path, mpmd, unbroken_dynamic):
    """Irregular steps (averages weigh each sample by the time it stands
    for): cut at 7 and 13, 1 -> 2+1 -> 1+2."""
    stats = unbroken_dynamic["stats_5h.nc"]
    # The reference: the first record is due at the first step reaching
    # 5 h; its window holds the steps up to it, each weighing its length.
    last = next(s for s in range(1, STEPS) if seconds_at(s, True) >= 5 * 3600)
    in_first = range(1, last + 1)
    t = np.stack([values(s, 0, NJ)[0] for s in in_first])
    w = np.array([seconds_at(s, True) - seconds_at(s - 1, True) for s in in_first], dtype=float)
    np.testing.assert_allclose(stats["t_avg"][0], (t * w[:, None, None]).sum(axis=0) / w.sum(), rtol=1e-13)
    cut_runs(mpmd, tmp_path, [7, 13], [(1, 0), (2, 1), (1, 2)], dynamic=True)
    assert_identical(tmp_path, unbroken_dynamic)


@pytest.mark.parametrize("clients,servers", [(2, 0), (2, 1)])
def test_a_killed_run_resumed_from_its_last_checkpoint(tmp_path, mpmd, unbroken, clients, servers):
    """Checkpoints at 6 and 9, the job killed after step 12 (the record of
    10 h written after the last checkpoint, the 10-12 h window lost): the
    run from 9 writes the records after the checkpoint again, in place, not
    twice. The checkpoint synced the files (servers: once the records
    before it were written)."""
    run = run_segment(mpmd, tmp_path, clients, servers, 1, STEPS, "6,9", die_after=12)
    assert run.returncode != 0
    with netCDF4.Dataset(tmp_path / "stats_5h.nc") as ds:
        assert ds.dimensions["time_counter"].size >= 1  # 5 h at least: synced by the checkpoints
    run = run_segment(mpmd, tmp_path, 1, 1, 10, STEPS)
    assert run.returncode == 0, run.stderr
    assert f"resumes from the state of {start_date(10)}" in run.stderr
    assert_identical(tmp_path, unbroken)


@pytest.mark.parametrize("clients,servers", [(2, 2), (1, 1)])
def test_killed_right_after_the_checkpoint_returns(tmp_path, mpmd, unbroken, clients, servers):
    """SIGKILL on every model rank as soon as the checkpoint at 10 returns
    (the servers then killed by mpiexec): the checkpoint waited until the
    servers had written and synced every record before it, so the resumed
    run finds them all (the state counts them) and ends identical."""
    run = run_segment(mpmd, tmp_path, clients, servers, 1, STEPS, "10", die_after=10, kill9=True)
    assert run.returncode != 0
    assert "checkpoint of 2000-01-01 10:00:00" in run.stderr
    with netCDF4.Dataset(tmp_path / "stats_5h.nc") as ds:
        assert ds.dimensions["time_counter"].size == 2  # 5 h and 10 h, both on disk
    with netCDF4.Dataset(tmp_path / SPLIT_FILES[1]) as ds:
        assert ds.dimensions["time_counter"].size == 2  # 8 h and 10 h
    run = run_segment(mpmd, tmp_path, 2, 1, 11, STEPS)
    assert run.returncode == 0, run.stderr
    assert f"resumes from the state of {start_date(11)}" in run.stderr
    assert_identical(tmp_path, unbroken)


XML_TWO_LEVEL = XML.replace("</variable_definition>",
                            '<variable id="server_level2_ranks" type="int">2</variable></variable_definition>')


def test_two_level_servers_sync_at_the_checkpoint(tmp_path, mpmd, unbroken):
    """Two-level servers (1 level-1 rank forwarding, 2 level-2 ranks
    writing): the checkpoint at 10 returns once level 2 has written and
    synced every record before it (the level-2 ranks answer, in the records'
    order), so a job killed right after finds them all; the next segment,
    two-level too with one model rank, continues to the unbroken files."""
    run = run_segment(mpmd, tmp_path, 2, 3, 1, STEPS, "10", die_after=10, xml_text=XML_TWO_LEVEL, kill9=True)
    assert run.returncode != 0
    assert "checkpoint of 2000-01-01 10:00:00" in run.stderr
    with netCDF4.Dataset(tmp_path / "stats_5h.nc") as ds:
        assert ds.dimensions["time_counter"].size == 2  # 5 h and 10 h, both on disk
    with netCDF4.Dataset(tmp_path / SPLIT_FILES[1]) as ds:
        assert ds.dimensions["time_counter"].size == 2  # 8 h and 10 h
    run = run_segment(mpmd, tmp_path, 1, 3, 11, STEPS, xml_text=XML_TWO_LEVEL)
    assert run.returncode == 0, run.stderr
    assert f"resumes from the state of {start_date(11)}" in run.stderr
    assert_identical(tmp_path, unbroken)


# Every file in parts, one per writer (the split file too).
XML_PARTS = XML.replace('<file_definition type="one_file">', '<file_definition type="multiple_file">')


@pytest.mark.parametrize("counts", [[(1, 2), (2, 2), (3, 2)], [(2, 0), (2, 0), (2, 0)]], ids=["servers", "attached"])
def test_multiple_file_parts_continue(tmp_path, mpmd, counts):
    """multiple_file: the parts continue when the writers are as many
    (servers, or model ranks when attached), the model ranks changing
    between segments in server mode; against an unbroken run of as many
    writers, every part."""
    ref, work = tmp_path / "unbroken", tmp_path / "cut"
    ref.mkdir()
    work.mkdir()
    run = run_segment(mpmd, ref, *counts[0], 1, STEPS, xml_text=XML_PARTS)
    assert run.returncode == 0, run.stderr
    want = {f: raw_variables(ref / f) for f in output_files(ref)}
    assert "stats_5h_0.nc" in want and "stats_5h_1.nc" in want and len(want) == 2 * len(FILES)
    for k, (first, last) in enumerate([(1, 7), (8, 13), (14, STEPS)]):
        run = run_segment(mpmd, work, *counts[k], first, last, str(last) if last < STEPS else "-",
                          xml_text=XML_PARTS)
        assert run.returncode == 0, f"segment {k + 1}: " + run.stderr
    assert_identical(work, want)


# Another number of servers: the parts are re-partitioned (test_restart_parts.py).


FORTRAN_XML = """<simulation><context id="rst">
  <variable_definition><variable id="restart_dir" type="string">restart</variable></variable_definition>
  <calendar type="noleap" start_date="START" time_origin="2000-01-01 00:00:00" timestep="1h"/>
  <domain_definition><domain id="dom" type="rectilinear"/></domain_definition>
  <field_definition><field id="t" domain_ref="dom" prec="8"/></field_definition>
  <file_definition>
    <file id="stats" name="stats_5h" output_freq="5h">
      <field field_ref="t" name="t_avg" operation="average"/>
      <field field_ref="t" name="t_max" operation="maximum"/>
    </file>
    <file id="split" name="split_2h" output_freq="2h" split_freq="6h">
      <field field_ref="t" name="t_sum" operation="accumulate"/>
    </file>
  </file_definition>
</context></simulation>
"""


@pytest.mark.parametrize("api", ["foehn", "xios"])
def test_fortran_checkpoint(tmp_path, mpmd, api):
    """tests/mpi/fortran/restart_model.f90 through module `foehn`
    (foehn_checkpoint) or `xios` (xios_checkpoint), cut at 7 and 13 with
    1 -> 2+1 -> 1+2 ranks, against its unbroken run, which numpy checks."""
    from conftest import BUILD
    exe = BUILD / "tests/mpi/fortran/restart_model"
    ref, work = tmp_path / "unbroken", tmp_path / "cut"
    bounds = [(1, STEPS, 0, 1, 0)] + [(1, 7, 7, 1, 0), (8, 13, 13, 2, 1), (14, STEPS, 0, 1, 2)]
    for k, (first, last, checkpoint, clients, servers) in enumerate(bounds):
        where = ref if k == 0 else work
        where.mkdir(exist_ok=True)
        (where / "iodef.xml").write_text(FORTRAN_XML.replace("START", start_date(first)))
        run = mpmd(where, clients, servers, [exe, api, first, last, checkpoint], timeout=90)
        assert run.returncode == 0, run.stderr
        if first > 1:
            assert f"resumes from the state of {start_date(first)}" in run.stderr
    want = {f: raw_variables(ref / f) for f in output_files(ref)}
    i, j = np.arange(6)[None, :], np.arange(4)[:, None]
    t = np.stack([10 * np.sin(0.3 * i + 0.7 * j + 0.37 * s) for s in range(1, STEPS + 1)])
    for r in range(STEPS // 5):
        np.testing.assert_allclose(want["stats_5h.nc"]["t_avg"][r], t[5 * r:5 * r + 5].mean(axis=0), rtol=1e-13)
        np.testing.assert_array_equal(want["stats_5h.nc"]["t_max"][r], t[5 * r:5 * r + 5].max(axis=0))
    np.testing.assert_allclose(want[SPLIT_FILES[1]]["t_sum"][0], t[6:8].sum(axis=0), rtol=1e-13)  # 6-8 h
    assert sorted(want) == sorted(["stats_5h.nc", *SPLIT_FILES])
    assert_identical(work, want)


def snapshot(work):
    return {f: (work / f).read_bytes() for f in output_files(work)}


@pytest.fixture
def first_segment(tmp_path, mpmd):
    """Steps 1..7, a checkpoint at 7; returns the files' bytes."""
    run = run_segment(mpmd, tmp_path, 1, 0, 1, 7, "7")
    assert run.returncode == 0, run.stderr
    return snapshot(tmp_path)


def refused(mpmd, work, first, xml_text=XML):
    run = run_segment(mpmd, work, 1, 0, first, STEPS, xml_text=xml_text)
    assert run.returncode != 0
    return run.stderr


def test_refuses_a_changed_configuration(tmp_path, mpmd, first_segment):
    stderr = refused(mpmd, tmp_path, 8, XML.replace('output_freq="5h"', 'output_freq="4h"'))
    assert "the configuration changed since the checkpoint" in stderr
    assert "output_freq 5h" in stderr and "output_freq 4h" in stderr  # what changed, before and now
    assert snapshot(tmp_path) == first_segment


def test_refuses_a_start_date_without_a_state(tmp_path, mpmd, first_segment):
    stderr = refused(mpmd, tmp_path, 9)
    assert "no state of this run's start date 2000-01-01 08:00:00" in stderr
    assert "holds the state of 20000101T070000" in stderr
    assert snapshot(tmp_path) == first_segment


def test_refuses_a_missing_state_file(tmp_path, mpmd, first_segment):
    (tmp_path / "restart/20000101T070000/rst.nc").unlink()
    stderr = refused(mpmd, tmp_path, 8)
    assert "has no file restart/20000101T070000/rst.nc (missing state file" in stderr
    assert snapshot(tmp_path) == first_segment


def test_refuses_a_truncated_state_file(tmp_path, mpmd, first_segment):
    state = tmp_path / "restart/20000101T070000/rst.nc"
    state.write_bytes(state.read_bytes()[:3000])
    stderr = refused(mpmd, tmp_path, 8)
    assert "restart/20000101T070000/rst.nc: the state file cannot be read" in stderr
    assert "damaged or truncated" in stderr
    assert snapshot(tmp_path) == first_segment


def test_checkpoint_needs_a_restart_dir(tmp_path, mpmd):
    xml = XML.replace('<variable id="restart_dir" type="string">restart</variable>', "")
    run = run_segment(mpmd, tmp_path, 1, 0, 1, 3, "2", xml_text=xml)
    assert run.returncode != 0
    assert "foehn_checkpoint: context 'rst' has no restart_dir" in run.stderr


def test_append_with_another_server_count(tmp_path, mpmd, unbroken):
    """XIOS-style append (no restart_dir) cut at an output boundary of the
    5 h file, 1+1 then 2+2 and then attached 3: the records follow each
    other (this failed at the first write with 'NetCDF: HDF error' when the
    file had been created by one writer)."""
    xml = XML.replace('<variable id="restart_dir" type="string">restart</variable>', "").replace(
        'name="stats_5h" output_freq="5h"', 'name="stats_5h" output_freq="5h" append="true"')
    for first, last, clients, servers in [(1, 10, 1, 1), (11, 15, 2, 2), (16, 20, 3, 0)]:
        run = run_segment(mpmd, tmp_path, clients, servers, first, last, xml_text=xml)
        assert run.returncode == 0, run.stderr
    got, want = raw_variables(tmp_path / "stats_5h.nc"), unbroken["stats_5h.nc"]
    for name in ["t_avg", "t_sum", "t_min", "t_max", "t_inst", "q_avg", "u_avg", "time_counter",
                 "time_counter_bounds"]:
        assert got[name].tobytes() == want[name].tobytes(), name


XML_ON_SERVERS = XML.replace("<variable_definition>", '<variable_definition>'
                             '<variable id="temporal_placement" type="string">server</variable>')


@pytest.mark.parametrize("clients,servers", [(1, 1), (2, 2)])
def test_servers_reductions_close_inside_a_window(tmp_path, mpmd, clients, servers):
    """Reductions on the servers (temporal_placement=server) with a
    restart_dir, run ended at 7 h inside the 5-10 h window without a
    checkpoint: close keeps the open windows (the clients' state and the
    servers', test_restart_servers.py); the 5 h record is numpy's, and the
    run resumed from 8 h writes the 10 h record from the samples of both."""
    run = run_segment(mpmd, tmp_path, clients, servers, 1, 7, xml_text=XML_ON_SERVERS)
    assert run.returncode == 0, run.stderr
    assert "warning" not in run.stderr, run.stderr
    assert (tmp_path / "restart" / "20000101T070000" / "rst.servers.nc").exists()
    t = np.stack([values(step, 0, NJ)[0] for step in range(1, 6)])
    with netCDF4.Dataset(tmp_path / "stats_5h.nc") as ds:
        assert ds.dimensions["time_counter"].size == 1
        np.testing.assert_allclose(ds["t_avg"][0], t.mean(axis=0), rtol=1e-12)
        np.testing.assert_allclose(ds["t_sum"][0], t.sum(axis=0), rtol=1e-12)
        np.testing.assert_array_equal(ds["t_max"][0], t.max(axis=0))
    run = run_segment(mpmd, tmp_path, servers, clients, 8, 10, xml_text=XML_ON_SERVERS)
    assert run.returncode == 0, run.stderr
    assert f"resumes from the state of {start_date(8)}" in run.stderr
    t = np.stack([values(step, 0, NJ)[0] for step in range(6, 11)])
    with netCDF4.Dataset(tmp_path / "stats_5h.nc") as ds:
        assert ds.dimensions["time_counter"].size == 2
        np.testing.assert_allclose(ds["t_avg"][1], t.mean(axis=0), rtol=1e-12)
        np.testing.assert_allclose(ds["t_sum"][1], t.sum(axis=0), rtol=1e-12)
        np.testing.assert_array_equal(ds["t_max"][1], t.max(axis=0))
