"""Exact restarts of reductions done on the servers (temporal_placement=
server, issue 22, docs/restart.md): the servers keep their open windows'
accumulators in a state file of their own, by global index, so a run cut
inside averaging, accumulation, maximum and missing-value windows, with the
numbers of model ranks and servers changing between segments, or killed
after a checkpoint and resumed, writes every variable of every file bit for
bit as the unbroken run. The model is test_restart.py's."""
import netCDF4
import numpy as np
import pytest

from test_restart import NJ, STEPS, XML, output_files, raw_variables, run_segment, seconds_at, start_date, values

pytestmark = pytest.mark.usefixtures("importable_package")  # conftest.py

XML_ON_SERVERS = XML.replace("<variable_definition>", '<variable_definition>'
                             '<variable id="temporal_placement" type="string">server</variable>')


def unbroken_run(tmp_path_factory, dynamic):
    """One run of every step, 1 model rank + 1 server, reducing there."""
    from conftest import BUILD, run_mpmd
    work = tmp_path_factory.mktemp("unbroken_servers")
    with pytest.MonkeyPatch.context() as mp:  # importable_package, for this module-wide run
        mp.setenv("PYTHONPATH", str(BUILD / "python"))
        run = run_segment(run_mpmd, work, 1, 1, 1, STEPS, xml_text=XML_ON_SERVERS, dynamic=dynamic)
    assert run.returncode == 0, run.stderr
    return {f: raw_variables(work / f) for f in output_files(work)}


@pytest.fixture(scope="module")
def unbroken(tmp_path_factory):
    return unbroken_run(tmp_path_factory, False)


@pytest.fixture(scope="module")
def unbroken_dynamic(tmp_path_factory):
    return unbroken_run(tmp_path_factory, True)


def assert_identical(work, unbroken):
    assert output_files(work) == sorted(unbroken)
    for f in unbroken:
        got = raw_variables(work / f)
        assert sorted(got) == sorted(unbroken[f]), f
        for name, want in unbroken[f].items():
            assert got[name].dtype == want.dtype and got[name].shape == want.shape, (f, name)
            assert np.array_equal(got[name], want, equal_nan=got[name].dtype.kind == "f"), (f, name, got[name], want)
            assert got[name].tobytes() == want.tobytes(), (f, name)


def test_unbroken_reductions_on_the_servers_are_numpys(unbroken):
    stats = unbroken["stats_5h.nc"]
    for r in range(STEPS // 5):
        steps = range(5 * r + 1, 5 * r + 6)
        t, q, u = (np.stack(a) for a in zip(*[values(s, 0, NJ) for s in steps]))
        np.testing.assert_allclose(stats["t_avg"][r], t.mean(axis=0), rtol=1e-13)
        np.testing.assert_allclose(stats["t_sum"][r], t.sum(axis=0), rtol=1e-13)
        np.testing.assert_array_equal(stats["t_max"][r], t.max(axis=0))
        np.testing.assert_array_equal(stats["t_min"][r], t.min(axis=0))
        # Missing values skipped: the mean of each point's valid samples.
        valid = q != 1e20
        q_avg = np.where(valid.any(axis=0), np.where(valid, q, 0).sum(axis=0) / np.maximum(valid.sum(axis=0), 1), 1e20)
        np.testing.assert_allclose(stats["q_avg"][r], q_avg, rtol=1e-13)
        np.testing.assert_allclose(stats["u_avg"][r], u.astype(np.float64).mean(axis=0), rtol=1e-6)


@pytest.mark.parametrize("cuts,counts", [([7], [(1, 1), (1, 1)]), ([7, 13], [(1, 1), (2, 1), (1, 2)])],
                         ids=["1+1-1+1", "1+1-2+1-1+2"])
def test_cut_runs_write_the_unbroken_files(tmp_path, mpmd, unbroken, cuts, counts):
    """Cuts at 7 h and 13 h: inside the 5-10 h and 10-15 h windows of the
    5 h file, the 6-12 h and 12-18 h windows of the chains' file."""
    bounds = [0, *cuts, STEPS]
    for k, (clients, servers) in enumerate(counts):
        first, last = bounds[k] + 1, bounds[k + 1]
        run = run_segment(mpmd, tmp_path, clients, servers, first, last, str(last) if last < STEPS else "-",
                          xml_text=XML_ON_SERVERS)
        assert run.returncode == 0, f"segment {k + 1}: " + run.stderr
        if last < STEPS:  # the servers' state beside the clients'
            tag = start_date(last + 1).replace("-", "").replace(" ", "T").replace(":", "")
            state = tmp_path / "restart" / tag / "rst.servers.nc"
            assert state.exists()
            # Per-point weights only for windows whose points differ (q's missing
            # values); the others' weight is one number (window_weights).
            with netCDF4.Dataset(state) as st:
                weights = [v for v in st.variables if v.endswith("_weight")]
                assert 0 < len(weights) < len([v for v in st.variables if v.endswith("_value")]), list(st.variables)
        if k > 0:
            assert f"resumes from the state of {start_date(first)}" in run.stderr
    assert_identical(tmp_path, unbroken)


def test_dynamic_time_steps(tmp_path, mpmd, unbroken_dynamic):
    """Irregular steps of 30, 60 and 90 minutes (foehn_set_model_time): the
    servers weigh each sample by the time it stands for, and keep those
    weights in their state; cut at 7 and 13, 1+1 -> 2+1 -> 1+2."""
    stats = unbroken_dynamic["stats_5h.nc"]
    last = next(s for s in range(1, STEPS) if seconds_at(s, True) >= 5 * 3600)  # the first record's step
    t = np.stack([values(s, 0, NJ)[0] for s in range(1, last + 1)])
    w = np.array([seconds_at(s, True) - seconds_at(s - 1, True) for s in range(1, last + 1)], dtype=float)
    np.testing.assert_allclose(stats["t_avg"][0], (t * w[:, None, None]).sum(axis=0) / w.sum(), rtol=1e-13)
    bounds, counts = [0, 7, 13, STEPS], [(1, 1), (2, 1), (1, 2)]
    for k, (clients, servers) in enumerate(counts):
        first, last = bounds[k] + 1, bounds[k + 1]
        run = run_segment(mpmd, tmp_path, clients, servers, first, last, str(last) if last < STEPS else "-",
                          xml_text=XML_ON_SERVERS, dynamic=True)
        assert run.returncode == 0, f"segment {k + 1}: " + run.stderr
        if k > 0:
            assert f"resumes from the state of {start_date(first, True)}" in run.stderr
    assert_identical(tmp_path, unbroken_dynamic)


def test_a_killed_run_resumed(tmp_path, mpmd, unbroken):
    """SIGKILL on every model rank right after the checkpoint at 8 h
    returns (the servers then killed by mpiexec): the servers' state was on
    disk before it returned; the run resumed on 2 + 2 ends identical."""
    run = run_segment(mpmd, tmp_path, 2, 1, 1, STEPS, "8", die_after=8, kill9=True, xml_text=XML_ON_SERVERS)
    assert run.returncode != 0
    assert "checkpoint of 2000-01-01 08:00:00" in run.stderr
    run = run_segment(mpmd, tmp_path, 2, 2, 9, STEPS, xml_text=XML_ON_SERVERS)
    assert run.returncode == 0, run.stderr
    assert f"resumes from the state of {start_date(9)}" in run.stderr
    assert_identical(tmp_path, unbroken)


def test_missing_servers_state_is_refused(tmp_path, mpmd):
    run = run_segment(mpmd, tmp_path, 1, 1, 1, 7, "7", xml_text=XML_ON_SERVERS)
    assert run.returncode == 0, run.stderr
    servers = next((tmp_path / "restart").glob("*/rst.servers.nc"))
    servers.unlink()
    before = {p.name: p.read_bytes() for p in tmp_path.glob("*.nc")}
    run = run_segment(mpmd, tmp_path, 1, 1, 8, STEPS, xml_text=XML_ON_SERVERS)
    assert run.returncode != 0
    assert f"the servers' state restart/{servers.parent.name}/rst.servers.nc is missing" in run.stderr, run.stderr
    assert {p.name: p.read_bytes() for p in tmp_path.glob("*.nc")} == before  # no file damaged


XML_TWO_LEVEL = XML_ON_SERVERS.replace(
    "</variable_definition>", '<variable id="server_level2_ranks" type="int">2</variable></variable_definition>')


def test_two_level_servers_continue_their_windows(tmp_path, mpmd, unbroken):
    """Two levels of servers (2 level-2 ranks writing): level 1 reduces, and
    its ranks keep the open windows by global index; cut at 7 and 13 with
    1, then 2, then 1 level-1 rank (3, 4, 3 servers) and 1, 2, 1 model
    ranks, the files are the unbroken one-level run's bit for bit."""
    bounds, counts = [0, 7, 13, STEPS], [(1, 3), (2, 4), (1, 3)]
    for k, (clients, servers) in enumerate(counts):
        first, last = bounds[k] + 1, bounds[k + 1]
        run = run_segment(mpmd, tmp_path, clients, servers, first, last, str(last) if last < STEPS else "-",
                          xml_text=XML_TWO_LEVEL)
        assert run.returncode == 0, f"segment {k + 1}: " + run.stderr
        assert "warning" not in run.stderr, run.stderr
        if last < STEPS:
            tag = start_date(last + 1).replace("-", "").replace(" ", "T").replace(":", "")
            with netCDF4.Dataset(tmp_path / "restart" / tag / "rst.servers.nc") as ds:
                assert ds.getncattr("servers") == str(servers - 2)  # written by level 1
        if k > 0:
            assert f"resumes from the state of {start_date(first)}" in run.stderr
    assert_identical(tmp_path, unbroken)


def test_two_level_close_inside_a_window_keeps_it(tmp_path, mpmd, unbroken):
    """No explicit checkpoint: the first segment ends at 7 h inside windows
    and its close saves level 1's state; the next one, one level of 2
    servers, continues it."""
    run = run_segment(mpmd, tmp_path, 2, 3, 1, 7, xml_text=XML_TWO_LEVEL)
    assert run.returncode == 0, run.stderr
    assert "warning" not in run.stderr, run.stderr
    assert (tmp_path / "restart" / "20000101T070000" / "rst.servers.nc").exists()
    run = run_segment(mpmd, tmp_path, 1, 2, 8, STEPS, xml_text=XML_ON_SERVERS)
    assert run.returncode == 0, run.stderr
    assert_identical(tmp_path, unbroken)


def snapshot(work):
    """Every output file's bytes and the state files' (the restart set stays usable)."""
    return {str(p.relative_to(work)): p.read_bytes() for p in [*work.glob("*.nc"), *work.glob("restart/*/*")]}


@pytest.fixture
def first_segment(tmp_path, mpmd):
    """Steps 1..7 on 1 + 1, reducing on the server, a checkpoint at 7."""
    run = run_segment(mpmd, tmp_path, 1, 1, 1, 7, "7", xml_text=XML_ON_SERVERS)
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "restart/20000101T070000/rst.servers.nc").exists()
    return snapshot(tmp_path)


def refused(mpmd, work, first, xml_text=XML_ON_SERVERS):
    run = run_segment(mpmd, work, 1, 2, first, STEPS, xml_text=xml_text)
    assert run.returncode != 0
    return run.stderr


def test_refuses_a_changed_configuration(tmp_path, mpmd, first_segment):
    stderr = refused(mpmd, tmp_path, 8, XML_ON_SERVERS.replace('output_freq="5h"', 'output_freq="4h"'))
    assert "resuming from restart/20000101T070000/rst.nc: the configuration changed since the checkpoint" in stderr
    assert "output_freq 5h" in stderr and "output_freq 4h" in stderr  # what changed, before and now
    assert snapshot(tmp_path) == first_segment


def test_refuses_a_start_date_without_a_state(tmp_path, mpmd, first_segment):
    stderr = refused(mpmd, tmp_path, 9)
    assert "no state of this run's start date 2000-01-01 08:00:00" in stderr
    assert "holds the state of 20000101T070000" in stderr
    assert snapshot(tmp_path) == first_segment


def test_refuses_a_truncated_servers_state(tmp_path, mpmd, first_segment):
    """The servers read their state before any file opens: a truncated one
    stops the run there, naming the file and saying what is wrong."""
    state = tmp_path / "restart/20000101T070000/rst.servers.nc"
    state.write_bytes(state.read_bytes()[:3000])
    cut = snapshot(tmp_path)
    stderr = refused(mpmd, tmp_path, 8)
    assert "resuming from the servers' state restart/20000101T070000/rst.servers.nc" in stderr, stderr
    assert "the state file cannot be read" in stderr and "damaged or truncated" in stderr, stderr
    assert snapshot(tmp_path) == cut
