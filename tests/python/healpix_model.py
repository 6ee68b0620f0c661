"""The model of tests/python/test_healpix.py (healpix.xml): a HEALPix level-3
nested domain in contiguous blocks of cells, each rank listing its block in
reverse order (whole nested blocks of 64 cells per rank for
1, 2 or 3 ranks: the pyramids' levels down to 0); a regional level-2 ring domain of which the ranks hold the
cells with index % 3 != 0 (interleaved between ranks); and the geometry
domains of levels 0..4, held by rank 0 (healpix_values gives the values)."""
import sys

import numpy as np

STEPS = 4
LEVEL, REG_LEVEL = 3, 2


def healpix_values(step, g, k=None):
    """The values of tas (k None) or of level k of ta at cells g: exact in float32."""
    return 1000.0 * step + 0.5 * g if k is None else 1000.0 * step + 100.0 * k + g


def sst_values(step, g):
    """sst: NaN (missing) at every 7th cell and on whole nested blocks of 4
    (g // 4 % 5 == 0), so that some coarse cells have no valid child."""
    return np.where((g % 7 == 0) | (g // 4 % 5 == 0), np.nan, 250.0 + step + 0.25 * (g % 64))


def regional_cells():
    g = np.arange(12 * 4**REG_LEVEL)
    return g[g % 3 != 0]


def main(xml):
    import foehn
    comm = foehn.init("hpmodel", xml)
    rank, size = comm.Get_rank(), comm.Get_size()
    cells = np.array_split(np.arange(12 * 4**LEVEL), size)[rank][::-1].copy()
    reg = regional_cells()[rank::size]
    with foehn.Context("hp", comm) as ctx:
        ctx.set_domain_healpix("hp", -1, None, cells)  # level and scheme from the XML
        ctx.set_domain_healpix("reg", REG_LEVEL, "ring", reg)
        for level in range(5):
            for scheme in ("nested", "ring"):
                mine = np.arange(12 * 4**level) if rank == 0 else np.arange(0)
                ctx.set_domain_healpix(f"geo_{level}_{scheme}", level, scheme, mine)
        ctx.close_definition()
        for step in range(1, STEPS + 1):
            ctx.update_calendar(step)
            ctx.write("tas", healpix_values(step, cells).astype(np.float32))
            ctx.write("ta", np.stack([healpix_values(step, cells, k) for k in range(3)]).astype(np.float32))
            ctx.write("reg_tas", healpix_values(step, reg))
            ctx.write("sst", sst_values(step, cells))
            for level in range(5):
                for scheme in ("nested", "ring"):
                    n = 12 * 4**level if rank == 0 else 0
                    ctx.write(f"g_{level}_{scheme}", np.arange(n, dtype=np.float64))
    foehn.finalize()
    comm.Free()
    if rank == 0:
        print("healpix_model: OK")


if __name__ == "__main__":
    main(sys.argv[1])
