"""multiple_file files of other formats continued by another number of
writers (issue 22, docs/restart.md "Split and multiple_file files"):
- GRIB2 parts (docs/grib.md, "Parts") re-partitioned across exact restarts
  1+1 -> 1+2 -> 2+1 cut inside the 5 h windows: after each segment every
  part is, message for message and byte for byte, the same part of an
  unbroken run of that writer count (so are the values ecCodes decodes);
  a run killed inside the re-partition goes on from where it stopped;
- GRIB2 parts continued by append="true" with another server count;
- split_freq GRIB2 parts: the parts of a later period a killed run of more
  servers left are removed or written anew, and a period's file without
  the once fields re-partitioned;
- NetCDF parts continued by append="true" (no restart_dir) with another
  server count: the re-partition of the exact restart, bit for bit the
  unbroken run's parts.
The models are test_grib_continue.py's and test_restart.py's."""
import sys

import numpy as np
import pytest

from test_grib_continue import APPEND_XML, RESTART_XML, message_bytes
from test_restart import STEPS, XML_PARTS, raw_variables, run_segment
from test_restart_parts import references  # noqa: F401 (fixture)

pytestmark = pytest.mark.usefixtures("importable_package")  # conftest.py

GRIB_PARTS = RESTART_XML.replace('format="grib2"', 'format="grib2" type="multiple_file"')
STEM = "stats_5h"


def grib_parts(work):
    return sorted(p.name for p in work.glob(f"{STEM}_*.grib2"))


@pytest.fixture(scope="module")
def grib_unbroken(tmp_path_factory):
    """Unbroken runs of 1 and 2 servers: each part's messages."""
    from conftest import BUILD, run_mpmd
    out = {}
    for servers in (1, 2):
        work = tmp_path_factory.mktemp(f"grib_parts_{servers}")
        with pytest.MonkeyPatch.context() as mp:  # importable_package, for this module-wide run
            mp.setenv("PYTHONPATH", str(BUILD / "python"))
            run = run_segment(run_mpmd, work, 1, servers, 1, STEPS, xml_text=GRIB_PARTS)
        assert run.returncode == 0, run.stderr
        assert grib_parts(work) == [f"{STEM}_{k}.grib2" for k in range(servers)]
        out[servers] = {p: message_bytes(work / p) for p in grib_parts(work)}
    return out


def decoded(messages):
    """The values and steps ecCodes decodes from each message."""
    import eccodes
    out = []
    for m in messages:
        h = eccodes.codes_new_from_message(m)
        try:
            out.append((eccodes.codes_get(h, "paramId"), eccodes.codes_get(h, "level"),
                        eccodes.codes_get(h, "endStep"), eccodes.codes_get_values(h)))
        finally:
            eccodes.codes_release(h)
    return out


def assert_grib_parts_are(work, want, final):
    """Every part in `work` is the same part of the unbroken run (`want`:
    name -> messages), its first messages so far or all of them (final)."""
    assert not list(work.glob("*.old")) and not list(work.glob("*.repart")), "old parts left behind"
    assert grib_parts(work) == sorted(want)
    for name, ref in want.items():
        got = message_bytes(work / name)
        assert got, name
        assert got == (ref if final else ref[:len(got)]), name
        for (p, l, s, v), (rp, rl, rs, rv) in zip(decoded(got), decoded(ref)):
            assert (p, l, s) == (rp, rl, rs) and np.array_equal(v, rv), (name, p, l, s)


def test_grib_unbroken_parts_differ_by_count(grib_unbroken):
    """The reference itself: two servers split the messages between their
    parts (the u levels and fields go to both), one server holds them all."""
    one, two = grib_unbroken[1][f"{STEM}_0.grib2"], grib_unbroken[2]
    assert len(one) == 4 * 8 + 1  # test_grib_continue.py's MESSAGES_PER_RECORD, t_once in the first
    assert all(two.values()) and sum(len(p) for p in two.values()) == len(one)
    assert sorted(m for p in two.values() for m in p) == sorted(one)


def test_grib_servers_one_two_one(tmp_path, mpmd, grib_unbroken):
    for k, (clients, servers, first, last) in enumerate([(1, 1, 1, 7), (1, 2, 8, 13), (2, 1, 14, STEPS)]):
        run = run_segment(mpmd, tmp_path, clients, servers, first, last, str(last) if last < STEPS else "-",
                          xml_text=GRIB_PARTS)
        assert run.returncode == 0, f"segment {k + 1}: " + run.stderr
        if k > 0:
            assert f"re-partitioned from {3 - servers} to {servers} parts" in run.stderr, run.stderr
        assert_grib_parts_are(tmp_path, grib_unbroken[servers], last == STEPS)


def test_grib_killed_inside_the_repartition(tmp_path, mpmd, grib_unbroken):
    """The parts of 2 servers at the checkpoint of 7; a run of 1 server
    killed after moving them aside (the marker says "moved 2", one new part
    half written): the next run of 1 server rebuilds from the old parts."""
    run = run_segment(mpmd, tmp_path, 1, 2, 1, 7, "7", xml_text=GRIB_PARTS)
    assert run.returncode == 0, run.stderr
    for k in range(2):
        (tmp_path / f"{STEM}_{k}.grib2").rename(tmp_path / f"{STEM}_{k}.grib2.old")
    (tmp_path / f"{STEM}.grib2.repart").write_text("moved 2\n")
    (tmp_path / f"{STEM}_0.grib2").write_bytes(b"GRIB\0\0\0\2")  # a new part cut short
    run = run_segment(mpmd, tmp_path, 1, 1, 8, STEPS, xml_text=GRIB_PARTS)
    assert run.returncode == 0, run.stderr
    assert "re-partitioned from 2 to 1 parts" in run.stderr
    assert not (tmp_path / f"{STEM}.grib2.repart").exists()
    assert_grib_parts_are(tmp_path, grib_unbroken[1], True)


def test_grib_parts_of_no_single_count_are_refused(tmp_path, mpmd):
    run = run_segment(mpmd, tmp_path, 1, 1, 1, 7, "7", xml_text=GRIB_PARTS)
    assert run.returncode == 0, run.stderr
    (tmp_path / f"{STEM}_2.grib2").write_bytes(b"")  # parts 0 and 2: no count writes those
    run = run_segment(mpmd, tmp_path, 1, 2, 8, STEPS, xml_text=GRIB_PARTS)
    assert run.returncode != 0
    assert "are not the parts of one writer count" in run.stderr, run.stderr
    assert (tmp_path / f"{STEM}_0.grib2").stat().st_size > 0  # untouched


def test_grib_append_with_another_server_count(tmp_path, mpmd):
    """append="true" (no restart_dir) cut at the 10 h output boundary, 1+1
    then 1+2: the parts are re-partitioned and end as an unbroken 1+2 run's."""
    xml = APPEND_XML.replace('format="grib2"', 'format="grib2" type="multiple_file"')
    ref = tmp_path / "unbroken"
    ref.mkdir()
    run = run_segment(mpmd, ref, 1, 2, 1, STEPS, xml_text=xml)
    assert run.returncode == 0, run.stderr
    work = tmp_path / "cut"
    work.mkdir()
    for first, last, servers in [(1, 10, 1), (11, STEPS, 2)]:
        run = run_segment(mpmd, work, 1, servers, first, last, xml_text=xml)
        assert run.returncode == 0, run.stderr
    assert "re-partitioned from 1 to 2 parts (2 records" in run.stderr, run.stderr
    assert_grib_parts_are(work, {p: message_bytes(ref / p) for p in grib_parts(ref)}, True)


APPEND_PARTS = XML_PARTS.replace('<variable id="restart_dir" type="string">restart</variable>', "").replace(
    'name="stats_5h" output_freq="5h"', 'name="stats_5h" output_freq="5h" append="true"')


def test_netcdf_append_with_another_server_count(tmp_path, mpmd, references):  # noqa: F811
    """append="true" cut at a 5 h output boundary, 1+1 then 1+2: the parts
    of stats_5h are re-partitioned and end as the unbroken 1+2 run's."""
    for first, last, clients, servers in [(1, 10, 1, 1), (11, STEPS, 1, 2)]:
        run = run_segment(mpmd, tmp_path, clients, servers, first, last, xml_text=APPEND_PARTS)
        assert run.returncode == 0, run.stderr
    assert "re-partitioned from 1 to 2 parts" in run.stderr
    assert sorted(p.name for p in tmp_path.glob("stats_5h_*")) == ["stats_5h_0.nc", "stats_5h_1.nc"]
    for k in range(2):
        got, want = raw_variables(tmp_path / f"stats_5h_{k}.nc"), references[2][f"stats_5h_{k}.nc"]
        for name in ["t_avg", "t_sum", "t_min", "t_max", "t_inst", "q_avg", "u_avg", "u_avg2h", "time_counter",
                     "time_counter_bounds", "lat", "lon"]:
            assert got[name].tobytes() == want[name].tobytes(), (k, name)


GRIB_SPLIT = GRIB_PARTS.replace('output_freq="5h" format="grib2"', 'output_freq="5h" split_freq="10h" format="grib2"')


@pytest.fixture(scope="module")
def grib_split_unbroken(tmp_path_factory):
    """Unbroken runs of 1 and 2 servers, split every 10 h (records at 5, 10
    | 15, 20 h): each part's messages, by period."""
    from conftest import BUILD, run_mpmd
    out = {}
    for servers in (1, 2):
        work = tmp_path_factory.mktemp(f"grib_split_{servers}")
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv("PYTHONPATH", str(BUILD / "python"))
            run = run_segment(run_mpmd, work, 1, servers, 1, STEPS, xml_text=GRIB_SPLIT)
        assert run.returncode == 0, run.stderr
        out[servers] = {p: message_bytes(work / p) for p in grib_parts(work)}
        assert len(out[servers]) == 2 * servers and all(out[servers].values())
    return out


def periods(parts):
    """{period stem: {part name: messages}}, periods in time order."""
    by = {}
    for name in sorted(parts):
        by.setdefault(name.rsplit("_", 1)[0], {})[name] = parts[name]
    return [by[k] for k in sorted(by)]


def test_grib_split_stale_parts_and_later_periods(tmp_path, mpmd, grib_split_unbroken):
    """split_freq GRIB2 parts across exact restarts: 1+2 (checkpoint at 7,
    inside the first period), then 1+1 to 17 (inside the second): the first
    period's parts are re-partitioned 2 -> 1, and the second period's parts
    a run of 2 servers killed after the checkpoint left (as such a run
    would: both written after it) go, `_1` removed as no 1-server run writes
    it, `_0` written anew. Then 1+2 to 20: the second period's part, which
    holds no once field (t_once is in the first period's file), is
    re-partitioned 1 -> 2. Every part is message for message the same part
    of the unbroken run of the count that last wrote its period."""
    one, two = periods(grib_split_unbroken[1]), periods(grib_split_unbroken[2])
    run = run_segment(mpmd, tmp_path, 1, 2, 1, 7, "7", xml_text=GRIB_SPLIT)
    assert run.returncode == 0, run.stderr
    assert sorted(p.name for p in tmp_path.glob("*.grib2")) == sorted(two[0])
    stale = sorted(two[1])  # the second period's names of 2 servers
    for name, messages in zip(stale, (two[1][n] for n in stale)):
        (tmp_path / name).write_bytes(b"".join(messages[:2]) + b"GRIB\0\0")  # records after the checkpoint, cut
    run = run_segment(mpmd, tmp_path, 1, 1, 8, 17, "17", xml_text=GRIB_SPLIT)
    assert run.returncode == 0, run.stderr
    assert "re-partitioned from 2 to 1 parts" in run.stderr, run.stderr
    got = {p.name: message_bytes(p) for p in tmp_path.glob("*.grib2")}
    assert sorted(got) == sorted([*one[0], *one[1]]), "a stale part left, or one missing"
    for name, ref in one[0].items():
        assert got[name] == ref, name
    (name, ref), = one[1].items()
    assert got[name] and got[name] == ref[:len(got[name])], name  # the 15 h record
    run = run_segment(mpmd, tmp_path, 1, 2, 18, STEPS, xml_text=GRIB_SPLIT)
    assert run.returncode == 0, run.stderr
    assert "re-partitioned from 1 to 2 parts (1 records" in run.stderr, run.stderr
    assert not list(tmp_path.glob("*.old")) and not list(tmp_path.glob("*.repart"))
    got = {p.name: message_bytes(p) for p in tmp_path.glob("*.grib2")}
    want = {**one[0], **two[1]}
    assert sorted(got) == sorted(want)
    for name, ref in want.items():
        assert got[name] == ref, name
        for (p, l, s, v), (rp, rl, rs, rv) in zip(decoded(got[name]), decoded(ref)):
            assert (p, l, s) == (rp, rl, rs) and np.array_equal(v, rv), (name, p, l, s)


if __name__ == "__main__":
    sys.exit("run with pytest")
