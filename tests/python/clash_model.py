"""Model for test_file_clash.py: runs as code CODE with one context CONTEXT
(a field `a` on a 16 x 8 grid in row bands, written for 2 steps).
  mpiexec -n N python clash_model.py iodef.xml CODE CONTEXT [first|second]
With a role, the two models take turns so that the outcome does not hang on
timing: the first writes its 2 records and keeps its context open; the
second closes its definition only once FILE (same.nc) holds those 2 records,
so it is the one refused, with the first context's 2 records on disk."""
import os
import subprocess
import sys
import time

import numpy as np

PATIENCE_S = 45


def records_in(path):
    # In a process of its own: this one has foehn's HDF5 loaded, and the
    # netCDF4 package brings another.
    probe = ("import sys, netCDF4\n"
             "with netCDF4.Dataset(sys.argv[1]) as ds: print(len(ds.dimensions['time_counter']))")
    try:
        out = subprocess.run([sys.executable, "-c", probe, path], capture_output=True, text=True, timeout=30)
    except subprocess.TimeoutExpired:
        return 0
    return int(out.stdout) if out.returncode == 0 else 0  # not created yet, or still being written


def main(xml, code, context, role=None):
    import foehn
    comm = foehn.init(code, xml)
    rank, size = comm.Get_rank(), comm.Get_size()
    ni, nj = 16, 8
    j0, j1 = rank * nj // size, (rank + 1) * nj // size
    with foehn.Context(context, comm) as ctx:
        ctx.set_domain_rectilinear("dom", ni, nj, 0, j0, np.arange(ni) * 22.5, -90.0 + (np.arange(j0, j1) + 0.5) * 22.5)
        if role == "second":
            deadline = time.monotonic() + PATIENCE_S
            while records_in("same.nc") < 2 and time.monotonic() < deadline:
                time.sleep(0.2)
            open("second_closes", "w").close()
        ctx.close_definition()
        for step in (1, 2):
            ctx.update_calendar(step)
            ctx.write("a", np.full((j1 - j0, ni), float(step)))
        if role == "first":
            ctx.update_calendar(3)  # step 2 is complete: its record can be written
            # The server takes the second model's definition once this context's step 3 ends (the
            # model leaving it): give that definition time to arrive first, so that it is refused.
            deadline = time.monotonic() + PATIENCE_S
            while not os.path.exists("second_closes") and time.monotonic() < deadline:
                time.sleep(0.2)
            time.sleep(3)
    foehn.finalize()
    comm.Free()


if __name__ == "__main__":
    main(*sys.argv[1:5])
