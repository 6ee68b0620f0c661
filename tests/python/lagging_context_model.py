"""Model for test_context_independence.py: 2 ranks (row bands), contexts
`atm` and `lnd` on the same servers, where one context's data lags behind
another context's collective work. Both ranks define `atm`; rank 0 writes
atm's step 1 and moves its calendar on, then defines `lnd`; rank 1 defines
`lnd` first (a collective over both ranks, acknowledged by the servers) and
only then writes atm's step 1. The servers must open `lnd` while atm's
record 1 still waits for rank 1's data: work of one context queued behind
another's pending record is a deadlock. Then both contexts step on to
STEPS. Values (exact in their types): a = 1000 c + 10 step + i + 0.25 j,
b = 1e5 c + step + 1e-3 i + 1e-6 j, with c = 1 for atm, 2 for lnd.
  mpiexec -n 2 python lagging_context_model.py iodef.xml STEPS"""
import sys

import numpy as np

NI, NJ = 16, 8
CONTEXTS = {"atm": 1, "lnd": 2}


def a_values(c, step, j0, j1):
    j, i = np.meshgrid(np.arange(j0, j1), np.arange(NI), indexing="ij")
    return (1000.0 * c + 10.0 * step + i + 0.25 * j).astype(np.float32)


def b_values(c, step, j0, j1):
    j, i = np.meshgrid(np.arange(j0, j1), np.arange(NI), indexing="ij")
    return 1.0e5 * c + step + i * 1e-3 + j * 1e-6


def main(xml, steps):
    import foehn  # here, so that the test can import the values without the package
    comm = foehn.init("lagging", xml)
    rank, size = comm.Get_rank(), comm.Get_size()
    j0, j1 = rank * NJ // size, (rank + 1) * NJ // size
    lon = np.arange(NI) * 360.0 / NI
    lat = -90.0 + (np.arange(j0, j1) + 0.5) * 180.0 / NJ

    def define(name):
        ctx = foehn.Context(name, comm)
        ctx.set_domain_rectilinear("dom", NI, NJ, 0, j0, lon, lat)
        ctx.close_definition()
        return ctx

    def step_of(name, ctx, step, moved_on=False):
        if not moved_on:
            ctx.update_calendar(step)
        ctx.write("a", a_values(CONTEXTS[name], step, j0, j1))
        ctx.write("b", b_values(CONTEXTS[name], step, j0, j1))

    atm = define("atm")
    if rank == 0:
        step_of("atm", atm, 1)
        atm.update_calendar(2)  # step 1 is complete on this rank: its record is announced
        lnd = define("lnd")
    else:
        lnd = define("lnd")
        step_of("atm", atm, 1)
    for step in range(2, steps + 1):
        step_of("atm", atm, step, moved_on=rank == 0 and step == 2)
    for step in range(1, steps + 1):
        step_of("lnd", lnd, step)
    lnd.close()
    atm.close()
    foehn.finalize()
    if rank == 0:
        print("lagging_context_model: OK")
    comm.Free()


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
