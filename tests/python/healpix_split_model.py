"""The model of tests/python/test_healpix_split.py (healpix_split.xml): a
HEALPix level-3 nested domain and a level-3 ring domain, decomposed over the
model ranks as argv[2] says: "contiguous" (uneven ranges whose ends are not
on nested block boundaries, each rank listing its cells in reverse order),
"strided" (cell g on rank g % size: every coarse cell split between all
ranks) or "blocks" (whole level-0 blocks per rank)."""
import sys

import numpy as np

STEPS = 4
LEVEL = 3
CELLS = 12 * 4**LEVEL


def tas_values(step, g, k=None):
    """tas (k None) or level k of ta at cells g: sums of them are exact."""
    return 1000.0 * step + 0.5 * g if k is None else 1000.0 * step + 100.0 * k + g


def sst_values(step, g):
    """NaN (missing) at every 7th cell and on whole nested blocks of 4, so that
    some coarse cells have fewer valid children and some none."""
    return np.where((g % 7 == 0) | (g // 4 % 5 == 0), np.nan, 250.0 + step + 0.25 * (g % 64))


def my_cells(decomposition, rank, size):
    g = np.arange(CELLS)
    if decomposition == "strided":
        return g[g % size == rank]
    if decomposition == "blocks":
        return np.array_split(g.reshape(12, -1), size)[rank].ravel()
    # uneven cuts, none a multiple of 4: 1 rank holds everything
    cuts = np.round(np.linspace(0, CELLS, size + 1)).astype(int)
    cuts[1:-1] += 3 - cuts[1:-1] % 4 if size > 1 else 0
    return g[cuts[rank]:cuts[rank + 1]][::-1].copy()


def main(xml, decomposition):
    import foehn
    comm = foehn.init("hpsplit", xml)
    rank, size = comm.Get_rank(), comm.Get_size()
    cells = my_cells(decomposition, rank, size)
    with foehn.Context("hps", comm) as ctx:
        ctx.set_domain_healpix("hp", -1, None, cells)  # level and scheme from the XML
        ctx.set_domain_healpix("hr", -1, None, cells)  # the same indices, in the ring scheme
        ctx.close_definition()
        for step in range(1, STEPS + 1):
            ctx.update_calendar(step)
            ctx.write("tas", tas_values(step, cells))
            ctx.write("ta", np.stack([tas_values(step, cells, k) for k in range(3)]))
            ctx.write("sst", sst_values(step, cells))
            ctx.write("rtas", tas_values(step, cells))
    foehn.finalize()
    comm.Free()
    if rank == 0:
        print("healpix_split_model: OK")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
