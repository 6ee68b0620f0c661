"""Model for test_xios_algo.py: what XIOS's generic_testcase gives the XML
of its test suite's test_domain_algo and test_scalar_algo (a rectilinear
"domain" of NI x NJ cells, the axis "axis" of NLEV levels, whole on each
rank, field2D, field3D and field_Z written every step), with the rows
split between the model ranks. The values are a
function of (step, level, j, i) that test_xios_algo.py recomputes.
  mpiexec -n N python xios_algo_model.py iodef.xml STEPS"""
import sys

import numpy as np

NI, NJ, NLEV = 36, 18, 10


def lon():
    return -180.0 + (np.arange(NI) + 0.5) * 360.0 / NI


def lat():
    return -90.0 + (np.arange(NJ) + 0.5) * 180.0 / NJ


def field3d(step):
    k, j, i = np.meshgrid(np.arange(NLEV), np.arange(NJ), np.arange(NI), indexing="ij")
    return 100.0 * k + np.sin(0.3 * i + 0.7 * j + step) * 10.0 + 0.01 * step


def field2d(step):
    j, i = np.meshgrid(np.arange(NJ), np.arange(NI), indexing="ij")
    return np.cos(0.2 * i - 0.5 * j + step) * 3.0 + j + 0.001 * step


def field_z(step):
    return 2.0 + np.sin(0.9 * np.arange(NLEV) + 0.3 * step) * 5.0


def main(xml, steps):
    import foehn
    comm = foehn.init("client", xml)
    rank, size = comm.Get_rank(), comm.Get_size()
    edges = [NJ * r // size for r in range(size)] + [NJ]
    j0, j1 = edges[rank], edges[rank + 1]
    with foehn.Context("atm", comm) as ctx:
        ctx.set_calendar(timestep="1h", start_date="1850-01-01 00:00:00")  # generic_testcase's
        ctx.set_domain_rectilinear("domain", NI, NJ, 0, j0, lon(), lat()[j0:j1])
        ctx.set_axis("axis", np.arange(1.0, NLEV + 1))
        ctx.close_definition()
        for step in range(1, steps + 1):
            ctx.update_calendar(step)
            ctx.write("field2D", np.ascontiguousarray(field2d(step)[j0:j1]))
            ctx.write("field3D", np.ascontiguousarray(field3d(step)[:, j0:j1]))
            ctx.write("field_Z", field_z(step))
    foehn.finalize()
    if rank == 0:
        print("xios_algo_model: OK")
    comm.Free()


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
