"""Model for test_two_level.py: 2 ranks (row bands) keep two contexts open
at once, `deep` and `flat`, and write at every step a float field `a` and a
double field `b` on an NI x NJ grid in each. The XML makes `deep` two-level
and `flat` one-level on the same servers. Values (exact in their types):
a = 1000 c + 10 step + i + 0.25 j, b = 1e5 c + step + 1e-3 i + 1e-6 j,
with c = 1 for deep, 2 for flat.
  mpiexec -n 2 python two_contexts_model.py iodef.xml STEPS"""
import sys

import numpy as np

NI, NJ = 64, 32
CONTEXTS = {"deep": 1, "flat": 2}


def a_values(c, step, j0, j1):
    j, i = np.meshgrid(np.arange(j0, j1), np.arange(NI), indexing="ij")
    return (1000.0 * c + 10.0 * step + i + 0.25 * j).astype(np.float32)


def b_values(c, step, j0, j1):
    j, i = np.meshgrid(np.arange(j0, j1), np.arange(NI), indexing="ij")
    return 1.0e5 * c + step + i * 1e-3 + j * 1e-6


def main(xml, steps):
    import foehn  # here, so that the test can import the values without the package
    comm = foehn.init("twoctx", xml)
    rank, size = comm.Get_rank(), comm.Get_size()
    j0, j1 = rank * NJ // size, (rank + 1) * NJ // size
    lon = np.arange(NI) * 360.0 / NI
    lat = -90.0 + (np.arange(j0, j1) + 0.5) * 180.0 / NJ
    # Nested: flat closes first, though it was opened second.
    with foehn.Context("deep", comm) as deep, foehn.Context("flat", comm) as flat:
        ctxs = {"deep": deep, "flat": flat}
        for ctx in ctxs.values():
            ctx.set_domain_rectilinear("dom", NI, NJ, 0, j0, lon, lat)
            ctx.close_definition()
        for step in range(1, steps + 1):
            for name, ctx in ctxs.items():
                ctx.update_calendar(step)
                ctx.write("a", a_values(CONTEXTS[name], step, j0, j1))
                ctx.write("b", b_values(CONTEXTS[name], step, j0, j1))
    foehn.finalize()
    if rank == 0:
        print("two_contexts_model: OK")
    comm.Free()


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
