"""XIOS's file layout attributes of a written netCDF file:
- the global attributes timeStamp (the creation time, UTC, in strftime's
  time_stamp_format) and uuid (a random RFC 4122 uuid, placed in
  uuid_format's %uuid%), renamed by time_stamp_name and uuid_name; the
  writers of one file agree on them, each file has its own uuid;
- record_offset: the first record goes at that index (records before it
  hold fill values), or, negative, that many first records are not written;
- a domain's lon_name, lat_name, dim_i_name and dim_j_name name its
  coordinate variables and dimensions as XIOS does (rectilinear: the
  dimension names stand for the coordinates' names when these are not
  given), an axis's dim_name its dimension (its variable, keeping the axis's
  name, is then named by `coordinates`), in one_file and multiple_file
  files, and append continues them;
- the file attributes set by the model before close of definition act too.

The model is test_file_options.py's (a smooth 2-D field ts, 3 steps)."""
import re
import sys
import uuid
from datetime import datetime, timezone
from pathlib import Path

import netCDF4
import numpy as np
import pytest

from test_file_options import NI, NJ, NLEV, STEPS, context_xml, smooth

MODEL = Path(__file__).with_name("test_file_options.py")
pytestmark = pytest.mark.usefixtures("importable_package")  # conftest.py

LAYOUT_XML = context_xml("""  <field_definition prec="8" operation="instant">
    <field id="ts" domain_ref="dom"/><field id="ta" grid_ref="g3"/>
  </field_definition>
  <file_definition output_freq="1ts">
    <file id="stamped"><field field_ref="ts"/></file>
    <file id="named" time_stamp_name="created" time_stamp_format="%Y%m%dT%H%M%SZ" uuid_name="file_id"
          uuid_format="urn:uuid:%uuid% (%uuid%)"><field field_ref="ts"/></file>
    <file id="parts" type="multiple_file"><field field_ref="ts"/></file>
    <file id="later" record_offset="2"><field field_ref="ts"/></file>
    <file id="skipped" record_offset="-1"><field field_ref="ts"/></file>
  </file_definition>
""")


def run(tmp_path, mpmd, xml_text, clients, servers):
    (tmp_path / "model.xml").write_text(xml_text)
    return mpmd(tmp_path, clients, servers, [sys.executable, MODEL, tmp_path / "model.xml"])


def expected_ts(steps):
    return np.stack([smooth(s, 0, NJ) for s in steps])


@pytest.mark.parametrize("clients,servers", [(2, 2), (2, 0)])
def test_time_stamp_uuid_and_record_offset(tmp_path, mpmd, clients, servers):
    before = datetime.now(timezone.utc).replace(microsecond=0)
    result = run(tmp_path, mpmd, LAYOUT_XML, clients, servers)
    assert result.returncode == 0, result.stdout + result.stderr
    after = datetime.now(timezone.utc)
    ids = []
    with netCDF4.Dataset(tmp_path / "stamped.nc") as nc:
        # XIOS's default format, "%Y-%b-%d %H:%M:%S %Z" of the UTC time.
        stamp = datetime.strptime(nc.timeStamp, "%Y-%b-%d %H:%M:%S GMT").replace(tzinfo=timezone.utc)
        assert before <= stamp <= after, (nc.timeStamp, before, after)
        u = uuid.UUID(nc.uuid)
        assert u.version == 4 and str(u) == nc.uuid  # random, lower case, hyphens
        ids.append(nc.uuid)
    with netCDF4.Dataset(tmp_path / "named.nc") as nc:
        attrs = nc.ncattrs()
        assert "timeStamp" not in attrs and "uuid" not in attrs
        stamp = datetime.strptime(nc.created, "%Y%m%dT%H%M%SZ").replace(tzinfo=timezone.utc)
        assert before <= stamp <= after
        m = re.fullmatch(r"urn:uuid:(\S+) \((\S+)\)", nc.file_id)
        assert m and m.group(1) == m.group(2) and uuid.UUID(m.group(1)).version == 4, nc.file_id
        ids.append(m.group(1))
    for part in sorted(tmp_path.glob("parts_*.nc")):
        with netCDF4.Dataset(part) as nc:
            ids.append(str(uuid.UUID(nc.uuid)))
    assert len(ids) == 2 + max(servers, clients) and len(set(ids)) == len(ids), ids
    with netCDF4.Dataset(tmp_path / "later.nc") as nc:
        # Records 0 and 1 were never written: fill values; steps 1..3 at 2..4.
        ts = nc["ts"][:]
        assert ts.shape[0] == STEPS + 2 and ts[:2].mask.all()
        np.testing.assert_array_equal(ts[2:], expected_ts(range(1, STEPS + 1)))
        np.testing.assert_array_equal(nc["time_instant"][2:], 3600.0 * np.arange(1, STEPS + 1))
    with netCDF4.Dataset(tmp_path / "skipped.nc") as nc:
        # The first record is not written: steps 2 and 3 at 0 and 1.
        np.testing.assert_array_equal(nc["ts"][:], expected_ts(range(2, STEPS + 1)))
        np.testing.assert_array_equal(nc["time_instant"][:], 3600.0 * np.arange(2, STEPS + 1))


def test_record_offset_with_split_freq_is_refused(tmp_path, mpmd):
    xml = context_xml("""  <field_definition prec="8" operation="instant">
    <field id="ts" domain_ref="dom"/><field id="ta" grid_ref="g3"/>
  </field_definition>
  <file_definition output_freq="1ts">
    <file id="split" split_freq="1ts" record_offset="1"><field field_ref="ts"/></file>
  </file_definition>
""")
    result = run(tmp_path, mpmd, xml, 1, 1)
    assert result.returncode != 0
    assert "model.xml" in result.stderr and "file 'split': record_offset is not supported yet with split_freq" in \
        result.stderr, result.stderr


NAMING_BODY = """  <field_definition prec="4" operation="instant">
    <field id="ts" domain_ref="dom"/><field id="ta" grid_ref="g3"/>
  </field_definition>
  <file_definition output_freq="1ts">
    <file id="named_one" append="true"><field field_ref="ts"/><field field_ref="ta"/></file>
    <file id="named_parts" type="multiple_file"><field field_ref="ts"/></file>
  </file_definition>
"""


def naming_xml(start="2000-01-01"):
    # lat_name given; lon_name not: a rectilinear domain's longitudes take dim_i_name.
    # The axis's dimension is dim_name; its variable keeps the axis's name.
    return context_xml(NAMING_BODY, start=start).replace(
        '<domain id="dom" ', '<domain id="dom" lat_name="latitude" dim_i_name="i_dim" dim_j_name="j_dim" ').replace(
        '<axis id="lev"/>', '<axis id="lev" dim_name="nlev"/>')


def test_domain_names_in_one_file_parts_and_append(tmp_path, mpmd):
    result = run(tmp_path, mpmd, naming_xml(), 2, 2)
    assert result.returncode == 0, result.stdout + result.stderr
    (tmp_path / "model.xml").write_text(naming_xml("2000-01-01 03:00:00"))
    again = mpmd(tmp_path, 2, 2, [sys.executable, MODEL, tmp_path / "model.xml", "restart"])
    assert again.returncode == 0, again.stdout + again.stderr
    lon, lat = np.arange(NI) * 2.0, np.arange(NJ) * 2.0 - 89.0
    with netCDF4.Dataset(tmp_path / "named_one.nc") as nc:
        assert {"time_counter", "j_dim", "i_dim", "nlev"} <= set(nc.dimensions), list(nc.dimensions)
        assert not {"lat", "lon", "lev"} & set(nc.dimensions) and not {"lat", "lon"} & set(nc.variables)
        assert nc["ts"].dimensions == ("time_counter", "j_dim", "i_dim")
        assert nc["ta"].dimensions == ("time_counter", "nlev", "j_dim", "i_dim")
        assert nc["lev"].dimensions == ("nlev",) and "lev" in nc["ta"].coordinates.split()
        np.testing.assert_array_equal(nc["lev"][:], np.arange(1.0, NLEV + 1))
        assert nc["latitude"].dimensions == ("j_dim",) and nc["i_dim"].dimensions == ("i_dim",)
        assert nc["latitude"].standard_name == "latitude" and nc["i_dim"].standard_name == "longitude"
        np.testing.assert_array_equal(nc["latitude"][:], lat)
        np.testing.assert_array_equal(nc["i_dim"][:], lon)
        # Both runs' records (append), in order.
        np.testing.assert_array_equal(nc["ts"][:], expected_ts(range(1, 2 * STEPS + 1)).astype(np.float32))
    parts = sorted(tmp_path.glob("named_parts_*.nc"))
    assert len(parts) == 2
    rows = []
    for part in parts:
        with netCDF4.Dataset(part) as nc:
            assert nc["ts"].dimensions == ("time_counter", "j_dim", "i_dim")
            np.testing.assert_array_equal(nc["i_dim"][:], lon)
            rows.append(nc["latitude"][:])
            assert nc["ts"].shape[1] == len(rows[-1]) and nc["ts"].shape[0] == STEPS
    np.testing.assert_array_equal(np.concatenate(rows), lat)


def test_layout_attributes_set_by_the_model(tmp_path, mpmd):
    # time_stamp_name, uuid_name and record_offset set before close of
    # definition, as xios_set_file_attr does.
    xml = context_xml("""  <field_definition prec="8" operation="instant">
    <field id="ts" domain_ref="dom"/><field id="ta" grid_ref="g3"/>
  </field_definition>
  <file_definition><file id="runtime" output_freq="1ts"><field field_ref="ts"/></file></file_definition>
""")
    (tmp_path / "model.xml").write_text(xml)
    result = mpmd(tmp_path, 2, 1, [sys.executable, MODEL, tmp_path / "model.xml", "layout"])
    assert result.returncode == 0, result.stdout + result.stderr
    with netCDF4.Dataset(tmp_path / "runtime.nc") as nc:
        attrs = nc.ncattrs()
        assert "timeStamp" not in attrs and "uuid" not in attrs
        datetime.strptime(nc.made, "%Y-%b-%d %H:%M:%S GMT")
        assert uuid.UUID(nc.file_id).version == 4
        ts = nc["ts"][:]
        assert ts.shape[0] == STEPS + 1 and ts[0].mask.all()
        np.testing.assert_array_equal(ts[1:], expected_ts(range(1, STEPS + 1)))
