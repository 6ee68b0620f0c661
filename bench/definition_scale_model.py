"""Model for bench/definition_scale.py: the model ranks split the rows of a
NI x NJ rectilinear domain, close the definition of a context with NFIELDS
fields (timed), write them for STEPS steps and print one JSON line with
the times (rank 0).
  mpiexec -n R python definition_scale_model.py iodef.xml NFIELDS STEPS NI NJ"""
import json
import sys
import time

import numpy as np


def main(xml, nfields, steps, ni, nj):
    t0 = time.perf_counter()
    import foehn
    comm = foehn.init("scale", xml)
    t_init = time.perf_counter() - t0
    rank, size = comm.Get_rank(), comm.Get_size()
    j0, j1 = rank * nj // size, (rank + 1) * nj // size
    with foehn.Context("scale", comm) as ctx:
        ctx.set_domain_rectilinear("dom", ni, nj, 0, j0, np.linspace(0, 360, ni, endpoint=False),
                                   np.linspace(-90, 90, nj)[j0:j1])
        comm.Barrier()
        t1 = time.perf_counter()
        ctx.close_definition()
        t_close = time.perf_counter() - t1
        handles = [ctx.field_handle(f"f{f}") for f in range(nfields)]
        data = np.ones((j1 - j0, ni), dtype=np.float32)
        t2 = time.perf_counter()
        for step in range(1, steps + 1):
            ctx.update_calendar(step)
            for h in handles:
                ctx.write(h, data)
        t_steps = time.perf_counter() - t2
    foehn.finalize()
    if rank == 0:
        print(json.dumps({"init_seconds": t_init, "close_definition_seconds": t_close, "steps_seconds": t_steps}))
    comm.Free()


if __name__ == "__main__":
    main(sys.argv[1], *map(int, sys.argv[2:6]))
