"""Model for bench/definition_scale.py: the model ranks split the rows of a
NI x NJ rectilinear domain, close the definition of a context with NFIELDS
fields (timed), write them for STEPS steps and print one JSON line with
the times (rank 0). With NVERTEX > 0 the domain is unstructured, NI x NJ
points, each rank a contiguous block given by index (foehn_set_domain_index)
with a longitude, a latitude and NVERTEX corners per point: the case where
close of definition sees every point's coordinates (issue 19 item 3).
  mpiexec -n R python definition_scale_model.py iodef.xml NFIELDS STEPS NI NJ [NVERTEX]"""
import json
import sys
import time

import numpy as np


def unstructured(ctx, n, p0, p1, nvertex):
    ctx.set_domain_type("dom", "unstructured", n)
    ctx.set_domain_index("dom", np.arange(p0, p1, dtype=np.int32))
    g = np.arange(p0, p1, dtype=np.float64)
    lon, lat = (g * 0.618034) % 360.0, -90.0 + 180.0 * (g + 0.5) / n
    corner = np.arange(nvertex) * (360.0 / nvertex)
    ctx.set_domain_coordinates("dom", lon, lat, (lon[:, None] + 0.1 * np.cos(np.radians(corner))) % 360.0,
                               np.clip(lat[:, None] + 0.1 * np.sin(np.radians(corner)), -90.0, 90.0))


def main(xml, nfields, steps, ni, nj, nvertex=0):
    t0 = time.perf_counter()
    import foehn
    comm = foehn.init("scale", xml)
    t_init = time.perf_counter() - t0
    rank, size = comm.Get_rank(), comm.Get_size()
    j0, j1 = rank * nj // size, (rank + 1) * nj // size
    with foehn.Context("scale", comm) as ctx:
        if nvertex:
            unstructured(ctx, ni * nj, j0 * ni, j1 * ni, nvertex)
        else:
            ctx.set_domain_rectilinear("dom", ni, nj, 0, j0, np.linspace(0, 360, ni, endpoint=False),
                                       np.linspace(-90, 90, nj)[j0:j1])
        comm.Barrier()
        t1 = time.perf_counter()
        ctx.close_definition()
        t_close = time.perf_counter() - t1
        handles = [ctx.field_handle(f"f{f}") for f in range(nfields)]
        data = np.ones((j1 - j0) * ni if nvertex else (j1 - j0, ni), dtype=np.float32)
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
    main(sys.argv[1], *map(int, sys.argv[2:]))
