"""What porting a real model through `use xios` asked (issue 21, items 8
and 10), run by tests/mpi/fortran/xios_dropin_model.f90 on xios_dropin.xml,
attached (1 rank), with 1 model rank + 1 server and 2 + 1:
- a hybrid sigma-pressure axis: formula and formula_term set from code are
  written as formula and formula_terms, a <variable> of the axis as an
  attribute; formula_bounds and formula_term_bounds go on the bounds
  variable (as XIOS writes them); the file passes cfchecks with 0 errors;
- a curvilinear domain sent as compressed data (data_dim=1 + data_i_index):
  the written values equal numpy's at the wet points, fill elsewhere;
- writes at step 0 (before the first update) are dropped as XIOS drops them,
  with a warning: no record at the start date, and averages start at step 1;
  but once fields sent at step 0 only are written, as XIOS writes them;
- xios_field_is_active by handle (checked inside the model);
- an output_freq that is not a whole number of time steps is refused at its
  XML line, by close of definition and by `foehn check`;
- start_date and time_origin written as XIOS's date expressions
  ("1999-12-31 22:00:00 + 2ts"): read back as dates inside the model, and
  the time axis counts from the date they stand for."""
import re
import subprocess

import netCDF4
import numpy as np
import pytest

from conftest import BUILD, ROOT

MODEL = BUILD / "tests/mpi/fortran/xios_dropin_model"
XML = ROOT / "tests/mpi/fortran/xios_dropin.xml"
NI, NJ, NSTEPS = 10, 8, 4
AP = np.array([1000.0, 4000.0, 3000.0, 500.0])
B = np.array([0.0, 0.2, 0.6, 0.9])


def expected(step):
    """ps, ta (lev, j, i) and the wet mask, as the model computes them."""
    j, i = np.meshgrid(np.arange(NJ), np.arange(NI), indexing="ij")
    wet = (i + 2 * j) % 5 != 0
    ps = 1e5 + 100.0 * j + i + step
    ta = np.stack([200.0 + 10.0 * k + 0.1 * i + j + step for k in range(4)])
    return ps, ta, wet


def run(workdir, mpmd, clients, servers, xml_text=None):
    """The model in workdir, whose iodef.xml it reads (as XIOS does)."""
    (workdir / "iodef.xml").write_text(xml_text or XML.read_text())
    return mpmd(workdir, clients, servers, [MODEL], timeout=180)


@pytest.fixture(scope="module", params=[(1, 0), (1, 1), (2, 1)], ids=["c1_s0", "c1_s1", "c2_s1"])
def outputs(request, tmp_path_factory):
    from conftest import run_mpmd
    clients, servers = request.param
    out = tmp_path_factory.mktemp(f"dropin_c{clients}_s{servers}")
    result = run(out, run_mpmd, clients, servers)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "xios_dropin_model: OK" in result.stdout, result.stdout + result.stderr
    return out, result


def test_hybrid_axis_attributes_and_cf(outputs):
    out, _ = outputs
    with netCDF4.Dataset(out / "dropin_hybrid.nc") as ds:
        lev = ds["lev"]
        assert lev.standard_name == "atmosphere_hybrid_sigma_pressure_coordinate"
        assert lev.formula_terms == "ap: ap b: b ps: ps"  # set from code
        assert lev.formula == "p = ap + b*ps"
        assert lev.computed_standard_name == "air_pressure"  # the axis's <variable>
        np.testing.assert_array_equal(lev[:], [0.1, 0.4, 0.7, 0.95])
        # once fields sent at step 0 only (XIOS takes their first value)
        np.testing.assert_array_equal(ds["ap"][:], AP)
        np.testing.assert_array_equal(ds["b"][:], B)
        assert not np.ma.is_masked(ds["ap"][:])
    check = subprocess.run(["bash", str(ROOT / "scripts/cfcheck.sh"), str(out / "dropin_hybrid.nc")],
                           capture_output=True, text=True, timeout=120)
    assert "ERRORS detected: 0" in check.stdout, check.stdout + check.stderr
    assert check.returncode == 0


def test_bounds_formula_attributes(outputs):
    out, _ = outputs
    with netCDF4.Dataset(out / "dropin_bounds.nc") as ds:
        levb = ds["levb"]
        assert levb.formula_terms == "ap: apb b: bb ps: ps" and levb.formula == "p = ap + b*ps"
        bounds = ds[levb.bounds]
        assert bounds.formula_terms == "ap: apb_bnds b: bb_bnds ps: ps"
        assert bounds.formula == "p = ap + b*ps"
        np.testing.assert_array_equal(bounds[:], [[0, 0.5], [0.5, 1]])
        np.testing.assert_array_equal(ds["apb"][:], AP[:2])
        np.testing.assert_array_equal(ds["bb"][:], B[:2])


def test_compressed_curvilinear_values(outputs):
    out, _ = outputs
    with netCDF4.Dataset(out / "dropin_hybrid.nc") as ds:
        # Step 0 was written before the first update: no record of the start date.
        np.testing.assert_array_equal(ds["time_counter"][:], 3600.0 * np.arange(1, NSTEPS + 1))
        j, i = np.meshgrid(np.arange(NJ), np.arange(NI), indexing="ij")
        np.testing.assert_array_equal(ds["nav_lon"][:], 10.0 * i + 0.5 * j)  # XIOS's curvilinear names
        np.testing.assert_array_equal(ds["nav_lat"][:], -60.0 + 15.0 * j + 0.1 * i)
        assert ds["ps"].coordinates.split()[-2:] == ["nav_lat", "nav_lon"]
        for r in range(NSTEPS):
            ps, ta, wet = expected(r + 1)
            got = ds["ps"][r]
            np.testing.assert_array_equal(np.ma.getmaskarray(got), ~wet)
            np.testing.assert_array_equal(got[wet], ps[wet])
            got = ds["ta"][r]
            for k in range(4):
                np.testing.assert_array_equal(np.ma.getmaskarray(got[k]), ~wet)
                np.testing.assert_allclose(got[k][wet], ta[k][wet], rtol=1e-6)  # float in the file


def test_step0_is_dropped_as_xios_does(outputs):
    out, result = outputs
    assert re.search(r"field '\w+' is written at step 0 .*no output samples", result.stderr), result.stderr
    with netCDF4.Dataset(out / "dropin_mean.nc") as ds:
        # Averages of steps 1-2 and 3-4: the values of step 0 are in neither.
        # The XML's start_date and time_origin are date expressions for 2000-01-01.
        assert ds["time_counter"].units == "seconds since 2000-01-01 00:00:00"
        np.testing.assert_array_equal(ds["time_counter"][:], [3600.0, 10800.0])
        for r, steps in enumerate([(1, 2), (3, 4)]):
            ps = np.mean([expected(s)[0] for s in steps], axis=0)
            wet = expected(0)[2]
            np.testing.assert_allclose(ds["ps_mean"][r][wet], ps[wet], rtol=1e-7)
            np.testing.assert_array_equal(ds["pt"][r][wet], expected(2 * r + 2)[0][wet] + 0.5)


def test_output_freq_not_a_multiple_of_the_step_is_refused(tmp_path, mpmd):
    text = XML.read_text().replace('timestep="1h"', 'timestep="40mi"')
    line = next(n for n, l in enumerate(text.splitlines(), 1) if 'output_freq="1h"' in l)
    bad = tmp_path / "bad.xml"
    bad.write_text(text)
    check = subprocess.run([str(BUILD / "apps/foehn/foehn"), "check", str(bad)], capture_output=True, text=True,
                           timeout=30)
    said = check.stdout + check.stderr
    assert check.returncode != 0
    assert f"bad.xml:{line}" in said and "output_freq '1h' is not a whole number of time steps" in said, said
    result = run(tmp_path, mpmd, 1, 0, text)
    assert result.returncode != 0
    assert "output_freq '1h' is not a whole number of time steps" in result.stdout + result.stderr
