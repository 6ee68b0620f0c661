"""Masks set from code through the xios module (issue 21: XIOS's
generic_testcase sets them), run by tests/mpi/fortran/xios_masks_model.f90 on
xios_masks.xml, attached (1 rank), 1 model rank + 1 server and 2 + 1 (rows
split, data with a halo column on each side): grid g3d's mask_3d, grid g2d's
mask_2d (set through a handle), grid glev's mask_1d, a masked scalar
(mask=.false.: every value of its grids hidden) beside an unmasked one, and
the domain's own mask_2d. As in XIOS, a masked point is written as the
field's default_value, else (foehn) the netCDF default fill value, which the
variable's _FillValue names; every other point is exactly what was sent."""
import netCDF4
import numpy as np
import pytest

from conftest import BUILD, ROOT

MODEL = BUILD / "tests/mpi/fortran/xios_masks_model"
XML = ROOT / "tests/mpi/fortran/xios_masks.xml"
NI, NJ, NLEV, NSTEPS = 8, 6, 3, 2
NC_FILL_DOUBLE = 9.9692099683868690e36  # netCDF's default fill value for doubles


@pytest.mark.parametrize("clients,servers", [(1, 0), (1, 1), (2, 1)], ids=["c1_s0", "c1_s1", "c2_s1"])
def test_masks_set_from_code(tmp_path, mpmd, clients, servers):
    (tmp_path / "iodef.xml").write_text(XML.read_text())
    result = mpmd(tmp_path, clients, servers, [MODEL], timeout=180)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "xios_masks_model: OK" in result.stdout, result.stdout + result.stderr
    check_file(tmp_path / "masks_out.nc")


def check_file(path):
    k, j, i = np.meshgrid(np.arange(NLEV), np.arange(NJ), np.arange(NI), indexing="ij")
    domain_masked = (i[0] == NI - 1) & (j[0] == 0)
    t3_masked = ((i + j + k) % 4 == 0) | domain_masked[np.newaxis]
    t2_masked = (i[0] * j[0] % 3 == 1) | domain_masked
    with netCDF4.Dataset(path) as ds:
        ds.set_auto_mask(False)
        assert len(ds.dimensions["time_counter"]) == NSTEPS
        assert ds["t3"].dimensions == ("time_counter", "lev", "lat", "lon")
        assert ds["t3"]._FillValue == NC_FILL_DOUBLE
        assert ds["t2"]._FillValue == -999.0
        assert ds["plain"]._FillValue == NC_FILL_DOUBLE
        assert ds["prof"]._FillValue == NC_FILL_DOUBLE
        assert ds["s_hidden"]._FillValue == NC_FILL_DOUBLE
        for r, step in enumerate(range(1, NSTEPS + 1)):
            values = 100.0 * k + 10.0 * j + i + step
            np.testing.assert_array_equal(ds["t3"][r], np.where(t3_masked, NC_FILL_DOUBLE, values))
            np.testing.assert_array_equal(ds["t2"][r], np.where(t2_masked, -999.0, values[0]))
            np.testing.assert_array_equal(ds["plain"][r], np.where(domain_masked, NC_FILL_DOUBLE, values[0]))
            np.testing.assert_array_equal(ds["prof"][r], [step, NC_FILL_DOUBLE, 200.0 + step])
            np.testing.assert_array_equal(ds["tbox_hidden"][r], np.full((NJ, NI), NC_FILL_DOUBLE))
            assert ds["s_hidden"][r] == NC_FILL_DOUBLE
            assert ds["s_shown"][r] == step + 0.5
        # The masked scalar keeps its coordinate (XIOS writes its value too).
        assert ds["hidden"][...] == 2.0 and ds["shown"][...] == 10.0
