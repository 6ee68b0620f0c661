"""interpolate_domain with 2 and 3 model ranks writing the files
themselves (attached mode; interpolate_model.py, interpolate_attached.xml):
the first file holds a zoom in rank 0's rows only (the other ranks' parts
are empty) before the interpolated field, the order that hung before the
attached writer wrote an empty part only when handed over
(docs/transformations.md, "Attached mode"). The files must hold the same
bytes as one rank's; the zoom equals numpy's slice of the model's field and
the first-order conservative result keeps the area integral of the native
field written beside it (both grids cover the sphere)."""
import netCDF4
import numpy as np
import pytest

from conftest import BUILD, ROOT
from interpolate_model import NI, NJ, NLEV, t_values
from test_interpolate import quad_areas

pytestmark = pytest.mark.usefixtures("importable_package")

XML = ROOT / "tests/python/interpolate_attached.xml"
MODEL = ROOT / "tests/python/interpolate_model.py"
PYTHON = ROOT / ".venv/bin/python"
STEPS = 2
FILES = {"attached_first.nc": ("t_south", "t_con"), "attached_native.nc": ("t",)}


def run(mpmd, path, clients):
    (path / "interpolate_attached.xml").write_text(XML.read_text())
    result = mpmd(path, clients, 0, [PYTHON, MODEL, path / "interpolate_attached.xml", STEPS], timeout=240)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "interpolate_model: OK" in result.stdout
    return path


def values(path, name):
    with netCDF4.Dataset(path) as ds:
        ds.set_auto_mask(False)
        return np.asarray(ds[name][:])


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    from conftest import run_mpmd
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PYTHONPATH", str(BUILD / "python"))
        return run(run_mpmd, tmp_path_factory.mktemp("one"), 1)


def cell_areas(n_lon, n_lat):
    lon_edges, lat_edges = np.linspace(0.0, 360.0, n_lon + 1), np.linspace(-90.0, 90.0, n_lat + 1)
    w, s = np.meshgrid(lon_edges[:-1], lat_edges[:-1])
    e, n = np.meshgrid(lon_edges[1:], lat_edges[1:])
    return quad_areas(w, e, s, n)


def test_reference_against_numpy(reference):
    south = values(reference / "attached_first.nc", "t_south")
    native = values(reference / "attached_native.nc", "t")
    source_area, target_area = cell_areas(NI, NJ), cell_areas(180, 90)
    for k, step in enumerate(range(1, STEPS + 1)):
        np.testing.assert_array_equal(south[k], t_values(step)[:, 0:4, :])
        np.testing.assert_array_equal(native[k], t_values(step))
    con = values(reference / "attached_first.nc", "t_con")
    assert con.shape == (STEPS, NLEV, 90, 180)
    for k in range(STEPS):
        for level in range(NLEV):
            want = np.sum(source_area * native[k, level])
            got = np.sum(target_area * con[k, level])
            assert abs(got - want) <= 1e-12 * abs(want), (k, level, got, want)


@pytest.mark.parametrize("clients", [2, 3])
def test_same_bytes_as_one_rank(reference, tmp_path, mpmd, clients):
    run(mpmd, tmp_path, clients)
    for name, variables in FILES.items():
        for var in variables:
            np.testing.assert_array_equal(values(tmp_path / name, var), values(reference / name, var),
                                          err_msg=f"{name} {var} {clients} ranks")
