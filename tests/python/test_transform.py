"""Spatial transformations end to end (transform_model.py, transform.xml):
every transformed variable is compared with numpy applied to the same
file's untransformed field (slices exactly; means summed in the same
order, so exactly too), and the files of 1 model rank without servers, 2
model ranks without servers, 1 model + 1 server and 2 model + 2 servers
must hold the same bytes (reductions sum in global index order whatever the
decomposition)."""
import netCDF4
import numpy as np
import pytest

from conftest import BUILD, ROOT

pytestmark = pytest.mark.usefixtures("importable_package")

XML = ROOT / "tests/python/transform.xml"
MODEL = ROOT / "tests/python/transform_model.py"
PYTHON = ROOT / ".venv/bin/python"
STEPS, NI, NJ, NLEV = 3, 24, 12, 5
LAT = -90.0 + (np.arange(NJ) + 0.5) * 180.0 / NJ
LON = np.arange(NI) * 360.0 / NI
RUNS = [(1, 0), (2, 0), (1, 1), (2, 2)]


def run(mpmd, tmp_path, clients, servers, whole=False, blocks=False, bounds=False):
    text = XML.read_text()
    if whole:
        text = text.replace('name="transform_whole" output_freq="1ts" type="one_file" enabled="false"',
                            'name="transform_whole" output_freq="1ts" type="one_file"')
    if blocks:
        text = text.replace('type="one_file" enabled="true"', 'type="one_file" enabled="false"')
        text = text.replace('name="transform_blocks" output_freq="1ts" type="one_file" enabled="false"',
                            'name="transform_blocks" output_freq="1ts" type="one_file"')
    (tmp_path / "transform.xml").write_text(text)
    args = [PYTHON, MODEL, tmp_path / "transform.xml", STEPS] + (["blocks"] if blocks else [])
    args += ["bounds"] if bounds else []
    return mpmd(tmp_path, clients, servers, args)


def sequential_sum(values, axis):
    """Left to right, as foehn sums (numpy's sum is pairwise)."""
    return np.cumsum(values, axis=axis).take(-1, axis=axis)


def sequential_mean(values, axis, weights=None):
    """Skips NaN; NaN where nothing is valid; sum(w v) / sum(w) in order."""
    valid = ~np.isnan(values)
    w = np.ones_like(values) if weights is None else np.broadcast_to(weights, values.shape)
    num = sequential_sum(np.where(valid, w * values, 0.0), axis)
    den = sequential_sum(np.where(valid, w, 0.0), axis)
    with np.errstate(invalid="ignore"):
        return np.where(valid.any(axis=axis), num / den, np.nan)


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    """The four runs, once for the module's tests."""
    from conftest import run_mpmd
    files = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PYTHONPATH", str(BUILD / "python"))
        for clients, servers in RUNS:
            path = tmp_path_factory.mktemp(f"tr{clients}x{servers}")
            result = run(run_mpmd, path, clients, servers)
            assert result.returncode == 0, result.stdout + result.stderr
            assert "transform_model: OK" in result.stdout
            files[(clients, servers)] = path / "transform_out.nc"
    return files


def test_values_against_numpy(outputs):
    with netCDF4.Dataset(outputs[(2, 2)]) as ds:
        ds.set_auto_mask(False)
        t = ds["t"][:]  # (time, lev, lat, lon)
        assert t.shape == (STEPS, NLEV, NJ, NI)
        exact = {
            "t_box": t[:, :, 2:9, 3:13],
            "t_box_old": t[:, :, 1:10, 5:9],
            "t_box_ext": t[:, 1:4, 6:9, :],
            "t_box_in_box": t[:, :, 3:7, 5:10],  # box's (1..4, 2..6) inside globe's (2.., 3..)
            "t_pick": t[:, [0, 2, 4]],
            "t_zoom_lev": t[:, 1:4],
            "t_inv": t[:, ::-1],
            "t_level3": t[:, 2],
            "t_column_max": t.max(axis=1),
            "t_row": t[:, :, 4, :],
            "t_col": t[:, :, :, 5],
            "t_zonal_min": t.min(axis=3),
            "t_zonal_max": t.max(axis=3),
            "t_column_sum": sequential_sum(t, 1),
            "t_zonal_sum": sequential_sum(t, 3),
            "t_zonal": sequential_mean(t, 3),
            "t_zonal_area": sequential_mean(t, 3, np.cos(np.radians(LAT))[:, None]),
            "t_inline_zoom": t[:, 0:2, 10:12, 20:24],
            "t_inline_vmean": sequential_mean(t, 1),
            # reorder_domain: rows upside down, columns turned by half the globe.
            "t_flip": np.roll(t[:, :, ::-1, :], NI // 2, axis=3),
            "t_halo": t,  # expand_domain: the same domain and values
        }
        for name, want in exact.items():
            np.testing.assert_array_equal(ds[name][:], want, err_msg=name)
        # Coordinates of what the transformations made.
        np.testing.assert_array_equal(ds["lat_box"][:], LAT[2:9])
        np.testing.assert_array_equal(ds["lon_box"][:], LON[3:13])
        np.testing.assert_array_equal(ds["lev_pick"][:], [1, 3, 5])
        np.testing.assert_array_equal(ds["lev_top"][:], [1, 2])
        assert ds["t_inline_zoom"].dimensions == ("time_counter", "lev_top", "lat_globe_g_inline_zoom_1",
                                                  "lon_globe_g_inline_zoom_1")
        np.testing.assert_array_equal(ds["lev_inv"][:], [5, 4, 3, 2, 1])
        np.testing.assert_array_equal(ds["lat_flip"][:], LAT[::-1])
        lon_flip = np.roll(LON, NI // 2)
        np.testing.assert_array_equal(ds["lon_flip"][:], np.where(lon_flip > 175.0, lon_flip - 360.0, lon_flip))
        np.testing.assert_array_equal(ds["lon_halo"][:], LON)
        np.testing.assert_array_equal(ds["lat_halo"][:], LAT)
        # Axes keep their values' bounds (each value's own, lower then upper as given).
        lev_bnds = np.stack([np.arange(5) + 0.5, np.arange(5) + 1.5], 1)
        np.testing.assert_array_equal(ds["lev_pick_bounds"][:], lev_bnds[[0, 2, 4]])
        np.testing.assert_array_equal(ds["lev_inv_bounds"][:], lev_bnds[::-1])
        np.testing.assert_array_equal(ds["lev_top_bounds"][:], lev_bnds[0:2])
        np.testing.assert_array_equal(ds["lat_zonal"][:], LAT)
        np.testing.assert_array_equal(ds["lon_row"][:], LON)
        np.testing.assert_array_equal(ds["lat_col"][:], LAT)
        assert float(ds["level3"][...]) == 3.0
        # Missing values are skipped; a row with none valid is the fill value.
        pr = ds["pr"][:]
        pr = np.where(pr == -999.0, np.nan, pr)
        assert np.isnan(pr).any()
        want = sequential_mean(pr, 2)
        got = ds["pr_zonal"][:]
        assert (got[:, 3] == -999.0).all() and np.isnan(want[:, 3]).all()
        np.testing.assert_array_equal(np.where(got == -999.0, np.nan, got), want)
    # The temporal average of the zoomed field over the 3 steps.
    with netCDF4.Dataset(outputs[(2, 2)].parent / "transform_mean.nc") as ds:
        np.testing.assert_allclose(ds["t_box_mean"][0], t[:, :, 2:9, 3:13].mean(axis=0), rtol=1e-14)


@pytest.mark.parametrize("run_key", [(1, 0), (2, 0), (1, 1)])
def test_same_bytes_whatever_the_decomposition(outputs, run_key):
    with netCDF4.Dataset(outputs[(2, 2)]) as ref, netCDF4.Dataset(outputs[run_key]) as ds:
        assert set(ref.variables) == set(ds.variables)
        for name in ref.variables:
            if name.startswith("t") or name.startswith("pr") or name.startswith("l"):
                np.testing.assert_array_equal(ds[name][:], ref[name][:], err_msg=f"{name} {run_key}")


@pytest.mark.parametrize("clients,servers", [(1, 0), (1, 1)])
def test_whole_domain_reductions(tmp_path, mpmd, clients, servers):
    result = run(mpmd, tmp_path, clients, servers, whole=True)
    assert result.returncode == 0, result.stdout + result.stderr
    with netCDF4.Dataset(tmp_path / "transform_out.nc") as ds:
        ds.set_auto_mask(False)
        t, pr = ds["t"][:], ds["pr"][:]
    pr = np.where(pr == -999.0, np.nan, pr)
    area = np.cos(np.radians(LAT))[:, None] * np.ones(NI)
    with netCDF4.Dataset(tmp_path / "transform_whole.nc") as ds:
        np.testing.assert_array_equal(ds["t_meridional_area"][:], sequential_mean(t, 2, area[None, None]))
        # The global mean sums in global index order: j slow, i fast.
        flat = t.reshape(STEPS, NLEV, NJ * NI)
        np.testing.assert_array_equal(ds["t_global_area"][:], sequential_mean(flat, 2, area.reshape(-1)))
        flat_pr = pr.reshape(STEPS, NJ * NI)
        np.testing.assert_array_equal(ds["pr_global_sum"][:], sequential_sum(np.nan_to_num(flat_pr), 1))
        # cos-weighted means differ from plain ones: the weights matter.
        assert np.abs(ds["t_global_area"][:] - np.nanmean(flat, axis=2)).max() > 1e-3


def test_area_weights_from_bounds(tmp_path, mpmd):
    """Cell bounds given: the weights are the cells' areas on the sphere,
    dlon x (sin lat_north - sin lat_south), not cos(latitude)."""
    from transform_model import lat_edges
    result = run(mpmd, tmp_path, 1, 1, whole=True, bounds=True)
    assert result.returncode == 0, result.stdout + result.stderr
    with netCDF4.Dataset(tmp_path / "transform_out.nc") as ds:
        ds.set_auto_mask(False)
        t = ds["t"][:]
        # A zoomed domain keeps its cells' bounds (the box j 2..8, i 3..12; the box in it j 3..6, i 5..9).
        lat_bnds = np.stack([lat_edges()[:-1], lat_edges()[1:]], 1)
        lon_edges = np.arange(NI + 1) * 360.0 / NI - 7.5
        lon_bnds = np.stack([lon_edges[:-1], lon_edges[1:]], 1)
        np.testing.assert_array_equal(ds["bounds_lat_box"][:], lat_bnds[2:9])
        np.testing.assert_array_equal(ds["bounds_lon_box"][:], lon_bnds[3:13])
        np.testing.assert_array_equal(ds["bounds_lat_box_in_box"][:], lat_bnds[3:7])
        np.testing.assert_array_equal(ds["bounds_lon_box_in_box"][:], lon_bnds[5:10])
        # reorder_domain: the cells' bounds move with them, whole across the seam at -185/175.
        flip_bnds = np.roll(lon_bnds, NI // 2, axis=0)
        flip_bnds = np.where(np.roll(LON, NI // 2)[:, None] > 175.0, flip_bnds - 360.0, flip_bnds)
        np.testing.assert_array_equal(ds["bounds_lon_flip"][:], flip_bnds)
        np.testing.assert_array_equal(ds["bounds_lat_flip"][:], lat_bnds[::-1])
        # A row of the domain as an axis along i: the cells' longitude bounds; a column: latitude bounds.
        np.testing.assert_array_equal(ds["lon_row_bounds"][:], lon_bnds)
        np.testing.assert_array_equal(ds["lat_col_bounds"][:], lat_bnds)
    edges = np.radians(lat_edges())
    area = np.radians(15.0) * np.abs(np.sin(edges[1:]) - np.sin(edges[:-1]))[:, None] * np.ones(NI)
    with netCDF4.Dataset(tmp_path / "transform_whole.nc") as ds:
        got = ds["t_global_area"][:]
        flat = t.reshape(STEPS, NLEV, NJ * NI)
        # np.sin and the C library's sin may differ in the last bit: a tolerance, far below the
        # difference the weights make (asserted next).
        np.testing.assert_allclose(got, sequential_mean(flat, 2, area.reshape(-1)), rtol=1e-13)
        cos_weighted = sequential_mean(flat, 2, (np.cos(np.radians(LAT))[:, None] * np.ones(NI)).reshape(-1))
        assert np.abs(got - cos_weighted).max() > 1e-3
        np.testing.assert_allclose(ds["t_meridional_area"][:], sequential_mean(t, 2, area[None, None]), rtol=1e-13)


def test_transform_cf(outputs):
    """Axes made from a domain are CF latitude (Y) or longitude (X) axes."""
    import subprocess
    check = subprocess.run(["bash", ROOT / "scripts/cfcheck.sh", outputs[(1, 1)]], capture_output=True, text=True)
    assert "ERRORS detected: 0" in check.stdout, check.stdout + check.stderr
    with netCDF4.Dataset(outputs[(1, 1)]) as ds:
        assert (ds["lat_zonal"].axis, ds["lat_zonal"].units) == ("Y", "degrees_north")
        assert (ds["lon_row"].axis, ds["lon_row"].units) == ("X", "degrees_east")


@pytest.mark.parametrize("clients,servers", [(3, 0), (4, 2)])
def test_blocks_of_columns(tmp_path, mpmd, clients, servers):
    """Ranks split i and j (3 ranks: one holds no point of the inner box):
    the gathers give the same bytes as one rank holding everything."""
    result = run(mpmd, tmp_path, clients, servers, blocks=True)
    assert result.returncode == 0, result.stdout + result.stderr
    ref_dir = tmp_path / "one"
    ref_dir.mkdir()
    ref = run(mpmd, ref_dir, 1, 0, blocks=True)
    assert ref.returncode == 0, ref.stdout + ref.stderr
    with netCDF4.Dataset(tmp_path / "transform_blocks.nc") as ds, \
            netCDF4.Dataset(ref_dir / "transform_blocks.nc") as one:
        ds.set_auto_mask(False)
        t = ds["t"][:]
        np.testing.assert_array_equal(ds["t_box"][:], t[:, :, 2:9, 3:13])
        np.testing.assert_array_equal(ds["t_box_in_box"][:], t[:, :, 3:7, 5:10])
        np.testing.assert_array_equal(ds["t_inline_zoom"][:], t[:, 0:2, 10:12, 20:24])
        np.testing.assert_array_equal(ds["t_row"][:], t[:, :, 4, :])
        np.testing.assert_array_equal(ds["t_col"][:], t[:, :, :, 5])
        np.testing.assert_array_equal(ds["t_inv"][:], t[:, ::-1])
        np.testing.assert_array_equal(ds["t_column_sum"][:], sequential_sum(t, 1))
        np.testing.assert_array_equal(ds["t_flip"][:], np.roll(t[:, :, ::-1, :], NI // 2, axis=3))
        for name in one.variables:
            np.testing.assert_array_equal(ds[name][:], one[name][:], err_msg=name)
