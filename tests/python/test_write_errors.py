"""A file that cannot be written reaches the model as an error at close of
definition, with a message naming the file, the netCDF call and netCDF's
reason (formats::netcdf::NcDataset), from a server and from an attached
client alike, and the run ends instead of hanging.

Run as a script under mpiexec, this file is itself the model
(`python test_write_errors.py XML`): it prints the error's status and message
and exits 1."""
import re
import subprocess
import sys

import numpy as np

NI, NJ = 8, 4


def model(xml):
    import foehn
    comm = foehn.init("werr", xml)
    rank, size = comm.Get_rank(), comm.Get_size()
    j0, j1 = rank * NJ // size, (rank + 1) * NJ // size
    with foehn.Context("werr", comm) as ctx:
        ctx.set_domain_rectilinear("dom", NI, NJ, 0, j0, np.arange(NI, dtype=np.float64),
                                   np.arange(j0, j1, dtype=np.float64))
        ctx.close_definition()
        ctx.update_calendar(1)
        ctx.write("ts", np.zeros((j1 - j0, NI)))
    foehn.finalize()


if __name__ == "__main__":
    import foehn
    try:
        model(sys.argv[1])
    except foehn.Error as error:
        code = "ERR_IO" if error.code == foehn.ERR_IO else error.code
        print(f"model: {code}: {error}", file=sys.stderr)
        foehn.finalize()
        sys.exit(1)
    sys.exit(0)

import pytest  # noqa: E402


XML = """<simulation><context id="werr">
  <calendar type="noleap" start_date="2000-01-01" timestep="1h"/>
  <domain_definition><domain id="dom" ni_glo="8" nj_glo="4"/></domain_definition>
  <field_definition prec="8" operation="instant"><field id="ts" domain_ref="dom"/></field_definition>
  <file_definition output_freq="1ts" type="one_file">
    <file id="lost" name="no_such_dir/lost"><field field_ref="ts"/></file>
  </file_definition>
</context></simulation>
"""


pytestmark = pytest.mark.usefixtures("importable_package")  # conftest.py


@pytest.mark.parametrize("servers", [1, 0], ids=["server", "attached"])
def test_file_that_cannot_be_created_reaches_the_model(tmp_path, mpmd, servers):
    xml = tmp_path / "werr.xml"
    xml.write_text(XML)
    run = mpmd(tmp_path, 1, servers, [sys.executable, __file__, xml], timeout=60)
    out = run.stdout + run.stderr
    assert run.returncode != 0, out
    path = tmp_path / "no_such_dir" / "lost.nc"
    assert "model: ERR_IO: " in out, out
    # netCDF's reason follows; its words come from HDF5 ("Permission denied" here).
    assert re.search(re.escape(f"{path}: file: nc_create: ") + r"\S", out), out
    assert not (tmp_path / "no_such_dir").exists()


def run_model(tmp_path, mpmd, servers, name):
    xml = tmp_path / "werr.xml"
    xml.write_text(XML.replace('name="no_such_dir/lost"', f'name="{name}"'))
    run = mpmd(tmp_path, 1, servers, [sys.executable, __file__, xml], timeout=60)
    out = run.stdout + run.stderr
    assert run.returncode != 0, out
    assert "model: ERR_IO: " in out, out
    return out


# Issue 18 item 16: the reason is errno's, not netCDF's "Permission denied"
# for any failure of HDF5's create.
@pytest.mark.parametrize("servers", [1, 0], ids=["server", "attached"])
def test_missing_directory_is_named_as_such(tmp_path, mpmd, servers):
    out = run_model(tmp_path, mpmd, servers, "no_such_dir/lost")
    assert f"{tmp_path / 'no_such_dir' / 'lost.nc'}: file: nc_create: " in out, out
    assert "No such file or directory" in out and "Permission denied" not in out, out


@pytest.mark.parametrize("servers", [1, 0], ids=["server", "attached"])
def test_read_only_file_system_is_named_as_such(tmp_path, mpmd, servers):
    disk = tmp_path / "ro"
    disk.mkdir()
    mount = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k,ro", "tmpfs", str(disk)], capture_output=True,
                           text=True)
    if mount.returncode != 0:
        pytest.skip(f"cannot mount a read-only tmpfs (needs root): {mount.stderr.strip()}")
    try:
        out = run_model(tmp_path, mpmd, servers, "ro/lost")
    finally:
        subprocess.run(["umount", "--lazy", str(disk)], check=True)  # lazy: a hung run may hold it
    assert f"{disk / 'lost.nc'}: file: nc_create: " in out, out
    assert "Read-only file system" in out and "Permission denied" not in out, out
