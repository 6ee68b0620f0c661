"""HEALPix pyramids whose coarse cells are split between model ranks
(docs/kmscale.md, "Where it runs"): healpix_split_model.py decomposes a
level-3 domain in uneven contiguous ranges not on nested block boundaries,
round-robin (every coarse cell on all ranks) or in whole level-0 blocks,
attached and with 1 and 2 servers. Every level of every pyramid (nested,
with levels, with missing values, ring) is byte-identical to the 1-rank
run's and equal to numpy's count-weighted mean of the nested children
(healpy's ring<->nested maps and ud_grade for the ring one); the Zarr
stores (nested and ring) hold the same bytes as the 1-rank run's."""
import os
import sys

import healpy
import netCDF4
import numpy as np
import pytest

from conftest import ROOT, BUILD, run_mpmd
from healpix_split_model import CELLS, LEVEL, STEPS, sst_values, tas_values

MODEL = ROOT / "tests/python/healpix_split_model.py"
XML = ROOT / "tests/python/healpix_split.xml"
REFERENCE = (1, 0, "contiguous")
RUNS = [REFERENCE, (3, 0, "contiguous"), (3, 0, "strided"), (3, 0, "blocks"), (2, 1, "strided"),
        (3, 2, "contiguous")]  # (model ranks, servers, decomposition)
PYRAMIDS = {"split_pyramid.nc": {"tas": 0, "ta": 1, "sst": 0}, "split_ring.nc": {"rtas": 0}}  # name: coarsest


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Each configuration's directory, run once for the module."""
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = str(BUILD / "python")  # the model imports foehn from the build
    try:
        out = {}
        for clients, servers, decomposition in RUNS:
            d = tmp_path_factory.mktemp(f"hps_{clients}_{servers}_{decomposition}")
            run = run_mpmd(d, clients, servers, [sys.executable, MODEL, XML, decomposition], timeout=240)
            assert run.returncode == 0 and "healpix_split_model: OK" in run.stdout, run.stdout + run.stderr
            out[(clients, servers, decomposition)] = d
        return out
    finally:
        if old is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = old


def variables(path):
    """name -> raw bytes of every pyramid level (and its coordinates) in a NetCDF file."""
    with netCDF4.Dataset(path) as nc:
        nc.set_auto_maskandscale(False)
        return {name: nc[name][:].tobytes() for name in nc.variables}


def test_the_decompositions_split_coarse_cells():
    """The model's decompositions are what the test means: a level-1 cell
    (16 cells of level 3) on several ranks, or (blocks) on one."""
    from healpix_split_model import my_cells
    for decomposition, split in (("contiguous", True), ("strided", True), ("blocks", False)):
        owner = np.empty(CELLS, int)
        for rank in range(3):
            owner[my_cells(decomposition, rank, 3)] = rank
        ranks_per_cell = [len(set(b)) for b in owner.reshape(-1, 16)]
        assert (max(ranks_per_cell) > 1) == split, decomposition
    assert sorted(np.concatenate([my_cells("contiguous", r, 3) for r in range(3)])) == list(range(CELLS))


@pytest.mark.parametrize("config", RUNS[1:])
def test_every_level_byte_identical_to_one_rank(runs, config):
    for name in PYRAMIDS:
        ours, reference = variables(runs[config] / name), variables(runs[REFERENCE] / name)
        assert sorted(ours) == sorted(reference), name
        for var in reference:
            assert ours[var] == reference[var], f"{name}: {var}"


def coarse(values, level):
    """Each cell of `level`: the mean of the valid level-3 cells nested in it (nested order)."""
    blocks = values.reshape(*values.shape[:-1], -1, 4 ** (LEVEL - level))
    count = np.sum(~np.isnan(blocks), axis=-1)
    with np.errstate(invalid="ignore"):
        return np.nansum(blocks, axis=-1) / count


@pytest.mark.parametrize("config", [(3, 0, "contiguous"), (2, 1, "strided")])
def test_levels_are_the_count_weighted_means_of_the_children(runs, config):
    g = np.arange(CELLS)
    with netCDF4.Dataset(runs[config] / "split_pyramid.nc") as nc:
        for r, step in enumerate(range(2, STEPS + 1, 2)):
            for level in range(LEVEL, -1, -1):
                np.testing.assert_array_equal(nc[f"tas_z{level}"][r].filled(np.nan), coarse(tas_values(step, g), level))
                # sst, averaged over the record's 2 steps: some coarse cells have fewer valid children, some none
                sst = nc[f"sst_z{level}"][r].filled(np.nan)
                expected = 0.5 * (coarse(sst_values(step - 1, g), level) + coarse(sst_values(step, g), level))
                np.testing.assert_allclose(sst, expected, rtol=1e-14, equal_nan=True)
                if level >= 2:
                    assert np.isnan(sst).any() and not np.isnan(sst).all()
            for level in range(LEVEL, 0, -1):
                ta = np.stack([coarse(tas_values(step, g, k), level) for k in range(3)])
                np.testing.assert_array_equal(nc[f"ta_z{level}"][r].filled(np.nan), ta)
        assert "ta_z0" not in nc.variables


@pytest.mark.parametrize("config", [(3, 0, "strided"), (3, 2, "contiguous")])
def test_ring_levels_average_the_nested_children(runs, config):
    """rtas is written in ring order: level l's ring cell c averages the ring
    cells of level 3 whose nested index lies in ring2nest(l, c)'s block."""
    ring = np.arange(CELLS)
    with netCDF4.Dataset(runs[config] / "split_ring.nc") as nc:
        assert nc[nc["rtas_z1"].grid_mapping].indexing_scheme == "ring"
        for r, step in enumerate(range(2, STEPS + 1, 2)):
            fine_ring = tas_values(step, ring)
            fine_nested = fine_ring[healpy.nest2ring(2**LEVEL, ring)]
            for level in range(LEVEL, -1, -1):
                cells = np.arange(12 * 4**level)
                expected = coarse(fine_nested, level)[healpy.ring2nest(2**level, cells)]
                ours = nc[f"rtas_z{level}"][r].filled(np.nan)
                np.testing.assert_array_equal(ours, expected, err_msg=f"level {level}")
                graded = healpy.ud_grade(fine_ring, 2**level, order_in="RING", order_out="RING")
                np.testing.assert_allclose(ours, graded, rtol=1e-13)
                if level < LEVEL:
                    lat = healpy.pix2ang(2**level, cells, nest=False, lonlat=True)[1]
                    np.testing.assert_allclose(nc[f"lat_hr_z{level}"][:], lat, rtol=0, atol=1e-11)


@pytest.mark.parametrize("config", [(3, 0, "strided"), (3, 2, "contiguous")])
@pytest.mark.parametrize("name, variable", [("split_pyramid.zarr", "sst"), ("split_ring.zarr", "rtas")])
def test_zarr_store_identical_to_one_rank(runs, config, name, variable):
    store, reference = runs[config] / name, runs[REFERENCE] / name
    files = sorted(p.relative_to(reference) for p in reference.rglob("*") if p.is_file())
    assert sorted(p.relative_to(store) for p in store.rglob("*") if p.is_file()) == files
    assert any(f.parts[0] == "z0" and f.parts[1] == variable and f.name[0].isdigit() for f in files)  # chunks
    for f in files:
        assert (store / f).read_bytes() == (reference / f).read_bytes(), f


@pytest.mark.parametrize("config", [REFERENCE, (3, 0, "strided")])
def test_ring_zarr_store_equals_the_netcdf_file(runs, config):
    import xarray as xr
    with xr.open_dataset(runs[config] / "split_ring.nc", decode_times=False) as nc:
        for level in range(LEVEL, -1, -1):
            with xr.open_zarr(runs[config] / "split_ring.zarr", group=f"z{level}", decode_times=False) as z:
                np.testing.assert_array_equal(z["rtas"].values, nc[f"rtas_z{level}"].values)
                assert z["crs"].attrs["healpix_order"] == "ring" and z["crs"].attrs["refinement_level"] == level
                np.testing.assert_array_equal(z["cell"].values, np.arange(12 * 4**level))
