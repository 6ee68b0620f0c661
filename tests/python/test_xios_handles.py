"""XIOS's handles from Fortran (tests/mpi/fortran/xios_handles_model.f90).

The model defines, from code only:
- a zoom_domain (anonymous, attributes set through its handle) and an
  extract_domain (with an id, set by id) under two domains of the XML that
  refer to the model's domain, and two fields on them added to the file;
- a reorder_domain of the XML (invert_lat set through its handle) and an
  expand_domain added from code, and fields on them;
- a grid g3 (an anonymous domain standing for globe, then the XML's axis lev)
  and a field ta on it.
It sends tas = 100 step + 10 j + i on an 8 x 6 globe and ta = 1000 k + tas on
3 levels; the files must hold numpy's boxes and stacks of those values.
Variables added from code become a global attribute (string, int) and an
attribute of ta (double), typed as set.
It also prints dates computed in the XML's user_defined calendar, which the
test counts by hand from the month lengths."""
import netCDF4
import numpy as np
import pytest

from conftest import BUILD

MONTHS = [20, 40, 30, 31, 30, 31, 31, 30, 31, 30, 31, 31]  # 366 days, no leap years

XML = f"""<simulation><context id="atm">
  <calendar type="user_defined" month_lengths="{' '.join(map(str, MONTHS))}"
            start_date="2000-01-20 23:00:00" timestep="1h"/>
  <axis_definition><axis id="lev" n_glo="3" value="1000 500 100"/></axis_definition>
  <domain_definition>
    <domain id="globe" type="rectilinear"/>
    <domain id="box" domain_ref="globe"/>
    <domain id="strip" domain_ref="globe"/>
    <domain id="flipped" domain_ref="globe"><reorder_domain id="flip"/></domain>
    <domain id="halo" domain_ref="globe"/>
  </domain_definition>
  <grid_definition/>
  <field_definition prec="8" operation="instant"><field id="tas" domain_ref="globe"/></field_definition>
  <file_definition output_freq="1ts" type="one_file"><file id="out"><field field_ref="tas"/></file></file_definition>
</context></simulation>
"""


def expected_tas(steps=2, nj=6, ni=8):
    step, j, i = np.meshgrid(np.arange(1, steps + 1), np.arange(nj), np.arange(ni), indexing="ij")
    return 100.0 * step + 10.0 * j + i


def to_seconds(year, month, day, hour=0, minute=0, second=0):
    """Seconds since 0000-01-01 counted from the month lengths."""
    days = year * sum(MONTHS) + sum(MONTHS[:month - 1]) + day - 1
    return ((days * 24 + hour) * 60 + minute) * 60 + second


def from_seconds(seconds):
    days, rest = divmod(seconds, 86400)
    year, day = divmod(days, sum(MONTHS))
    month = 0
    while day >= MONTHS[month]:
        day -= MONTHS[month]
        month += 1
    return f"{year:04d}-{month + 1:02d}-{day + 1:02d} {rest // 3600:02d}:{rest % 3600 // 60:02d}:{rest % 60:02d}"


def printed_dates(stdout):
    return {w[1]: " ".join(w[2:4]) for w in (line.split() for line in stdout.splitlines()) if w[:1] == ["date"]}


@pytest.mark.parametrize("clients,servers", [(2, 0), (1, 1)])
def test_handles_transformations_grids_and_user_dates(tmp_path, mpmd, clients, servers):
    (tmp_path / "iodef.xml").write_text(XML)
    run = mpmd(tmp_path, clients, servers, [BUILD / "tests/mpi/fortran/xios_handles_model"])
    assert run.returncode == 0 and "xios_handles_model: OK" in run.stdout, run.stdout + run.stderr
    tas = expected_tas()
    with netCDF4.Dataset(tmp_path / "out.nc") as nc:
        np.testing.assert_array_equal(nc["tas"][:], tas)
        # zoom_domain ibegin=2 ni=4 jbegin=1 nj=3; extract_domain ibegin=0 ni=8 jbegin=4 nj=2
        np.testing.assert_array_equal(nc["tas_box"][:], tas[:, 1:4, 2:6])
        np.testing.assert_array_equal(nc["tas_strip"][:], tas[:, 4:6, :])
        # reorder_domain invert_lat=.true. (set through the handle): rows reversed, with their latitudes;
        # expand_domain: the written domain is the source's
        np.testing.assert_array_equal(nc["tas_flip"][:], tas[:, ::-1, :])
        lat_flip = nc[nc["tas_flip"].dimensions[1]][:]
        np.testing.assert_array_equal(lat_flip, -75.0 + 30.0 * np.arange(6)[::-1])
        np.testing.assert_array_equal(nc["tas_halo"][:], tas)
        # the grid built in code: (time, lev, lat, lon)
        ta = 1000.0 * np.arange(1, 4)[None, :, None, None] + tas[:, None, :, :]
        np.testing.assert_array_equal(nc["ta"][:], ta)
        np.testing.assert_array_equal(nc["lev"][:], [1000, 500, 100])
        assert nc.getncattr("note_from_code") == "made in code"
        members = nc.getncattr("members")
        assert members == 12 and np.issubdtype(np.asarray(members).dtype, np.integer)
        assert nc["ta"].getncattr("level_weight") == 2.5
        assert "level_weight" not in nc["tas"].ncattrs()
    day = 86400
    expected = {
        "jan15_plus_10d": from_seconds(to_seconds(2000, 1, 15) + 10 * day),
        "feb30_plus_45d": from_seconds(to_seconds(2000, 2, 30, 6) + 45 * day),
        "string_plus_1d": from_seconds(to_seconds(2000, 1, 20) + day),
        "dec31_minus_400d": from_seconds(to_seconds(2000, 12, 31) - 400 * day),
        "current_1": from_seconds(to_seconds(2000, 1, 20, 23) + 3600),
        "current_2": from_seconds(to_seconds(2000, 1, 20, 23) + 7200),
    }
    # Counted by hand: January has 20 days, February 40.
    assert expected["jan15_plus_10d"] == "2000-02-05 00:00:00"
    assert expected["string_plus_1d"] == "2000-02-01 00:00:00"
    assert printed_dates(run.stdout) == expected
