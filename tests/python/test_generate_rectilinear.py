"""generate_rectilinear_domain alone in its domain, as XIOS's
test_new_features uses it (generate_rectilinear.xml, model
interpolate_model.py): foehn fills the generated domain from the source
field's domain by conservative interpolation (order 2), the same steps as
<generate_rectilinear_domain/><interpolate_domain/>. Checked: the written
centres and bounds against the analytic regular grid (XIOS's defaults for
the whole sphere; lon_start/lon_end and bounds_lat_start/bounds_lat_end for
the box), the values against the explicit pair (same bytes), the area
integral over the sphere against the native field's, and the same bytes for
attached 1 and 2 ranks and 1+1 and 2+2 servers."""
import netCDF4
import numpy as np
import pytest

from conftest import ROOT
from interpolate_model import NI, NJ, NLEV
from test_interpolate import quad_areas

pytestmark = pytest.mark.usefixtures("importable_package")

XML = ROOT / "tests/python/generate_rectilinear.xml"
MODEL = ROOT / "tests/python/interpolate_model.py"
PYTHON = ROOT / ".venv/bin/python"
STEPS = 2
LAYOUTS = [(1, 0), (2, 0), (1, 1), (2, 2)]
VARIABLES = ("t_globe", "t_globe_pair", "t_box", "t_box_pair")


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    from conftest import run_mpmd
    done = {}
    with pytest.MonkeyPatch.context() as patch:
        from conftest import BUILD
        patch.setenv("PYTHONPATH", str(BUILD / "python"))
        for clients, servers in LAYOUTS:
            work = tmp_path_factory.mktemp(f"gen{clients}_{servers}")
            (work / "generate_rectilinear.xml").write_text(XML.read_text())
            result = run_mpmd(work, clients, servers, [PYTHON, MODEL, work / "generate_rectilinear.xml", STEPS],
                              timeout=240)
            assert result.returncode == 0, result.stdout + result.stderr
            assert "interpolate_model: OK" in result.stdout
            done[(clients, servers)] = work
    return done


def values(path, name):
    with netCDF4.Dataset(path) as ds:
        ds.set_auto_mask(False)
        return np.asarray(ds[name][:])


def coordinates(path, variable):
    """The centres and bounds of the variable's domain (lon, lat, bounds_lon, bounds_lat)."""
    with netCDF4.Dataset(path) as ds:
        ds.set_auto_mask(False)
        lat_dim, lon_dim = ds[variable].dimensions[-2:]
        lon, lat = ds[lon_dim], ds[lat_dim]
        return (np.asarray(lon[:]), np.asarray(lat[:]), np.asarray(ds[lon.bounds][:]),
                np.asarray(ds[lat.bounds][:]))


def regular(first_bound, step, n):
    edges = first_bound + step * np.arange(n + 1)
    return (edges[:-1] + edges[1:]) / 2, np.stack([edges[:-1], edges[1:]], 1)


def test_coordinates_are_the_analytic_grid(outputs):
    path = outputs[(1, 0)] / "gen.nc"
    lon, lat, blon, blat = coordinates(path, "t_globe")
    want_lon, want_blon = regular(0.0, 10.0, 36)  # XIOS's defaults: bounds 0..360 and -90..90
    want_lat, want_blat = regular(-90.0, 10.0, 18)
    np.testing.assert_allclose(lon, want_lon, rtol=0, atol=1e-12)
    np.testing.assert_allclose(lat, want_lat, rtol=0, atol=1e-12)
    np.testing.assert_allclose(blon, want_blon, rtol=0, atol=1e-12)
    np.testing.assert_allclose(blat, want_blat, rtol=0, atol=1e-12)
    lon, lat, blon, blat = coordinates(path, "t_box")
    # lon_start=-20, lon_end=18 over 20 cells: centres 2 degrees apart;
    # bounds_lat_start=-30, bounds_lat_end=30 over 10 cells: 6 degrees.
    want_lon, want_blon = regular(-21.0, 2.0, 20)
    want_lat, want_blat = regular(-30.0, 6.0, 10)
    np.testing.assert_allclose(lon, want_lon, rtol=0, atol=1e-12)
    np.testing.assert_allclose(lat, want_lat, rtol=0, atol=1e-12)
    np.testing.assert_allclose(blon, want_blon, rtol=0, atol=1e-12)
    np.testing.assert_allclose(blat, want_blat, rtol=0, atol=1e-12)


def test_alone_equals_the_explicit_interpolation(outputs):
    path = outputs[(1, 0)] / "gen.nc"
    for alone in ("t_globe", "t_box"):
        got, want = values(path, alone), values(path, alone + "_pair")
        assert got.shape == want.shape and got.shape[:2] == (STEPS, NLEV)
        np.testing.assert_array_equal(got, want)


def test_globe_keeps_the_area_integral(outputs):
    work = outputs[(1, 0)]
    native = values(work / "native.nc", "t")
    ours = values(work / "gen.nc", "t_globe")
    le, be = np.arange(NI + 1) * 360.0 / NI, -90.0 + np.arange(NJ + 1) * 180.0 / NJ
    w, s = np.meshgrid(le[:-1], be[:-1])
    e, n = np.meshgrid(le[1:], be[1:])
    source_area = quad_areas(w, e, s, n)
    tw, ts = np.meshgrid(np.arange(36) * 10.0, -90.0 + np.arange(18) * 10.0)
    target_area = quad_areas(tw, tw + 10.0, ts, ts + 10.0)
    for k in range(STEPS):
        for level in range(NLEV):
            want = np.sum(source_area * native[k, level])
            got = np.sum(target_area * ours[k, level])
            assert abs(got - want) <= 1e-12 * abs(want), (k, level, got, want)


def field_at(lon, lat, step):
    """interpolate_model.t_values's formula at any (lat, lon): (NLEV, lat, lon)."""
    k, la, lo = np.meshgrid(np.arange(NLEV), np.radians(lat), np.radians(lon), indexing="ij")
    return 250.0 + 30.0 * np.cos(la) + 8.0 * np.cos(la) ** 2 * np.sin(2 * lo) * (1 + 0.3 * k) + 2.0 * k + 0.1 * step


def test_box_values_near_the_field_at_the_centres(outputs):
    """Second-order conservative values over 2 x 6 degree cells, across
    longitude 0, of a smooth field given on 5-degree cells: within 0.2 K of
    the field's formula at the target cells' centres (the field varies by
    up to 1.4 K across a source cell; a second-order reconstruction leaves
    errors of a few hundredths)."""
    work = outputs[(1, 0)]
    box = values(work / "gen.nc", "t_box")
    lon, lat, _, _ = coordinates(work / "gen.nc", "t_box")
    for k, step in enumerate(range(1, STEPS + 1)):
        error = np.max(np.abs(box[k] - field_at(lon, lat, step)))
        assert error < 0.2, (step, error)


@pytest.mark.parametrize("layout", LAYOUTS[1:])
def test_same_bytes_in_every_layout(outputs, layout):
    for var in VARIABLES:
        np.testing.assert_array_equal(values(outputs[layout] / "gen.nc", var), values(outputs[(1, 0)] / "gen.nc", var),
                                      err_msg=f"{var} {layout}")
