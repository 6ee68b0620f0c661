"""A user_defined calendar defined from code with XIOS's
xios_define_calendar (tests/mpi/fortran/xios_calendar_model.f90 on
xios_calendar.xml), attached (1 rank) and 1 model rank + 1 server. The
model checks the calendar type, year lengths and the day of the year in the
calendar itself; here the file: the time axis counted in this calendar
(computed below from its month lengths, independently of foehn), the CF
attributes of a user-defined calendar (CF 4.4.1: calendar, month_lengths)
and the values sent."""
import netCDF4
import numpy as np
import pytest

from conftest import BUILD, ROOT

MODEL = BUILD / "tests/mpi/fortran/xios_calendar_model"
XML = ROOT / "tests/mpi/fortran/xios_calendar.xml"
MONTHS = [20] * 11 + [25]


def days_since_2001(year, month, day):
    """Days from 2001-01-01 in the model's calendar: a leap day in month 12
    of even years (drift 0.5 day a year from offset 0)."""
    days = 0
    for y in range(2001, year):
        days += sum(MONTHS) + (y % 2 == 0)
    return days + sum(MONTHS[: month - 1]) + day - 1


@pytest.mark.parametrize("clients,servers", [(1, 0), (1, 1)], ids=["c1_s0", "c1_s1"])
def test_user_defined_calendar_from_code(tmp_path, mpmd, clients, servers):
    (tmp_path / "iodef.xml").write_text(XML.read_text())
    result = mpmd(tmp_path, clients, servers, [MODEL], timeout=180)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "xios_calendar_model: OK" in result.stdout, result.stdout + result.stderr
    start = days_since_2001(2001, 11, 15)
    assert start == 214
    # Output every 10 days (2 steps of 5 days), instant: 6 records, the last
    # in 2002 (2001 has 245 days).
    expected_days = np.array([start + 10.0 * k for k in range(1, 7)])
    assert days_since_2001(2002, 1, 1) == 245
    with netCDF4.Dataset(tmp_path / "user_cal.nc") as ds:
        t = ds["time_counter"]
        assert t.units == "seconds since 2001-01-01 00:00:00"
        assert t.calendar == "user_defined"
        np.testing.assert_array_equal(t.month_lengths, MONTHS)
        # CF's leap_year states only 4-year rules; this drift goes in a comment.
        assert "month 12" in t.comment and "0.5 days a year" in t.comment, t.comment
        np.testing.assert_array_equal(t[:], expected_days * 86400.0)
        np.testing.assert_array_equal(ds["days"][:], expected_days[:, None] * np.array([1.0, 2.0, 3.0]))
