"""What the XML asks of the files beyond the data:
- compression_level: fields are deflated (with shuffle) in the file, by
  parallel writers too, and read back exactly; a field's own level wins
  over its file's, and 0 leaves it uncompressed;
- <variable>s of files and fields become global and variable attributes of
  their XML type; valid_min and valid_max take the variable's type;
- cell_methods_mode puts the XML's cell_methods over, before or after the
  computed one, or leaves none;
- a file's output_level (default 5) leaves out the fields of a higher
  level (default 1);
- format, min_digits, and append="true", which continues the files of the
  run a restart follows and refuses files it cannot continue.

Run as a script under mpiexec, this file is itself the model
(`python test_file_options.py XML`): a smooth 2-D field and a 3-D one on a
lon/lat grid split in latitude bands."""
import subprocess
import sys

import numpy as np

NI, NJ, NLEV, STEPS = 180, 90, 5, 3


def smooth(step, j0, j1):
    """A smooth field (it compresses well): exact in float32."""
    lat = np.arange(j0, j1, dtype=np.float64)[:, None]
    lon = np.arange(NI, dtype=np.float64)[None, :]
    return np.round(100.0 * np.sin(lat / 30.0) + 0.25 * lon + step, 2)


def model(xml, mode=""):
    """mode "runtime" ("layout"): file attributes (XIOS's layout attributes)
    set by the model; "restart": the run
    after a first one, whose steps continue its numbering; "masked": every
    fifth point of the domain masked."""
    import foehn
    comm = foehn.init("zip", xml)
    rank, size = comm.Get_rank(), comm.Get_size()
    j0, j1 = rank * NJ // size, (rank + 1) * NJ // size
    with foehn.Context("zip", comm) as ctx:
        ctx.set_domain_rectilinear("dom", NI, NJ, 0, j0, np.arange(NI, dtype=np.float64) * 2.0,
                                   np.arange(j0, j1, dtype=np.float64) * 2.0 - 89.0)
        ctx.set_axis("lev", np.arange(1.0, NLEV + 1))
        if mode == "masked":  # every fifth point is masked: never sent, missing in the files (test_grib.py)
            jj, ii = np.meshgrid(np.arange(j0, j1), np.arange(NI), indexing="ij")
            ctx.set_domain_mask("dom", ((ii + jj) % 5 != 0).astype(np.int32).ravel())
        if mode == "runtime":  # file attributes set by the model, as xios_set_file_attr does
            for name, value in (("split_freq", "1ts"), ("name_suffix", "_x"), ("output_level", "2"),
                                ("sync_freq", "2ts")):
                ctx.set_attribute("file", "runtime", name, value)
        if mode == "layout":  # XIOS's layout attributes set by the model (test_file_layout.py)
            for name, value in (("time_stamp_name", "made"), ("uuid_name", "file_id"), ("record_offset", "1")):
                ctx.set_attribute("file", "runtime", name, value)
        ctx.close_definition()
        first = STEPS if mode == "restart" else 0  # steps the earlier run made
        for step in range(1, STEPS + 1):
            ctx.update_calendar(step)
            ctx.write("ts", np.ascontiguousarray(smooth(first + step, j0, j1)))
            ctx.write("ta", np.ascontiguousarray(np.stack([smooth(first + step + k, j0, j1) for k in range(NLEV)])))
    foehn.finalize()


if __name__ == "__main__":
    import foehn
    try:
        model(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "")
    except foehn.Error as error:  # as a model would: say why, finalize, fail
        print(f"model: {error}", file=sys.stderr)
        foehn.finalize()
        sys.exit(1)
    sys.exit(0)

import netCDF4  # noqa: E402
import pytest  # noqa: E402

from conftest import ROOT  # noqa: E402

def context_xml(body, variables="", start="2000-01-01"):
    """A context of the test grid (lon/lat domain, a level axis, grid g3)
    holding `body` (field and file definitions); the time origin is
    2000-01-01 whatever the start."""
    return f"""<simulation><context id="zip">{variables}
  <calendar type="noleap" start_date="{start}" time_origin="2000-01-01" timestep="1h"/>
  <axis_definition><axis id="lev"/></axis_definition>
  <domain_definition><domain id="dom" ni_glo="{NI}" nj_glo="{NJ}"/></domain_definition>
  <grid_definition><grid id="g3"><domain domain_ref="dom"/><axis axis_ref="lev"/></grid></grid_definition>
{body}</context></simulation>
"""


COMPRESSION_XML = """  <field_definition prec="4" operation="instant">
    <field id="ts" domain_ref="dom"/>
    <field id="ta" grid_ref="g3"/>
  </field_definition>
  <file_definition output_freq="1ts" type="one_file">
    <file id="packed" compression_level="4">
      <field field_ref="ts"/>
      <field field_ref="ta" compression_level="0"/>
    </file>
    <file id="deep">
      <field field_ref="ts"/>
      <field field_ref="ta" compression_level="9"/>
    </file>
  </file_definition>
"""
LEVEL2 = '\n  <variable_definition><variable id="server_level2_ranks" type="int">2</variable></variable_definition>'


pytestmark = pytest.mark.usefixtures("importable_package")  # conftest.py


def run_model(tmp_path, mpmd, xml_text, clients, servers, *args):
    """Runs this file as the model on xml_text beside `servers` servers."""
    xml = tmp_path / "model.xml"
    xml.write_text(xml_text)
    run = mpmd(tmp_path, clients, servers, [sys.executable, __file__, xml, *args])
    assert run.returncode == 0, run.stdout + run.stderr


# 2 servers writing one file; attached; two-level servers (2 receive, 2 write).
@pytest.mark.parametrize("clients,servers,level2", [(2, 2, False), (2, 0, False), (2, 4, True)])
def test_compressed_fields_read_back_exactly(tmp_path, mpmd, clients, servers, level2):
    run_model(tmp_path, mpmd, context_xml(COMPRESSION_XML, LEVEL2 if level2 else ""), clients, servers)
    want_ts = np.stack([smooth(s, 0, NJ) for s in range(1, STEPS + 1)])
    want_ta = np.stack([np.stack([smooth(s + k, 0, NJ) for k in range(NLEV)]) for s in range(1, STEPS + 1)])
    levels = {}
    for name in ("packed", "deep"):
        with netCDF4.Dataset(tmp_path / f"{name}.nc") as nc:
            np.testing.assert_array_equal(nc["ts"][:], want_ts.astype(np.float32))
            np.testing.assert_array_equal(nc["ta"][:], want_ta.astype(np.float32))
            for var in ("ts", "ta"):
                f = nc[var].filters()
                levels[name, var] = f["complevel"] if f["zlib"] else 0
                assert f["shuffle"] == bool(f["zlib"]), (name, var, f)
    # The file's level for ts, the field's own for ta (0: none).
    assert levels == {("packed", "ts"): 4, ("packed", "ta"): 0, ("deep", "ts"): 0, ("deep", "ta"): 9}
    # The smooth 3-D field takes much less room deflated.
    with netCDF4.Dataset(tmp_path / "deep.nc") as nc:
        stored = nc["ta"].chunking()
    assert stored != "contiguous"
    assert (tmp_path / "deep.nc").stat().st_size < 0.6 * (tmp_path / "packed.nc").stat().st_size


ATTRIBUTES_XML = context_xml("""  <field_definition operation="instant">
    <field id="ts" domain_ref="dom" prec="4" valid_min="-150.5" valid_max="400">
      <variable id="ensemble_member" type="int">7</variable>
      <variable id="flag_note" type="string">smooth test field</variable>
    </field>
    <field id="ta" grid_ref="g3" prec="8" valid_max="1e30"/>
  </field_definition>
  <file_definition output_freq="1ts" type="one_file">
    <file id="attrs">
      <variable id="institution" type="string">foehn tests</variable>
      <variable id="realization" type="int">3</variable>
      <variable id="big_count" type="int">5000000000</variable>
      <variable id="scale" type="double">0.125</variable>
      <variable id="is_test" type="bool">true</variable>
      <field field_ref="ts"/>
      <field field_ref="ta"/>
      <field field_ref="ts" name="ts_over" cell_methods="area: mean"/>
      <field field_ref="ts" name="ts_pre" cell_methods="area: mean" cell_methods_mode="prefix"/>
      <field field_ref="ts" name="ts_suf" cell_methods="area: mean" cell_methods_mode="suffix"/>
      <field field_ref="ts" name="ts_none" cell_methods_mode="none"/>
    </file>
    <file id="levels" output_level="3">
      <field field_ref="ts" name="l2" level="2"/>
      <field field_ref="ts" name="l3" level="3"/>
      <field field_ref="ts" name="l4" level="4"/>
      <field field_ref="ts" name="l_default"/>
    </file>
    <file id="default_levels">
      <field field_ref="ts" name="l5" level="5"/>
      <field field_ref="ts" name="l6" level="6"/>
    </file>
  </file_definition>
""")


def test_xml_attributes_are_typed(tmp_path, mpmd):
    run_model(tmp_path, mpmd, ATTRIBUTES_XML, 2, 1)
    with netCDF4.Dataset(tmp_path / "attrs.nc") as nc:
        nc.set_auto_mask(False)
        assert nc.institution == "foehn tests"
        assert nc.realization == 3 and nc.realization.dtype == np.int32
        assert nc.big_count == 5000000000 and nc.big_count.dtype == np.int64
        assert nc.scale == 0.125 and nc.scale.dtype == np.float64
        assert nc.is_test == "true"
        ts, ta = nc["ts"], nc["ta"]
        assert ts.valid_min == np.float32(-150.5) and ts.valid_min.dtype == np.float32
        assert ts.valid_max == np.float32(400) and ts.valid_max.dtype == np.float32
        assert ts.ensemble_member == 7 and ts.flag_note == "smooth test field"
        assert ta.valid_max == 1e30 and ta.valid_max.dtype == np.float64
        assert "valid_min" not in ta.ncattrs()
        # cell_methods_mode: the XML's cell_methods against the computed one.
        assert ts.cell_methods == "time: point"
        assert nc["ts_over"].cell_methods == "area: mean"
        assert nc["ts_pre"].cell_methods == "area: mean time: point"
        assert nc["ts_suf"].cell_methods == "time: point area: mean"
        assert "cell_methods" not in nc["ts_none"].ncattrs()
        np.testing.assert_array_equal(ts[:], np.stack([smooth(s, 0, NJ) for s in range(1, STEPS + 1)]).astype(np.float32))
    # output_level (default 5) keeps the fields whose level (default 1) is at most it.
    for name, kept in (("levels", {"l2", "l3", "l_default"}), ("default_levels", {"l5"})):
        with netCDF4.Dataset(tmp_path / f"{name}.nc") as nc:
            assert {v for v in nc.variables if v.startswith("l")} - {"lat", "lon"} == kept, name
    check = subprocess.run(["bash", str(ROOT / "scripts/cfcheck.sh"), str(tmp_path / "attrs.nc")],
                           capture_output=True, text=True)
    assert "ERRORS detected: 0" in check.stdout, check.stdout + check.stderr


RUNTIME_XML = context_xml("""  <field_definition prec="4" operation="instant">
    <field id="ts" domain_ref="dom" level="2"/>
    <field id="ta" grid_ref="g3" level="3"/>
  </field_definition>
  <file_definition>
    <file id="runtime" output_freq="1ts"><field field_ref="ts"/><field field_ref="ta"/></file>
  </file_definition>
""")


def test_file_attributes_set_by_the_model(tmp_path, mpmd):
    # split_freq, name_suffix, output_level and sync_freq set before close of
    # definition: one file per step, named with the suffix, without ta (level 3).
    run_model(tmp_path, mpmd, RUNTIME_XML, 2, 1, "runtime")
    files = sorted(tmp_path.glob("runtime_x_*.nc"))
    assert len(files) == STEPS, [f.name for f in files]
    for step, path in enumerate(files, start=1):
        with netCDF4.Dataset(path) as nc:
            assert "ta" not in nc.variables
            np.testing.assert_array_equal(nc["ts"][:], [smooth(step, 0, NJ).astype(np.float32)])


FORMAT_XML = context_xml("""  <field_definition prec="4" operation="instant">
    <field id="ts" domain_ref="dom"/>
    <field id="ta" grid_ref="g3"/>
  </field_definition>
  <file_definition output_freq="1ts">
    <file id="classic" format="netcdf4_classic" compression_level="2">
      <variable id="realization" type="int">3</variable>
      <field field_ref="ts"/>
    </file>
    <file id="parts" type="multiple_file" min_digits="3"><field field_ref="ts"/></file>
  </file_definition>
""")


def test_classic_format_and_part_digits(tmp_path, mpmd):
    # format="netcdf4_classic" (compressed, by 2 writers); multiple_file
    # parts numbered with min_digits digits.
    run_model(tmp_path, mpmd, FORMAT_XML, 2, 2)
    want = np.stack([smooth(s, 0, NJ) for s in range(1, STEPS + 1)]).astype(np.float32)
    with netCDF4.Dataset(tmp_path / "classic.nc") as nc:
        assert nc.data_model == "NETCDF4_CLASSIC"
        assert nc.realization == 3 and nc["ts"].filters()["complevel"] == 2
        np.testing.assert_array_equal(nc["ts"][:], want)
    assert sorted(p.name for p in tmp_path.glob("parts*.nc")) == ["parts_000.nc", "parts_001.nc"]
    bands = []
    for name in ("parts_000.nc", "parts_001.nc"):
        with netCDF4.Dataset(tmp_path / name) as nc:
            first, last = nc.getncattr("DOMAIN_dom_position_first"), nc.getncattr("DOMAIN_dom_position_last")
            bands.append((first[1] - 1, nc["ts"][:]))
    stitched = np.concatenate([values for _, values in sorted(bands, key=lambda b: b[0])], axis=1)
    np.testing.assert_array_equal(stitched, want)


APPEND_BODY = """  <field_definition prec="4">
    <field id="ts" domain_ref="dom" operation="average"/>
    <field id="ta" grid_ref="g3" operation="instant"/>
  </field_definition>
  <file_definition output_freq="1ts" append="true">
    <file id="continued"><field field_ref="ts"/><field field_ref="ta"/></file>
    <file id="parts" type="multiple_file"><field field_ref="ts"/></file>
  </file_definition>
"""


def test_append_continues_the_files_of_an_earlier_run(tmp_path, mpmd):
    # A run of 3 hours, then its restart from hour 3 (same time origin):
    # append="true" puts the second run's records after the first's, in the
    # one_file file (2 writers) and in each multiple_file part.
    run_model(tmp_path, mpmd, context_xml(APPEND_BODY), 2, 2)
    run_model(tmp_path, mpmd, context_xml(APPEND_BODY, start="2000-01-01 03:00:00"), 2, 2, "restart")
    hours = np.arange(1, 2 * STEPS + 1)
    with netCDF4.Dataset(tmp_path / "continued.nc") as nc:
        np.testing.assert_array_equal(nc["time_counter_bounds"][:], np.stack([hours - 1, hours], axis=1) * 3600.0)
        np.testing.assert_array_equal(nc["time_counter"][:], (hours - 0.5) * 3600.0)
        np.testing.assert_array_equal(nc["ts"][:], np.stack([smooth(h, 0, NJ) for h in hours]).astype(np.float32))
        np.testing.assert_array_equal(nc["ta"][:], np.stack([np.stack([smooth(h + k, 0, NJ) for k in range(NLEV)])
                                                             for h in hours]).astype(np.float32))
    for name in ("parts_0.nc", "parts_1.nc"):
        with netCDF4.Dataset(tmp_path / name) as nc:
            assert len(nc["time_counter"]) == 2 * STEPS, name
    # Running the restart again would repeat hours 4-6: refused, and the
    # file keeps its records.
    xml = tmp_path / "again.xml"
    xml.write_text(context_xml(APPEND_BODY, start="2000-01-01 03:00:00"))
    again = mpmd(tmp_path, 2, 2, [sys.executable, __file__, xml, "restart"])
    assert again.returncode != 0
    assert "its records reach 21600 s since 2000-01-01 00:00:00, after this run's start" in again.stdout + again.stderr, \
        again.stdout + again.stderr
    with netCDF4.Dataset(tmp_path / "continued.nc") as nc:
        assert len(nc["time_counter"]) == 2 * STEPS


def test_append_refuses_a_file_of_other_definitions(tmp_path, mpmd):
    run_model(tmp_path, mpmd, context_xml(APPEND_BODY), 2, 1)
    other = APPEND_BODY.replace('<field id="ta" grid_ref="g3" operation="instant"/>',
                                '<field id="ta" grid_ref="g3" operation="instant" prec="8"/>')
    xml = tmp_path / "other.xml"
    xml.write_text(context_xml(other, start="2000-01-01 03:00:00"))
    run = mpmd(tmp_path, 2, 1, [sys.executable, __file__, xml, "restart"])
    assert run.returncode != 0
    assert "cannot append to this file: its 'ta' has another precision" in run.stdout + run.stderr, run.stdout + run.stderr
