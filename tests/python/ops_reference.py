"""Independent numpy references for the post-processing test model
(tests/mpi/ops_model.cpp, tests/mpi/data/ops.xml).

The values are computed with the same IEEE operations in the same order as
the C++ model (math.sin, like libm; sums in time order), so the files must
match exactly, not just closely."""
import math

import numpy as np

HOUR = 3600.0
DYNAMIC_DT = [1800, 3600, 5400, 1800, 900, 8100]


def step_times(steps, mode):
    """Model time in seconds of steps 1..steps (index 0 is the start)."""
    if mode == "regular":
        return [n * HOUR for n in range(steps + 1)]
    t = [0.0]
    for s in range(steps):
        t.append(t[-1] + DYNAMIC_DT[s % 6])
    return t


def a_values(step, nlev, nj, ni):
    k, j, i = np.meshgrid(np.arange(nlev), np.arange(nj), np.arange(ni), indexing="ij")
    n = (step * 7919 + i * 104729 + j * 1299709 + k * 15485863) % 1000
    return (n / 8.0 - 60.0).astype(np.float32)


def b_values(step, nj, ni):
    out = np.empty((nj, ni))
    for j in range(nj):
        for i in range(ni):
            out[j, i] = 100.0 * math.sin(0.1 * step + 0.37 * i + 0.11 * j)
    return out


def m_values(step, nj, ni):
    j, i = np.meshgrid(np.arange(nj), np.arange(ni), indexing="ij")
    return np.where((step + i + 2 * j) % 4 == 0, -999.0, (step * 3 + i - j).astype(np.float64))


def due_steps(times, period):
    """Steps at which a period's instants (k * period, k >= 1) are reached;
    period None means every step."""
    if period is None:
        return list(range(1, len(times)))
    return [n for n in range(1, len(times)) if math.floor(times[n] / period) > math.floor(times[n - 1] / period)]


def windows(times, output_period):
    """For each record: (first step, last step) of its interval."""
    due = due_steps(times, output_period)
    return [(prev + 1, last) for prev, last in zip([0] + due[:-1], due)]


class Reduction:
    """One temporal operation per point, in time order, skipping NaN."""

    def __init__(self, op, shape):
        self.op = op
        start = {"minimum": np.inf, "maximum": -np.inf}.get(op, 0.0)
        self.value = np.full(shape, start)
        self.weight = np.zeros(shape)

    def add(self, x, w):
        x = np.asarray(x, dtype=np.float64)
        ok = ~np.isnan(x)
        if self.op == "average":
            self.value = np.where(ok, self.value + w * np.where(ok, x, 0.0), self.value)
            self.weight = np.where(ok, self.weight + w, self.weight)
        elif self.op == "accumulate":
            self.value = np.where(ok, self.value + np.where(ok, x, 0.0), self.value)
            self.weight = np.where(ok, self.weight + 1, self.weight)
        else:
            pick = np.minimum if self.op == "minimum" else np.maximum
            self.value = np.where(ok, pick(self.value, np.where(ok, x, 0.0)), self.value)
            self.weight = np.where(ok, self.weight + 1, self.weight)

    def result(self):
        with np.errstate(invalid="ignore", divide="ignore"):
            v = self.value / self.weight if self.op == "average" else self.value.copy()
        return np.where(self.weight > 0, v, np.nan)


def reduce_over(times, series, op, window, freq_op, dynamic):
    """The temporal operation `op` of series(step) over the steps of one
    record's window sampled every freq_op (None: every step)."""
    first, last = window
    sampled = [n for n in due_steps(times, freq_op) if first <= n <= last]
    red = None
    prev = times[first - 1] if freq_op is None else None
    for n in sampled:
        x = series(n)
        if red is None:
            red = Reduction(op, x.shape)
        if prev is None:  # time of the previous sample of this field
            prior = [s for s in due_steps(times, freq_op) if s < n]
            prev = times[prior[-1]] if prior else 0.0
        w = times[n] - prev if dynamic else 1.0
        prev = times[n]
        red.add(x, w)
    return red.result()
