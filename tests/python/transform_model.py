"""Model for test_transform.py: each rank holds a band of whole rows of an
NI x NJ lon/lat grid (rows split unevenly) and writes, every step, `t` on
the grid x NLEV levels and `pr` on the grid with some values missing
(-999). Values are not round numbers, so sums in another order would show.
With "blocks", rank r of N holds a block of columns of rows: the ranks
split both i (in two) and j. With "bounds", the model gives cell bounds
whose latitude edges are uneven (lat_edges), so that cell areas are not
proportional to cos(latitude). With "columns", each rank holds a band of
whole columns (uneven, as the rows' bands).
  mpiexec -n N python transform_model.py transform.xml STEPS [blocks|columns|bounds]"""
import sys

import numpy as np

NI, NJ, NLEV = 24, 12, 5
MISSING = -999.0


def lon():
    return np.arange(NI) * 360.0 / NI


def lat():
    return -90.0 + (np.arange(NJ) + 0.5) * 180.0 / NJ


def t_values(step, j0=0, j1=NJ):
    """(NLEV, j1 - j0, NI): C order of the grid [globe, lev]."""
    k, j, i = np.meshgrid(np.arange(NLEV), np.arange(j0, j1), np.arange(NI), indexing="ij")
    g = (k * NJ + j) * NI + i
    return 250.0 + 30.0 * np.cos(np.radians(lat()[j])) + np.sin(0.37 * g + step) * 7.3 + 0.113 * step


def lat_edges():
    """NJ + 1 uneven latitude edges from -90 to 90."""
    e = -90.0 + np.arange(NJ + 1) * 180.0 / NJ + 4.0 * np.sin(np.arange(NJ + 1))
    e[0], e[-1] = -90.0, 90.0
    return e


def pr_values(step, j0=0, j1=NJ):
    j, i = np.meshgrid(np.arange(j0, j1), np.arange(NI), indexing="ij")
    v = 1e-3 * (1.0 + np.sin(0.71 * (j * NI + i) + step))
    v[(i + 2 * j + step) % 5 == 0] = MISSING
    v[j == 3] = MISSING  # a row with no valid value: its zonal mean is the fill value
    return v


def bands(size):
    """Uneven row bands: rank r holds rows [j0, j1)."""
    edges = [0] + [NJ * (r + 1) // size + (1 if r == 0 and size > 1 else 0) for r in range(size - 1)] + [NJ]
    return edges


def main(xml, steps, blocks, bounds, columns=False):
    import foehn
    comm = foehn.init("transform", xml)
    rank, size = comm.Get_rank(), comm.Get_size()
    i0, i1 = 0, NI
    if blocks and size > 1:  # columns [0, 7) and [7, NI), rows in bands of the half's ranks
        half = rank % 2
        i0, i1 = (0, 7) if half == 0 else (7, NI)
        edges = bands(max(1, (size - half + 1) // 2))
        band = rank // 2
    elif columns:
        edges = [e * NI // NJ for e in bands(size)]
        i0, i1 = edges[rank], edges[rank + 1]
        edges, band = [0, NJ], 0
    else:
        edges = bands(size)
        band = rank
    j0, j1 = edges[band], edges[band + 1]
    with foehn.Context("tr", comm) as ctx:
        ctx.set_domain_rectilinear("globe", NI, NJ, i0, j0, lon()[i0:i1], lat()[j0:j1])
        if bounds:
            edges = np.arange(NI + 1) * 360.0 / NI - 7.5
            blon = np.stack([edges[:-1], edges[1:]], 1)[i0:i1]
            blat = np.stack([lat_edges()[:-1], lat_edges()[1:]], 1)[j0:j1]
            ctx.set_domain_coordinates("globe", lon()[i0:i1], lat()[j0:j1], blon, blat)
        ctx.close_definition()
        for step in range(1, steps + 1):
            ctx.update_calendar(step)
            ctx.write("t", np.ascontiguousarray(t_values(step, j0, j1)[:, :, i0:i1]))
            ctx.write("pr", np.ascontiguousarray(pr_values(step, j0, j1)[:, i0:i1]))
    foehn.finalize()
    if rank == 0:
        print("transform_model: OK")
    comm.Free()


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), "blocks" in sys.argv[3:], "bounds" in sys.argv[3:], "columns" in sys.argv[3:])
