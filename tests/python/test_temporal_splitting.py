"""XIOS's temporal_splitting (temporal_splitting.xml,
temporal_splitting_model.py): the scalar of a field's grid becomes an axis
of n values holding n successive steps; the transformed field has values
at the n-th, 2n-th... step only. Checked against numpy: the 4-hour records
(the split axis last, as in XIOS's test_diurnal_cycle, and first), their
8-hour average (the mean diurnal cycle), records falling inside a cycle
(missing), the axis's values, and the same
bytes attached on 1 and 2 ranks and with 1+1 and 2+2 servers."""
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
