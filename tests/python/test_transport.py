"""The transport under stress: fields far bigger than the send buffers
(split into many fragments), buffer-starved settings that force the model
to wait (and the report must say so), more servers than clients and the
reverse, both buffer sizing modes; the files must stay exact."""
import json

import pytest

from conftest import BUILD, ROOT

SPINE = ROOT / "tests/mpi/data/spine.xml"


def spine_variant(tmp_path, variables):
    text = SPINE.read_text()
    block = "".join(f'<variable id="{k}" type="{t}">{v}</variable>' for k, (t, v) in variables.items())
    text = text.replace('<axis_definition>', f"<variable_definition>{block}</variable_definition>\n    <axis_definition>", 1)
    path = tmp_path / "spine.xml"
    path.write_text(text)
    return path


def run_spine(tmp_path, mpmd, clients, servers, variables, grid=(13, 7, 3), steps=7):
    xml = spine_variant(tmp_path, {**variables, "report_file": ("string", "report.json")})
    run = mpmd(tmp_path, clients, servers, [BUILD / "tests/mpi/spine_model", xml, steps, *grid])
    assert run.returncode == 0, run.stdout + run.stderr
    assert "spine_model: OK" in run.stdout  # the model read its files back: values exact
    return json.loads((tmp_path / "report.json").read_text())


def test_field_bigger_than_every_buffer_is_split_and_starved_clients_wait(tmp_path, mpmd):
    # 2 KiB buffers against 130 x 70 x 3 floats (~55 KiB per rank and step).
    report = run_spine(tmp_path, mpmd, 2, 1, {"min_buffer_size": ("int", 1024), "max_buffer_size": ("int", 2048)},
                       grid=(130, 70, 3))
    for c in report["clients"]:
        assert c["buffer_bytes"] == 2 * 2048
        assert c["smallest_sufficient_buffer_bytes"] <= 2048
        assert c["messages_sent"] > 50  # every field went out in many fragments
    # With two tiny buffers the model had to wait, and the report says so.
    assert sum(c["waits"] for c in report["clients"]) > 0
    assert sum(c["wait_seconds"] for c in report["clients"]) > 0


@pytest.mark.parametrize("clients,servers", [(1, 3), (3, 1), (2, 4)])
def test_more_servers_than_clients_and_the_reverse(tmp_path, mpmd, clients, servers):
    report = run_spine(tmp_path, mpmd, clients, servers, {})
    assert len(report["servers"]) == servers and len(report["clients"]) == clients
    assert sum(s["bytes_received"] for s in report["servers"]) == sum(c["bytes_sent"] for c in report["clients"])


@pytest.mark.parametrize("mode", ["performance", "memory"])
def test_buffer_sizing_modes(tmp_path, mpmd, mode):
    report = run_spine(tmp_path, mpmd, 2, 1, {"optimal_buffer_size": ("string", mode), "min_buffer_size": ("int", 1024)},
                       grid=(40, 20, 3))
    sizes = [c["buffer_bytes"] / 2 for c in report["clients"]]
    # performance: a step of every field (ta and ps) fits; memory: the largest one.
    ta_part = 40 * 20 * 3 * 4 // 2
    if mode == "memory":
        assert all(s < 1.5 * ta_part + 4096 for s in sizes), sizes
    else:
        assert all(s > ta_part for s in sizes), sizes


def test_credit_bounds_what_is_in_flight_and_credit_waits_are_reported(tmp_path, mpmd):
    # 2 KiB buffers go eagerly, so without credit a client could pile up
    # messages at the server; with credit it waits for the server to take
    # each one in, and the report shows that wait.
    report = run_spine(tmp_path, mpmd, 2, 1, {"min_buffer_size": ("int", 1024), "max_buffer_size": ("int", 2048)},
                       grid=(130, 70, 3))
    clients, server = report["clients"], report["servers"][0]
    assert sum(c["credit_waits"] for c in clients) > 0
    assert sum(c["credit_wait_seconds"] for c in clients) > 0
    for c in clients:
        assert 0 <= c["credit_wait_seconds"] <= c["wait_seconds"]
        assert c["credit_waits"] <= c["waits"]
        # A channel never holds more credit than the ring it asked room for.
        assert 0 < c["credit_bytes"] <= 2 * 2048
    # The server held exactly each client's ring (2 x 2048 bytes), no more.
    assert server["credit_bytes"] == 2 * 2 * 2048


def test_buffers_leave_in_messages_of_message_size(tmp_path, mpmd):
    # Default (performance) buffers hold a whole step (~55 KiB per client);
    # they leave as messages of at most 4 KiB.
    report = run_spine(tmp_path, mpmd, 2, 2, {"message_size": ("int", 4096)}, grid=(130, 70, 3))
    for c in report["clients"]:
        assert c["buffer_bytes"] > 2 * 2 * 4096
        assert c["smallest_sufficient_buffer_bytes"] <= 4096
        assert c["messages_sent"] > c["bytes_sent"] / 4096
    assert all(s["peak_buffer_bytes"] > 0 for s in report["servers"])


@pytest.mark.parametrize("thread_multiple", [True, False])
def test_progress_thread(tmp_path, mpmd, monkeypatch, thread_multiple):
    # With MPI_THREAD_MULTIPLE the thread runs; without, foehn says so and
    # makes progress inside the calls. Values are exact either way.
    monkeypatch.setenv("FOEHN_TEST_THREAD_MULTIPLE", "1" if thread_multiple else "0")
    xml = spine_variant(tmp_path, {"progress_thread": ("bool", "true"), "report_file": ("string", "report.json")})
    run = mpmd(tmp_path, 2, 1, [BUILD / "tests/mpi/spine_model", xml, 7, 40, 20, 3])
    assert run.returncode == 0, run.stdout + run.stderr
    assert "spine_model: OK" in run.stdout
    report = json.loads((tmp_path / "report.json").read_text())
    assert all(c["progress_thread"] == thread_multiple for c in report["clients"])
    assert ("progress_thread needs MPI_Init_thread" in run.stderr) != thread_multiple


def test_many_small_fields_under_starved_buffers(tmp_path, mpmd, monkeypatch):
    # 200 fields of 24 values each step, from 2 ranks to 2 servers, through
    # 2 KiB buffers: hundreds of small messages under credit; exact values.
    import netCDF4
    import numpy as np
    import sys
    monkeypatch.setenv("PYTHONPATH", str(BUILD / "python"))
    nfields, steps = 200, 3
    fields = "".join(f'<field id="f{f}" domain_ref="dom" prec="4"/>' for f in range(nfields))
    xml = tmp_path / "iodef.xml"
    xml.write_text(f"""<?xml version="1.0"?>
<simulation><context id="many">
  <variable_definition>
    <variable id="min_buffer_size" type="int">1024</variable>
    <variable id="max_buffer_size" type="int">2048</variable>
    <variable id="report_file" type="string">report.json</variable>
  </variable_definition>
  <calendar type="gregorian" start_date="2000-01-01" timestep="1h"/>
  <domain_definition><domain id="dom"/></domain_definition>
  <field_definition>{fields}</field_definition>
  <file_definition><file id="out" name="many" output_freq="1ts">
    <field_group>{''.join(f'<field field_ref="f{f}"/>' for f in range(nfields))}</field_group>
  </file></file_definition>
</context></simulation>""")
    run = mpmd(tmp_path, 2, 2, [sys.executable, ROOT / "tests/python/many_fields_model.py", xml, nfields, steps])
    assert run.returncode == 0, run.stdout + run.stderr
    sys.path.insert(0, str(ROOT / "tests/python"))
    from many_fields_model import values
    with netCDF4.Dataset(tmp_path / "many.nc") as ds:
        for f in range(nfields):
            for s in range(1, steps + 1):
                np.testing.assert_array_equal(ds[f"f{f}"][s - 1], values(f, s, 0, 4), err_msg=f"f{f} step {s}")
    report = json.loads((tmp_path / "report.json").read_text())
    # About 20 fields' events fit in a 2 KiB message: 600 events per client.
    assert sum(c["messages_sent"] for c in report["clients"]) >= 2 * steps * nfields // 20
    assert sum(s["bytes_received"] for s in report["servers"]) == sum(c["bytes_sent"] for c in report["clients"])


def test_direct_payloads_are_received_straight_into_the_records(tmp_path, mpmd):
    # 1 client -> 1 server with 4 MiB buffers: every field part (ta 512 KiB,
    # ps 256 KiB a step) leaves as one direct payload (>= 64 KiB here),
    # and, the server's block being the client's box in order, every one is
    # received straight into its record: nothing staged. Values exact.
    nx, ny, nz, steps = 256, 128, 4, 6
    report = run_spine(tmp_path, mpmd, 1, 1, {"min_buffer_size": ("int", 4 << 20), "direct_min_bytes": ("int", 65536)},
                       grid=(nx, ny, nz), steps=steps)
    server, client = report["servers"][0], report["clients"][0]
    ta, ps = nx * ny * nz * 4, nx * ny * 8
    expected = steps // 2 * (ta + ps) + steps // 3 * ta  # file "one" every 2 steps, "multi" every 3
    assert server["direct_bytes"] == expected
    assert server["staged_bytes"] == 0
    assert server["bytes_received"] == client["bytes_sent"]
    assert server["peak_buffer_bytes"] < 4 * ta  # no receive buffer of a whole step


def test_direct_payloads_by_level_and_through_staging(tmp_path, mpmd):
    # 3 clients -> 1 server, 128 x 128 x 4 (spine_values.h: rank 0 holds the
    # first 42 rows whole, ranks 1 and 2 split the others at i = 42). With
    # direct_min_bytes 16384, a client whose level is at least that cuts its
    # direct fragments at levels. Rank 0's levels (and its ps) are one run
    # each in the server's block: received in place. Ranks 1 and 2 hold
    # parts of rows: their direct payloads go through staging. Values exact.
    nx = ny = 128
    nz, steps, direct_min = 4, 6, 16384
    report = run_spine(tmp_path, mpmd, 3, 1, {"direct_min_bytes": ("int", direct_min), "min_buffer_size": ("int", 4 << 20)},
                       grid=(nx, ny, nz), steps=steps)
    top, left = ny // 3, nx // 3
    points = [nx * top, left * (ny - top), (nx - left) * (ny - top)]  # per rank
    in_place = staged = 0
    for rank, n in enumerate(points):
        ta, ps = n * nz * 4, n * 8
        one, multi = steps // 2, steps // 3  # records of the files "one" (ta, ps) and "multi" (ta)
        for part, records in ((ta, one + multi), (ps, one)):
            if part < direct_min:
                continue
            if rank == 0:
                in_place += records * part
            else:
                staged += records * part
    server = report["servers"][0]
    assert (server["direct_bytes"], server["staged_bytes"]) == (in_place, staged)
    assert server["bytes_received"] == sum(c["bytes_sent"] for c in report["clients"])


@pytest.mark.parametrize("nfields", [100, 1100])
def test_small_records_are_chunked_within_a_budget(tmp_path, mpmd, monkeypatch, nfields):
    # Small records are chunked along time, 64 KiB a chunk (HDF5's chunk
    # index stays small over long runs), less when the context's variables
    # would hold more than 64 MiB of filling chunks in all (netcdf_writer.h):
    # 96-byte records, 682 or 635 records a chunk. Values exact.
    import netCDF4
    import numpy as np
    import sys
    monkeypatch.setenv("PYTHONPATH", str(BUILD / "python"))
    steps = 2
    xml = tmp_path / "iodef.xml"
    xml.write_text(f"""<?xml version="1.0"?>
<simulation><context id="many">
  <calendar type="gregorian" start_date="2000-01-01" timestep="1h"/>
  <domain_definition><domain id="dom"/></domain_definition>
  <field_definition>{"".join(f'<field id="f{f}" domain_ref="dom" prec="4"/>' for f in range(nfields))}</field_definition>
  <file_definition><file id="out" name="many" output_freq="1ts">
    {"".join(f'<field field_ref="f{f}"/>' for f in range(nfields))}
  </file></file_definition>
</context></simulation>""")
    run = mpmd(tmp_path, 1, 1, [sys.executable, ROOT / "tests/python/many_fields_model.py", xml, nfields, steps])
    assert run.returncode == 0, run.stdout + run.stderr
    sys.path.insert(0, str(ROOT / "tests/python"))
    from many_fields_model import values
    records_per_chunk = min(64 << 10, (64 << 20) // nfields) // (6 * 4 * 4)
    with netCDF4.Dataset(tmp_path / "many.nc") as ds:
        for f in (0, nfields - 1):
            assert ds[f"f{f}"].chunking() == [records_per_chunk, 4, 6]
            for s in range(1, steps + 1):
                np.testing.assert_array_equal(ds[f"f{f}"][s - 1], values(f, s, 0, 4))
