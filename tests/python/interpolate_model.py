"""Model for test_interpolate.py: each rank holds a band of whole rows
(split unevenly) of an NI x NJ = 72 x 36 lat-lon grid of 5-degree cells,
gives its cells' bounds, and writes `t` (NLEV levels, a smooth field,
linear in the level) and `pr` (2-D, some values missing: -999) each step.
  mpiexec -n N python interpolate_model.py interpolate.xml STEPS"""
import sys

import numpy as np

NI, NJ, NLEV = 72, 36, 3
MISSING = -999.0


def lon():
    return (np.arange(NI) + 0.5) * 360.0 / NI


def lat():
    return -90.0 + (np.arange(NJ) + 0.5) * 180.0 / NJ


def t_values(step, j0=0, j1=NJ):
    """(NLEV, j1 - j0, NI): smooth on the sphere, linear in the level, different per step."""
    k, j, i = np.meshgrid(np.arange(NLEV), np.arange(j0, j1), np.arange(NI), indexing="ij")
    la, lo = np.radians(lat()[j]), np.radians(lon()[i])
    return 250.0 + 30.0 * np.cos(la) + 8.0 * np.cos(la) ** 2 * np.sin(2 * lo) * (1 + 0.3 * k) + 2.0 * k + 0.1 * step


def pr_values(step, j0=0, j1=NJ):
    """(j1 - j0, NI), some values missing (MISSING), none in row 20 (all valid)."""
    j, i = np.meshgrid(np.arange(j0, j1), np.arange(NI), indexing="ij")
    v = 1e-3 * (2.0 + np.sin(0.21 * (j * NI + i) + step))
    v[((i + 3 * j + step) % 7 == 0) & (j != 20)] = MISSING
    return v


def bands(size):
    return [NJ * r // size + (1 if 0 < r < size and size > 1 else 0) for r in range(size)] + [NJ]


def main(xml, steps):
    import foehn
    comm = foehn.init("interpolate", xml)
    rank, size = comm.Get_rank(), comm.Get_size()
    edges = bands(size)
    j0, j1 = edges[rank], edges[rank + 1]
    with foehn.Context("ip", comm) as ctx:
        ctx.set_domain_rectilinear("src", NI, NJ, 0, j0, lon(), lat()[j0:j1])
        lon_edges = np.arange(NI + 1) * 360.0 / NI
        lat_edges = -90.0 + np.arange(NJ + 1) * 180.0 / NJ
        blon = np.stack([lon_edges[:-1], lon_edges[1:]], 1)
        blat = np.stack([lat_edges[:-1], lat_edges[1:]], 1)[j0:j1]
        ctx.set_domain_coordinates("src", lon(), lat()[j0:j1], blon, blat)
        ctx.close_definition()
        for step in range(1, steps + 1):
            ctx.update_calendar(step)
            ctx.write("t", np.ascontiguousarray(t_values(step, j0, j1)))
            ctx.write("pr", np.ascontiguousarray(pr_values(step, j0, j1)))
    foehn.finalize()
    if rank == 0:
        print("interpolate_model: OK")
    comm.Free()


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
