"""interpolate_domain onto HEALPix domains (docs/remapping.md): the
5-degree lat-lon source of interpolate_model.py onto level 3 nested by
nearest neighbour, equal to a brute-force search over healpy's cell
centres; onto level 2 ring by first-order conservative remapping, whose
cells are the great-circle quadrilaterals through healpy's corners: the
area integral is conserved to 1e-12 and a smooth field stays within its
cells' range; the target's CF HEALPix metadata; the same bits with 1 and 2
model ranks and with a server."""
import healpy
import netCDF4
import numpy as np
import pytest

from conftest import BUILD, ROOT, run_mpmd
from test_interpolate import NI, NJ, corner_quad_areas, quad_areas, unit_vectors, values

XML = ROOT / "tests/python/interpolate_healpix.xml"
MODEL = ROOT / "tests/python/interpolate_model.py"
PYTHON = ROOT / ".venv/bin/python"
STEPS = 2
RUNS = [(1, 0), (2, 0), (1, 1)]


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    dirs = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PYTHONPATH", str(BUILD / "python"))
        for clients, servers in RUNS:
            d = tmp_path_factory.mktemp(f"iphp{clients}x{servers}")
            run = run_mpmd(d, clients, servers, [PYTHON, MODEL, XML, STEPS])
            assert run.returncode == 0 and "interpolate_model: OK" in run.stdout, run.stdout + run.stderr
            dirs[(clients, servers)] = d
    return dirs


def corner_areas(nside, nest):
    """Great-circle quadrilaterals through each cell's 4 corners (healpy)."""
    return corner_quad_areas(np.transpose(healpy.boundaries(nside, np.arange(12 * nside**2), step=1, nest=nest),
                                          (2, 0, 1)))


def test_same_bits_whatever_the_ranks_and_servers(outputs):
    for name in ("t_near", "t_con"):
        first = values(outputs[RUNS[0]] / "hp_out.nc", name)
        for config in RUNS[1:]:
            np.testing.assert_array_equal(values(outputs[config] / "hp_out.nc", name), first, err_msg=str(config))


def test_healpix_target_metadata(outputs):
    with netCDF4.Dataset(outputs[(1, 0)] / "hp_out.nc") as ds:
        crs = {ds[n].grid_mapping for n in ("t_near", "t_con")}
        assert len(crs) == 2
        levels = sorted((ds[c].refinement_level, ds[c].indexing_scheme) for c in crs)
        assert levels == [(2, "ring"), (3, "nested")]
        assert ds["t_near"].shape == (STEPS, 3, 12 * 4**3) and ds["t_con"].shape == (STEPS, 3, 12 * 4**2)


def test_nearest_equals_brute_force_over_healpy_centres(outputs):
    work = outputs[(2, 0)]
    native = values(work / "hp_native.nc", "t").reshape(STEPS, 3, -1)
    ours = values(work / "hp_out.nc", "t_near")
    with netCDF4.Dataset(work / "hp_native.nc") as ds:
        slon, slat = np.meshgrid(ds["lon"][:], ds["lat"][:])
    tlon, tlat = healpy.pix2ang(8, np.arange(12 * 64), nest=True, lonlat=True)
    sv, tv = unit_vectors(slon.ravel(), slat.ravel()), unit_vectors(tlon, tlat)
    distance = np.sum((tv[:, None, :] - sv[None, :, :]) ** 2, axis=-1)
    tied = distance <= distance.min(axis=1, keepdims=True) + 1e-12  # some HEALPix centres lie half way
    single = tied.sum(axis=1) == 1
    assert single.mean() > 0.5  # 81 % of the targets have one nearest source
    np.testing.assert_array_equal(ours[:, :, single], native[:, :, np.argmax(tied, axis=1)][:, :, single])
    for target in np.flatnonzero(~single):  # one of the equally near sources, the same at every level and step
        candidates = np.flatnonzero(tied[target])
        match = [np.array_equal(ours[:, :, target], native[:, :, c]) for c in candidates]
        assert any(match), target


def test_conservative_keeps_the_area_integral(outputs):
    """Both grids cover the sphere: sum(A_target y) = sum(A_source x) to
    1e-12 relative, with the target's areas computed here from healpy's
    corners; each value inside the range of the field (a weighted mean)."""
    work = outputs[(1, 1)]
    native = values(work / "hp_native.nc", "t")
    ours = values(work / "hp_out.nc", "t_con")
    le, be = np.arange(NI + 1) * 360.0 / NI, -90.0 + np.arange(NJ + 1) * 180.0 / NJ
    w, s = np.meshgrid(le[:-1], be[:-1])
    e, n = np.meshgrid(le[1:], be[1:])
    source_area = quad_areas(w, e, s, n)
    target_area = corner_areas(4, nest=False)
    assert abs(target_area.sum() - 4 * np.pi) < 1e-12
    for step in range(STEPS):
        for k in range(3):
            want = np.sum(source_area * native[step, k])
            got = np.sum(target_area * ours[step, k])
            assert abs(got - want) <= 1e-12 * abs(want), (step, k, got, want)
            assert native[step, k].min() - 1e-9 <= ours[step, k].min()
            assert ours[step, k].max() <= native[step, k].max() + 1e-9
