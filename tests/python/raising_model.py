"""A Python model that raises an exception at a chosen point, on rank 0 only
or on every rank (test_python_exceptions.py runs it under mpiexec).

usage: raising_model.py XML WHERE WHO
  WHERE  before_context | in_context | after_close | foehn_error
  WHO    one | all
"""
import sys

import numpy as np

import foehn

NI, NJ = 4, 2


def main(xml, where, who):
    comm = foehn.init("raising", xml)
    rank, size = comm.Get_rank(), comm.Get_size()
    raises = who == "all" or rank == 0

    def maybe_raise(point):
        if where == point and raises:
            raise RuntimeError(f"deliberate failure {point} on rank {rank}")

    maybe_raise("before_context")
    j0, j1 = rank * NJ // size, (rank + 1) * NJ // size
    with foehn.Context("misuse", comm) as ctx:
        ctx.set_domain_rectilinear("dom", NI, NJ, 0, j0, np.arange(NI) * 90.0, np.array([-45.0, 45.0])[j0:j1])
        ctx.close_definition()
        for step in range(1, 4):
            ctx.update_calendar(step)
            ctx.write("ps", np.full((j1 - j0, NI), float(step)))
            if step == 2:
                maybe_raise("in_context")
                if where == "foehn_error" and raises:
                    ctx.write("no_such_field", np.zeros(1))  # raises foehn.Error, uncaught
    maybe_raise("after_close")
    foehn.finalize()
    comm.Free()


if __name__ == "__main__":
    main(*sys.argv[1:4])
