"""The remapping kernels (src/transform/remap) against cdo on the same
grids: weights computed by foehn against `cdo gencon` + `cdo remap`,
cdo's own weights read by foehn's SCRIP reader (and rewritten as ESMF)
against cdo's result, missing values against a numpy re-application of the
weights, nearest neighbour against a brute-force numpy search.

The grids go to both as unstructured CF files with bounds (written by
foehn_remap_driver), so cdo and foehn clip the same great-circle polygons.
"""
import json
import shutil
import subprocess

import netCDF4
import numpy as np
import pytest

from conftest import BUILD

DRIVER = BUILD / "src" / "transform" / "remap" / "foehn_remap_driver"
pytestmark = pytest.mark.skipif(shutil.which("cdo") is None, reason="cdo is not installed")


def run(*args):
    out = subprocess.run([str(a) for a in args], capture_output=True, text=True, errors="replace", timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout


def driver(*args):
    return json.loads(run(DRIVER, *args) or "{}")


def smooth(lon, lat):
    lon, lat = np.radians(lon), np.radians(lat)
    return 2.0 + np.cos(lat) ** 2 * np.cos(2 * lon) + 0.5 * np.sin(3 * lat)


def grid_with_field(path, spec, records=1):
    """Writes grid `spec` to path and a field f (records x cells) on it."""
    run(DRIVER, "grid", spec, path)
    with netCDF4.Dataset(path, "a") as nc:
        lon, lat = nc["lon"][:], nc["lat"][:]
        nc.createDimension("time", None)
        f = nc.createVariable("f", "f8", ("time", "ncells"), fill_value=-9.0e33)
        f.coordinates = "lat lon"
        values = np.array([smooth(lon + 10 * r, lat) for r in range(records)])
        f[:] = values
    return lon, lat, values


def read(path, var="f"):
    with netCDF4.Dataset(path) as nc:
        return np.ma.filled(nc[var][:].astype(float), np.nan).reshape(-1)


@pytest.fixture(scope="module")
def grids(tmp_path_factory):
    d = tmp_path_factory.mktemp("remap")
    src, dst = d / "src.nc", d / "dst.nc"
    lon, lat, values = grid_with_field(src, "octahedral:24")
    grid_with_field(dst, "regular:120x60")  # cdo reads a grid from a file with a field on it
    run("cdo", "-s", f"gencon,{dst}", src, d / "w_cdo.nc")
    run("cdo", "-s", f"remap,{dst},{d / 'w_cdo.nc'}", src, d / "out_cdo.nc")
    return d, src, dst, values.reshape(-1)


def test_conservative_weights_match_cdo_gencon(grids):
    d, src, dst, x = grids
    # cdo's default normalisation is fracarea: XIOS's renormalize="true".
    info = driver("weights", "--src", src, "--dst", dst, "--out", d / "w_foehn.nc", "--renormalize")
    driver("apply", "--weights", d / "w_foehn.nc", "--in", src, "--out", d / "out_foehn.nc")
    ours, theirs = read(d / "out_foehn.nc"), read(d / "out_cdo.nc")
    assert ours.shape == theirs.shape == (120 * 60,)
    # Both clip the same great-circle polygons exactly; what differs is
    # rounding in the clipping and area formulas (cdo: YAC's, ours: Van
    # Oosterom-Strackee on edge vectors), ~1e-15 relative (measured: 3.6e-15
    # on a range of 2.6), and slivers along shared edges that one side keeps
    # with weights ~1e-14. 1e-12 of the range is well above both and far
    # below any geometric difference (a 3-degree cell edge misplaced by 1e-6
    # degrees changes values by ~1e-7 of the range).
    span = x.max() - x.min()
    assert np.max(np.abs(ours - theirs)) <= 1e-12 * span
    # The matrices themselves: the same links, weights to rounding.
    with netCDF4.Dataset(d / "w_cdo.nc") as nc:
        cdo_w = {(int(j), int(i)): w for j, i, w in
                 zip(nc["dst_address"][:], nc["src_address"][:], nc["remap_matrix"][:, 0])}
    with netCDF4.Dataset(d / "w_foehn.nc") as nc:
        our_w = {(int(j), int(i)): w for j, i, w in zip(nc["dst_idx"][:], nc["src_idx"][:], nc["weight"][:])}
    big = {k for k, w in cdo_w.items() if w > 1e-10} | {k for k, w in our_w.items() if w > 1e-10}
    assert len(big) >= 120 * 60
    assert max(abs(cdo_w.get(k, 0.0) - our_w.get(k, 0.0)) for k in big) <= 1e-12
    assert info["terms"] >= 120 * 60


def test_cdo_weights_read_by_foehn_equal_cdo_remap(grids):
    d, src, dst, x = grids
    driver("apply", "--weights", d / "w_cdo.nc", "--in", src, "--out", d / "out_scrip.nc")
    ours, theirs = read(d / "out_scrip.nc"), read(d / "out_cdo.nc")
    # The same weights summed in the same link order: equal to rounding.
    np.testing.assert_allclose(ours, theirs, rtol=4e-15, atol=0)


def test_esmf_and_xios_files_give_the_same_result(grids):
    d, src, dst, x = grids
    with netCDF4.Dataset(d / "w_cdo.nc") as nc:
        rows, cols, s = nc["dst_address"][:], nc["src_address"][:], nc["remap_matrix"][:, 0]
        n_a, n_b = len(nc.dimensions["src_grid_size"]), len(nc.dimensions["dst_grid_size"])
    with netCDF4.Dataset(d / "w_esmf.nc", "w") as nc:
        nc.createDimension("n_a", n_a), nc.createDimension("n_b", n_b), nc.createDimension("n_s", len(s))
        for name, values, kind in (("row", rows, "i4"), ("col", cols, "i4"), ("S", s, "f8")):
            nc.createVariable(name, kind, ("n_s",))[:] = values
    driver("apply", "--weights", d / "w_esmf.nc", "--in", src, "--out", d / "out_esmf.nc")
    np.testing.assert_array_equal(read(d / "out_esmf.nc"), read(d / "out_scrip.nc") if (d / "out_scrip.nc").exists()
                                  else read(d / "out_cdo.nc"))
    # A numpy application of the XIOS file foehn wrote equals foehn's result.
    driver("weights", "--src", src, "--dst", dst, "--out", d / "w_c.nc", "--renormalize", "--c-convention")
    with netCDF4.Dataset(d / "w_c.nc") as nc:
        j, i, w = nc["dst_idx"][:], nc["src_idx"][:], nc["weight"][:]
        assert j.min() == 0 and i.min() == 0
    y = np.zeros(120 * 60)
    np.add.at(y, j, w * x[i])
    driver("weights", "--src", src, "--dst", dst, "--out", d / "w_f.nc", "--renormalize")
    driver("apply", "--weights", d / "w_f.nc", "--in", src, "--out", d / "out_f.nc")
    np.testing.assert_allclose(read(d / "out_f.nc"), y, rtol=1e-14)


def test_missing_values_are_skipped_and_renormalised(grids, tmp_path):
    d, src, dst, x = grids
    holed = tmp_path / "holed.nc"
    shutil.copy(src, holed)
    rng = np.random.default_rng(20)
    missing = rng.random(x.size) < 0.2
    with netCDF4.Dataset(holed, "a") as nc:
        v = nc["f"][:].reshape(-1)
        v[missing] = -9.0e33
        nc["f"][:] = v.reshape(1, -1)
    w_file = d / "w_foehn.nc"
    if not w_file.exists():
        driver("weights", "--src", src, "--dst", dst, "--out", w_file, "--renormalize")
    with netCDF4.Dataset(w_file) as nc:
        j, i, w = nc["dst_idx"][:] - 1, nc["src_idx"][:] - 1, nc["weight"][:]
    valid = ~missing[i]
    num, den, cnt = np.zeros(7200), np.zeros(7200), np.zeros(7200)
    np.add.at(num, j[valid], w[valid] * x[i[valid]])
    np.add.at(den, j[valid], w[valid])
    np.add.at(cnt, j[valid], 1)
    for renormalize, expected in ((True, num / np.where(den > 0, den, 1)), (False, num)):
        out = tmp_path / f"out_{renormalize}.nc"
        args = ["apply", "--weights", w_file, "--in", holed, "--out", out, "--detect-missing"]
        driver(*(args + (["--renormalize"] if renormalize else [])))
        got = read(out)
        assert np.all(np.isnan(got[cnt == 0]))  # no valid source: the fill value
        assert (cnt == 0).sum() < 7200 // 10
        np.testing.assert_allclose(got[cnt > 0], expected[cnt > 0], rtol=1e-13)
    # Renormalised, a field that is constant where valid stays constant.
    with netCDF4.Dataset(holed, "a") as nc:
        nc["f"][:] = np.where(missing, -9.0e33, 4.25).reshape(1, -1)
    driver("apply", "--weights", w_file, "--in", holed, "--out", tmp_path / "c.nc", "--detect-missing",
           "--renormalize")
    c = read(tmp_path / "c.nc")
    np.testing.assert_allclose(c[~np.isnan(c)], 4.25, rtol=1e-14)


def test_nearest_matches_brute_force(tmp_path):
    src, dst = tmp_path / "src.nc", tmp_path / "dst.nc"
    lon, lat, values = grid_with_field(src, "octahedral:12")
    grid_with_field(dst, "regular:90x45")
    driver("weights", "--src", src, "--dst", dst, "--out", tmp_path / "w.nc", "--method", "nearest")
    driver("apply", "--weights", tmp_path / "w.nc", "--in", src, "--out", tmp_path / "out.nc")
    with netCDF4.Dataset(dst) as nc:
        dlon, dlat = nc["lon"][:], nc["lat"][:]

    def xyz(lo, la):
        lo, la = np.radians(lo), np.radians(la)
        return np.stack([np.cos(la) * np.cos(lo), np.cos(la) * np.sin(lo), np.sin(la)], axis=-1)

    d2 = ((xyz(dlon, dlat)[:, None, :] - xyz(lon, lat)[None, :, :]) ** 2).sum(-1)
    expected = values.reshape(-1)[np.argmin(d2, axis=1)]
    np.testing.assert_array_equal(read(tmp_path / "out.nc"), expected)


def write_rectilinear(path, step):
    """A global lat-lon field of `step`-degree cells as a CF rectilinear
    file (1-D lon and lat with bounds); returns the field (lat, lon)."""
    lon = np.arange(0, 360, step) + step / 2
    lat = np.arange(-90, 90, step) + step / 2
    with netCDF4.Dataset(path, "w") as nc:
        nc.createDimension("lon", lon.size), nc.createDimension("lat", lat.size), nc.createDimension("bnds", 2)
        for name, values, units in (("lon", lon, "degrees_east"), ("lat", lat, "degrees_north")):
            v = nc.createVariable(name, "f8", (name,))
            v[:], v.units, v.bounds = values, units, f"{name}_bnds"
            nc.createVariable(f"{name}_bnds", "f8", (name, "bnds"))[:] = np.stack([values - step / 2,
                                                                                   values + step / 2], 1)
        field = smooth(*np.meshgrid(lon, lat))
        nc.createVariable("f", "f8", ("lat", "lon"))[:] = field
    return field


def test_rectilinear_source_against_cdo_remapcon(tmp_path):
    """A 4-degree lat-lon source given to cdo as a rectilinear grid: cdo
    bounds its cells by latitude circles, foehn (as XIOS) by great circles.
    The two differ by the slivers between a latitude circle and the great
    circle through the same two corners, whose height is at most
    dlon^2/8 * sin(lat) cos(lat) <= dlon^2/16 (radians). A source edge
    crossing a target cell of height H moves at most that height / H of the
    target's area from one source row to its neighbour, and a target cell
    meets at most two source edges: |foehn - cdo| <= 2 (dlon^2/16) / H *
    (largest difference between north-south neighbours)."""
    step = 4.0
    # The target: 5-degree cells with great-circle edges, convex, as unstructured.
    src, dst = tmp_path / "rect.nc", tmp_path / "r5.nc"
    field = write_rectilinear(src, step)
    grid_with_field(dst, "regular:72x36")
    run("cdo", "-s", f"remapcon,{dst}", src, tmp_path / "out_cdo.nc")
    driver("weights", "--src", src, "--dst", dst, "--out", tmp_path / "w.nc", "--renormalize")
    driver("apply", "--weights", tmp_path / "w.nc", "--in", src, "--out", tmp_path / "out.nc")
    with netCDF4.Dataset(dst) as nc:
        height = np.radians(np.min(nc["lat_bnds"][:].max(axis=1) - nc["lat_bnds"][:].min(axis=1)))
    neighbour = np.max(np.abs(np.diff(field, axis=0)))
    bound = 2 * np.radians(step) ** 2 / 16 / height * neighbour
    difference = np.max(np.abs(read(tmp_path / "out.nc") - read(tmp_path / "out_cdo.nc")))
    assert difference <= bound, (difference, bound)
    assert bound < 2e-3 * (field.max() - field.min())  # the bound is tight enough to mean something


def test_reduced_gaussian_target_matches_cdo(tmp_path):
    """A reduced Gaussian target: its cells carry the neighbouring rows'
    corners on their latitude edges, so some bend inwards (by ~1e-3 of
    their width) and foehn clips them as triangles from the centroid. The
    same polygons go to cdo. Nearly collinear vertices cost precision in
    the intersections (a relative 1e-16 / 1e-3 per vertex): measured
    1.3e-10 of the range on O24; bound 1e-9."""
    src, dst = tmp_path / "r5.nc", tmp_path / "o24.nc"
    _, _, values = grid_with_field(src, "regular:72x36")
    grid_with_field(dst, "octahedral:24")
    run("cdo", "-s", f"remapcon,{dst}", src, tmp_path / "out_cdo.nc")
    driver("weights", "--src", src, "--dst", dst, "--out", tmp_path / "w.nc", "--renormalize")
    driver("apply", "--weights", tmp_path / "w.nc", "--in", src, "--out", tmp_path / "out.nc")
    difference = np.max(np.abs(read(tmp_path / "out.nc") - read(tmp_path / "out_cdo.nc")))
    assert difference <= 1e-9 * (values.max() - values.min())


def rotated_to_geographic(rlon, rlat, pole_lon=-160.0, pole_lat=40.0):
    """Rotated-pole coordinates (degrees) to geographic, as CORDEX grids do."""
    rlon, rlat = np.radians(rlon), np.radians(rlat)
    x, y, z = np.cos(rlat) * np.cos(rlon), np.cos(rlat) * np.sin(rlon), np.sin(rlat)
    theta, phi = np.radians(90 - pole_lat), np.radians(pole_lon + 180)
    x, z = np.cos(theta) * x + np.sin(theta) * z, -np.sin(theta) * x + np.cos(theta) * z
    x, y = np.cos(phi) * x - np.sin(phi) * y, np.sin(phi) * x + np.cos(phi) * y
    return np.degrees(np.arctan2(y, x)), np.degrees(np.arcsin(np.clip(z, -1, 1)))


def test_curvilinear_regional_source_matches_cdo(tmp_path):
    """A rotated-pole regional grid (curvilinear, 2-D lon/lat with corner
    bounds) onto the global 2-degree grid: cdo and foehn clip the same
    great-circle cells; targets the region covers only in part get the
    mean of what covers them (fracarea / renormalize), the others are
    missing in both. Same rounding argument as above: bound 1e-12 of the
    range."""
    ni, nj, step = 40, 30, 0.75
    rlon = -15 + step * (np.arange(ni) + 0.5)
    rlat = -11 + step * (np.arange(nj) + 0.5)
    clon, clat = rotated_to_geographic(*np.meshgrid(rlon, rlat))
    corners_r = [(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)]  # counterclockwise
    blon, blat = zip(*[rotated_to_geographic(*np.meshgrid(rlon + a * step, rlat + b * step)) for a, b in corners_r])
    src, dst = tmp_path / "curv.nc", tmp_path / "r2.nc"
    with netCDF4.Dataset(src, "w") as nc:
        nc.createDimension("y", nj), nc.createDimension("x", ni), nc.createDimension("nv", 4)
        for name, values, bounds, units in (("lon", clon, blon, "degrees_east"), ("lat", clat, blat, "degrees_north")):
            v = nc.createVariable(name, "f8", ("y", "x"))
            v[:], v.units, v.bounds = values, units, f"{name}_bnds"
            nc.createVariable(f"{name}_bnds", "f8", ("y", "x", "nv"))[:] = np.stack(bounds, axis=-1)
        f = nc.createVariable("f", "f8", ("y", "x"))
        f.coordinates = "lat lon"
        f[:] = values = smooth(clon * 7, clat * 5)  # a field varying across the small region
    grid_with_field(dst, "regular:180x90")
    run("cdo", "-s", f"remapcon,{dst}", src, tmp_path / "out_cdo.nc")
    driver("weights", "--src", src, "--dst", dst, "--out", tmp_path / "w.nc", "--renormalize")
    driver("apply", "--weights", tmp_path / "w.nc", "--in", src, "--out", tmp_path / "out.nc")
    ours, theirs = read(tmp_path / "out.nc"), read(tmp_path / "out_cdo.nc")
    ours[ours == 1e20] = np.nan  # the driver's fill value without a _FillValue in the input
    covered = ~np.isnan(theirs)
    assert 100 < covered.sum() < 1000
    np.testing.assert_array_equal(np.isnan(ours), ~covered)
    assert np.max(np.abs(ours[covered] - theirs[covered])) <= 1e-12 * (values.max() - values.min())


def test_order2_beats_order1_on_a_gaussian_source(tmp_path):
    """O24 -> 1.5 degrees, a smooth field: against the field at each target
    centre, second-order weights are closer than first-order ones (both
    renormalised), and both keep the area integral, measured with the cell
    areas `cdo gridarea` computes (an independent area formula: 1e-10)."""
    src, dst = tmp_path / "o24.nc", tmp_path / "r15.nc"
    grid_with_field(src, "octahedral:24")
    _, _, _ = grid_with_field(dst, "regular:240x120")
    with netCDF4.Dataset(dst) as nc:
        exact = smooth(nc["lon"][:], nc["lat"][:])
    run("cdo", "-s", "gridarea", src, tmp_path / "a_src.nc")
    run("cdo", "-s", "gridarea", dst, tmp_path / "a_dst.nc")
    a_src, a_dst = read(tmp_path / "a_src.nc", "cell_area"), read(tmp_path / "a_dst.nc", "cell_area")
    integral = np.sum(a_src * read(src))
    errors = {}
    for order in (1, 2):
        w = tmp_path / f"w{order}.nc"
        driver("weights", "--src", src, "--dst", dst, "--out", w, "--renormalize", "--order", order)
        driver("apply", "--weights", w, "--in", src, "--out", tmp_path / f"out{order}.nc")
        y = read(tmp_path / f"out{order}.nc")
        errors[order] = np.max(np.abs(y - exact))
        assert abs(np.sum(a_dst * y) / integral - 1) < 1e-10
    assert errors[2] < 0.5 * errors[1], errors


def test_cdo_bilinear_weights_read_by_foehn_equal_cdo_remap(tmp_path):
    """SCRIP files of other methods read alike: cdo genbil weights (a
    rectilinear source onto O24) applied by foehn equal cdo's remap with
    them, to rounding."""
    src, dst = tmp_path / "rect.nc", tmp_path / "o24.nc"
    write_rectilinear(src, 4.0)
    grid_with_field(dst, "octahedral:24")
    run("cdo", "-s", f"genbil,{dst}", src, tmp_path / "w_bil.nc")
    run("cdo", "-s", f"remap,{dst},{tmp_path / 'w_bil.nc'}", src, tmp_path / "out_cdo.nc")
    driver("apply", "--weights", tmp_path / "w_bil.nc", "--in", src, "--out", tmp_path / "out.nc")
    np.testing.assert_allclose(read(tmp_path / "out.nc"), read(tmp_path / "out_cdo.nc"), rtol=4e-15, atol=0)
