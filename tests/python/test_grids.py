"""Every domain type end to end (tests/mpi/grid_model.cpp): rectilinear,
curvilinear, reduced Gaussian (octahedral O8, EQ_REGIONS) and unstructured
domains, decomposed unevenly, interleaved and shuffled, with halos,
compressed data and masks. The files must hold exactly the values and
coordinates computed here from the global index alone, the fill value at
masked and left-out points, pass the CF checker, and be described by
`cdo griddes` with the right grid type and size (a reduced Gaussian grid
in a file of convention="CDI" as gaussian_reduced, with its rows)."""
import glob
import shutil
import subprocess

import netCDF4
import numpy as np
import pytest

from conftest import BUILD, ROOT

XML = ROOT / "tests/mpi/data/grids.xml"
STEPS, NLEV = 4, 3
FILL_D, FILL_F = 9.9692099683868690e36, np.float32(9.96921e36)

# scenario -> (family, type, ni_glo, nj_glo, masked, compressed)
SCENARIOS = {
    "rect_shuffled": ("rect", "rectilinear", 12, 7, False, False),
    "curv_halo": ("curv", "curvilinear", 10, 9, True, False),
    "curv_compressed": ("curv", "curvilinear", 10, 9, False, True),
    "gauss_eq": ("gauss", "gaussian", 544, 1, False, False),
    "gauss_shuffled": ("gauss", "gaussian", 544, 1, True, False),
    "unstr_interleaved": ("unstr", "unstructured", 500, 1, False, True),
    "unstr_blocks": ("unstr", "unstructured", 500, 1, True, False),
}
CDO_TYPE = {"rectilinear": "lonlat", "curvilinear": "curvilinear", "gaussian": "unstructured",
            "unstructured": "unstructured"}


def octahedral(n):
    pl = np.array([20 + 4 * k for k in range(n)] + [20 + 4 * k for k in reversed(range(n))])
    nodes, _ = np.polynomial.legendre.leggauss(2 * n)
    lat_rows = np.degrees(np.arcsin(nodes[::-1]))  # north to south
    lat = np.repeat(lat_rows, pl)
    lon = np.concatenate([360.0 * np.arange(p) / p for p in pl])
    return lon, lat


def coordinates(kind, ni, nj):
    """lon and lat of every point g (rectilinear: of every column / row)."""
    g = np.arange(ni * nj)
    i, j = g % ni, g // ni
    if kind == "rectilinear":
        return -180 + 360 * (np.arange(ni) + 0.5) / ni, -90 + 180 * (np.arange(nj) + 0.5) / nj
    if kind == "curvilinear":
        return 10.0 + 20.0 * i + 3.0 * j, -60.0 + 15.0 * j + 1.5 * i
    if kind == "gaussian":
        return octahedral(8)
    return np.fmod(137.5 * g, 360.0), np.degrees(np.arcsin(2.0 * (g + 0.5) / ni - 1.0))


def expected(name, step):
    family, kind, ni, nj, masked, compressed = SCENARIOS[name]
    g = np.arange(ni * nj)
    miss = (masked & (g % 7 == 3)) | (compressed & (g % 5 == 0))
    k = np.arange(NLEV)[:, None]
    ps = np.where(miss, FILL_D, 1000.0 * step + 0.25 * g + 0.5)
    ps_mean = np.where(miss, FILL_D, 1000.0 * (step - 0.5) + 0.25 * g + 0.5)
    ta = np.where(miss, FILL_F, (1000.0 * step + 100.0 * k + 0.25 * g).astype(np.float32))  # (lev, point)
    ua = np.where(miss, FILL_F, (1000.0 * step + 10.0 * k + 0.5 * g).astype(np.float32)).T  # (point, lev)
    return ps, ps_mean, ta, ua, miss


def run(mpmd, tmp_path, name, clients, servers):
    result = mpmd(tmp_path, clients, servers, [BUILD / "tests/mpi/grid_model", XML, name, STEPS])
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"grid_model {name}: OK" in result.stdout
    return tmp_path / f"{SCENARIOS[name][0]}_one.nc"


def raw(var):
    var.set_auto_mask(False)
    return var[:]


def flat_points(a, one_d):
    """Merges the (y, x) or (lat, lon) dimensions into one point dimension."""
    return a if one_d else a.reshape(a.shape[:-2] + (-1,))


@pytest.mark.parametrize("clients,servers", [(3, 2), (3, 0), (2, 1)])
@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_values_and_coordinates_exact(tmp_path, mpmd, name, clients, servers):
    family, kind, ni, nj, _, _ = SCENARIOS[name]
    one_d = kind in ("gaussian", "unstructured")
    path = run(mpmd, tmp_path, name, clients, servers)
    with netCDF4.Dataset(path) as ds:
        for r, step in enumerate([2, 4]):
            ps, ps_mean, ta, ua, miss = expected(name, step)
            np.testing.assert_array_equal(flat_points(raw(ds["ps"])[r], one_d), ps)
            np.testing.assert_array_equal(flat_points(raw(ds["ps_mean"])[r], one_d), ps_mean)
            np.testing.assert_array_equal(flat_points(raw(ds["ta"])[r], one_d), ta)
            ua_file = raw(ds["ua"])[r]
            np.testing.assert_array_equal(ua_file if one_d else ua_file.reshape(-1, NLEV), ua)
        # Masked and left-out points read as missing through the CF attributes.
        ds["ps"].set_auto_mask(True)
        assert np.ma.getmaskarray(ds["ps"][0]).sum() == miss.sum()
        lon, lat = coordinates(kind, ni, nj)
        # XIOS's names: nav_lon/nav_lat for curvilinear domains, bounds_<coordinate>.
        lon_name, lat_name = ("nav_lon", "nav_lat") if kind == "curvilinear" else ("lon", "lat")
        np.testing.assert_allclose(ds[lon_name][:].ravel(), lon, rtol=0, atol=1e-12)
        np.testing.assert_allclose(ds[lat_name][:].ravel(), lat, rtol=0, atol=1e-12)
        nvertex = {"rectilinear": 2, "curvilinear": 4, "gaussian": 4, "unstructured": 3}[kind]
        assert ds[lat_name].bounds == "bounds_" + lat_name and ds[lon_name].bounds == "bounds_" + lon_name
        assert ds["bounds_" + lat_name].shape[-1] == nvertex and ds["bounds_" + lon_name].shape[-1] == nvertex
        # grids.xml names the unstructured domain's corners' dimension (nvertex_name), as XIOS does.
        corners = "nv" if kind == "unstructured" else "axis_nbounds" if kind == "rectilinear" else "nvertex"
        assert ds["bounds_" + lat_name].dimensions[-1] == corners
        if kind != "rectilinear":
            assert ds["ta"].coordinates.endswith(f"{lat_name} {lon_name}")
            bl, bt = ds["bounds_" + lon_name][:].reshape(-1, nvertex), ds["bounds_" + lat_name][:].reshape(-1, nvertex)
            assert np.all(bt.min(axis=1) <= lat + 1e-12) and np.all(bt.max(axis=1) >= lat - 1e-12)
            if kind != "unstructured":  # cells span their centre in longitude too
                assert np.all(bl.min(axis=1) <= lon + 1e-12) and np.all(bl.max(axis=1) >= lon - 1e-12)

    # multiple_file: the parts stitch back into the field (a writer's part
    # may hold points of others as fill values when attached).
    parts = sorted(glob.glob(str(tmp_path / f"{family}_multi_*.nc")))
    assert len(parts) == (servers or clients)
    _, _, ta, _, _ = expected(name, 2)
    stitched = np.full(ta.shape, np.nan, dtype=np.float64)
    for part in parts:
        with netCDF4.Dataset(part) as ds:
            first = np.atleast_1d(ds.DOMAIN_dom_position_first) - 1
            last = np.atleast_1d(ds.DOMAIN_dom_position_last)
            data = raw(ds["ta"])[0].astype(np.float64)
            if one_d:
                idx = np.arange(first[0], last[0])
            else:
                i, j = np.meshgrid(np.arange(first[0], last[0]), np.arange(first[1], last[1]))
                idx = (j * ni + i).ravel()
            data = data.reshape(NLEV, -1)
            keep = data != FILL_F if not servers else np.ones(data.shape, bool)
            target = stitched[:, idx]
            target[keep] = data[keep]
            stitched[:, idx] = target
    done = ~np.isnan(stitched)
    assert done[:, ~expected(name, 2)[4]].all()
    np.testing.assert_array_equal(stitched[done], ta[done])


@pytest.mark.parametrize("name", ["rect_shuffled", "curv_halo", "gauss_shuffled", "unstr_interleaved"])
def test_cf_and_cdo(tmp_path, mpmd, name):
    family, kind, ni, nj, _, _ = SCENARIOS[name]
    path = run(mpmd, tmp_path, name, 3, 2)
    part = tmp_path / f"{family}_multi_1.nc"
    for f in (path, part):
        check = subprocess.run(["bash", ROOT / "scripts/cfcheck.sh", f], capture_output=True, text=True)
        assert "ERRORS detected: 0" in check.stdout, check.stdout + check.stderr  # warnings allowed
    for f in (path, part):
        griddes = subprocess.run(["cdo", "-s", "griddes", f], capture_output=True, text=True)
        assert griddes.returncode == 0, griddes.stderr
        desc = dict(line.split("=", 1) for line in griddes.stdout.splitlines() if "=" in line and not line.startswith("#"))
        desc = {k.strip(): v.strip() for k, v in desc.items()}
        with netCDF4.Dataset(f) as ds:
            size = ds["ta"].size // (ds.dimensions["time_counter"].size * NLEV)
        assert desc["gridtype"] == CDO_TYPE[kind], griddes.stdout
        assert int(desc["gridsize"]) == size == (ni * nj if f == path else size)
        if kind in ("gaussian", "unstructured"):
            assert int(desc["nvertex"]) == (4 if kind == "gaussian" else 3)
        elif kind == "curvilinear":
            assert (int(desc["xsize"]), int(desc["ysize"])) == ((ni, nj) if f == path else (ni, size // ni))


@pytest.mark.parametrize("clients,servers", [(3, 2), (2, 0)])
def test_ugrid_mesh_topology(tmp_path, mpmd, clients, servers):
    """convention="UGRID": the unstructured domain gets a UGRID 1.0 mesh whose
    nodes are the cells' distinct corners and whose faces give back every
    cell's bounds exactly."""
    run(mpmd, tmp_path, "unstr_blocks", clients, servers)
    with netCDF4.Dataset(tmp_path / "unstr_ugrid.nc") as ds:
        assert ds.Conventions == "CF-1.10 UGRID-1.0"
        mesh = ds["mesh"]
        assert (mesh.cf_role, mesh.topology_dimension, mesh.face_dimension) == ("mesh_topology", 2, "cell")
        assert mesh.node_coordinates == "mesh_node_lon mesh_node_lat"
        assert mesh.face_coordinates == "lon lat"
        assert (ds["ps"].mesh, ds["ps"].location) == ("mesh", "face")
        faces = ds[mesh.face_node_connectivity]
        assert faces.cf_role == "face_node_connectivity" and faces.start_index == 0
        faces = faces[:]
        nodes_lon, nodes_lat = ds["mesh_node_lon"][:], ds["mesh_node_lat"][:]
        blon, blat = ds["bounds_lon"][:], ds["bounds_lat"][:]
        np.testing.assert_array_equal(nodes_lon[faces], blon)
        np.testing.assert_array_equal(nodes_lat[faces], blat)
        corners = np.unique(np.stack([blon.ravel(), blat.ravel()], 1), axis=0)
        assert len(nodes_lon) == len(corners) < blon.size  # shared corners are one node
        np.testing.assert_array_equal(raw(ds["ps"])[0], expected("unstr_blocks", 2)[0])


def cdo_griddes(path):
    """`cdo griddes` as a dict; yvals and reducedPoints continue over lines."""
    out = subprocess.run(["cdo", "-s", "griddes", path], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    desc, key = {}, None
    for line in out.stdout.splitlines():
        if line.startswith("#"):
            continue
        if "=" in line:
            key, value = (part.strip() for part in line.split("=", 1))
            desc[key] = value
        elif key:
            desc[key] += " " + line.strip()
    return desc, out.stdout


def test_cdi_convention_reduced_gaussian(tmp_path, mpmd):
    """convention="CDI": the O8 domain (shuffled, masked; 2 clients, 1
    server) carries CDI's reduced Gaussian attributes and row variables,
    which CDO reads as gaussian_reduced with the right rows and values; the
    cells stay in the file, unnamed; the default file is unchanged."""
    name, n = "gauss_shuffled", 8
    run(mpmd, tmp_path, name, 2, 1)
    path, default = tmp_path / "gauss_cdi.nc", tmp_path / "gauss_one.nc"
    k = np.arange(1, n + 1)
    pl = np.concatenate([20 + 4 * (k - 1), (20 + 4 * (k - 1))[::-1]])  # octahedral rows, north to south
    nodes, _ = np.polynomial.legendre.leggauss(2 * n)
    lat_rows = np.degrees(np.arcsin(nodes[::-1]))
    lon, lat = coordinates("gaussian", 544, 1)
    with netCDF4.Dataset(path) as ds:
        for v in ("ps", "ta", "ua"):
            var = ds[v]
            assert var.CDI_grid_type == "gaussian_reduced" and var.CDI_grid_num_LPE == n
            assert (var.CDI_grid_latitudes, var.CDI_grid_reduced_points) == ("lat_rows", "reduced_points")
            assert "coordinates" not in var.ncattrs()  # CDI would take the cell latitudes as its rows
        assert ds["lat_rows"].dimensions == ds["reduced_points"].dimensions == ("rows",)
        np.testing.assert_allclose(ds["lat_rows"][:], lat_rows, rtol=0, atol=1e-12)
        np.testing.assert_array_equal(ds["reduced_points"][:], pl)
        assert pl.sum() == 544 == ds.dimensions["cell"].size
        # Nothing lost: the cells, with bounds, as in the default file.
        np.testing.assert_allclose(ds["lat"][:], lat, rtol=0, atol=1e-12)
        np.testing.assert_allclose(ds["lon"][:], lon, rtol=0, atol=1e-12)
        assert ds["bounds_lat"].shape == ds["bounds_lon"].shape == (544, 4)
        for r, step in enumerate([2, 4]):
            ps, _, ta, ua, _ = expected(name, step)
            np.testing.assert_array_equal(raw(ds["ps"])[r], ps)
            np.testing.assert_array_equal(raw(ds["ta"])[r], ta)
            np.testing.assert_array_equal(raw(ds["ua"])[r], ua)
    with netCDF4.Dataset(default) as ds:
        assert ds["ta"].coordinates.endswith("lat lon") and "lat_rows" not in ds.variables
        assert not [a for a in ds["ta"].ncattrs() if a.startswith("CDI")]
    check = subprocess.run(["bash", ROOT / "scripts/cfcheck.sh", path], capture_output=True, text=True)
    assert "ERRORS detected: 0" in check.stdout, check.stdout + check.stderr

    if shutil.which("cdo") is None:
        pytest.skip("cdo is not installed (scripts/bootstrap.sh)")
    desc, text = cdo_griddes(path)
    assert desc["gridtype"] == "gaussian_reduced", text
    assert (int(desc["gridsize"]), int(desc["ysize"]), int(desc["numLPE"])) == (544, 2 * n, n), text
    np.testing.assert_array_equal(np.array(desc["reducedPoints"].split(), dtype=int), pl)
    np.testing.assert_allclose(np.array(desc["yvals"].split(), dtype=float), lat_rows, rtol=0, atol=1e-9)
    assert cdo_griddes(default)[0]["gridtype"] == "unstructured"
    # The values as CDO reads them: copied through CDO, and where it places them.
    copy = tmp_path / "cdo_copy.nc"
    out = subprocess.run(["cdo", "-s", "-f", "nc4", "copy", path, copy], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    with netCDF4.Dataset(copy) as ds:
        for r, step in enumerate([2, 4]):
            ps, _, ta, ua, miss = expected(name, step)
            got = ds["ps"][r]
            np.testing.assert_array_equal(np.ma.getmaskarray(got), miss)
            np.testing.assert_array_equal(got.compressed(), ps[~miss])
            for v, want, points_last in (("ta", ta, True), ("ua", ua, False)):  # CDO keeps each order
                got = ds[v][r]
                assert got.shape == want.shape, (v, ds[v].dimensions)
                mask = np.broadcast_to(miss if points_last else miss[:, None], got.shape)
                np.testing.assert_array_equal(np.ma.getmaskarray(got), mask)
                np.testing.assert_array_equal(got.compressed(), want[~mask])
    table = subprocess.run(["cdo", "-s", "outputtab,lat,lon", "-seltimestep,1", "-selname,ps", path],
                           capture_output=True, text=True)
    assert table.returncode == 0, table.stderr
    rows = np.array([line.split() for line in table.stdout.splitlines() if not line.startswith("#")], dtype=float)
    np.testing.assert_allclose(rows[:, 0], lat, rtol=1e-5, atol=0)  # printed with 6 significant digits
    np.testing.assert_allclose(rows[:, 1], lon, rtol=1e-5, atol=0)
