"""Model for test_vinterp.py: each rank holds a band of whole rows (split
unevenly) of an NI x NJ lat-lon grid with NLEV hybrid model levels, top
down. Each step it writes the 3-D pressure `p` (hPa, p = a_k + b_k * ps,
a surface pressure ps varying per column and per step, below 1000 hPa on
some columns), `t` linear in p, `tl` linear in ln p (both with a slope and
offset per column), and `pt` (2 target pressures per column, following
the terrain). Holes: p missing at one level of one column, t at one level
of another (-999, detect_missing_value).
  mpiexec -n N python vinterp_model.py vinterp.xml STEPS"""
import sys

import numpy as np

NI, NJ, NLEV = 12, 8, 10
MISSING = -999.0
A = 60.0 * np.sin(np.pi * np.arange(NLEV) / (NLEV - 1))  # hPa
B = 0.08 + 0.92 * np.arange(NLEV) / (NLEV - 1)            # b = 1 at the surface


def surface_pressure(step, j0=0, j1=NJ):
    """(j1 - j0, NI) hPa: 960 .. 1040, different per column and step."""
    j, i = np.meshgrid(np.arange(j0, j1), np.arange(NI), indexing="ij")
    return 1000.0 + 40.0 * np.sin(0.7 * i + 1.3 * j + 0.5 * step)


def pressure(step, j0=0, j1=NJ):
    ps = surface_pressure(step, j0, j1)
    return A[:, None, None] + B[:, None, None] * ps[None]


def slope_offset(step, j0=0, j1=NJ):
    j, i = np.meshgrid(np.arange(j0, j1), np.arange(NI), indexing="ij")
    return 0.05 + 0.001 * (i + NI * j), 200.0 + 0.3 * i - 0.2 * j + step


def t_of(p, step, j0=0, j1=NJ):
    b, a = slope_offset(step, j0, j1)
    return a + b * p


def tl_of(p, step, j0=0, j1=NJ):
    b, a = slope_offset(step, j0, j1)
    return a + 30.0 * b * np.log(p)


def target_pressure(step, j0=0, j1=NJ):
    ps = surface_pressure(step, j0, j1)
    return np.stack([0.9 * ps, 0.6 * ps])


def holes(j0, j1):
    """(level, global j, i) of the missing p and of the missing t."""
    return (4, 2, 3), (6, 5, 7)


def main(xml, steps):
    import foehn
    comm = foehn.init("vinterp", xml)
    rank, size = comm.Get_rank(), comm.Get_size()
    edges = [NJ * r // size + (1 if 0 < r < size else 0) for r in range(size)] + [NJ]
    j0, j1 = edges[rank], edges[rank + 1]
    lon = (np.arange(NI) + 0.5) * 360.0 / NI
    lat = -90.0 + (np.arange(NJ) + 0.5) * 180.0 / NJ
    with foehn.Context("vi", comm) as ctx:
        ctx.set_domain_rectilinear("dom", NI, NJ, 0, j0, lon, lat[j0:j1])
        ctx.close_definition()
        for step in range(1, steps + 1):
            ctx.update_calendar(step)
            p = pressure(step, j0, j1)
            t, tl = t_of(p, step, j0, j1), tl_of(p, step, j0, j1)
            (lp, jp, ip), (lt, jt, it) = holes(j0, j1)
            if j0 <= jp < j1:
                p = p.copy()
                p[lp, jp - j0, ip] = MISSING
            if j0 <= jt < j1:
                t[lt, jt - j0, it] = MISSING
            ctx.write("p", np.ascontiguousarray(p))
            ctx.write("t", np.ascontiguousarray(t))
            ctx.write("tl", np.ascontiguousarray(tl))
            ctx.write("pt", np.ascontiguousarray(target_pressure(step, j0, j1)))
    foehn.finalize()
    if rank == 0:
        print("vinterp_model: OK")
    comm.Free()


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
