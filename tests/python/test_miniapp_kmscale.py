"""The miniapp's km-scale configuration (apps/miniapp/iodef_kmscale.xml):
its octahedral fields remapped online to HEALPix level 6 by nearest
neighbour and written as a Zarr pyramid (levels 6..0) beside the native
NetCDF file of the same run. Level 6 takes, at each cell, the native value
of the source point nearest to healpy's cell centre (checked by brute force
on every 5th cell; equally near sources allowed); each coarser level is the
mean of its four children; 1 model rank attached and 2 model ranks + 1
server write the same store values."""
import healpy
import netCDF4
import numpy as np
import pytest
import xarray as xr

from conftest import BUILD, ROOT
from test_miniapp import run_miniapp

IODEF = ROOT / "apps/miniapp/iodef_kmscale.xml"
STORE = "miniapp_healpix_3h.zarr"


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    from conftest import run_mpmd
    out = {}
    for clients, servers in [(1, 0), (2, 1)]:
        d = tmp_path_factory.mktemp(f"km{clients}x{servers}")
        run_miniapp(run_mpmd, d, clients, servers, ["--output", "foehn"], iodef=IODEF)
        out[(clients, servers)] = d
    return out


def unit(lon, lat):
    lo, la = np.radians(lon), np.radians(lat)
    return np.stack([np.cos(la) * np.cos(lo), np.cos(la) * np.sin(lo), np.sin(la)], -1)


def test_level_6_is_the_nearest_native_value(runs):
    d = runs[(2, 1)]
    with netCDF4.Dataset(d / "miniapp_3h.nc") as nc:
        native = {n: np.asarray(nc[n][:], np.float64) for n in ("t", "sp")}
        src = unit(np.asarray(nc["lon"][:]), np.asarray(nc["lat"][:]))
    cells = np.arange(0, 12 * 4**6, 5)
    lon, lat = healpy.pix2ang(64, cells, nest=True, lonlat=True)
    distance = np.sum((unit(lon, lat)[:, None, :] - src[None, :, :]) ** 2, axis=-1)
    tied = distance <= distance.min(axis=1, keepdims=True) + 1e-12
    with xr.open_zarr(d / STORE, group="z6", decode_times=False) as z:
        assert z["t"].shape[-1] == 12 * 4**6 and z.attrs["refinement_level"] == 6
        for name in ("t", "sp"):
            ours = z[name].values[..., cells]
            for c in range(cells.size):
                ok = [np.array_equal(ours[..., c], native[name][..., s]) for s in np.flatnonzero(tied[c])]
                assert any(ok), (name, cells[c])


def test_coarser_levels_are_the_mean_of_the_children(runs):
    """Each level is the mean of the level-6 cells inside it (nested blocks
    of 4^(6-level)). foehn averages the finest values before they are
    rounded to float32 (prec="4"), the test averages the stored ones: within
    2^-23 of the field's largest magnitude."""
    d = runs[(1, 0)]
    with xr.open_zarr(d / STORE, group="z6", decode_times=False) as z6:
        finest = {name: z6[name].values.astype(np.float64) for name in ("t", "u", "sp")}
    for level in range(5, -1, -1):
        with xr.open_zarr(d / STORE, group=f"z{level}", decode_times=False) as coarse:
            for name, fine in finest.items():
                want = fine.reshape(*fine.shape[:-1], -1, 4 ** (6 - level)).mean(axis=-1)
                bound = 2.0**-23 * np.abs(fine).max()
                assert np.abs(coarse[name].values - want).max() <= bound, (name, level)


def test_same_store_values_attached_and_with_a_server(runs):
    for level in range(7):
        with xr.open_zarr(runs[(1, 0)] / STORE, group=f"z{level}", decode_times=False) as a, \
                xr.open_zarr(runs[(2, 1)] / STORE, group=f"z{level}", decode_times=False) as b:
            for name in ("t", "u", "v", "sp"):
                np.testing.assert_array_equal(a[name].values, b[name].values, err_msg=f"{name} z{level}")
