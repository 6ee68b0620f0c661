"""Model for test_file_clash.py: runs as code CODE with one context CONTEXT
(a field `a` on a 16 x 8 grid in row bands, written for 2 steps).
  mpiexec -n N python clash_model.py iodef.xml CODE CONTEXT"""
import sys

import numpy as np


def main(xml, code, context):
    import foehn
    comm = foehn.init(code, xml)
    rank, size = comm.Get_rank(), comm.Get_size()
    ni, nj = 16, 8
    j0, j1 = rank * nj // size, (rank + 1) * nj // size
    with foehn.Context(context, comm) as ctx:
        ctx.set_domain_rectilinear("dom", ni, nj, 0, j0, np.arange(ni) * 22.5, -90.0 + (np.arange(j0, j1) + 0.5) * 22.5)
        ctx.close_definition()
        for step in (1, 2):
            ctx.update_calendar(step)
            ctx.write("a", np.full((j1 - j0, ni), float(step)))
    foehn.finalize()
    comm.Free()


if __name__ == "__main__":
    main(*sys.argv[1:4])
