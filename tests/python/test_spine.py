"""The spine end to end: 1-3 model ranks x attached / 1 / 2 servers write a
3-D float field and a 2-D double field; the files must hold exactly the
analytic values, with CF metadata, in one_file and multiple_file form."""
import glob
import warnings

import netCDF4
import numpy as np
import pytest
import xarray as xr

from conftest import BUILD, ROOT
from spine_reference import lat_values, lon_values, ps_values, t_values

STEPS, NI, NJ, NLEV = 7, 13, 7, 3
XML = ROOT / "tests/mpi/data/spine.xml"


def stitch(paths, var):
    """Rebuilds the global field from multiple_file parts, using the
    DOMAIN_* attributes each part carries."""
    out = None
    for p in paths:
        with netCDF4.Dataset(p) as ds:
            assert ds.DOMAIN_number_total == len(paths)
            i0, j0 = ds.DOMAIN_dom_position_first - 1
            i1, j1 = ds.DOMAIN_dom_position_last
            ni, nj = ds.DOMAIN_dom_size_global
            data = ds[var][:]
            if out is None:
                out = np.full(data.shape[:-2] + (nj, ni), np.nan, dtype=np.float64)
            out[..., j0:j1, i0:i1] = data
    return out


@pytest.mark.parametrize("servers", [0, 1, 2])
@pytest.mark.parametrize("clients", [1, 2, 3])
def test_values_exact(tmp_path, mpmd, clients, servers):
    run = mpmd(tmp_path, clients, servers, [BUILD / "tests/mpi/spine_model", XML, STEPS, NI, NJ, NLEV])
    assert run.returncode == 0, run.stdout + run.stderr
    assert "spine_model: OK" in run.stdout

    one = tmp_path / "spine_one.nc"
    with netCDF4.Dataset(one) as ds:
        assert ds.Conventions == "CF-1.10"
        assert "foehn" in ds.source
        steps = [2 * (r + 1) for r in range(STEPS // 2)]
        assert ds["ta"].dtype == np.float32 and ds["ps"].dtype == np.float64
        np.testing.assert_array_equal(ds["time_counter"][:], [86400.0 + 600.0 * s for s in steps])
        assert ds["time_counter"].units == "seconds since 1999-12-31 00:00:00"
        assert ds["time_counter"].calendar == "standard"
        np.testing.assert_array_equal(ds["lon"][:], lon_values(NI))
        np.testing.assert_array_equal(ds["lat"][:], lat_values(NJ))
        np.testing.assert_array_equal(ds["lev"][:], np.arange(1, NLEV + 1))
        for r, s in enumerate(steps):
            np.testing.assert_array_equal(ds["ta"][r], t_values(s, NLEV, NJ, NI))
            np.testing.assert_array_equal(ds["ps"][r], ps_values(s, NJ, NI))
        assert ds["ta"].standard_name == "air_temperature" and ds["ta"].units == "K"
        assert ds["ta"].cell_methods == "time: point"

    parts = sorted(glob.glob(str(tmp_path / "spine_multi_*.nc")))
    # One part per server, or per model rank when attached.
    assert len(parts) == (servers or clients)
    ta = stitch(parts, "ta")
    for r, s in enumerate([3, 6]):
        np.testing.assert_array_equal(ta[r], t_values(s, NLEV, NJ, NI))

    # The disabled file is never written.
    assert not (tmp_path / "spine_disabled.nc").exists()


def test_xarray_decodes_without_warnings(tmp_path, mpmd):
    run = mpmd(tmp_path, 2, 1, [BUILD / "tests/mpi/spine_model", XML, STEPS, NI, NJ, NLEV])
    assert run.returncode == 0, run.stdout + run.stderr
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with xr.open_dataset(tmp_path / "spine_one.nc") as ds:
            assert ds["time_counter"].dtype.kind == "M"  # decoded to datetimes
            assert str(ds["time_counter"].values[0])[:19] == "2000-01-01T00:20:00"
            np.testing.assert_array_equal(ds["ta"].isel(time_counter=0).values, t_values(2, NLEV, NJ, NI))
