"""The analytic values the spine test model sends (tests/mpi/spine_values.h),
computed here independently with numpy, in the same precision and order of
operations, so that the files can be compared exactly."""
import numpy as np


def t_values(step, nlev, nj, ni):
    k, j, i = np.meshgrid(np.arange(nlev), np.arange(nj), np.arange(ni), indexing="ij")
    f = np.float32
    return (f(1000) * f(step) + f(100) * k.astype(f) + j.astype(f) + f(0.25) * i.astype(f)).astype(f)


def ps_values(step, nj, ni):
    j, i = np.meshgrid(np.arange(nj), np.arange(ni), indexing="ij")
    return 1.0e5 + step + i * 1e-3 + j * 1e-6


def lon_values(ni):
    return -180.0 + 360.0 * (np.arange(ni) + 0.5) / ni


def lat_values(nj):
    return -90.0 + 180.0 * (np.arange(nj) + 0.5) / nj
