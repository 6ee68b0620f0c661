"""HDF5 chunks and fill of NetCDF outputs (docs/compression.md, "Chunks and
fill values"):
- a record's chunk is a writer's block: the whole record with one server,
  each server's band of rows with several (one_file), each part's record
  (multiple_file), read back with netCDF4's chunking();
- HDF5 skips filling (_NoFill in ncdump -s) exactly where every chunk lies
  in one writer's block: bands of equal rows, a part's domain variable;
  kept with bands of 23 and 22 rows (4 servers, 90 rows), for deflated
  variables, and for chunking_blocksize_target's chunks across bands;
- chunking_blocksize_target (MiB, as XIOS): a record above it is cut along
  the outer axis, else along the rows, into ceil(record / target) pieces;
- values are unchanged (numpy), a NOFILL variable keeps its _FillValue,
  and a variable a part's writer never writes (a profile only server 0
  holds) reads as fill values.

Run as a script under mpiexec, this file is itself the model: a 2-D field,
a 3-D one and a profile of BINS values on a 180 x 90 grid split in
latitude bands, 2 steps."""
import sys

import numpy as np

NI, NJ, NLEV, BINS, STEPS = 180, 90, 5, 10000, 2


def values(step, j0, j1, level=0):
    lat = np.arange(j0, j1, dtype=np.float64)[:, None]
    lon = np.arange(NI, dtype=np.float64)[None, :]
    return np.round(100.0 * np.sin(lat / 30.0) + 0.25 * lon + step + 10 * level, 2)


def profile(step):
    return np.arange(BINS, dtype=np.float64) * 0.5 + step


def model(xml):
    import foehn
    comm = foehn.init("chk", xml)
    rank, size = comm.Get_rank(), comm.Get_size()
    j0, j1 = rank * NJ // size, (rank + 1) * NJ // size
    with foehn.Context("chk", comm) as ctx:
        ctx.set_domain_rectilinear("dom", NI, NJ, 0, j0, np.arange(NI, dtype=np.float64) * 2.0,
                                   np.arange(j0, j1, dtype=np.float64) * 2.0 - 89.0)
        ctx.set_axis("lev", np.arange(1.0, NLEV + 1))
        ctx.set_axis("bins", np.arange(BINS, dtype=np.float64))
        ctx.close_definition()
        for step in range(1, STEPS + 1):
            ctx.update_calendar(step)
            ctx.write("ts", np.ascontiguousarray(values(step, j0, j1)))
            ctx.write("ta", np.ascontiguousarray(np.stack([values(step, j0, j1, k) for k in range(NLEV)])))
            ctx.write("prof", profile(step))
    foehn.finalize()


if __name__ == "__main__":
    import foehn
    try:
        model(sys.argv[1])
    except foehn.Error as error:
        print(f"model: {error}", file=sys.stderr)
        foehn.finalize()
        sys.exit(1)
    sys.exit(0)

import pathlib  # noqa: E402
import subprocess  # noqa: E402

import netCDF4  # noqa: E402
import pytest  # noqa: E402

XML = f"""<simulation><context id="chk">
  <calendar type="noleap" start_date="2000-01-01" timestep="1h"/>
  <axis_definition><axis id="lev"/><axis id="bins"/></axis_definition>
  <domain_definition><domain id="dom" ni_glo="{NI}" nj_glo="{NJ}"/></domain_definition>
  <grid_definition>
    <grid id="g3"><domain domain_ref="dom"/><axis axis_ref="lev"/></grid>
    <grid id="gp"><axis axis_ref="bins"/></grid>
  </grid_definition>
  <field_definition prec="4" operation="instant">
    <field id="ts" domain_ref="dom"/>
    <field id="ta" grid_ref="g3"/>
    <field id="prof" grid_ref="gp"/>
  </field_definition>
  <file_definition output_freq="1ts">
    <file id="one" type="one_file">
      <field field_ref="ts" default_value="-999"/>
      <field field_ref="ta"/>
      <field field_ref="ta" name="ta8" prec="8"/>
      <field field_ref="ta" name="ta_deflated" compression_level="2"/>
      <field field_ref="ta" name="ta_target" chunking_blocksize_target="0.1"/>
      <field field_ref="ts" name="ts_target" chunking_blocksize_target="0.01"/>
      <field field_ref="prof"/>
    </file>
    <file id="parts" type="multiple_file">
      <field field_ref="ta"/>
      <field field_ref="prof"/>
    </file>
  </file_definition>
</context></simulation>
"""

pytestmark = pytest.mark.usefixtures("importable_package")  # conftest.py


def run(tmp_path, mpmd, clients, servers):
    (tmp_path / "model.xml").write_text(XML)
    done = mpmd(tmp_path, clients, servers, [sys.executable, __file__, tmp_path / "model.xml"], timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr


def nofill(path):
    """The variables ncdump -s marks _NoFill."""
    text = subprocess.run(["ncdump", "-hs", str(path)], capture_output=True, text=True, timeout=60, check=True).stdout
    return {line.split(":")[0].strip() for line in text.splitlines() if '_NoFill = "true"' in line}


@pytest.mark.parametrize("clients,servers", [(1, 1), (2, 2), (2, 4)])
def test_chunks_follow_the_writers_blocks(tmp_path, mpmd, clients, servers):
    run(tmp_path, mpmd, clients, servers)
    band = -(-NJ // servers)  # the first servers' bands are the largest
    even = NJ % servers == 0
    want_ts = np.stack([values(s, 0, NJ) for s in range(1, STEPS + 1)])
    want_ta = np.stack([np.stack([values(s, 0, NJ, k) for k in range(NLEV)]) for s in range(1, STEPS + 1)])
    path = tmp_path / "one.nc"
    with netCDF4.Dataset(path) as nc:
        assert nc["ts"].chunking() == [1, band, NI]
        assert nc["ta"].chunking() == [1, NLEV, band, NI]
        assert nc["ta8"].chunking() == [1, NLEV, band, NI]
        # XIOS's cut: ta's record (324,000 bytes) over 0.1 MiB: 4 pieces of
        # the levels (ceil(5 / 4) = 2); ts's (64,800) over 0.01 MiB: 7
        # pieces of the rows (ceil(90 / 7) = 13).
        assert nc["ta_target"].chunking() == [1, 2, NJ, NI]
        assert nc["ts_target"].chunking() == [1, 13, NI]
        assert nc["prof"].chunking() == [1, BINS]  # server 0 writes it whole
        assert nc["ts"]._FillValue == np.float32(-999)
        np.testing.assert_array_equal(nc["ts"][:], want_ts.astype(np.float32))
        for name in ("ta", "ta_deflated", "ta_target"):
            np.testing.assert_array_equal(nc[name][:], want_ta.astype(np.float32), err_msg=name)
        np.testing.assert_array_equal(nc["ta8"][:], want_ta)
        np.testing.assert_array_equal(nc["ts_target"][:], want_ts.astype(np.float32))
        np.testing.assert_array_equal(nc["prof"][:], np.stack([profile(s) for s in range(1, STEPS + 1)]).astype(np.float32))
    banded = {"ts", "ta", "ta8"} if even else set()
    # XIOS's chunks lie in one block only with one server.
    cut = {"ta_target", "ts_target"} if servers == 1 else set()
    assert nofill(path) == banded | cut | {"prof"}
    # multiple_file: each part's record is one chunk, written whole by its
    # server; the profile only in part 0 (server 0 holds it), fill values
    # in the others, where HDF5 keeps filling.
    parts = sorted(tmp_path.glob("parts*.nc"))
    assert len(parts) == servers
    for k, part in enumerate(parts):
        j0 = k * (NJ // servers) + min(k, NJ % servers)
        rows = NJ // servers + (1 if k < NJ % servers else 0)
        with netCDF4.Dataset(part) as nc:
            assert nc["ta"].chunking() == [1, NLEV, rows, NI]
            assert nc["prof"].chunking() == [1, BINS]
            np.testing.assert_array_equal(nc["ta"][:], want_ta[:, :, j0:j0 + rows].astype(np.float32))
            prof = nc["prof"][:]
            if k == 0:
                np.testing.assert_array_equal(prof, np.stack([profile(s) for s in range(1, STEPS + 1)]).astype(np.float32))
            else:
                assert prof.shape == (STEPS, BINS) and np.ma.getmaskarray(prof).all()
        assert nofill(part) == ({"ta", "prof"} if k == 0 else {"ta"})


def test_chunking_blocksize_target_must_be_positive(tmp_path, mpmd):
    (tmp_path / "model.xml").write_text(XML.replace('chunking_blocksize_target="0.1"', 'chunking_blocksize_target="0"'))
    done = mpmd(tmp_path, 1, 1, [sys.executable, __file__, tmp_path / "model.xml"], timeout=300)
    assert done.returncode != 0
    assert "chunking_blocksize_target=\"0\" must be a size in MiB above 0" in done.stdout + done.stderr
