"""Reductions whose targets' points are split between model ranks
(transform_model.py, transform.xml with its "whole" file on): zonal and
meridional means, sums, minima and maxima, area-weighted means and a global
mean and sum, with the domain split by rows, by columns and in blocks,
with and without servers. Every file must hold the same bytes as one model
rank's, and the reductions equal numpy applied in the test to the same
file's untransformed field, summed in increasing global index."""
import netCDF4
import numpy as np
import pytest

from conftest import BUILD, ROOT
from test_transform import LAT, NI, NJ, NLEV, STEPS, sequential_mean, sequential_sum

pytestmark = pytest.mark.usefixtures("importable_package")

XML = ROOT / "tests/python/transform.xml"
MODEL = ROOT / "tests/python/transform_model.py"
PYTHON = ROOT / ".venv/bin/python"
# (layout, model ranks, servers); the reference is one model rank without servers.
# With columns split (and blocks: columns split in two) every zonal target
# goes to rank 0 and rank 1 holds no part of the zonal axes. Without
# servers (attached: the model ranks write the files themselves) the
# exchange hung against the ranks' collective writes until an empty part
# was written when handed over (docs/transformations.md, "Attached mode"):
# rows, columns, blocks and 3 ranks of columns, attached. Blocks on 4 ranks:
# 2 x 2 (columns in two, each half's rows in two bands).
LAYOUTS = [("rows", 1, 1), ("rows", 2, 2), ("rows", 3, 1), ("columns", 2, 1), ("blocks", 2, 1),
           ("rows", 2, 0), ("columns", 2, 0), ("blocks", 2, 0), ("columns", 3, 0), ("blocks", 4, 1),
           ("blocks", 4, 0)]
FILES = ["transform_out.nc", "transform_whole.nc"]


def run(mpmd, path, layout, clients, servers):
    text = XML.read_text().replace('name="transform_whole" output_freq="1ts" type="one_file" enabled="false"',
                                   'name="transform_whole" output_freq="1ts" type="one_file"')
    (path / "transform.xml").write_text(text)
    args = [PYTHON, MODEL, path / "transform.xml", STEPS] + ([layout] if layout != "rows" else [])
    result = mpmd(path, clients, servers, args, timeout=240)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "transform_model: OK" in result.stdout
    return path


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    from conftest import run_mpmd
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PYTHONPATH", str(BUILD / "python"))
        return run(run_mpmd, tmp_path_factory.mktemp("one"), "rows", 1, 0)


def test_reference_against_numpy(reference):
    with netCDF4.Dataset(reference / "transform_out.nc") as ds:
        ds.set_auto_mask(False)
        t, pr = ds["t"][:], ds["pr"][:]
        np.testing.assert_array_equal(ds["t_zonal"][:], sequential_mean(t, 3))
        np.testing.assert_array_equal(ds["t_zonal_sum"][:], sequential_sum(t, 3))
        np.testing.assert_array_equal(ds["t_zonal_min"][:], t.min(axis=3))
        np.testing.assert_array_equal(ds["t_zonal_max"][:], t.max(axis=3))
        np.testing.assert_array_equal(ds["t_zonal_area"][:], sequential_mean(t, 3, np.cos(np.radians(LAT))[:, None]))
    pr = np.where(pr == -999.0, np.nan, pr)
    area = np.cos(np.radians(LAT))[:, None] * np.ones(NI)
    with netCDF4.Dataset(reference / "transform_whole.nc") as ds:
        np.testing.assert_array_equal(ds["t_meridional_area"][:], sequential_mean(t, 2, area[None, None]))
        flat = t.reshape(STEPS, NLEV, NJ * NI)
        np.testing.assert_array_equal(ds["t_global_area"][:], sequential_mean(flat, 2, area.reshape(-1)))
        np.testing.assert_array_equal(ds["pr_global_sum"][:],
                                      sequential_sum(np.nan_to_num(pr.reshape(STEPS, NJ * NI)), 1))


@pytest.mark.parametrize("layout,clients,servers", LAYOUTS)
def test_same_bytes_as_one_rank(reference, tmp_path, mpmd, layout, clients, servers):
    run(mpmd, tmp_path, layout, clients, servers)
    for name in FILES:
        with netCDF4.Dataset(reference / name) as one, netCDF4.Dataset(tmp_path / name) as ds:
            assert set(one.variables) == set(ds.variables), name
            for var in one.variables:
                np.testing.assert_array_equal(ds[var][:], one[var][:], err_msg=f"{name} {var} {layout}")


RANKS_XML = ROOT / "tests/python/reduce_ranks.xml"
RANKS_MODEL = ROOT / "tests/python/reduce_ranks_model.py"


def sequential(values, op):
    """Along axis 0 (the ranks, or the points), skipping NaN, in order."""
    valid = ~np.isnan(values)
    if op in ("min", "max"):
        fill = np.inf if op == "min" else -np.inf
        out = getattr(np, op)(np.where(valid, values, fill), axis=0)
    else:
        out = sequential_sum(np.where(valid, values, 0.0), 0)
        if op == "average":
            out = out / valid.sum(axis=0)
    return np.where(valid.any(axis=0), out, np.nan)


# Across several model ranks, with servers and attached.
@pytest.mark.parametrize("clients,servers", [(1, 0), (2, 1), (2, 2), (3, 1), (2, 0), (3, 0)])
def test_across_ranks_against_numpy(tmp_path, mpmd, clients, servers):
    from reduce_ranks_model import a_values, col_values, s_value
    (tmp_path / "reduce_ranks.xml").write_text(RANKS_XML.read_text())
    result = mpmd(tmp_path, clients, servers, [PYTHON, RANKS_MODEL, tmp_path / "reduce_ranks.xml", STEPS], timeout=240)
    assert result.returncode == 0, result.stdout + result.stderr
    with netCDF4.Dataset(tmp_path / "reduce_ranks.nc") as ds:
        ds.set_auto_mask(False)
        for k, step in enumerate(range(1, STEPS + 1)):
            col = col_values(step)
            np.testing.assert_array_equal(ds["col"][k], col)  # NaN written as NaN (no fill value)
            # A decomposed axis reduced to a scalar: the same bits whatever the ranks.
            np.testing.assert_array_equal(ds["col_sum"][k], sequential(col, "sum"))
            np.testing.assert_array_equal(ds["col_max"][k], sequential(col, "max"))
            np.testing.assert_array_equal(ds["col_avg"][k], sequential(col, "average"))
            # reduce_axis into an axis, reduce_scalar: each point over the ranks, in rank order.
            a = np.array([a_values(r, step) for r in range(clients)])
            np.testing.assert_array_equal(ds["a_sum"][k], sequential(a, "sum"))
            np.testing.assert_array_equal(ds["a_min"][k], sequential(a, "min"))
            np.testing.assert_array_equal(ds["a_avg"][k], sequential(a, "average"))
            s = np.array([s_value(r, step) for r in range(clients)])
            np.testing.assert_array_equal(ds["s_sum"][k], sequential(s, "sum"))
            np.testing.assert_array_equal(ds["s_max"][k], sequential(s, "max"))
            np.testing.assert_array_equal(ds["s_avg"][k], sequential(s, "average"))
            # duplicate_scalar: the scalar (rank 0's, the one written) on each of the axis's 3 points.
            np.testing.assert_array_equal(ds["s_dup"][k], np.full(3, s_value(0, step)))
        np.testing.assert_array_equal(ds["w_sum"][:], [10, 20, 30, 40])
        np.testing.assert_array_equal(ds["dup"][:], [0, 1, 2])
