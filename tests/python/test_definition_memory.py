"""A definition bigger than the node's memory is refused at once, with the
bytes it needs and the bytes available, instead of growing the model until
the kernel kills it (issue 18 item 12). The domains here are rectilinear
with one coordinate per row and column: the model needs almost nothing,
only foehn's per-point lists would be huge."""
import os
import re
import resource
import sys
import time

import pytest

from conftest import MPI_ENV, ROOT, run_mpmd

pytestmark = pytest.mark.usefixtures("importable_package")

MODEL = ROOT / "tests/python/huge_domain_model.py"
BYTES_PER_POINT = 48  # client/definition_memory.h
GIB = 1024.0**3


def write_xml(tmp_path, extra_fields=0):
    """Field t, and `extra_fields` more double fields in the file (never
    written: the model writes t only)."""
    names = ["t"] + [f"f{k}" for k in range(extra_fields)]
    xml = tmp_path / "iodef.xml"
    xml.write_text(f"""<?xml version="1.0"?>
<simulation><context id="huge">
  <calendar type="gregorian" start_date="2000-01-01" timestep="1h"/>
  <domain_definition><domain id="dom"/></domain_definition>
  <field_definition>{"".join(f'<field id="{n}" domain_ref="dom" prec="8"/>' for n in names)}</field_definition>
  <file_definition><file id="out" name="huge" output_freq="1ts">
    {"".join(f'<field field_ref="{n}"/>' for n in names)}
  </file></file_definition>
</context></simulation>""")
    return xml


def mem_available_bytes():
    for line in open("/proc/meminfo"):
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) * 1024
    pytest.skip("no MemAvailable in /proc/meminfo")


@pytest.mark.parametrize("clients,servers", [(1, 0), (1, 1), (2, 2)])
def test_a_domain_the_node_cannot_hold_is_refused_with_both_figures(tmp_path, clients, servers):
    n = 200_000  # 4e10 points: about 1.8 TiB of lists, far beyond any node here
    started = time.time()
    run = run_mpmd(tmp_path, clients, servers, [sys.executable, MODEL, write_xml(tmp_path), n, n], timeout=60)
    elapsed = time.time() - started
    assert run.returncode != 0
    assert elapsed < 30, f"the refusal took {elapsed:.1f} s"
    found = re.search(r"context 'huge' needs about ([0-9.]+) GiB for its definition on the node of model rank \d+ "
                      r"\((\d+) ranks?; this rank's largest domain 'dom': (\d+) local points of (\d+) .*\), "
                      r"([0-9.]+) GiB available \((MemAvailable|cgroup memory.max)\)", run.stderr)
    assert found, run.stderr
    needed, ranks, local, total, available = (float(found.group(k)) for k in (1, 2, 3, 4, 5))
    assert ranks == clients and total == n * n and local == n * n // clients
    # Every model rank holds its points' lists; model rank 0 with servers
    # (every rank attached) also the gathered coordinates of the rows.
    assert needed == pytest.approx(n * n * BYTES_PER_POINT / GIB, rel=0.01)
    assert available == pytest.approx(mem_available_bytes() / GIB, rel=0.5)  # it moves while the test runs
    assert not list(tmp_path.glob("huge*.nc"))  # nothing was opened


def test_the_process_address_space_limit_counts_too(tmp_path):
    # 1.5e8 points need about 6.7 GiB: more than the 4 GiB ulimit -v left to
    # the model, less than the node has; attached, so the model is one process.
    limit = 4 * 1024**3

    def limited():
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    import subprocess
    run = subprocess.run(["mpiexec", "-n", "1", sys.executable, str(MODEL), str(write_xml(tmp_path)), "15000",
                          "10000"], cwd=tmp_path, env=dict(os.environ, **MPI_ENV), capture_output=True, text=True,
                         timeout=60, preexec_fn=limited)
    assert run.returncode != 0
    found = re.search(r"needs about ([0-9.]+) GiB for its definition on model rank 0 \(domain 'dom': 150000000 local "
                      r"points of 150000000 .*\), ([0-9.]+) GiB left under the process's address-space limit "
                      r"\(ulimit -v\)", run.stderr)
    assert found, run.stderr
    assert float(found.group(1)) == pytest.approx(1.5e8 * BYTES_PER_POINT / GIB, rel=0.01)
    assert 0 < float(found.group(2)) < limit / GIB


def test_a_server_whose_records_cannot_fit_refuses_the_context(tmp_path):
    # 9e6 points hold about 0.4 GiB of lists on the model rank, but a server
    # assembling 2000 double fields on them needs 2000 x 2 records x 72 MB.
    n, fields = 3000, 2000
    run = run_mpmd(tmp_path, 1, 1, [sys.executable, MODEL, write_xml(tmp_path, fields - 1), n, n], timeout=60)
    assert run.returncode != 0
    found = re.search(r"foehn-server 0: the records of the context's (\d+) variables need about ([0-9.]+) GiB on its "
                      r"node \(1 servers\), ([0-9.]+) GiB available", run.stderr)
    assert found, run.stderr
    assert int(found.group(1)) == fields
    assert float(found.group(2)) == pytest.approx(fields * n * n * 2 * 8 / GIB, rel=0.01)
