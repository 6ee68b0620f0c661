"""Model for test_transport.py: 2 ranks (row bands) write NFIELDS small
float fields f0..f{N-1} on a 6 x 4 grid at every step; the values are exact
in float32: 1000 f + 10 step + i + 0.25 j.
  mpiexec -n 2 python many_fields_model.py iodef.xml NFIELDS STEPS"""
import sys

import numpy as np

NI, NJ = 6, 4


def values(f, step, j0, j1):
    j, i = np.meshgrid(np.arange(j0, j1), np.arange(NI), indexing="ij")
    return (1000.0 * f + 10.0 * step + i + 0.25 * j).astype(np.float32)


def main(xml, nfields, steps):
    import foehn  # here, so that the test can import values() without the package
    comm = foehn.init("many", xml)
    rank, size = comm.Get_rank(), comm.Get_size()
    j0, j1 = rank * NJ // size, (rank + 1) * NJ // size
    lon = np.arange(NI) * 60.0
    lat = -67.5 + np.arange(j0, j1) * 45.0
    with foehn.Context("many", comm) as ctx:
        ctx.set_domain_rectilinear("dom", NI, NJ, 0, j0, lon, lat)
        ctx.close_definition()
        handles = [ctx.field_handle(f"f{f}") for f in range(nfields)]
        for step in range(1, steps + 1):
            ctx.update_calendar(step)
            for f, h in enumerate(handles):
                ctx.write(h, values(f, step, j0, j1))
    foehn.finalize()
    comm.Free()


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
