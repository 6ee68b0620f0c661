"""Model for test_temporal_splitting.py (temporal_splitting.xml): rank r of
N holds an uneven range of the decomposed axis z (NZ values) and writes
`a` on (z, p, scalar) and `s` on (scalar, z) every hour; the values are
functions of (z index, p index, step) that the test recomputes.
  mpiexec -n N python temporal_splitting_model.py temporal_splitting.xml STEPS [FIRST [CHECKPOINT]]
runs the global steps FIRST (default 1) to STEPS (a segment of a restarted
run: the XML's start date is that of step FIRST - 1) and calls
foehn_checkpoint after step CHECKPOINT. With SKIP_A=k in the environment,
`a` is not written at step k (a record its outputs never get)."""
import os
import sys

import numpy as np

NZ, NP = 7, 3


def z_range(rank, size):
    edges = [NZ * r // size + (1 if 0 < r < size else 0) for r in range(size)] + [NZ]
    return edges[rank], edges[rank + 1]


def a_values(step):
    """(NP, NZ) in C order: p slower than z (XIOS's first component fastest)."""
    p, z = np.meshgrid(np.arange(NP), np.arange(NZ), indexing="ij")
    return 1000.0 * step + 10.0 * p + z + 0.25


def s_values(step):
    return np.sin(0.3 * np.arange(NZ) + step) + 2.0 * step


def main(xml, steps, first=1, checkpoint=-1):
    import foehn
    comm = foehn.init("temporal_splitting", xml)
    rank, size = comm.Get_rank(), comm.Get_size()
    z0, z1 = z_range(rank, size)
    with foehn.Context("ts", comm) as ctx:
        ctx.set_axis_decomposition("z", NZ, z0, z1 - z0)
        ctx.set_axis("z", np.arange(z0, z1) * 1.0)
        ctx.close_definition()
        for step in range(first, steps + 1):
            ctx.update_calendar(step - first + 1)
            if step != int(os.environ.get("SKIP_A", "-1")):
                ctx.write("a", np.ascontiguousarray(a_values(step)[:, z0:z1]))
            ctx.write("s", np.ascontiguousarray(s_values(step)[z0:z1]))
            if step == checkpoint:
                ctx.checkpoint()
    foehn.finalize()
    if rank == 0:
        print("temporal_splitting_model: OK")
    comm.Free()


if __name__ == "__main__":
    main(sys.argv[1], *map(int, sys.argv[2:]))
