"""The minimal foehn model in Python: each rank holds a band of rows of an
8 x 4 lon/lat grid and writes tas every step. mpiexec -n 2 python minimal_model.py"""
import numpy as np

import foehn

NI, NJ_GLO, NSTEPS = 8, 4, 4

comm = foehn.init("minimal", "iodef.xml")  # an mpi4py communicator of the model ranks
rank, size = comm.Get_rank(), comm.Get_size()
jbegin = rank * NJ_GLO // size  # my rows
nj = (rank + 1) * NJ_GLO // size - jbegin
lon = np.arange(NI) * 45.0
lat = -67.5 + np.arange(jbegin, jbegin + nj) * 45.0
j, i = np.meshgrid(np.arange(jbegin, jbegin + nj), np.arange(NI), indexing="ij")
with foehn.Context("atm", comm) as ctx:  # closes the files on exit
    ctx.set_domain_rectilinear("globe", NI, NJ_GLO, 0, jbegin, lon, lat)
    ctx.close_definition()
    for step in range(1, NSTEPS + 1):
        ctx.update_calendar(step)
        ctx.write("tas", 273.0 + step + i + 10.0 * j)  # shape (nj, NI): i varies fastest
foehn.finalize()
comm.Free()
