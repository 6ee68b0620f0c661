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

from test_restart import NJ, STEPS, XML, output_files, raw_variables, run_segment, start_date, values

pytestmark = pytest.mark.usefixtures("importable_package")  # conftest.py

XML_ON_SERVERS = XML.replace("<variable_definition>", '<variable_definition>'
                             '<variable id="temporal_placement" type="string">server</variable>')


@pytest.fixture(scope="module")
def unbroken(tmp_path_factory):
    """One run of every step, 1 model rank + 1 server, reducing there."""
    from conftest import BUILD, run_mpmd
    work = tmp_path_factory.mktemp("unbroken_servers")
    with pytest.MonkeyPatch.context() as mp:  # importable_package, for this module-wide run
        mp.setenv("PYTHONPATH", str(BUILD / "python"))
        run = run_segment(run_mpmd, work, 1, 1, 1, STEPS, xml_text=XML_ON_SERVERS)
    assert run.returncode == 0, run.stderr
    return {f: raw_variables(work / f) for f in output_files(work)}


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
            assert (tmp_path / "restart" / tag / "rst.servers.nc").exists()
        if k > 0:
            assert f"resumes from the state of {start_date(first)}" in run.stderr
    assert_identical(tmp_path, unbroken)


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


def test_two_level_servers_refuse_the_checkpoint(tmp_path, mpmd):
    """Two levels of servers reduce on level 1, which has no state of its
    own: a checkpoint is refused, saying why and what to use instead."""
    xml = XML_ON_SERVERS.replace("</variable_definition>",
                                 '<variable id="server_level2_ranks" type="int">2</variable></variable_definition>')
    run = run_segment(mpmd, tmp_path, 1, 3, 1, 7, "6", xml_text=xml)
    assert run.returncode != 0
    assert "exact restarts of reductions on two-level servers" in run.stderr
    assert not list((tmp_path / "restart").glob("*/rst.nc"))
