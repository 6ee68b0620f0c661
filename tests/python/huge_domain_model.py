"""Model for test_definition_memory.py: the model ranks split the rows of a
rectilinear domain of NI_GLO x NJ_GLO points (its coordinates are one value
per row and column, so the model itself needs almost no memory), close the
definition and write one step of a field on it.
  mpiexec -n R python huge_domain_model.py iodef.xml NI_GLO NJ_GLO"""
import sys

import numpy as np


def main(xml, ni_glo, nj_glo):
    import foehn
    comm = foehn.init("huge", xml)
    rank, size = comm.Get_rank(), comm.Get_size()
    j0, j1 = rank * nj_glo // size, (rank + 1) * nj_glo // size
    with foehn.Context("huge", comm) as ctx:
        ctx.set_domain_rectilinear("dom", ni_glo, nj_glo, 0, j0, np.linspace(0, 360, ni_glo, endpoint=False),
                                   np.linspace(-90, 90, nj_glo)[j0:j1])
        ctx.close_definition()
        ctx.update_calendar(1)
        ctx.write(ctx.field_handle("t"), np.ones((j1 - j0, ni_glo)))
    foehn.finalize()
    comm.Free()


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
