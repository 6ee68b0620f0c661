"""foehn: asynchronous MPI output for models, from Python.

    comm = foehn.init("atmosphere", "iodef.xml")      # collective over MPI.COMM_WORLD
    with foehn.Context("atm", comm) as ctx:             # closes (collectively) on exit
        ctx.set_domain_rectilinear("globe", ni_glo, nj_glo, ibegin, jbegin, lon, lat)
        ctx.close_definition()
        for step in range(1, nsteps + 1):
            ctx.update_calendar(step)
            ctx.write("ta", ta)                         # float32/float64, C-contiguous
    foehn.finalize()

Arrays are laid out as in C: shape (nlev, nj, ni), i fastest. write() hands
the array's memory to foehn without a copy and refuses arrays that would need
one (TypeError). Failures raise foehn.Error (.code is the C status).

An exception that no one catches, on any model rank, after foehn.init ends
the whole job (servers included) with its traceback and a non-zero status
(MPI_Abort): otherwise the other ranks and the servers would wait for this
one for ever. Files still open then lose what was not yet written.
"""
import sys

from mpi4py import MPI  # initializes MPI, which foehn.init needs

from . import _core
from ._core import (ERR_ARGUMENT, ERR_CONFIG, ERR_INTERNAL, ERR_IO, ERR_MPI, ERR_STATE, OK, Error, date_add,
                    finalize, last_error, version)

__all__ = ["init", "finalize", "Context", "Error", "last_error", "version", "date_add", "OK", "ERR_ARGUMENT", "ERR_CONFIG", "ERR_STATE",
           "ERR_MPI", "ERR_IO", "ERR_INTERNAL"]


def init(code_id, config, comm=None):
    """Collective over comm (default MPI.COMM_WORLD) with every model rank and
    every foehn-server rank; reads the XML file `config`. Returns the model's
    own communicator (an mpi4py Intracomm; use it instead of comm, and Free()
    it when done). Without server ranks foehn runs attached."""
    world = MPI.COMM_WORLD if comm is None else comm
    _abort_on_uncaught_exceptions()
    return MPI.Intracomm(MPI.Comm.f2py(_core.init(code_id, str(config), world.py2f())))


def _abort_on_uncaught_exceptions():
    """Chains an excepthook that prints the traceback as usual, then aborts
    the MPI job. mpi4py's exit handler would instead call MPI_Finalize,
    which waits for the ranks that still wait for this one: a hang."""
    previous = sys.excepthook
    if getattr(previous, "_foehn_aborts", False):
        return

    def hook(exc_type, exc, tb):
        previous(exc_type, exc, tb)
        sys.stderr.write(f"foehn: uncaught {exc_type.__name__} on rank {MPI.COMM_WORLD.Get_rank()} of the MPI job: "
                         "aborting the job\n")
        sys.stderr.flush()
        MPI.COMM_WORLD.Abort(1)

    hook._foehn_aborts = True
    sys.excepthook = hook


class Context(_core.Context):
    """An open context of the XML (collective over comm). Methods:
    set_calendar, set_domain_rectilinear, set_axis, the domain calls
    (set_domain_type, set_domain_block, set_domain_index, set_domain_data,
    set_domain_data_index, set_domain_coordinates, set_domain_mask;
    docs/grids.md; set_domain_healpix(id, refinement_level, indexing_scheme,
    cells), -1 and None taking the XML's: docs/kmscale.md), set_axis_decomposition, set_axis_index,
    set_axis_bounds, set_scalar (axis parts and scalars), get_attribute / set_attribute / get_variable (run-time
    attributes and variables; None when not defined), close_definition,
    is_used (some output needs the field at all),
    update_calendar, set_model_time (dynamic time steps), checkpoint (an
    exact restart's state after the current step, docs/restart.md), is_active,
    field_handle, write, read (a field of a file with mode="read" into a
    given array, in place; is_active says when a record is read), close.
    As a context manager it closes on exit."""

    def __init__(self, context_id, comm):
        super().__init__(context_id, comm.py2f())

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        # Closing is collective: with an exception on its way out of this
        # rank alone, the others may never join, so the context is left to
        # the exception (uncaught, it aborts the job; see init).
        if exc_type is None:
            self.close()
        return False
