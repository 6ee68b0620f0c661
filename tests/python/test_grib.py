"""GRIB2 files written by foehn-server and attached writers (format="grib2",
docs/grib.md), read back with ecCodes (Python eccodes) and CDO:
- one message per field, level and record in file order; the keys the
  XML's <variable>s name (paramId, typeOfLevel, bitsPerValue,
  packingType), the levels from the axis, the reference time from the
  time origin and the steps in seconds; averages, sums, maxima and minima
  in the statistical-process template (4.8) with their interval;
- values equal the same run's NetCDF output within the error that
  bitsPerValue implies (simple packing; CCSDS);
- the grid is regular_ll as the domain says (cdo griddes: lonlat);
- 2 servers, 1 server and 2 attached writers give byte-identical files;
- masked points are missing through a bitmap;
- grid_model's octahedral O8 domain, shuffled among 3 ranks and masked,
  is reduced_gg with its rows (cdo griddes: gaussian_reduced);
- what GRIB2 cannot hold is refused at its XML line.

The model is test_file_options.py's (a smooth 2-D field ts and a 3-D field
ta on 5 levels, on a 180 x 90 lon/lat grid split in latitude bands, 3 hourly
steps from 2000-01-01)."""
import pathlib
import subprocess
import sys

import eccodes
import netCDF4
import numpy as np
import pytest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from test_file_options import NI, NJ, NLEV, STEPS, context_xml  # noqa: E402

MODEL = HERE / "test_file_options.py"


def grib_field(name, ref, operation, param, extra=""):
    level = '<variable name="typeOfLevel" type="string">hybrid</variable>' if ref == "ta" else ""
    return (f'      <field field_ref="{ref}" name="{name}" operation="{operation}">'
            f'<variable name="paramId" type="int">{param}</variable>{level}{extra}</field>\n')


FIELDS = {  # name: (field_ref, operation, paramId, extra GRIB keys)
    "ts": ("ts", "instant", 134, '<variable name="bitsPerValue" type="int">12</variable>'),
    "ta": ("ta", "instant", 130, ""),
    "ts_avg": ("ts", "average", 134, '<variable name="packingType" type="string">grid_ccsds</variable>'),
    "ta_max": ("ta", "maximum", 130, '<variable name="bitsPerValue" type="int">24</variable>'),
    "ts_acc": ("ts", "accumulate", 134, ""),
    "ta_min": ("ta", "minimum", 130, ""),
}
INSTANT, STATISTICS = ["ts", "ta"], ["ts_avg", "ta_max", "ts_acc", "ta_min"]
CATEGORY_NUMBER = {134: (0, 3, 0), 130: (0, 0, 0)}  # sp, t: GRIB2 discipline, category, number
UNIT_SECONDS = {0: 60, 1: 3600, 2: 86400, 10: 10800, 11: 21600, 12: 43200, 13: 1}  # GRIB2 code table 4.4


def files_xml():
    def fields(names, grib):
        text = ""
        for n in names:
            ref, op, param, extra = FIELDS[n]
            text += grib_field(n, ref, op, param, extra) if grib else \
                f'      <field field_ref="{ref}" name="{n}" operation="{op}"/>\n'
        return text
    return context_xml(f"""  <field_definition prec="4">
    <field id="ts" domain_ref="dom"/>
    <field id="ta" grid_ref="g3"/>
  </field_definition>
  <file_definition type="one_file">
    <file id="inst" output_freq="1ts" format="grib2">
{fields(INSTANT, True)}    </file>
    <file id="stat" output_freq="3ts" format="grib2">
{fields(STATISTICS, True)}    </file>
    <file id="inst_nc" output_freq="1ts">
{fields(INSTANT, False)}    </file>
    <file id="stat_nc" output_freq="3ts">
{fields(STATISTICS, False)}    </file>
  </file_definition>
""")


def run_model(directory, mpmd, xml_text, clients, servers):
    directory.mkdir(parents=True, exist_ok=True)
    xml = directory / "model.xml"
    xml.write_text(xml_text)
    run = mpmd(directory, clients, servers, [sys.executable, MODEL, xml])
    assert run.returncode == 0, run.stdout + run.stderr
    return directory


def messages(path, more=()):
    """Every message of a GRIB file: a dict of the keys the tests check (and `more`), and the values."""
    out = []
    with open(path, "rb") as f:
        while (h := eccodes.codes_grib_new_from_file(f)) is not None:
            keys = {k: eccodes.codes_get(h, k) for k in (
                "paramId", "discipline", "parameterCategory", "parameterNumber", "typeOfLevel", "level", "bitsPerValue", "packingType", "gridType", "Ni", "Nj",
                "dataDate", "dataTime", "productDefinitionTemplateNumber", "indicatorOfUnitOfTimeRange",
                "forecastTime", "latitudeOfFirstGridPointInDegrees", "latitudeOfLastGridPointInDegrees",
                "iDirectionIncrementInDegrees", "jScansPositively", *more)}
            if keys["productDefinitionTemplateNumber"] == 8:
                for k in ("typeOfStatisticalProcessing", "lengthOfTimeRange", "indicatorOfUnitForTimeRange"):
                    keys[k] = eccodes.codes_get(h, k)
            out.append((keys, eccodes.codes_get_values(h)))
            eccodes.codes_release(h)
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The same run with 2 servers, 1 server and attached to the 2 model ranks."""
    from conftest import run_mpmd
    base = tmp_path_factory.mktemp("grib")
    return {layout: run_model(base / f"{layout[0]}c{layout[1]}s", run_mpmd, files_xml(), *layout)
            for layout in [(2, 2), (2, 1), (2, 0)]}


@pytest.fixture(scope="module", autouse=True)
def _package_path():
    """Model processes import foehn from the build tree (for the module's runs)."""
    import os
    from conftest import BUILD
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = str(BUILD / "python")
    yield
    if old is None:
        os.environ.pop("PYTHONPATH")
    else:
        os.environ["PYTHONPATH"] = old


def packing_bound(values, bits):
    """Simple packing's largest error: half the step 2^E with 2^E the
    power of two at or above range / (2^bits - 1): below range / (2^bits - 1)."""
    return (values.max() - values.min()) / (2.0 ** bits - 1)


def test_keys_and_values_as_the_xml_says(runs):
    directory = runs[2, 2]
    for grib, nc, names, records in (("inst", "inst_nc", INSTANT, STEPS), ("stat", "stat_nc", STATISTICS, 1)):
        got = messages(directory / f"{grib}.grib2")
        want_count = records * sum(NLEV if FIELDS[n][0] == "ta" else 1 for n in names)
        assert len(got) == want_count
        it = iter(got)
        with netCDF4.Dataset(directory / f"{nc}.nc") as ds:
            for r in range(records):
                for name in names:
                    ref, op, param, extra = FIELDS[name]
                    stored = ds[name][r]
                    for k in range(NLEV if ref == "ta" else 1):
                        keys, values = next(it)
                        want = np.asarray(stored[k] if ref == "ta" else stored, dtype=np.float64).ravel()
                        # The parameter (discipline 0): ecCodes names a statistic of it by its own
                        # paramId (time-mean surface pressure 235134), the same category and number.
                        assert (keys["discipline"], keys["parameterCategory"], keys["parameterNumber"]) == \
                            CATEGORY_NUMBER[param]
                        assert keys["paramId"] == param or op != "instant", keys["paramId"]
                        assert keys["typeOfLevel"] == ("hybrid" if ref == "ta" else "surface")
                        if ref == "ta":
                            assert keys["level"] == k + 1  # the axis' values 1..5
                        assert (keys["gridType"], keys["Ni"], keys["Nj"]) == ("regular_ll", NI, NJ)
                        assert keys["jScansPositively"] == 1  # the model's latitudes rise
                        assert (keys["latitudeOfFirstGridPointInDegrees"],
                                keys["latitudeOfLastGridPointInDegrees"]) == (-89.0, 89.0)
                        assert keys["iDirectionIncrementInDegrees"] == 2.0
                        assert (keys["dataDate"], keys["dataTime"]) == (20000101, 0)  # the time origin
                        # Steps are given in seconds; ecCodes stores them in a unit that keeps them exact.
                        unit = UNIT_SECONDS[keys["indicatorOfUnitOfTimeRange"]]
                        if op == "instant":
                            assert keys["productDefinitionTemplateNumber"] == 0
                            assert keys["forecastTime"] * unit == 3600 * (r + 1)
                        else:
                            assert keys["productDefinitionTemplateNumber"] == 8
                            assert keys["typeOfStatisticalProcessing"] == {"average": 0, "accumulate": 1, "maximum": 2, "minimum": 3}[op]
                            length = keys["lengthOfTimeRange"] * UNIT_SECONDS[keys["indicatorOfUnitForTimeRange"]]
                            assert keys["forecastTime"] == 0 and length == 3 * 3600
                        if "grid_ccsds" in extra:
                            assert keys["packingType"] == "grid_ccsds"
                        else:
                            assert keys["packingType"] == "grid_simple"
                        bits = 12 if "12" in extra else 24 if "24" in extra else 16
                        assert keys["bitsPerValue"] == bits
                        error = np.max(np.abs(values - want))
                        assert error <= packing_bound(want, bits), (name, r, k, error)
                        assert error > 0 or bits == 24, (name, r, k)  # packing did round


def test_server_count_and_attached_give_identical_files(runs):
    for name in ("inst", "stat"):
        files = [(runs[layout] / f"{name}.grib2").read_bytes() for layout in runs]
        assert files[0] == files[1] == files[2], name


def test_cdo_reads_the_grid_and_times(runs):
    path = runs[2, 2] / "inst.grib2"
    griddes = subprocess.run(["cdo", "-s", "griddes", str(path)], capture_output=True, text=True)
    assert griddes.returncode == 0, griddes.stderr
    assert "gridtype  = lonlat" in griddes.stdout and f"xsize     = {NI}" in griddes.stdout, griddes.stdout
    times = subprocess.run(["cdo", "-s", "showtimestamp", str(path)], capture_output=True, text=True)
    assert times.stdout.split() == [f"2000-01-01T0{h}:00:00" for h in (1, 2, 3)], times.stdout + times.stderr


def test_masked_points_are_missing_in_a_bitmap(tmp_path, mpmd):
    xml = context_xml("""  <field_definition prec="4">
    <field id="ts" domain_ref="dom"/>
    <field id="ta" grid_ref="g3"/>
  </field_definition>
  <file_definition type="one_file" output_freq="1ts">
    <file id="masked" format="grib2">
""" + grib_field("ts", "ts", "instant", 134) + grib_field("ta", "ta", "instant", 130) + """    </file>
    <file id="masked_nc"><field field_ref="ts"/><field field_ref="ta"/></file>
  </file_definition>
""")
    (tmp_path / "model.xml").write_text(xml)
    run = mpmd(tmp_path, 2, 2, [sys.executable, MODEL, tmp_path / "model.xml", "masked"])
    assert run.returncode == 0, run.stdout + run.stderr
    jj, ii = np.meshgrid(np.arange(NJ), np.arange(NI), indexing="ij")
    masked = ((ii + jj) % 5 == 0).ravel()
    got = iter(messages(tmp_path / "masked.grib2", ("bitmapPresent", "numberOfMissing", "missingValue")))
    with netCDF4.Dataset(tmp_path / "masked_nc.nc") as nc:
        for r in range(STEPS):
            for name in ("ts", "ta"):
                stored = nc[name][r]
                for k in range(NLEV if name == "ta" else 1):
                    keys, values = next(got)
                    level = (stored[k] if name == "ta" else stored).ravel()
                    np.testing.assert_array_equal(np.ma.getmaskarray(level), masked)  # NetCDF: fill values
                    assert keys["bitmapPresent"] == 1 and keys["numberOfMissing"] == masked.sum()
                    np.testing.assert_array_equal(values == keys["missingValue"], masked)
                    exact = np.asarray(level[~masked], dtype=np.float64)
                    assert np.max(np.abs(values[~masked] - exact)) <= packing_bound(exact, 16)


@pytest.mark.parametrize("field,message", [
    ('<field field_ref="ts"/>', "a GRIB2 field needs its parameter"),
    ('<field field_ref="ta"><variable name="paramId" type="int">130</variable></field>',
     "a field with levels needs <variable name=\"typeOfLevel\""),
    ('<field field_ref="ts" compression_level="4"><variable name="paramId" type="int">134</variable></field>',
     'format="grib2" is not compressed by compression_level'),
    ('<field field_ref="ts" quantization="bitround" quantization_nsb="4">'
     '<variable name="paramId" type="int">134</variable></field>', 'format="grib2" cannot be quantized'),
])
def test_refused_at_the_xml_line(tmp_path, mpmd, field, message):
    xml = context_xml(f"""  <field_definition prec="4">
    <field id="ts" domain_ref="dom"/>
    <field id="ta" grid_ref="g3"/>
  </field_definition>
  <file_definition output_freq="1ts">
    <file id="bad" format="grib2">
      {field}
    </file>
  </file_definition>
""")
    (tmp_path / "model.xml").write_text(xml)
    run = mpmd(tmp_path, 1, 0, [sys.executable, MODEL, tmp_path / "model.xml"])
    assert run.returncode != 0
    line = 1 + xml.splitlines().index(next(s for s in xml.splitlines() if field in s))
    assert f"model.xml:{line}" in run.stderr and message in run.stderr, run.stderr


@pytest.mark.parametrize("clients,servers", [(3, 2), (3, 0)])
def test_reduced_gaussian_shuffled_and_masked(tmp_path, mpmd, clients, servers):
    """tests/mpi/grid_model.cpp's octahedral O8 domain with points shuffled
    among the model ranks and every seventh point masked, with a GRIB2 file
    added to its XML: reduced_gg with the O8 rows (numpy), the masked points
    missing, the others within the packing step of the same run's NetCDF."""
    from conftest import BUILD, ROOT
    text = (ROOT / "tests/mpi/data/grids.xml").read_text()
    anchor = '      <file id="cdi" name="gauss_cdi"'
    grib = ('      <file id="grib" name="gauss_grib" output_freq="2ts" format="grib2">\n'
            '        <field field_ref="ps"><variable name="paramId" type="int">134</variable>'
            '<variable name="bitsPerValue" type="int">20</variable></field>\n'
            '        <field field_ref="ta"><variable name="paramId" type="int">130</variable>'
            '<variable name="typeOfLevel" type="string">hybrid</variable></field>\n'
            '      </file>\n')
    assert anchor in text
    (tmp_path / "grids.xml").write_text(text.replace(anchor, grib + anchor, 1))
    run = mpmd(tmp_path, clients, servers, [BUILD / "tests/mpi/grid_model", tmp_path / "grids.xml",
                                            "gauss_shuffled", 4])
    assert run.returncode == 0, run.stdout + run.stderr
    pl = np.array([20 + 4 * k for k in range(8)] + [20 + 4 * k for k in reversed(range(8))])
    nodes, _ = np.polynomial.legendre.leggauss(16)
    got = []
    with open(tmp_path / "gauss_grib.grib2", "rb") as f:
        while (h := eccodes.codes_grib_new_from_file(f)) is not None:
            got.append(({k: eccodes.codes_get(h, k) for k in ("gridType", "N", "numberOfMissing", "missingValue",
                                                                "latitudeOfFirstGridPointInDegrees", "level")},
                        eccodes.codes_get_array(h, "pl"), eccodes.codes_get_values(h)))
            eccodes.codes_release(h)
    assert len(got) == 2 * (1 + 3)  # 2 records of ps and ta on 3 levels
    it = iter(got)
    with netCDF4.Dataset(tmp_path / "gauss_one.nc") as nc:
        for r in range(2):
            for name in ("ps", "ta"):
                stored = nc[name][r]
                for k in range(3 if name == "ta" else 1):
                    keys, message_pl, values = next(it)
                    level = stored[k] if name == "ta" else stored
                    assert keys["gridType"] == "reduced_gg" and keys["N"] == 8
                    np.testing.assert_array_equal(message_pl, pl)
                    assert abs(keys["latitudeOfFirstGridPointInDegrees"] - np.degrees(np.arcsin(nodes[-1]))) < 1e-6
                    miss = np.ma.getmaskarray(level)
                    assert miss.sum() > 0 and keys["numberOfMissing"] == miss.sum()
                    np.testing.assert_array_equal(values == keys["missingValue"], miss)
                    exact = np.asarray(level[~miss], dtype=np.float64)
                    bits = 20 if name == "ps" else 16
                    assert np.max(np.abs(values[~miss] - exact)) <= packing_bound(exact, bits), (name, k)
    griddes = subprocess.run(["cdo", "-s", "griddes", str(tmp_path / "gauss_grib.grib2")], capture_output=True,
                             text=True)
    assert "gridtype  = gaussian_reduced" in griddes.stdout and "numLPE    = 8" in griddes.stdout, griddes.stdout


def unstructured_uuid(lon, lat, bounds_lon, bounds_lat):
    """docs/grib.md's uuidOfHGrid, computed here with hashlib: RFC 4122
    version 5 (SHA-1) in the URL namespace of the point count (int64) and
    the coordinates (float64), little-endian, in global index order."""
    import hashlib
    import uuid
    name = np.int64(lon.size).tobytes() + b"".join(
        np.ascontiguousarray(a, dtype="<f8").tobytes() for a in (lon, lat, bounds_lon, bounds_lat))
    digest = bytearray(hashlib.sha1(uuid.NAMESPACE_URL.bytes + name).digest()[:16])
    digest[6] = (digest[6] & 0x0F) | 0x50  # version 5
    digest[8] = (digest[8] & 0x3F) | 0x80  # RFC 4122 variant
    return digest.hex()


@pytest.mark.parametrize("clients,servers", [(3, 2), (2, 0)])
def test_unstructured_grid(tmp_path, mpmd, clients, servers):
    """grid_model's unstructured domain of 500 cells dealt among the model
    ranks, every fifth point never sent, in a GRIB2 file: template 3.101
    (unstructured_grid) with numberOfGridUsed 0, numberOfGridInReference 1
    and the uuid of the coordinates (hashlib); values as the same run's
    NetCDF within the packing step, the unsent points missing; cdo sinfo
    lists the grid as unstructured with its 500 points and uuid."""
    from conftest import BUILD, ROOT
    text = (ROOT / "tests/mpi/data/grids.xml").read_text()
    anchor = '      <file id="multi" name="unstr_multi"'
    grib = ('      <file id="grib" name="unstr_grib" output_freq="2ts" format="grib2">\n'
            '        <field field_ref="ps"><variable name="paramId" type="int">134</variable></field>\n'
            '        <field field_ref="ta"><variable name="paramId" type="int">130</variable>'
            '<variable name="typeOfLevel" type="string">hybrid</variable></field>\n'
            '      </file>\n')
    assert anchor in text
    (tmp_path / "grids.xml").write_text(text.replace(anchor, grib + anchor, 1))
    run = mpmd(tmp_path, clients, servers, [BUILD / "tests/mpi/grid_model", tmp_path / "grids.xml",
                                            "unstr_interleaved", 4])
    assert run.returncode == 0, run.stdout + run.stderr
    keys = ("gridType", "numberOfDataPoints", "numberOfGridUsed", "numberOfGridInReference", "uuidOfHGrid",
            "gridDefinitionTemplateNumber", "numberOfMissing", "missingValue", "level", "typeOfLevel")
    got = []
    with open(tmp_path / "unstr_grib.grib2", "rb") as f:
        while (h := eccodes.codes_grib_new_from_file(f)) is not None:
            got.append(({k: eccodes.codes_get(h, k) for k in keys}, eccodes.codes_get_values(h)))
            eccodes.codes_release(h)
    with netCDF4.Dataset(tmp_path / "unstr_one.nc") as nc:
        uuid_hex = unstructured_uuid(*(np.asarray(nc[name][:], dtype=np.float64).ravel()
                                       for name in ("lon", "lat", nc["lon"].bounds, nc["lat"].bounds)))
        nlev = nc["ta"].shape[1]  # (time, lev, cell)
        assert len(got) == 2 * (1 + nlev)  # 2 records of ps and ta on its levels
        it = iter(got)
        for r in range(2):
            for name in ("ps", "ta"):
                stored = nc[name][r]
                for k in range(nlev if name == "ta" else 1):
                    message, values = next(it)
                    level = stored[k] if name == "ta" else stored
                    assert (message["gridType"], message["gridDefinitionTemplateNumber"]) == ("unstructured_grid", 101)
                    assert message["numberOfDataPoints"] == 500 and values.size == 500
                    assert (message["numberOfGridUsed"], message["numberOfGridInReference"]) == (0, 1)
                    assert message["uuidOfHGrid"] == uuid_hex
                    miss = np.ma.getmaskarray(level)
                    assert miss.sum() == 100 and message["numberOfMissing"] == 100  # every fifth point unsent
                    np.testing.assert_array_equal(values == message["missingValue"], miss)
                    exact = np.asarray(level[~miss], dtype=np.float64)
                    assert np.max(np.abs(values[~miss] - exact)) <= packing_bound(exact, 16), (name, k)
    sinfo = subprocess.run(["cdo", "sinfo", str(tmp_path / "unstr_grib.grib2")], capture_output=True, text=True)
    assert sinfo.returncode == 0, sinfo.stderr
    assert "unstructured" in sinfo.stdout and "points=500" in sinfo.stdout, sinfo.stdout
    dashed = f"{uuid_hex[:8]}-{uuid_hex[8:12]}-{uuid_hex[12:16]}-{uuid_hex[16:20]}-{uuid_hex[20:]}"
    assert f"uuid : {dashed}" in sinfo.stdout, sinfo.stdout
