"""interpolate_domain end to end (interpolate_model.py, interpolate.xml): a
5-degree lat-lon source with bounds, split in bands of rows among the model
ranks, onto a generated 2-degree grid. Checked against independent
references: `cdo remapcon` on foehn's own native output (first order),
a numpy brute-force nearest neighbour, the area integral (numpy areas of
the same great-circle cells), cdo's weights (`cdo gencon`) read by foehn
against `cdo remap`; and the files of 1 and 2 model ranks without servers
and 1 model + 1 server hold the same values bit for bit."""
import shutil
import subprocess

import netCDF4
import numpy as np
import pytest

from conftest import BUILD, ROOT

pytestmark = [pytest.mark.usefixtures("importable_package"),
              pytest.mark.skipif(shutil.which("cdo") is None, reason="cdo is not installed")]

XML = ROOT / "tests/python/interpolate.xml"
MODEL = ROOT / "tests/python/interpolate_model.py"
PYTHON = ROOT / ".venv/bin/python"
DRIVER = BUILD / "src/transform/remap/foehn_remap_driver"
STEPS, NI, NJ = 2, 72, 36
RUNS = [(1, 0), (2, 0), (1, 1)]


def run_model(mpmd, path, clients, servers, read=False):
    text = XML.read_text()
    if read:
        text = text.replace('name="interp_read" output_freq="1ts" type="one_file" enabled="false"',
                            'name="interp_read" output_freq="1ts" type="one_file"')
    (path / "interpolate.xml").write_text(text)
    result = mpmd(path, clients, servers, [PYTHON, MODEL, path / "interpolate.xml", STEPS])
    assert result.returncode == 0, result.stdout + result.stderr
    assert "interpolate_model: OK" in result.stdout


def cdo(*args):
    out = subprocess.run(["cdo", "-s", *map(str, args)], capture_output=True, text=True, errors="replace",
                         timeout=300)
    assert out.returncode == 0, out.stderr


def values(path, name):
    with netCDF4.Dataset(path) as ds:
        ds.set_auto_mask(False)
        return np.asarray(ds[name][:], dtype=np.float64)


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    from conftest import run_mpmd
    dirs = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PYTHONPATH", str(BUILD / "python"))
        for clients, servers in RUNS:
            dirs[(clients, servers)] = tmp_path_factory.mktemp(f"ip{clients}x{servers}")
            run_model(run_mpmd, dirs[(clients, servers)], clients, servers)
        # The target as cells with great-circle edges (cdo reads them as unstructured).
        work = dirs[(1, 0)]
        out = subprocess.run([str(DRIVER), "grid", "regular:180x90", str(work / "r2.nc")], capture_output=True,
                             text=True, errors="replace", timeout=60)
        assert out.returncode == 0, out.stderr
        with netCDF4.Dataset(work / "r2.nc", "a") as nc:  # cdo reads a grid from a file with a field on it
            f = nc.createVariable("f", "f8", ("ncells",))
            f.coordinates = "lat lon"
            f[:] = 0.0
        # Weights from cdo on foehn's own native output, then read by foehn (2 ranks).
        cdo(f"gencon,{work / 'r2.nc'}", work / "interp_native.nc", work / "w_cdo.nc")
        read_dir = tmp_path_factory.mktemp("ipread")
        shutil.copy(work / "w_cdo.nc", read_dir / "w_cdo.nc")
        run_model(run_mpmd, read_dir, 2, 0, read=True)
        dirs["read"] = read_dir
    return dirs


def test_same_bits_whatever_the_ranks_and_servers(outputs):
    for name in ("t_con", "t_con2", "t_near", "pr_con"):
        reference = values(outputs[(1, 0)] / "interp_out.nc", name)
        assert reference.shape == ((STEPS, 90, 180) if name == "pr_con" else (STEPS, 3, 90, 180))
        for run in RUNS[1:]:
            np.testing.assert_array_equal(values(outputs[run] / "interp_out.nc", name), reference, err_msg=str(run))


def test_target_coordinates(outputs):
    """The generated 2-degree grid (XIOS's defaults: cells from 0 and -90)
    and the shifted one of the nearest-neighbour target, with bounds."""
    with netCDF4.Dataset(outputs[(2, 0)] / "interp_out.nc") as ds:
        # Several domains in the file: each name has its domain's suffix, as in XIOS.
        np.testing.assert_allclose(ds["lon_r2"][:], 1.0 + 2.0 * np.arange(180), atol=1e-12)
        np.testing.assert_allclose(ds["lat_r2"][:], -89.0 + 2.0 * np.arange(90), atol=1e-12)
        np.testing.assert_allclose(ds["bounds_lat_r2"][:], np.stack([-90.0 + 2 * np.arange(90), -88.0 + 2 * np.arange(90)], 1),
                                   atol=1e-12)
        np.testing.assert_allclose(ds["lon_r2_nn"][:], 0.3 + 2.0 * np.arange(180), atol=1e-12)
        np.testing.assert_allclose(ds["lat_r2_nn"][:], -89.3 + 2.0 * np.arange(90), atol=1e-12)


def test_first_order_against_cdo_remapcon(outputs):
    """cdo bounds the rectilinear source's cells by latitude circles, foehn
    (as XIOS) by great circles through the same corners: they differ by
    slivers of height at most dlon^2/16 (radians), which move at most that
    over the target's height H of a target cell from one source row to the
    next, twice per target cell (test_remap_kernels.py derives it):
    |foehn - cdo| <= 2 (dlon^2/16) / H * (largest north-south difference)."""
    work = outputs[(1, 0)]
    cdo(f"remapcon,{work / 'r2.nc'}", work / "interp_native.nc", work / "t_cdo.nc")
    native = values(work / "interp_native.nc", "t")
    ours = values(work / "interp_out.nc", "t_con")
    theirs = values(work / "t_cdo.nc", "t").reshape(ours.shape)
    neighbour = np.max(np.abs(np.diff(native, axis=2)))
    bound = 2 * np.radians(5.0) ** 2 / 16 / np.radians(2.0) * neighbour
    difference = np.max(np.abs(ours - theirs))
    assert difference <= bound, (difference, bound)
    assert bound < 2e-3 * (native.max() - native.min())  # tight enough to mean something


def test_cdo_weights_read_equal_cdo_remap(outputs):
    """mode="read" with `cdo gencon` weights: the same weights applied, so
    the same values up to the order of the sums (1e-12 of the range)."""
    work = outputs[(1, 0)]
    cdo(f"remap,{work / 'r2.nc'},{work / 'w_cdo.nc'}", work / "interp_native.nc", work / "t_remap.nc")
    ours = values(outputs["read"] / "interp_read.nc", "t_read")
    theirs = values(work / "t_remap.nc", "t").reshape(ours.shape)
    native = values(work / "interp_native.nc", "t")
    assert np.max(np.abs(ours - theirs)) <= 1e-12 * (native.max() - native.min())


def unit_vectors(lon, lat):
    lo, la = np.radians(lon), np.radians(lat)
    return np.stack([np.cos(la) * np.cos(lo), np.cos(la) * np.sin(lo), np.sin(la)], -1)


def corner_quad_areas(c):
    """Areas of cells with great-circle edges through their four corners
    c[0..3] (unit vectors, in order): two triangles each (Van Oosterom and
    Strackee)."""
    def triangle(a, b, d):
        num = np.abs(np.einsum("...i,...i", a, np.cross(b, d)))
        den = 1 + np.einsum("...i,...i", a, b) + np.einsum("...i,...i", b, d) + np.einsum("...i,...i", d, a)
        return 2 * np.arctan2(num, den)
    return triangle(c[0], c[1], c[2]) + triangle(c[0], c[2], c[3])


def quad_areas(west, east, south, north):
    return corner_quad_areas([unit_vectors(west, south), unit_vectors(east, south), unit_vectors(east, north),
                              unit_vectors(west, north)])


def test_second_order_conserves_the_area_integral(outputs):
    """Both grids cover the sphere, so sum(A_target y) = sum(A_source x)
    with the cells' own areas (order 2's gradient terms integrate to zero
    over each source cell): to 1e-12 relative."""
    work = outputs[(1, 0)]
    native = values(work / "interp_native.nc", "t")
    ours = values(work / "interp_out.nc", "t_con2")
    le, be = np.arange(NI + 1) * 5.0, -90.0 + np.arange(NJ + 1) * 5.0
    w, s = np.meshgrid(le[:-1], be[:-1])
    e, n = np.meshgrid(le[1:], be[1:])
    source_area = quad_areas(w, e, s, n)
    le, be = np.arange(181) * 2.0, -90.0 + np.arange(91) * 2.0
    w, s = np.meshgrid(le[:-1], be[:-1])
    e, n = np.meshgrid(le[1:], be[1:])
    target_area = quad_areas(w, e, s, n)
    assert abs(source_area.sum() - 4 * np.pi) < 1e-12 and abs(target_area.sum() - 4 * np.pi) < 1e-12
    for step in range(STEPS):
        for k in range(3):
            want = np.sum(source_area * native[step, k])
            got = np.sum(target_area * ours[step, k])
            assert abs(got - want) <= 1e-12 * abs(want), (step, k, got, want)


def test_nearest_equals_brute_force(outputs):
    """Each target takes the source whose centre is closest (chord
    distance, ties to the lower index), found by numpy over all pairs."""
    work = outputs[(2, 0)]
    native = values(work / "interp_native.nc", "t")
    ours = values(work / "interp_out.nc", "t_near")
    with netCDF4.Dataset(work / "interp_native.nc") as ds:
        slon, slat = np.meshgrid(ds["lon"][:], ds["lat"][:])
    with netCDF4.Dataset(work / "interp_out.nc") as ds:
        tlon, tlat = np.meshgrid(ds["lon_r2_nn"][:], ds["lat_r2_nn"][:])
    sv, tv = unit_vectors(slon.ravel(), slat.ravel()), unit_vectors(tlon.ravel(), tlat.ravel())
    distance = np.sum((tv[:, None, :] - sv[None, :, :]) ** 2, axis=-1)
    nearest = np.argmin(distance, axis=1)  # the first of equal minima: the lower index
    want = native.reshape(STEPS, 3, -1)[:, :, nearest].reshape(ours.shape)
    np.testing.assert_array_equal(ours, want)


def test_vertical_linear_profile_is_exact(outputs):
    """interpolate_axis order 1 between the levels 1, 2, 3 of a field
    linear in the level: the weights' sum of the two neighbours (numpy),
    to rounding."""
    native = values(outputs[(2, 0)] / "interp_native.nc", "t")
    ours = values(outputs[(2, 0)] / "interp_native.nc", "t_half")
    want = np.stack([0.5 * native[:, 0] + 0.5 * native[:, 1], 0.75 * native[:, 1] + 0.25 * native[:, 2],
                     0.25 * native[:, 1] + 0.75 * native[:, 2]], axis=1)
    np.testing.assert_allclose(ours, want, rtol=1e-14, atol=0)
    # and the profile's own value at the target level, exactly linear
    np.testing.assert_allclose(ours[:, 0], native[:, 0] + 0.5 * (native[:, 1] - native[:, 0]), rtol=1e-14)


def test_missing_values_skipped_with_the_weights_written(outputs):
    """detect_missing_value + renormalize: each target is the sum over its
    valid sources of weight x value over the sum of their weights (numpy,
    with the weights foehn wrote in XIOS's layout, 1-based); targets with
    no valid source are missing. The file is the same from 1 and 2 ranks."""
    work = outputs[(1, 0)]
    with netCDF4.Dataset(work / "w_pr.nc") as nc:
        src, dst, weight = nc["src_idx"][:] - 1, nc["dst_idx"][:] - 1, nc["weight"][:]
    with netCDF4.Dataset(outputs[(2, 0)] / "w_pr.nc") as nc:
        np.testing.assert_array_equal(nc["src_idx"][:] - 1, src)
        np.testing.assert_array_equal(nc["weight"][:], weight)
    native = values(work / "interp_native.nc", "pr").reshape(STEPS, -1)
    ours = values(work / "interp_out.nc", "pr_con").reshape(STEPS, -1)
    assert np.sum(native == -999.0) > 100  # the test has missing values to skip
    for step in range(STEPS):
        x = native[step, src]
        ok = x != -999.0
        num = np.bincount(dst, np.where(ok, weight * x, 0.0), minlength=90 * 180)
        den = np.bincount(dst, np.where(ok, weight, 0.0), minlength=90 * 180)
        valid = den > 0
        np.testing.assert_allclose(ours[step, valid], num[valid] / den[valid], rtol=1e-12)
        assert np.all(ours[step, ~valid] == -999.0)
