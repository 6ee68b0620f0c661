"""Two-level servers: level-1 ranks receive and assemble, level-2 pools
write whole files. The spine model's files must hold the exact values, and
the report must show that only level-2 ranks wrote (a file by one pool)."""
import glob
import json
import sys

import netCDF4
import numpy as np
import pytest

from conftest import BUILD, ROOT
from spine_reference import ps_values, t_values
from test_spine import stitch

STEPS, NI, NJ, NLEV = 7, 13, 7, 3


def spine_xml(tmp_path, variables):
    """spine.xml with extra context variables (name -> int) and a JSON report."""
    body = "".join(f'<variable id="{k}" type="int">{v}</variable>' for k, v in variables.items())
    body += '<variable id="report_file" type="string">report.json</variable>'
    text = (ROOT / "tests/mpi/data/spine.xml").read_text()
    text = text.replace('<context id="test">', f'<context id="test"><variable_definition>{body}</variable_definition>', 1)
    path = tmp_path / "spine.xml"
    path.write_text(text)
    return path


# 3 servers = 2 level-1 + one pool of 1; 4 servers = 2 level-1 + 2 pools of 1
# (the larger file, spine_one, to pool 0, spine_multi to pool 1); 4 servers
# = 2 level-1 + one pool of 2 (one_file written collectively by the pool).
@pytest.mark.parametrize("servers,level2,pools", [(3, 1, 1), (4, 2, 2), (4, 2, 1)])
def test_values_exact(tmp_path, mpmd, servers, level2, pools):
    xml = spine_xml(tmp_path, {"server_level2_ranks": level2, "server_level2_pools": pools})
    run = mpmd(tmp_path, 2, servers, [BUILD / "tests/mpi/spine_model", xml, STEPS, NI, NJ, NLEV])
    assert run.returncode == 0, run.stdout + run.stderr
    assert "spine_model: OK" in run.stdout

    with netCDF4.Dataset(tmp_path / "spine_one.nc") as ds:
        steps = [2 * (r + 1) for r in range(STEPS // 2)]
        np.testing.assert_array_equal(ds["time_counter"][:], [86400.0 + 600.0 * s for s in steps])
        for r, s in enumerate(steps):
            np.testing.assert_array_equal(ds["ta"][r], t_values(s, NLEV, NJ, NI))
            np.testing.assert_array_equal(ds["ps"][r], ps_values(s, NJ, NI))
    # multiple_file: one part per rank of the pool that writes it.
    parts = sorted(glob.glob(str(tmp_path / "spine_multi_*.nc")))
    assert len(parts) == level2 // pools
    ta = stitch(parts, "ta")
    for r, s in enumerate([3, 6]):
        np.testing.assert_array_equal(ta[r], t_values(s, NLEV, NJ, NI))

    written = [s["bytes_written"] for s in json.loads((tmp_path / "report.json").read_text())["servers"]]
    level1 = servers - level2
    assert written[:level1] == [0] * level1  # level 1 never writes
    one = STEPS // 2 * (NLEV * NJ * NI * 4 + NJ * NI * 8)
    multi = STEPS // 3 * NLEV * NJ * NI * 4
    if pools == 2:
        assert written[level1:] == [one, multi]  # each file by one pool only
    else:
        assert sum(written[level1:]) == one + multi


def test_level2_ranks_must_leave_level1(tmp_path, mpmd):
    xml = spine_xml(tmp_path, {"server_level2_ranks": 2})
    run = mpmd(tmp_path, 2, 2, [BUILD / "tests/mpi/spine_model", xml, STEPS, NI, NJ, NLEV], timeout=60)
    assert run.returncode != 0
    assert "server_level2_ranks = 2 must be at least 0 and less than the number of server ranks (2)" in run.stderr


def test_server_side_reductions_equal_one_level(tmp_path, mpmd):
    """Means and extremes made on level 1 (temporal_placement server) reach
    the file bit for bit as with one level of servers."""
    text = (ROOT / "tests/mpi/data/ops.xml").read_text().replace(
        '<variable id="temporal_placement" type="string">client</variable>',
        '<variable id="temporal_placement" type="string">server</variable>{}')
    outputs = []
    for name, extra in [("one", ""), ("two", '<variable id="server_level2_ranks" type="int">1</variable>')]:
        (tmp_path / name).mkdir()
        xml = tmp_path / name / "ops.xml"
        xml.write_text(text.format(extra))
        run = mpmd(tmp_path / name, 3, 3, [BUILD / "tests/mpi/ops_model", xml, 13, 11, 5, 2, "regular"])
        assert run.returncode == 0, run.stdout + run.stderr
        outputs.append(tmp_path / name / "ops_6h.nc")
    with netCDF4.Dataset(outputs[0]) as a, netCDF4.Dataset(outputs[1]) as b:
        assert len(a.variables) > 10
        for v in a.variables:
            np.testing.assert_array_equal(np.ma.getdata(a[v][:]), np.ma.getdata(b[v][:]), err_msg=v)


# The level-1 cap: a grid whose level-1 messages are larger than a tiny cap,
# so each goes alone; 5 and 40 steps must show the same bound.
CAP_NI, CAP_NJ, CAP_NLEV = 40, 20, 5
TA_RECORD, PS_RECORD = CAP_NLEV * CAP_NJ * CAP_NI * 4, CAP_NJ * CAP_NI * 8
# The largest message a level-1 rank can send: at most a whole ta record
# (its block is a part of it) plus the header (BlockHeader, 24 bytes, then
# start and count of 3 dimensions as int64).
LARGEST_MESSAGE = TA_RECORD + 24 + 2 * 3 * 8


def run_capped(tmp_path, mpmd, steps, variables):
    xml = spine_xml(tmp_path, {"server_level2_ranks": 1, **variables})
    run = mpmd(tmp_path, 2, 3, [BUILD / "tests/mpi/spine_model", xml, steps, CAP_NI, CAP_NJ, CAP_NLEV])
    assert run.returncode == 0, run.stdout + run.stderr
    assert "spine_model: OK" in run.stdout
    with netCDF4.Dataset(tmp_path / "spine_one.nc") as ds:
        assert ds["ta"].shape[0] == steps // 2
        for r in range(steps // 2):
            s = 2 * (r + 1)
            np.testing.assert_array_equal(ds["ta"][r], t_values(s, CAP_NLEV, CAP_NJ, CAP_NI))
            np.testing.assert_array_equal(ds["ps"][r], ps_values(s, CAP_NJ, CAP_NI))
    ta = stitch(sorted(glob.glob(str(tmp_path / "spine_multi_*.nc"))), "ta")
    assert ta.shape[0] == steps // 3
    for r in range(steps // 3):
        np.testing.assert_array_equal(ta[r], t_values(3 * (r + 1), CAP_NLEV, CAP_NJ, CAP_NI))
    return json.loads((tmp_path / "report.json").read_text())["servers"]


@pytest.mark.parametrize("steps", [5, 40])
def test_level1_forward_memory_capped(tmp_path, mpmd, steps):
    cap = 1000  # smaller than any block message: one in flight at a time
    servers = run_capped(tmp_path, mpmd, steps, {"server_level1_forward_bytes": cap})
    # Each level-1 rank holds a band of 10 of the 20 rows: its largest
    # message is half a ta record, and it never holds two messages (without
    # the cap, 40 steps hold several records' worth).
    for s in servers[:2]:
        assert s["forward_cap_bytes"] == cap
        assert s["forward_bytes"] == TA_RECORD // 2 + 24 + 2 * 3 * 8
        assert s["peak_buffer_bytes"] >= s["forward_bytes"]  # the blocks held count as memory
    assert servers[2]["forward_bytes"] == 0 and servers[2]["forward_cap_bytes"] == 0  # level 2 forwards nothing


@pytest.mark.parametrize("steps", [5, 40])
def test_level1_default_cap_is_two_records(tmp_path, mpmd, steps):
    servers = run_capped(tmp_path, mpmd, steps, {})
    # The two level-1 ranks' blocks tile each variable (ta in both files, ps):
    # their caps add up to twice one record of every variable.
    assert servers[0]["forward_cap_bytes"] + servers[1]["forward_cap_bytes"] == 2 * (2 * TA_RECORD + PS_RECORD)
    for s in servers[:2]:
        assert 0 < s["forward_bytes"] <= s["forward_cap_bytes"] + LARGEST_MESSAGE


def test_level1_forward_bytes_must_not_be_negative(tmp_path, mpmd):
    xml = spine_xml(tmp_path, {"server_level2_ranks": 1, "server_level1_forward_bytes": -1})
    run = mpmd(tmp_path, 2, 3, [BUILD / "tests/mpi/spine_model", xml, STEPS, NI, NJ, NLEV], timeout=60)
    assert run.returncode != 0
    assert "server_level1_forward_bytes = -1 must be at least 0" in run.stderr


def two_contexts_xml(tmp_path, deep_variables):
    """Contexts deep (with deep_variables, e.g. two levels) and flat (one
    level), each with a and b to a shared file every step, a to one file per
    writer every 2 steps and the mean of b over 3 steps (a record whose data
    the client makes at the end of its step)."""
    def context(name, variables):
        body = "".join(f'<variable id="{k}" type="int">{v}</variable>' for k, v in variables.items())
        return f"""<context id="{name}">
  <variable_definition>{body}</variable_definition>
  <calendar type="gregorian" start_date="2000-01-01" timestep="1h"/>
  <domain_definition><domain id="dom" type="rectilinear"/></domain_definition>
  <field_definition>
    <field id="a" domain_ref="dom" prec="4"/>
    <field id="b" domain_ref="dom" prec="8"/>
  </field_definition>
  <file_definition>
    <file id="one" name="{name}_one" output_freq="1ts" type="one_file"><field field_ref="a"/><field field_ref="b"/></file>
    <file id="multi" name="{name}_multi" output_freq="2ts" type="multiple_file"><field field_ref="a"/></file>
    <file id="avg" name="{name}_avg" output_freq="3ts" type="one_file"><field field_ref="b" name="b_mean" operation="average"/></file>
  </file_definition>
</context>"""
    path = tmp_path / "iodef.xml"
    path.write_text(f'<?xml version="1.0"?>\n<simulation>{context("deep", deep_variables)}{context("flat", {})}</simulation>')
    return path


# Both contexts open at once on the same servers, one on two levels and one
# on one (whose one_file writes are collective over every server, level 1
# and level 2 alike); with a tiny level-1 cap too, so that level 1 waits for
# level 2 between those collectives.
@pytest.mark.parametrize("servers,deep", [
    (3, {"server_level2_ranks": 1}),
    (3, {"server_level2_ranks": 1, "server_level1_forward_bytes": 1}),
    (4, {"server_level2_ranks": 2, "server_level2_pools": 2, "server_level1_forward_bytes": 1}),
    # Small buffers: deep's data waits for credit while flat closes.
    (3, {"server_level2_ranks": 1, "min_buffer_size": 1024, "max_buffer_size": 2048}),
])
def test_two_level_and_one_level_contexts_together(tmp_path, mpmd, monkeypatch, servers, deep):
    from two_contexts_model import CONTEXTS, NI, NJ, a_values, b_values
    monkeypatch.setenv("PYTHONPATH", str(BUILD / "python"))
    steps = 6
    xml = two_contexts_xml(tmp_path, deep)
    run = mpmd(tmp_path, 2, servers, [sys.executable, ROOT / "tests/python/two_contexts_model.py", xml, steps], timeout=60)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "two_contexts_model: OK" in run.stdout
    writers = {"deep": deep["server_level2_ranks"] // deep.get("server_level2_pools", 1), "flat": servers}
    for name, c in CONTEXTS.items():
        with netCDF4.Dataset(tmp_path / f"{name}_one.nc") as ds:
            assert ds["a"].shape == (steps, NJ, NI)
            for r in range(steps):
                np.testing.assert_array_equal(ds["a"][r], a_values(c, r + 1, 0, NJ), err_msg=f"{name} a {r}")
                np.testing.assert_array_equal(ds["b"][r], b_values(c, r + 1, 0, NJ), err_msg=f"{name} b {r}")
        parts = sorted(glob.glob(str(tmp_path / f"{name}_multi_*.nc")))
        assert len(parts) == writers[name], parts
        a = stitch(parts, "a")
        assert a.shape == (steps // 2, NJ, NI)
        for r in range(steps // 2):
            np.testing.assert_array_equal(a[r], a_values(c, 2 * (r + 1), 0, NJ), err_msg=f"{name} multi {r}")
        with netCDF4.Dataset(tmp_path / f"{name}_avg.nc") as ds:
            assert ds["b_mean"].shape == (steps // 3, NJ, NI)
            for r in range(steps // 3):
                s = 3 * r + 1  # the mean of steps s, s + 1, s + 2, summed in time order
                mean = (b_values(c, s, 0, NJ) + b_values(c, s + 1, 0, NJ) + b_values(c, s + 2, 0, NJ)) / 3
                np.testing.assert_array_equal(ds["b_mean"][r], mean, err_msg=f"{name} mean {r}")
