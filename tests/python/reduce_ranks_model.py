"""Model for test_reduce_across.py (reduce_ranks.xml): rank r of N holds an
uneven range of the decomposed axis z (NZ values) and writes `col` on it,
the whole axis w (NW values) with `a` different on each rank, and the
scalar `s` different on each rank; some values are missing (NaN) so that
reductions skip them. The values are functions of (global index, rank,
step) that test_reduce_across.py recomputes.
  mpiexec -n N python reduce_ranks_model.py reduce_ranks.xml STEPS"""
import sys

import numpy as np

NZ, NW = 10, 4


def z_range(rank, size):
    edges = [0] + [NZ * (r + 1) // size + (1 if r == 0 and size > 1 else 0) for r in range(size - 1)] + [NZ]
    return edges[rank], edges[rank + 1]


def col_values(step):
    g = np.arange(NZ)
    v = 280.0 + np.sin(0.37 * g + step) * 7.3 + 0.113 * step
    v[(g + step) % 4 == 0] = np.nan
    return v


def a_values(rank, step):
    v = 1.0 + np.sin(0.71 * np.arange(NW) + 1.3 * rank + step) * 0.37
    if (rank + step) % 3 == 0:
        v[1] = np.nan
    return v


def s_value(rank, step):
    return np.nan if (rank == 1 and step == 2) else 3.0 + np.cos(2.1 * rank + 0.5 * step) * 1.7


def main(xml, steps):
    import foehn
    comm = foehn.init("reduce_ranks", xml)
    rank, size = comm.Get_rank(), comm.Get_size()
    z0, z1 = z_range(rank, size)
    with foehn.Context("rr", comm) as ctx:
        ctx.set_axis_decomposition("z", NZ, z0, z1 - z0)
        ctx.set_axis("z", np.arange(z0, z1) + 0.5)
        ctx.close_definition()
        for step in range(1, steps + 1):
            ctx.update_calendar(step)
            ctx.write("col", np.ascontiguousarray(col_values(step)[z0:z1]))
            ctx.write("a", a_values(rank, step))
            ctx.write("s", np.array([s_value(rank, step)]))
    foehn.finalize()
    if rank == 0:
        print("reduce_ranks_model: OK")
    comm.Free()


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
