"""Python arrays are checked against the field's local shape where they
have one (issue 18, item 15): an array of the right size in another shape
(transposed) used to be written scrambled without a word. A flat array is
taken as it is, and dimensions of length 1 do not count. Coordinates of a
rectilinear domain must be 1-D, and too few of them leave points without an
owner, which close of definition refuses.

Run as a script under mpiexec, this file is itself the model
(`python test_python_shapes.py XML CASE`): it prints one line per checked
call on rank 0 ("CASE name: OK" or "CASE name: <type>: <code>: <message>")."""
import sys

import numpy as np

NI, NJ, NLEV = 8, 4, 3


def values(step, j0, j1, nlev=None):
    j, i = np.meshgrid(np.arange(j0, j1), np.arange(NI), indexing="ij")
    v = step * 1000.0 + j * NI + i
    return v if nlev is None else np.stack([v + 100.0 * k for k in range(nlev)])


def model(xml, case_set):
    import foehn
    comm = foehn.init("shapes", xml)
    rank, size = comm.Get_rank(), comm.Get_size()
    j0, j1 = rank * NJ // size, (rank + 1) * NJ // size
    lon, lat = np.arange(NI, dtype=np.float64), np.arange(j0, j1, dtype=np.float64)

    def case(name, call):  # rank 0 prints (the lines of two ranks could mix)
        try:
            call()
            result = "OK"
        except (foehn.Error, ValueError) as e:
            code = [n for n in dir(foehn) if n.startswith("ERR_") and getattr(foehn, n) == getattr(e, "code", None)]
            result = f"{type(e).__name__}: {code}: {e}"
        if rank == 0:
            print(f"CASE {name}: {result}", flush=True)

    if case_set == "coordinates":
        ctx = foehn.Context("shapes", comm)
        case("lon_2d", lambda: ctx.set_domain_rectilinear("dom", NI, NJ, 0, j0, np.zeros((j1 - j0, NI)), lat))
        ctx.set_domain_rectilinear("dom", NI, NJ, 0, j0, lon[:-2], lat)  # too short: two columns without owner
        ctx.set_axis("lev", np.arange(NLEV, dtype=np.float64))
        case("lon_short", ctx.close_definition)
        case("close", ctx.close)
        foehn.finalize()
        return
    with foehn.Context("shapes", comm) as ctx:
        ctx.set_domain_rectilinear("dom", NI, NJ, 0, j0, lon, lat)
        ctx.set_axis("lev", np.arange(NLEV, dtype=np.float64))
        ctx.close_definition()
        for step in (1, 2):
            ctx.update_calendar(step)
            ts, t3 = values(step, j0, j1), values(step, j0, j1, NLEV)
            if step == 1:
                case("ts_transposed", lambda: ctx.write("ts", np.ascontiguousarray(ts.T)))
                case("t3_levels_last", lambda: ctx.write("t3", np.ascontiguousarray(np.moveaxis(t3, 0, -1))))
                h = ctx.field_handle("t3")
                case("t3_by_handle_swapped", lambda: ctx.write(h, np.ascontiguousarray(t3.swapaxes(1, 2))))
                case("ts", lambda: ctx.write("ts", ts[np.newaxis]))  # a leading dimension of 1
                case("t3", lambda: ctx.write(h, t3))
            else:
                case("ts_flat", lambda: ctx.write("ts", ts.ravel()))
                case("t3_flat", lambda: ctx.write("t3", t3.ravel()))
    foehn.finalize()


if __name__ == "__main__":
    model(sys.argv[1], sys.argv[2])
    sys.exit(0)

import netCDF4  # noqa: E402
import pytest  # noqa: E402


XML = """<simulation><context id="shapes">
  <calendar type="noleap" start_date="2000-01-01" timestep="1h"/>
  <axis_definition><axis id="lev"/></axis_definition>
  <domain_definition><domain id="dom" ni_glo="8" nj_glo="4"/></domain_definition>
  <grid_definition><grid id="g3"><domain domain_ref="dom"/><axis axis_ref="lev"/></grid></grid_definition>
  <field_definition prec="8" operation="instant">
    <field id="ts" domain_ref="dom"/><field id="t3" grid_ref="g3"/>
  </field_definition>
  <file_definition output_freq="1ts" type="one_file">
    <file id="out" name="shapes"><field field_ref="ts"/><field field_ref="t3"/></file>
  </file_definition>
</context></simulation>
"""


pytestmark = pytest.mark.usefixtures("importable_package")  # conftest.py


def run(tmp_path, mpmd, clients, servers, case_set):
    xml = tmp_path / "shapes.xml"
    xml.write_text(XML)
    done = mpmd(tmp_path, clients, servers, [sys.executable, __file__, xml, case_set], timeout=60)
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    cases = {}
    for line in done.stdout.splitlines():
        if line.startswith("CASE "):
            name, result = line[5:].split(": ", 1)
            cases[name] = result
    return cases, out


@pytest.mark.parametrize("clients,servers", [(1, 0), (2, 0), (2, 1)], ids=["attached", "attached-2", "2+1"])
def test_an_array_of_another_shape_is_refused(tmp_path, mpmd, clients, servers):
    cases, out = run(tmp_path, mpmd, clients, servers, "writes")
    nj = NJ // clients
    refused = {"ts_transposed": (f"'ts'", f"shape ({NI}, {nj})", f"local data of shape ({nj}, {NI})"),
               "t3_levels_last": ("'t3'", f"shape ({nj}, {NI}, {NLEV})", f"local data of shape ({NLEV}, {nj}, {NI})"),
               "t3_by_handle_swapped": ("handle", f"shape ({NLEV}, {NI}, {nj})", f"({NLEV}, {nj}, {NI})")}
    for name, words in refused.items():
        assert cases[name].startswith("Error: ['ERR_ARGUMENT']: "), (name, out)
        for w in words:
            assert w in cases[name], (name, w, out)
    for name in ["ts", "t3", "ts_flat", "t3_flat"]:
        assert cases[name] == "OK", (name, out)
    # The refused writes left nothing: the records hold the right writes, exact.
    with netCDF4.Dataset(tmp_path / "shapes.nc") as nc:
        for r, step in enumerate((1, 2)):
            np.testing.assert_array_equal(nc["ts"][r], values(step, 0, NJ))
            np.testing.assert_array_equal(nc["t3"][r], values(step, 0, NJ, NLEV))


def test_rectilinear_coordinates_are_one_dimensional_and_cover_the_domain(tmp_path, mpmd):
    cases, out = run(tmp_path, mpmd, 1, 0, "coordinates")
    assert cases["lon_2d"].startswith("ValueError: "), out
    assert "lon and lat must be 1-D" in cases["lon_2d"] and f"(4, {NI})" in cases["lon_2d"], out
    assert cases["lon_short"].startswith("Error: "), out
    assert "no model rank holds the point (i 6, j 0)" in cases["lon_short"], out
