"""XIOS's time variables (docs/operations.md, "Time axes"): for every value
of a file's time_counter, which of time_counter, time_centered and
time_instant (each with CF bounds) a file holds, their values, the
`coordinates` of each field; time_units="days"; time_counter_name; and
append="true" continuing such files.

Run as a script under mpiexec, this file is itself the model
(`python test_time_layout.py XML [FIRST_STEP]`): an instant and a 3-hourly
averaged field on a small lon/lat domain split in latitude bands, 6 hourly
steps."""
import sys

import numpy as np

NI, NJ, STEPS, HOURS = 8, 6, 6, 3  # 6 hourly steps, records every 3 hours


def values(step, j0, j1):
    lat = np.arange(j0, j1, dtype=np.float64)[:, None]
    lon = np.arange(NI, dtype=np.float64)[None, :]
    return lat * 10.0 + lon + step


def model(xml, first):
    import foehn
    comm = foehn.init("tl", xml)
    rank, size = comm.Get_rank(), comm.Get_size()
    j0, j1 = rank * NJ // size, (rank + 1) * NJ // size
    with foehn.Context("tl", comm) as ctx:
        ctx.set_domain_rectilinear("dom", NI, NJ, 0, j0, np.arange(NI, dtype=np.float64) * 45.0,
                                   np.arange(j0, j1, dtype=np.float64) * 30.0 - 75.0)
        ctx.close_definition()
        for step in range(1, STEPS + 1):
            ctx.update_calendar(step)
            data = np.ascontiguousarray(values(first + step, j0, j1))
            ctx.write("inst", data)
            ctx.write("mean", data)
    foehn.finalize()


if __name__ == "__main__":
    model(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 0)
    sys.exit(0)

import netCDF4  # noqa: E402
import pytest  # noqa: E402
import xarray as xr  # noqa: E402

pytestmark = pytest.mark.usefixtures("importable_package")  # conftest.py

MODES = ["", "centered", "instant", "centered_exclusive", "instant_exclusive", "exclusive", "none", "record"]
# Which time variables XIOS writes (besides the record dimension) for a file
# of both kinds, of averages only and of instants only: nc4_data_output.cpp's
# rules, written out by hand.
BOTH = {"": {"time_counter", "time_centered", "time_instant"},
        "centered": {"time_counter", "time_centered", "time_instant"},
        "instant": {"time_counter", "time_centered", "time_instant"},
        "centered_exclusive": {"time_counter", "time_instant"},
        "instant_exclusive": {"time_counter", "time_centered"},
        "exclusive": {"time_counter", "time_instant"},
        "none": {"time_centered", "time_instant"},
        "record": {"time_counter", "time_centered", "time_instant"}}
MEANS = {"": {"time_counter", "time_centered"}, "exclusive": {"time_counter"}, "instant": {"time_centered"},
         "record": {"time_counter", "time_centered"}}
INSTANTS = {"": {"time_counter", "time_instant"}, "exclusive": {"time_counter"}, "centered": {"time_instant"},
            "record": {"time_counter", "time_instant"}}
COUNTER = {"": "centered", "centered": "centered", "instant": "instant", "centered_exclusive": "centered",
           "instant_exclusive": "instant", "exclusive": "centered", "record": "record"}


def xml_text(start="2000-01-01", append=False):
    files = []
    for i, mode in enumerate(MODES):
        attr = f' time_counter="{mode}"' if mode else ""
        files.append(f'<file id="both{i}"{attr}><field field_ref="inst"/><field field_ref="mean"/></file>')
    for kind, table in (("mean", MEANS), ("inst", INSTANTS)):
        for i, mode in enumerate(table):
            attr = f' time_counter="{mode}"' if mode else ""
            files.append(f'<file id="{kind}{i}"{attr}><field field_ref="{kind}"/></file>')
    files.append('<file id="days" time_units="days" time_counter_name="time">'
                 '<field field_ref="inst"/><field field_ref="mean"/></file>')
    files.append('<file id="days_record" time_units="days" time_counter="record">'
                 '<field field_ref="mean"/></file>')
    app = ' append="true"' if append else ""
    return f"""<simulation><context id="tl">
  <calendar type="gregorian" start_date="{start}" time_origin="2000-01-01" timestep="1h"/>
  <domain_definition><domain id="dom" ni_glo="{NI}" nj_glo="{NJ}"/></domain_definition>
  <field_definition domain_ref="dom" prec="8">
    <field id="inst" operation="instant"/><field id="mean" operation="average"/>
  </field_definition>
  <file_definition output_freq="{HOURS}h" type="one_file"{app}>
    {chr(10).join(files)}
  </file_definition></context></simulation>
"""


def run(tmp_path, mpmd, clients, servers, start="2000-01-01", first=0, append=False):
    xml = tmp_path / "model.xml"
    xml.write_text(xml_text(start, append))
    result = mpmd(tmp_path, clients, servers, [sys.executable, __file__, xml, first])
    assert result.returncode == 0, result.stdout + result.stderr


def time_variables(nc):
    return {name for name in ("time_counter", "time", "time_centered", "time_instant") if name in nc.variables}


def check_times(nc, name, records, seconds_per_unit=1.0, record_base=0):
    """Every time variable of file nc against the intervals [3h k, 3h (k+1)]."""
    k = np.arange(records, dtype=np.float64) + record_base
    start, end = HOURS * 3600.0 * k / seconds_per_unit, HOURS * 3600.0 * (k + 1) / seconds_per_unit
    centre = (start + end) / 2
    expected = {"centered": (centre, np.stack([start, end], 1)), "instant": (end, np.stack([end, end], 1))}
    if "time_centered" in nc.variables:
        np.testing.assert_array_equal(nc["time_centered"][:], expected["centered"][0], name)
        np.testing.assert_array_equal(nc["time_centered_bounds"][:], expected["centered"][1], name)
    if "time_instant" in nc.variables:
        np.testing.assert_array_equal(nc["time_instant"][:], expected["instant"][0], name)
        np.testing.assert_array_equal(nc["time_instant_bounds"][:], expected["instant"][1], name)
    return expected


@pytest.mark.parametrize("clients,servers", [(2, 0), (2, 1)])
def test_every_time_counter_mode_as_xios_writes_it(tmp_path, mpmd, clients, servers):
    run(tmp_path, mpmd, clients, servers)
    records = STEPS // HOURS
    steps = np.arange(1, STEPS + 1)
    want_inst = np.stack([values(s, 0, NJ) for s in steps[HOURS - 1::HOURS]])
    want_mean = np.stack([np.mean([values(s, 0, NJ) for s in steps[r * HOURS:(r + 1) * HOURS]], axis=0)
                          for r in range(records)])
    layouts = [(f"both{i}", m, BOTH[m]) for i, m in enumerate(MODES)]
    layouts += [(f"mean{i}", m, MEANS[m]) for i, m in enumerate(MEANS)]
    layouts += [(f"inst{i}", m, INSTANTS[m]) for i, m in enumerate(INSTANTS)]
    for name, mode, want_vars in layouts:
        with netCDF4.Dataset(tmp_path / f"{name}.nc") as nc:
            assert time_variables(nc) == want_vars, (name, mode)
            assert nc.dimensions["time_counter"].isunlimited() and len(nc.dimensions["time_counter"]) == records
            expected = check_times(nc, name, records)
            if "time_counter" in nc.variables:
                kind = COUNTER[mode] if mode else ("centered" if "mean" in nc.variables else "instant")
                if mode == "exclusive" and "mean" not in nc.variables:
                    kind = "instant"
                if kind == "record":  # the record number, CF-valid: no time axis
                    np.testing.assert_array_equal(nc["time_counter"][:], np.arange(records), name)
                    assert nc["time_counter"].units == "1" and "time_counter_bounds" not in nc.variables
                else:
                    np.testing.assert_array_equal(nc["time_counter"][:], expected[kind][0], name)
                    np.testing.assert_array_equal(nc["time_counter_bounds"][:], expected[kind][1], name)
                    assert nc["time_counter"].axis == "T" and nc["time_counter"].units.startswith("seconds since 2000")
            # Each field names its own time variable, if the file has it.
            for var, own in (("inst", "time_instant"), ("mean", "time_centered")):
                if var in nc.variables:
                    coords = getattr(nc[var], "coordinates", "").split()
                    assert (own in coords) == (own in want_vars), (name, var, coords)
            if "inst" in nc.variables:
                np.testing.assert_array_equal(nc["inst"][:], want_inst, name)
            if "mean" in nc.variables:
                np.testing.assert_allclose(nc["mean"][:], want_mean, rtol=1e-15, err_msg=name)
    # Days, and another name for the record dimension: xarray decodes the
    # same dates as from the seconds file.
    with netCDF4.Dataset(tmp_path / "days.nc") as nc:
        assert "time" in nc.dimensions and "time_counter" not in nc.dimensions
        assert nc["time"].units == "days since 2000-01-01 00:00:00", nc["time"].units
        assert nc["time_centered_bounds"].dimensions == ("time", "axis_nbounds")
        check_times(nc, "days", records, 86400.0)
        np.testing.assert_allclose(nc["time"][:], (np.arange(records) + 0.5) * HOURS / 24.0, rtol=1e-15)
    with xr.open_dataset(tmp_path / "days.nc") as days, xr.open_dataset(tmp_path / "both0.nc") as secs:
        np.testing.assert_array_equal(days["time"].values, secs["time_counter"].values)
        np.testing.assert_array_equal(days["time_instant"].values, secs["time_instant"].values)
        assert str(days["time"].values[0]) == "2000-01-01T01:30:00.000000000"


def test_append_continues_every_layout(tmp_path, mpmd):
    """A second run (start at 6h, append="true") goes on after the first
    run's records in every mode, record numbers and days included."""
    run(tmp_path, mpmd, 2, 1, append=True)  # (a file to continue is created as one)
    run(tmp_path, mpmd, 2, 1, start="2000-01-01 06:00:00", first=STEPS, append=True)
    records = 2 * STEPS // HOURS
    for name in [f"both{i}" for i in range(len(MODES))] + ["days", "days_record"]:
        with netCDF4.Dataset(tmp_path / f"{name}.nc") as nc:
            dim = "time" if name == "days" else "time_counter"
            assert len(nc.dimensions[dim]) == records, name
            check_times(nc, name, records, 86400.0 if name.startswith("days") else 1.0)
            if name == "days_record":
                np.testing.assert_array_equal(nc["time_counter"][:], np.arange(records))
            want = np.stack([values(s, 0, NJ) for s in range(HOURS, 2 * STEPS + 1, HOURS)])
            if "inst" in nc.variables:
                np.testing.assert_array_equal(nc["inst"][:], want, name)
