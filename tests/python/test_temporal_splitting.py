"""XIOS's temporal_splitting (temporal_splitting.xml,
temporal_splitting_model.py): the scalar of a field's grid becomes an axis
of n values holding n successive steps; the transformed field has values
at the n-th, 2n-th... step only. Checked against numpy: the 4-hour records
(the split axis last, as in XIOS's test_diurnal_cycle, and first), their
8-hour average (the mean diurnal cycle), records falling inside a cycle
(missing), the axis's values, the same bytes attached on 1 and 2 ranks
and with 1+1 and 2+2 servers, and runs cut by a checkpoint inside a cycle
(attached 1 -> 1, 1 -> 2, 2 -> 1; servers 1+1 -> 1+1, 1+1 -> 2+2,
2+2 -> 1+1) bit for bit as the unbroken run."""
import netCDF4
import numpy as np
import pytest

from conftest import ROOT
from temporal_splitting_model import a_values, s_values

pytestmark = pytest.mark.usefixtures("importable_package")

XML = ROOT / "tests/python/temporal_splitting.xml"
MODEL = ROOT / "tests/python/temporal_splitting_model.py"
PYTHON = ROOT / ".venv/bin/python"
STEPS, N = 8, 4
LAYOUTS = [(1, 0), (2, 0), (1, 1), (2, 2)]
FILES = {"ts_cycle.nc": ("a", "a_split", "s_split"), "ts_mean.nc": ("a_split",), "ts_often.nc": ("a_split",)}


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    from conftest import BUILD, run_mpmd
    done = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PYTHONPATH", str(BUILD / "python"))
        for clients, servers in LAYOUTS:
            work = tmp_path_factory.mktemp(f"ts{clients}_{servers}")
            (work / "temporal_splitting.xml").write_text(XML.read_text())
            result = run_mpmd(work, clients, servers, [PYTHON, MODEL, work / "temporal_splitting.xml", STEPS],
                              timeout=120)
            assert result.returncode == 0, result.stdout + result.stderr
            assert "temporal_splitting_model: OK" in result.stdout
            # Records inside a cycle are written when their step ends, not left to close as "not written".
            assert "written as fill values" not in result.stderr, result.stderr
            done[(clients, servers)] = work
    return done


def values(path, name):
    with netCDF4.Dataset(path) as ds:
        ds.set_auto_mask(False)
        return np.asarray(ds[name][:])


def cycle(first_step):
    """(N, NP, NZ): steps first_step .. first_step + N - 1 along the new axis."""
    return np.stack([a_values(first_step + k) for k in range(N)])


def test_records_hold_the_cycles(outputs):
    path = outputs[(1, 0)] / "ts_cycle.nc"
    a = values(path, "a")
    np.testing.assert_array_equal(a, np.stack([a_values(4), a_values(8)]))
    split = values(path, "a_split")
    assert split.shape == (2, N) + a_values(1).shape
    np.testing.assert_array_equal(split, np.stack([cycle(1), cycle(5)]))
    np.testing.assert_array_equal(values(path, "hour"), [6.0, 12.0, 18.0, 24.0])
    s = values(path, "s_split")  # (time, z, hour_first): the split axis is the grid's first (fastest)
    want = np.stack([np.stack([s_values(4 * r + k + 1) for k in range(N)], axis=1) for r in range(2)])
    np.testing.assert_array_equal(s, want)
    np.testing.assert_array_equal(values(path, "hour_first"), [0.0, 1.0, 2.0, 3.0])


def test_average_of_the_cycles(outputs):
    mean = values(outputs[(1, 0)] / "ts_mean.nc", "a_split")
    np.testing.assert_allclose(mean, [(cycle(1) + cycle(5)) / 2], rtol=1e-15, atol=0)


def test_records_inside_a_cycle_are_missing(outputs):
    """output_freq 2h, cycle 4h: the records at 2h and 6h fall inside a
    cycle; foehn writes them as missing (netCDF's default fill, the
    variable having no _FillValue of its own), those at 4h and 8h hold the
    cycles."""
    often = values(outputs[(1, 0)] / "ts_often.nc", "a_split")
    assert often.shape == (4, N) + a_values(1).shape
    np.testing.assert_array_equal(often[1::2], np.stack([cycle(1), cycle(5)]))
    np.testing.assert_array_equal(often[0::2], np.full_like(often[0::2], netCDF4.default_fillvals["f8"]))


@pytest.mark.parametrize("layout", LAYOUTS[1:])
def test_same_bytes_in_every_layout(outputs, layout):
    for name, variables in FILES.items():
        for var in variables:
            np.testing.assert_array_equal(values(outputs[layout] / name, var), values(outputs[(1, 0)] / name, var),
                                          err_msg=f"{name} {var} {layout}")


def restart_xml(first):
    """The test's XML with a restart_dir and the start date of step first - 1
    (the time origin kept at the first run's start)."""
    text = XML.read_text().replace(
        '<calendar type="gregorian" start_date="2000-01-01 00:00:00" timestep="1h"/>',
        f'<calendar type="gregorian" start_date="2000-01-01 {first - 1:02d}:00:00" '
        'time_origin="2000-01-01 00:00:00" timestep="1h"/>'
        '<variable_definition><variable id="restart_dir" type="string">restart</variable></variable_definition>')
    assert "restart_dir" in text
    return text


def raw(path):
    with netCDF4.Dataset(path) as ds:
        ds.set_auto_maskandscale(False)
        return {name: np.array(v[:]) for name, v in ds.variables.items()}


# With servers too: the 2 h record inside a cycle, whose split fields have
# no value, used to stay ahead of the checkpoint's sync on the server until
# the end of the run (a hang); the clients now say that it has no value.
@pytest.mark.parametrize("cut,counts", [(6, [(1, 0), (1, 0)]), (3, [(1, 0), (2, 0)]), (7, [(2, 0), (1, 0)]),
                                        (6, [(1, 1), (1, 1)]), (3, [(1, 1), (2, 2)]), (7, [(2, 2), (1, 1)])],
                         ids=["1-to-1-at-6", "1-to-2-at-3", "2-to-1-at-7",
                              "1+1-to-1+1-at-6", "1+1-to-2+2-at-3", "2+2-to-1+1-at-7"])
def test_cut_inside_a_cycle_writes_the_unbroken_files(tmp_path, mpmd, outputs, cut, counts):
    """A checkpoint inside a cycle (at 6: 2 of the second cycle's 4 steps;
    at 3: 3 of the first; at 7: 3 of the second) keeps the cycle's place
    and the values gathered so far, by global index (z is split among the
    model ranks): the files are bit for bit those of the unbroken run,
    records, the average of the cycles and the records inside a cycle."""
    for k, (clients, servers) in enumerate(counts):
        first, last = (1, cut) if k == 0 else (cut + 1, STEPS)
        xml = tmp_path / f"ts_{first}.xml"
        xml.write_text(restart_xml(first))
        args = [PYTHON, MODEL, xml.name, last, first] + ([cut] if k == 0 else [])
        run = mpmd(tmp_path, clients, servers, args, timeout=60)
        assert run.returncode == 0, f"segment {k + 1}: " + run.stdout + run.stderr
        if k == 1:
            assert f"resumes from the state of 2000-01-01 {cut:02d}:00:00" in run.stderr
    for name in FILES:
        want, got = raw(outputs[(1, 0)] / name), raw(tmp_path / name)
        assert sorted(got) == sorted(want), name
        for var, values_ in want.items():
            assert got[var].dtype == values_.dtype and got[var].shape == values_.shape, (name, var)
            assert got[var].tobytes() == values_.tobytes(), (name, var, got[var], values_)


@pytest.mark.parametrize("servers", [1, 2])
def test_checkpoint_behind_a_record_the_model_did_not_write(tmp_path, mpmd, servers):
    """`a` not written at step 4 (its 4 h record's due step) and a checkpoint
    at 5 with servers: the record is written as fill values at once with a
    warning naming it, and the checkpoint behind it returns (it used to wait
    for the values until the end of the run, that is for ever)."""
    xml = tmp_path / "ts_1.xml"
    xml.write_text(restart_xml(1))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SKIP_A", "4")
        run = mpmd(tmp_path, servers, servers, [PYTHON, MODEL, xml.name, STEPS, 1, 5], timeout=60)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "field 'a' record 0: 0 of" in run.stderr and "the model did not write it at that step" in run.stderr
    a = raw(tmp_path / "ts_cycle.nc")["a"]
    np.testing.assert_array_equal(a[0], np.full_like(a[0], netCDF4.default_fillvals["f8"]))
    np.testing.assert_array_equal(a[1], a_values(8))
