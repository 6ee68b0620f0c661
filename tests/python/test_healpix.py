"""HEALPix domains, pyramids and Zarr stores (docs/kmscale.md): the
geometry foehn computes against healpy for levels 0..4 in both indexing
schemes, the CF-1.13 grid mapping and the older crs attributes; a model
writing natively on a HEALPix grid (healpix_model.py) with 1 and 2 ranks,
attached and with 1 and 2 servers, writing the same values every time (a
regional domain is fill outside the cells the ranks hold); each pyramid
level the count-weighted mean of the finest cells it holds (numpy); the
Zarr store opened with xarray.open_zarr equal to the NetCDF output of the
same run, and the same chunk bytes whatever the number of writers."""
import json
import os
import sys

import healpy
import netCDF4
import numpy as np
import pytest
import xarray as xr

from conftest import BUILD, ROOT, run_mpmd
from healpix_model import LEVEL, REG_LEVEL, STEPS, healpix_values, regional_cells, sst_values

MODEL = ROOT / "tests/python/healpix_model.py"
XML = ROOT / "tests/python/healpix.xml"
RUNS = [(1, 0), (2, 0), (1, 1), (2, 1), (2, 2)]  # (model ranks, servers)

pytestmark = pytest.mark.usefixtures("importable_package")  # conftest.py


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Each configuration's directory, run once for the module."""
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = str(BUILD / "python")  # the model imports foehn from the build
    try:
        out = {}
        for clients, servers in RUNS:
            d = tmp_path_factory.mktemp(f"hp_{clients}_{servers}")
            run = run_mpmd(d, clients, servers, [sys.executable, MODEL, XML], timeout=120)
            assert run.returncode == 0 and "healpix_model: OK" in run.stdout, run.stdout + run.stderr
            out[(clients, servers)] = d
        return out
    finally:
        if old is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = old


def unit_vectors(lon, lat):
    lon, lat = np.radians(lon), np.radians(lat)
    return np.stack([np.cos(lat) * np.cos(lon), np.cos(lat) * np.sin(lon), np.sin(lat)], axis=-1)


@pytest.mark.parametrize("level", range(5))
@pytest.mark.parametrize("scheme", ["nested", "ring"])
def test_geometry_matches_healpy(runs, level, scheme):
    nside, nest = 2**level, scheme == "nested"
    cells = np.arange(12 * nside**2)
    with xr.open_dataset(runs[(1, 0)] / f"geo_{level}_{scheme}.nc", decode_times=False) as ds:
        lon, lat = healpy.pix2ang(nside, cells, nest=nest, lonlat=True)
        np.testing.assert_allclose(ds["lat"].values, lat, rtol=0, atol=1e-11)
        dlon = (ds["lon"].values - lon + 180.0) % 360.0 - 180.0  # the same meridian either side of 0
        assert np.abs(dlon).max() < 1e-11
        # corners: healpy's (cell, xyz, corner), north, west, south, east
        corners = healpy.boundaries(nside, cells, step=1, nest=nest)
        ours = unit_vectors(ds["bounds_lon"].values, ds["bounds_lat"].values)  # (cell, corner, xyz)
        np.testing.assert_allclose(ours, np.transpose(corners, (0, 2, 1)), rtol=0, atol=1e-13)
        np.testing.assert_array_equal(ds["cell"].values, cells)
        np.testing.assert_array_equal(ds[f"g_{level}_{scheme}"].values[0], cells)


@pytest.mark.parametrize("config", RUNS)
def test_values_and_cf_healpix_metadata(runs, config):
    g = np.arange(12 * 4**LEVEL)
    with xr.open_dataset(runs[config] / "hp_one.nc", decode_times=False) as ds:
        assert ds.attrs["Conventions"].startswith("CF-1.13")
        # Two domains (hp, reg) in the file: every name takes its domain's id, as in XIOS.
        crs = ds["crs_hp"].attrs
        assert crs["grid_mapping_name"] == "healpix" and crs["indexing_scheme"] == "nested"
        assert crs["refinement_level"] == LEVEL and crs["healpix_nside"] == 2**LEVEL and crs["healpix_order"] == "nest"
        assert ds["tas"].dims == ("time_counter", "cell_hp") and ds["ta"].dims == ("time_counter", "lev", "cell_hp")
        assert ds["tas"].attrs["grid_mapping"] == "crs_hp" and ds["cell_hp"].attrs["standard_name"] == "healpix_index"
        np.testing.assert_array_equal(ds["cell_hp"].values, g)
        reg = np.zeros(12 * 4**REG_LEVEL, bool)
        reg[regional_cells()] = True
        reg_crs = ds[ds["reg_tas"].attrs["grid_mapping"]].attrs
        assert reg_crs["indexing_scheme"] == "ring" and reg_crs["healpix_order"] == "ring"
        for r, step in enumerate(range(2, STEPS + 1, 2)):
            np.testing.assert_array_equal(ds["tas"].values[r], healpix_values(step, g).astype(np.float32))
            ta = np.stack([healpix_values(step, g, k) for k in range(3)]).astype(np.float32)
            np.testing.assert_array_equal(ds["ta"].values[r], ta)
            greg = np.arange(reg.size)
            np.testing.assert_array_equal(ds["reg_tas"].values[r], np.where(reg, healpix_values(step, greg), np.nan))


def test_every_configuration_writes_the_same_bytes(runs):
    def data(path):
        with netCDF4.Dataset(path) as nc:
            nc.set_auto_maskandscale(False)
            return {name: nc[name][:].tobytes() for name in ("tas", "ta", "reg_tas", "cell_hp", "lat_hp", "bounds_lon_hp", "crs_hp")}
    first = data(runs[RUNS[0]] / "hp_one.nc")
    for config in RUNS[1:]:
        assert data(runs[config] / "hp_one.nc") == first, config
    # one file per writer: the parts, in order, are the whole field
    for config, d in runs.items():
        parts = sorted(d.glob("hp_multi_*.nc")) or [d / "hp_multi.nc"]
        tas = np.concatenate([netCDF4.Dataset(p)["tas"][:].filled(np.nan) for p in parts], axis=-1)
        np.testing.assert_array_equal(tas[-1], healpix_values(STEPS, np.arange(12 * 4**LEVEL)).astype(np.float32))


def coarse(values, level):
    """The mean of the valid finest cells inside each cell of `level`, and their count."""
    blocks = values.reshape(-1, 4 ** (LEVEL - level))
    count = np.sum(~np.isnan(blocks), axis=1)
    with np.errstate(invalid="ignore"):
        return np.nansum(blocks, axis=1) / count, count


@pytest.mark.parametrize("config", [(1, 0), (2, 1)])
def test_pyramid_levels_average_the_nested_children(runs, config):
    g = np.arange(12 * 4**LEVEL)
    with xr.open_dataset(runs[config] / "hp_pyramid.nc", decode_times=False) as ds:
        for r, step in enumerate(range(2, STEPS + 1, 2)):
            for level in range(LEVEL, -1, -1):
                tas = ds[f"tas_z{level}"].values[r]
                mean, _ = coarse(healpix_values(step, g), level)
                np.testing.assert_array_equal(tas, mean.astype(np.float32), err_msg=f"tas level {level}")
                # sst: average over the record's 2 steps of each step's count-weighted means
                sst = ds[f"sst_z{level}"].values[r]
                a, _ = coarse(sst_values(step - 1, g), level)
                b, _ = coarse(sst_values(step, g), level)
                np.testing.assert_allclose(sst, 0.5 * (a + b), rtol=1e-14, equal_nan=True)
                assert np.isnan(sst).any() and not np.isnan(sst).all() if level >= 2 else True
                if level < LEVEL:  # a level from the next one: children 4i..4i+3, weighted by their counts
                    finer = ds[f"sst_z{level + 1}"].values[r].reshape(-1, 4)
                    _, n = coarse(sst_values(step, g), level + 1)
                    n = n.reshape(-1, 4)
                    with np.errstate(invalid="ignore"):
                        parent = np.nansum(finer * n, axis=1) / n.sum(axis=1)
                    np.testing.assert_allclose(sst, parent, rtol=1e-13, equal_nan=True)
            for level in (LEVEL, 2, 1):
                ta = np.stack([coarse(healpix_values(step, g, k), level)[0] for k in range(3)])
                np.testing.assert_array_equal(ds[f"ta_z{level}"].values[r], ta.astype(np.float32))
        assert "ta_z0" not in ds
        assert ds["tas_z1"].dims == ("time_counter", "cell_hp_z1")
        crs = ds[ds["tas_z1"].attrs["grid_mapping"]].attrs
        assert crs["refinement_level"] == 1 and crs["healpix_nside"] == 2
        np.testing.assert_allclose(ds["lat_hp_z1"].values, healpy.pix2ang(2, np.arange(48), nest=True, lonlat=True)[1],
                                   rtol=0, atol=1e-11)


@pytest.mark.parametrize("config", [(1, 0), (2, 0), (2, 2)])
def test_zarr_store_equals_the_netcdf_file(runs, config):
    import zarr
    store = runs[config] / "hp_pyramid.zarr"
    with xr.open_dataset(runs[config] / "hp_pyramid.nc", decode_times=False) as nc:
        for level in range(LEVEL, -1, -1):
            with xr.open_zarr(store, group=f"z{level}", decode_times=False) as z:
                np.testing.assert_array_equal(z["time_counter"].values, nc["time_counter"].values)
                assert z.attrs["refinement_level"] == level
                for name in ("tas", "sst", "ta"):
                    if f"{name}_z{level}" not in nc:
                        assert name not in z
                        continue
                    np.testing.assert_array_equal(z[name].values, nc[f"{name}_z{level}"].values, err_msg=name)
                    assert z[name].dims[0] == "time_counter" and z[name].dims[-1] == "cell"
                    assert z[name].attrs["grid_mapping"] == "crs"
                    assert z[name].attrs.get("standard_name") == nc[f"{name}_z{level}"].attrs.get("standard_name")
                crs = z["crs"].attrs
                assert crs["grid_mapping_name"] == "healpix" and crs["refinement_level"] == level
                assert crs["healpix_nside"] == 2**level and crs["healpix_order"] == "nest"
                np.testing.assert_array_equal(z["cell"].values, np.arange(12 * 4**level))
                suffix = "_hp" if level == LEVEL else f"_hp_z{level}"  # the netCDF file holds several domains
                np.testing.assert_array_equal(z["lat"].values, nc[f"lat{suffix}"].values)
                np.testing.assert_array_equal(z["lon_bnds"].values, nc[f"bounds_lon{suffix}"].values)
        # outside the pyramid: the root group (the regional field: its chunk has pieces from both writers)
        with xr.open_zarr(store, decode_times=False) as z:
            np.testing.assert_array_equal(z["reg_tas"].values, nc["reg_tas"].values)
            assert z["crs"].attrs["indexing_scheme"] == "ring"
    # zarr-python reads the same store: compressed chunks aligned to nested blocks
    group = zarr.open_group(str(store), mode="r")
    tas = group["z3"]["tas"]
    assert tas.shape == (STEPS // 2, 12 * 4**LEVEL)
    assert 4**LEVEL % tas.chunks[1] == 0 or tas.chunks[1] % 4**LEVEL == 0  # whole nested blocks
    assert tas.metadata.to_dict()["compressor"]["id"] == "zlib"
    with open(store / "z3" / "tas" / ".zarray") as f:  # byte shuffle before zlib, decoded by numcodecs
        assert json.load(f)["filters"] == [{"id": "shuffle", "elementsize": 4}]
    with open(store / "z3" / "tas" / ".zattrs") as f:
        assert "_ARRAY_DIMENSIONS" in f.read()


def test_zarr_time_bounds_and_cell_methods_as_in_netcdf(runs):
    """sst is averaged, tas instant: time_counter at the centre of each
    interval with time_counter_bounds, time_instant at its end, cell_methods
    as in the NetCDF file; xarray decodes them to dates in every group."""
    store = runs[(2, 2)] / "hp_pyramid.zarr"
    with xr.open_dataset(runs[(2, 2)] / "hp_pyramid.nc") as nc:
        for group in ("z3", "z0", None):
            with xr.open_zarr(store, group=group) as z:
                for name in ("time_counter", "time_counter_bounds", "time_instant"):
                    assert np.issubdtype(z[name].dtype, np.datetime64), (group, name)
                    np.testing.assert_array_equal(z[name].values, nc[name].values, err_msg=name)
                # independent reference: output every 2 steps of 1 h from 2000-01-01
                ends = np.datetime64("2000-01-01T00") + np.arange(1, STEPS // 2 + 1) * np.timedelta64(2, "h")
                np.testing.assert_array_equal(z["time_counter_bounds"].values[:, 1], ends)
                np.testing.assert_array_equal(z["time_instant"].values, ends)
                np.testing.assert_array_equal(z["time_counter"].values, ends - np.timedelta64(1, "h"))
                assert z["time_counter"].attrs["bounds"] == "time_counter_bounds"
                if group is None:
                    continue
                level = int(group[1:])
                assert z["sst"].attrs["cell_methods"] == nc[f"sst_z{level}"].attrs["cell_methods"]
                assert "time: mean" in z["sst"].attrs["cell_methods"]
                assert z["tas"].attrs["cell_methods"] == nc[f"tas_z{level}"].attrs["cell_methods"]
                with open(store / group / "tas" / ".zattrs") as f:  # xarray moves "coordinates" away
                    assert json.load(f)["coordinates"].split()[0] == "time_instant"
                with netCDF4.Dataset(runs[(2, 2)] / "hp_pyramid.nc") as raw:
                    assert "time_instant" in raw[f"tas_z{level}"].coordinates.split()


def test_zarr_store_bytes_do_not_depend_on_the_writers(runs):
    def files(store):
        return {str(p.relative_to(store)): p.read_bytes() for p in sorted(store.rglob("*")) if p.is_file()}
    first = files(runs[(1, 1)] / "hp_pyramid.zarr")
    assert any(k.startswith("z0/sst/") for k in first)
    for config in [(2, 1), (2, 2), (2, 0)]:
        other = files(runs[config] / "hp_pyramid.zarr")
        assert other.keys() == first.keys(), config
        for key in first:
            assert other[key] == first[key], (config, key)


@pytest.mark.parametrize("clients,servers", [(2, 0), (1, 1)])
def test_fortran_binding(tmp_path, clients, servers):
    """tests/mpi/fortran/healpix_model.f90: foehn_set_domain_healpix from
    `use foehn`, cells dealt round the ranks in reverse order; the geometry
    is healpy's and every held cell has its value, the rest of the regional
    ring domain is fill."""
    exe = BUILD / "tests/mpi/fortran/healpix_model_f"
    run = run_mpmd(tmp_path, clients, servers, [exe, ROOT / "tests/mpi/fortran/healpix.xml"], timeout=120)
    assert run.returncode == 0 and "healpix_model: OK" in run.stdout, run.stdout + run.stderr
    g, greg = np.arange(12 * 4**2), np.arange(12 * 4**1)
    with xr.open_dataset(tmp_path / "hp_fortran.nc", decode_times=False) as ds:
        lon, lat = healpy.pix2ang(4, g, nest=True, lonlat=True)
        np.testing.assert_allclose(ds["lat_hp"].values, lat, rtol=0, atol=1e-11)  # two domains: suffixes
        assert np.abs((ds["lon_hp"].values - lon + 180.0) % 360.0 - 180.0).max() < 1e-11
        assert ds[ds["reg_tas"].attrs["grid_mapping"]].attrs["indexing_scheme"] == "ring"
        for r, step in enumerate(range(1, 4)):
            np.testing.assert_array_equal(ds["tas"].values[r], 1000.0 * step + 0.5 * g)
            want = np.where(greg % 3 != 0, 1000.0 * step + 0.5 * greg, np.nan)
            np.testing.assert_array_equal(ds["reg_tas"].values[r], want)
