"""Disk full (issue 18, items 6 and 8), on a small tmpfs: the model hears of
it at its next per-step call in words ("No space left on device", the file),
the file is closed at once so that the records written before stay readable
and exact, no process crashes (HDF5 used to segfault in MPI_Finalize), and
the run ends with a non-zero status within a bound.

Run as a script under mpiexec, this file is itself the model
(`python test_disk_full.py XML NSTEPS BALLAST_STEP`): it writes field ts
(step * 1000 + j * NI + i) at each step; at step BALLAST_STEP (0: never)
rank 0 fills the file system behind foehn's back. On a foehn.Error it prints
the step and the message, closes the context and exits 1."""
import os
import re
import subprocess
import sys
import time

import numpy as np

NI, NJ = 64, 32  # 16 KiB a record


def values(step, j0, j1):
    j, i = np.meshgrid(np.arange(j0, j1), np.arange(NI), indexing="ij")
    return step * 1000.0 + j * NI + i


def fill_file_system(directory):
    fd = os.open(os.path.join(directory, "ballast"), os.O_WRONLY | os.O_CREAT)
    try:
        while True:
            os.write(fd, b"\0" * 4096)
    except OSError:
        pass
    os.close(fd)


def model(xml, nsteps, ballast_step):
    import foehn
    comm = foehn.init("dfull", xml)
    rank, size = comm.Get_rank(), comm.Get_size()
    j0, j1 = rank * NJ // size, (rank + 1) * NJ // size
    ctx = foehn.Context("dfull", comm)
    ctx.set_domain_rectilinear("dom", NI, NJ, 0, j0, np.arange(NI, dtype=np.float64),
                               np.arange(j0, j1, dtype=np.float64))
    ctx.close_definition()
    step = 0
    try:
        for step in range(1, nsteps + 1):
            if step == ballast_step and rank == 0:
                fill_file_system("disk")
            ctx.update_calendar(step)
            ctx.write("ts", values(step, j0, j1))
            # The model computes: without it a loaded machine let the model
            # end its steps before the server met the full disk, and hear of
            # it only at close (2 runs in 6 on 2 cores).
            time.sleep(0.005)
    except foehn.Error as error:
        code = "ERR_IO" if error.code == foehn.ERR_IO else error.code
        print(f"model rank {rank}: step {step}: {code}: {error}", file=sys.stderr, flush=True)
    try:
        ctx.close()
    except foehn.Error as error:
        print(f"model rank {rank}: close: {error}", file=sys.stderr, flush=True)
        foehn.finalize()
        sys.exit(1)
    foehn.finalize()
    sys.exit(0)


if __name__ == "__main__":
    model(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))

import netCDF4  # noqa: E402
import pytest  # noqa: E402


XML = """<simulation><context id="dfull">
  <calendar type="noleap" start_date="2000-01-01" timestep="1h"/>
  <domain_definition><domain id="dom" ni_glo="64" nj_glo="32"/></domain_definition>
  <field_definition prec="8" operation="instant"><field id="ts" domain_ref="dom"/></field_definition>
  <file_definition output_freq="1ts" type="one_file">
    <file id="full" name="disk/full"><field field_ref="ts"/></file>
  </file_definition>
</context></simulation>
"""
BOUND_SECONDS = 60  # mpiexec's start and a few hundred 16 KiB records, on a loaded machine


pytestmark = pytest.mark.usefixtures("importable_package")  # conftest.py


@pytest.fixture
def small_disk(tmp_path, request):
    """tmp_path/disk: a 3 MiB tmpfs, or disk_mib (skipped where mounting is not permitted)."""
    disk = tmp_path / "disk"
    disk.mkdir()
    size = getattr(request, "param", 3)
    mount = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}m", "tmpfs", str(disk)], capture_output=True,
                           text=True)
    if mount.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs for a full disk (needs root): {mount.stderr.strip()}")
    yield disk
    subprocess.run(["umount", "--lazy", str(disk)], check=True)  # lazy: a hung run may hold it


def run(tmp_path, mpmd, clients, servers, nsteps, ballast_step=0, xml_text=XML):
    xml = tmp_path / "dfull.xml"
    xml.write_text(xml_text)
    start = time.monotonic()
    try:
        done = mpmd(tmp_path, clients, servers, [sys.executable, __file__, xml, nsteps, ballast_step],
                    timeout=2 * BOUND_SECONDS)
    except subprocess.TimeoutExpired:
        pytest.fail(f"disk full with {clients}+{servers} ranks hung for {2 * BOUND_SECONDS} s")
    assert time.monotonic() - start < BOUND_SECONDS
    out = done.stdout + done.stderr
    assert "Segmentation fault" not in out and "signal" not in out.lower(), out
    return done, out


@pytest.mark.parametrize("clients,servers", [(1, 1), (2, 2), (1, 0), (2, 0)],
                         ids=["1+1", "2+2", "attached", "attached-2"])
def test_full_disk_keeps_the_records_before(tmp_path, mpmd, small_disk, clients, servers):
    done, out = run(tmp_path, mpmd, clients, servers, 400)  # 6.4 MB: more than the disk holds
    assert done.returncode != 0, out
    path = small_disk / "full.nc"
    assert f"{path}: record " in out and ": No space left on device: " in out, out
    assert "model rank 0: step " in out and ": ERR_IO: " in out, out  # told before close, at a per-step call
    told_at = int(out.split("model rank 0: step ")[1].split(":")[0])
    assert told_at < 400, out
    with netCDF4.Dataset(path) as nc:
        ts = nc["ts"][:]
        records = ts.shape[0]
        assert records > 10  # the disk holds about 2 MB of its 3
        for r in range(records):
            np.testing.assert_array_equal(ts[r], values(r + 1, 0, NJ))
        np.testing.assert_array_equal(nc["time_counter"][:], 3600.0 * np.arange(1, records + 1))
    assert f"closed, with the records written before: {path}" in out, out


@pytest.mark.parametrize("clients,servers", [(1, 1), (1, 0)], ids=["1+1", "attached"])
def test_disk_filled_by_another_writer_ends_the_run_without_a_crash(tmp_path, mpmd, small_disk, clients, servers):
    # The disk fills behind foehn's back: the last flush (at close) fails.
    # HDF5 cannot keep such a file, but the run ends with the reason and a
    # non-zero status, and no process crashes (item 6).
    done, out = run(tmp_path, mpmd, clients, servers, 20, ballast_step=5)
    assert done.returncode != 0, out
    assert str(small_disk / "full.nc") in out, out
    assert "No space left on device" in out, out


@pytest.mark.parametrize("small_disk", [12], indirect=True)  # room for the HDF5 caches of three files
@pytest.mark.parametrize("clients,servers", [(2, 2), (2, 0)], ids=["2+2", "attached-2"])
def test_full_disk_with_shared_and_own_files(tmp_path, mpmd, small_disk, clients, servers):
    # A file of each writer (multiple_file) beside a shared one: a writer
    # whose own file meets the full disk ends the shared file on every
    # writer together; otherwise the others would wait for it in their next
    # collective write (a hang). The check before each record sees only its
    # own file's caches, so with several files filling the disk at once a
    # write may fail for real: then that file is lost, but the run still
    # ends, and the files reported closed are readable and exact.
    # The shared file has a record every 2 steps: the writers' own files fill the disk first.
    xml = XML.replace('<file id="full" name="disk/full">', '<file id="full" name="disk/full" output_freq="2ts">')
    xml = xml.replace('<field field_ref="ts"/></file>',
                      '<field field_ref="ts"/></file>\n    <file id="part" name="disk/part" type="multiple_file">'
                      '<field field_ref="ts"/></file>')
    done, out = run(tmp_path, mpmd, clients, servers, 1000, xml_text=xml)  # 24 MB
    assert done.returncode != 0, out
    assert "No space left on device" in out, out
    closed = set()  # the paths after each "closed, ..." (lines of several ranks may run together)
    for tail in out.split("closed, with the records written before: ")[1:]:
        closed.update(re.findall(re.escape(str(small_disk)) + r"/\w+\.nc", tail.split(": ")[0]))
    assert closed, out
    for path in closed:
        every = 2 if path.endswith("full.nc") else 1
        with netCDF4.Dataset(path) as nc:
            ts = nc["ts"][:]
            assert ts.shape[0] > 5, path
            j0 = int(nc["lat"][0])  # the model's latitudes are its rows' indices
            for r in range(ts.shape[0]):
                np.testing.assert_array_equal(ts[r], values(every * (r + 1), j0, j0 + ts.shape[1]))
