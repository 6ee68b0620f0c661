"""GRIB2 files (docs/grib.md) in parts and across runs:
- type="multiple_file": one file per writer, named as foehn's NetCDF parts;
  each part holds the messages its writer encodes, in the one_file order,
  and the parts' messages together are the one_file run's, byte for byte;
- append="true": a second segment's messages follow the first's, and the
  file is the unbroken run's; a segment that would repeat a period is
  refused, the file untouched;
- exact restarts (foehn_checkpoint, restart_dir, docs/restart.md): runs
  cut inside averaging windows, on other numbers of model ranks and
  servers, and a killed run resumed from its last checkpoint (messages
  after it cut off and written again) give the unbroken run's file, byte
  for byte.
The models are test_grib.py's (test_file_options.py) and test_restart.py's."""
import collections
import sys

import pytest

from test_grib import files_xml, run_model
from test_restart import STEPS, run_segment, start_date

pytestmark = pytest.mark.usefixtures("importable_package")  # conftest.py


def message_bytes(path):
    """The messages of a GRIB2 file as bytes, from section 0's lengths (the
    reader is independent of foehn's; ecCodes checks each one decodes)."""
    import eccodes
    data, out, at = path.read_bytes(), [], 0
    while at < len(data):
        assert data[at:at + 4] == b"GRIB", (path, at)
        length = int.from_bytes(data[at + 8:at + 16], "big")
        out.append(data[at:at + length])
        h = eccodes.codes_new_from_message(out[-1])
        eccodes.codes_release(h)
        at += length
    return out


def is_subsequence(part, whole):
    it = iter(whole)
    return all(any(m == w for w in it) for m in part)


@pytest.mark.parametrize("clients,servers", [(2, 2), (3, 0)])
def test_multiple_file_parts_hold_the_one_file_messages(tmp_path, mpmd, clients, servers):
    one = run_model(tmp_path / "one", mpmd, files_xml(), 2, 1)
    multi_xml = files_xml().replace('format="grib2"', 'format="grib2" type="multiple_file"') \
        .replace('<file id="inst_nc"', '<file id="inst_nc" type="multiple_file"')
    multi = run_model(tmp_path / "multi", mpmd, multi_xml, clients, servers)
    writers = servers or clients
    # Named as the NetCDF parts: <name>_<part> (inst_nc_0.nc beside inst_0.grib2).
    assert sorted(p.name for p in multi.glob("inst_nc_*.nc")) == [f"inst_nc_{k}.nc" for k in range(writers)]
    for name in ("inst", "stat"):
        whole = message_bytes(one / f"{name}.grib2")
        parts = [message_bytes(multi / f"{name}_{k}.grib2") for k in range(writers)]
        assert not (multi / f"{name}.grib2").exists()
        assert sum(1 for p in parts if p) == writers  # every writer encodes some levels here
        for p in parts:
            assert is_subsequence(p, whole), name  # the one_file order
        assert collections.Counter(m for p in parts for m in p) == collections.Counter(whole), name


GRIB_XML = """<simulation><context id="rst">
  VARIABLES
  <calendar type="noleap" start_date="START" time_origin="2000-01-01 00:00:00" timestep="1h"/>
  <domain_definition><domain id="dom"/></domain_definition>
  <axis_definition><axis id="lev" unit="1"/></axis_definition>
  <grid_definition><grid id="g3"><domain domain_ref="dom"/><axis axis_ref="lev"/></grid></grid_definition>
  <field_definition>
    <field id="t" domain_ref="dom" prec="8" unit="K"/>
    <field id="q" domain_ref="dom" prec="8" default_value="1e20" detect_missing_value="true"/>
    <field id="u" grid_ref="g3" prec="4"/>
  </field_definition>
  <file_definition type="one_file">
    <file id="stats" name="stats_5h" output_freq="5h" format="grib2" APPEND>
      <field field_ref="t" name="t_avg" operation="average"><variable name="paramId" type="int">167</variable></field>
      <field field_ref="t" name="t_sum" operation="accumulate"><variable name="paramId" type="int">167</variable></field>
      <field field_ref="t" name="t_min" operation="minimum"><variable name="paramId" type="int">167</variable></field>
      <field field_ref="t" name="t_inst" operation="instant"><variable name="paramId" type="int">167</variable></field>
      ONCE
      <field field_ref="q" name="q_max" operation="maximum"><variable name="paramId" type="int">133</variable></field>
      <field field_ref="u" name="u_avg2h" operation="average" freq_op="2h"><variable name="paramId" type="int">131</variable><variable name="typeOfLevel" type="string">hybrid</variable></field>
    </file>
  </file_definition>
</context></simulation>
"""
RESTART_XML = GRIB_XML.replace("VARIABLES", '<variable_definition><variable id="restart_dir" type="string">restart'
                               '</variable></variable_definition>').replace("APPEND", "").replace(
    "ONCE", '<field field_ref="t" name="t_once" operation="once"><variable name="paramId" type="int">167</variable>'
            '</field>')
# No once field: a second segment writes it again (as NetCDF's append does).
APPEND_XML = GRIB_XML.replace("VARIABLES", "").replace("APPEND", 'append="true"').replace("ONCE", "")
MESSAGES_PER_RECORD = 4 + 1 + 3  # t's four, q, u on 3 levels


@pytest.fixture(scope="module")
def unbroken(tmp_path_factory):
    """The unbroken runs (attached, 1 model rank): the files' bytes."""
    from conftest import BUILD, run_mpmd
    out = {}
    for name, xml in (("restart", RESTART_XML), ("append", APPEND_XML)):
        work = tmp_path_factory.mktemp(f"unbroken_{name}")
        with pytest.MonkeyPatch.context() as mp:  # importable_package, for this module-wide run
            mp.setenv("PYTHONPATH", str(BUILD / "python"))
            run = run_segment(run_mpmd, work, 1, 0, 1, STEPS, xml_text=xml)
        assert run.returncode == 0, run.stderr
        out[name] = (work / "stats_5h.grib2").read_bytes()
    return out


def test_the_unbroken_files(unbroken):
    assert len(message_bytes_of(unbroken["restart"])) == 4 * MESSAGES_PER_RECORD + 1  # t_once in the first
    assert len(message_bytes_of(unbroken["append"])) == 4 * MESSAGES_PER_RECORD


def message_bytes_of(data):
    out, at = [], 0
    while at < len(data):
        length = int.from_bytes(data[at + 8:at + 16], "big")
        out.append(data[at:at + length])
        at += length
    return out


@pytest.mark.parametrize("cuts,counts", [([7, 13], [(1, 1), (2, 1), (1, 2)]), ([3, 11], [(2, 0), (1, 1), (3, 0)])],
                         ids=["servers", "attached"])
def test_cut_runs_write_the_unbroken_file(tmp_path, mpmd, unbroken, cuts, counts):
    bounds = [0, *cuts, STEPS]
    for k, (clients, servers) in enumerate(counts):
        first, last = bounds[k] + 1, bounds[k + 1]
        run = run_segment(mpmd, tmp_path, clients, servers, first, last, str(last) if last < STEPS else "-",
                          xml_text=RESTART_XML)
        assert run.returncode == 0, f"segment {k + 1}: " + run.stderr
        if k > 0:
            assert f"resumes from the state of {start_date(first)}" in run.stderr
    assert (tmp_path / "stats_5h.grib2").read_bytes() == unbroken["restart"]


@pytest.mark.parametrize("clients,servers", [(2, 0), (2, 1)])
def test_a_killed_run_resumed_from_its_last_checkpoint(tmp_path, mpmd, unbroken, clients, servers):
    """Checkpoints at 6 and 9 (the 5 h record), killed after 17: whatever
    reached the file after the checkpoint (here made certain: the 10 h
    record's messages and half of one more, as a job killed while writing
    leaves) is cut off by the run from 10, which writes them again, not
    twice."""
    run = run_segment(mpmd, tmp_path, clients, servers, 1, STEPS, "6,9", die_after=17, xml_text=RESTART_XML)
    assert run.returncode != 0
    path = tmp_path / "stats_5h.grib2"
    written = message_bytes(path)
    assert len(written) >= 1 + MESSAGES_PER_RECORD  # synced by the checkpoints
    later = message_bytes_of(unbroken["restart"])[len(written):]
    path.write_bytes(b"".join(written + later[:MESSAGES_PER_RECORD]) + later[MESSAGES_PER_RECORD][:100])
    run = run_segment(mpmd, tmp_path, 1, 1, 10, STEPS, xml_text=RESTART_XML)
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "stats_5h.grib2").read_bytes() == unbroken["restart"]


def test_append_continues_the_file(tmp_path, mpmd, unbroken):
    run = run_segment(mpmd, tmp_path, 1, 1, 1, 10, xml_text=APPEND_XML)
    assert run.returncode == 0, run.stderr
    first = (tmp_path / "stats_5h.grib2").read_bytes()
    assert len(message_bytes(tmp_path / "stats_5h.grib2")) == 2 * MESSAGES_PER_RECORD
    # The same segment again would write 0-10 h twice: refused, the file untouched.
    run = run_segment(mpmd, tmp_path, 1, 0, 1, 10, xml_text=APPEND_XML)
    assert run.returncode != 0
    assert "cannot append to this file: its messages reach 36000 s since 2000-01-01 00:00:00, after this " \
           "run's start" in run.stderr, run.stderr
    assert (tmp_path / "stats_5h.grib2").read_bytes() == first
    run = run_segment(mpmd, tmp_path, 2, 0, 11, STEPS, xml_text=APPEND_XML)
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "stats_5h.grib2").read_bytes() == unbroken["append"]


if __name__ == "__main__":
    sys.exit("run with pytest")
