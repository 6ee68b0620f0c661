"""Online post-processing end to end: every temporal operation, freq_op
sampling, @ chains, expressions (also over averaged fields), missing
values and irregular (dynamic) steps, compared exactly with numpy
references; and bit-for-bit reproducibility across decompositions, server
counts and the placement of the temporal operations."""
import math

import netCDF4
import numpy as np
import pytest

from conftest import BUILD, ROOT
from ops_reference import (HOUR, a_values, b_values, m_values, reduce_over, step_times, windows)

STEPS, NI, NJ, NLEV = 13, 11, 5, 2
XML = ROOT / "tests/mpi/data/ops.xml"
FILL = -999.0


def run_ops(tmp_path, mpmd, clients, servers, mode="regular", placement="client", direct=False):
    xml = tmp_path / "ops.xml"
    # direct: nearly every fragment as a direct payload (docs/transport.md).
    extra = '<variable id="direct_min_bytes" type="int">8</variable>' if direct else ""
    xml.write_text(XML.read_text().replace(">client</variable>", f">{placement}</variable>{extra}"))
    run = mpmd(tmp_path, clients, servers, [BUILD / "tests/mpi/ops_model", xml, STEPS, NI, NJ, NLEV, mode])
    assert run.returncode == 0, run.stdout + run.stderr
    return tmp_path / "ops_6h.nc"


def expected(mode):
    """Every variable of ops_6h.nc, computed independently."""
    times = step_times(STEPS, mode)
    dyn = mode == "dynamic"
    wins = windows(times, 6 * HOUR)
    a = lambda n: a_values(n, NLEV, NJ, NI).astype(np.float64)
    b = lambda n: b_values(n, NJ, NI)

    def m(n):
        v = m_values(n, NJ, NI)
        return np.where(v == FILL, np.nan, v)

    def chained(op, period):
        """@field: op over each `period`, emitted at the period ends."""
        def series(n):
            w = [win for win in windows(times, period) if win[1] == n]
            return reduce_over(times, b, op, w[0], None, dyn)
        return series

    out = {"time_bounds": [(times[f - 1], times[l]) for f, l in wins]}
    for name, op, freq, series, dtype in [
        ("a_avg", "average", None, a, np.float32), ("a_min", "minimum", None, a, np.float32),
        ("a_max", "maximum", None, a, np.float32), ("a_sum", "accumulate", None, a, np.float32),
        ("a_avg2h", "average", 2 * HOUR, a, np.float32), ("b_avg", "average", None, b, np.float64),
        ("m_avg", "average", None, m, np.float64), ("m_max", "maximum", None, m, np.float64),
        ("bm_avg", "average", None, lambda n: b(n) * m(n) / 2, np.float64),
        ("b_avg_of_max", "average", 3 * HOUR, chained("maximum", 3 * HOUR), np.float64),
    ]:
        out[name] = np.stack([reduce_over(times, series, op, w, freq, dyn) for w in wins]).astype(dtype)
    last = [l for _, l in wins]
    out["a_inst"] = np.stack([a_values(n, NLEV, NJ, NI) for n in last])
    out["a_once"] = a_values(last[0], NLEV, NJ, NI)
    out["bavg_plus"] = np.stack([chained("average", 3 * HOUR)(n) + 1 for n in last])
    out["b_cond"] = np.stack([np.where(b(n) > 0, np.sqrt(np.abs(b(n))), -b(n)) for n in last])
    return out


def read_all(path):
    with netCDF4.Dataset(path) as ds:
        ds.set_auto_mask(False)
        return {name: ds[name][:] for name in ds.variables}, ds


@pytest.mark.parametrize("mode", ["regular", "dynamic"])
@pytest.mark.parametrize("placement", ["client", "server"])
def test_every_operation_matches_numpy(tmp_path, mpmd, mode, placement):
    path = run_ops(tmp_path, mpmd, 3, 2, mode, placement)
    want = expected(mode)
    with netCDF4.Dataset(path) as ds:
        ds.set_auto_mask(False)
        bounds = np.array(want["time_bounds"])
        np.testing.assert_array_equal(ds["time_counter_bounds"][:], bounds)
        np.testing.assert_array_equal(ds["time_counter"][:], bounds.mean(axis=1))
        np.testing.assert_array_equal(ds["time_instant"][:], bounds[:, 1])
        for name, values in want.items():
            if name == "time_bounds":
                continue
            got = ds[name][:]
            assert got.dtype == values.dtype, name
            fill = getattr(ds[name], "_FillValue", None)
            expect = np.where(np.isnan(values), fill, values) if fill is not None else values
            np.testing.assert_array_equal(got, expect, err_msg=f"{name} ({mode}, {placement})")
        # CF metadata of the operations.
        assert ds["a_avg"].cell_methods == "time: mean (interval: 3600 s)"
        assert ds["a_avg2h"].cell_methods == "time: mean (interval: 7200 s)"
        assert ds["a_sum"].cell_methods == "time: sum (interval: 3600 s)"
        assert ds["a_max"].cell_methods == "time: maximum (interval: 3600 s)"
        assert ds["a_inst"].cell_methods == "time: point"
        assert ds["a_inst"].coordinates == "time_instant"
        assert ds["a_once"].dimensions == ("lev", "lat", "lon")
        assert ds["m_avg"]._FillValue == FILL and ds["m_avg"].missing_value == FILL
        assert ds["time_counter"].bounds == "time_counter_bounds"
        # Missing points really occur, and points with no valid sample are fill.
        assert (ds["m_max"][:] == FILL).sum() == 0
        assert np.isnan(want["bm_avg"]).sum() == 0


def test_reproducible_across_decompositions_servers_and_placement(tmp_path, mpmd):
    """Data bit-identical whatever the number of model ranks, their
    decomposition, the number of servers, where the operations run and
    whether the values travel as direct payloads."""
    reference = None
    for clients, servers, placement, direct in [
            (1, 1, "client", False), (2, 1, "client", False), (3, 1, "client", False), (1, 2, "client", False),
            (2, 2, "client", False), (3, 2, "client", False), (3, 0, "client", False), (2, 2, "server", False),
            (3, 1, "server", False), (1, 2, "server", False), (3, 2, "client", True), (2, 2, "server", True),
            (1, 1, "server", True)]:
        run_dir = tmp_path / f"c{clients}s{servers}{placement}{'direct' if direct else ''}"
        run_dir.mkdir()
        data, _ = read_all(run_ops(run_dir, mpmd, clients, servers, "dynamic", placement, direct))
        data = {k: v.tobytes() for k, v in data.items()}
        if reference is None:
            reference = data
            continue
        for name in reference:
            assert data[name] == reference[name], f"{name} differs with {clients} clients, {servers} servers, {placement}"


def test_bad_expressions_are_refused_with_file_and_line(tmp_path, mpmd):
    cases = {
        "foo(b)": "unknown function 'foo'",
        "(b + 1": "unbalanced parentheses",
        "b + nosuch": "unknown field 'nosuch'",
        "min(b)": "takes 2 argument(s), given 1",
    }
    base = XML.read_text()
    for expr, message in cases.items():
        xml = tmp_path / "bad.xml"
        xml.write_text(base.replace("b > 0 ? sqrt(b) : -b", expr))
        line = next(n for n, text in enumerate(xml.read_text().splitlines(), 1) if 'name="b_cond"' in text)
        run = mpmd(tmp_path, 2, 1, [BUILD / "tests/mpi/ops_model", xml, 3, NI, NJ, NLEV, "regular"])
        assert run.returncode != 0
        assert f"bad.xml:{line}:" in run.stderr and message in run.stderr, run.stderr


def test_cycle_between_fields_is_refused(tmp_path, mpmd):
    xml = tmp_path / "cycle.xml"
    text = XML.read_text().replace(
        '<field id="bm" domain_ref="dom" prec="8" long_name="b times m">b * m / 2</field>',
        '<field id="bm" domain_ref="dom" prec="8">cyc + 1</field>\n'
        '      <field id="cyc" domain_ref="dom" prec="8">bm * 2</field>')
    xml.write_text(text)
    run = mpmd(tmp_path, 1, 0, [BUILD / "tests/mpi/ops_model", xml, 3, NI, NJ, NLEV, "regular"])
    assert run.returncode != 0
    assert "cycle between fields: bm -> cyc -> bm" in run.stderr, run.stderr


def test_reduced_file_passes_cfchecks(tmp_path, mpmd):
    import subprocess
    path = run_ops(tmp_path, mpmd, 2, 1, "regular", "client")
    result = subprocess.run(["bash", str(ROOT / "scripts/cfcheck.sh"), str(path)], capture_output=True, text=True)
    assert "ERRORS detected: 0" in result.stdout, result.stdout + result.stderr


def test_two_models_share_one_pool_of_servers(tmp_path):
    """Several contexts on one pool: two models (two code ids) each with a
    context of one_file files, served by the same 2 servers at once."""
    import os
    import subprocess
    from conftest import MPI_ENV
    cmd = ["mpiexec", "--oversubscribe",
           "-n", "2", str(BUILD / "tests/mpi/spine_model"), str(ROOT / "tests/mpi/data/spine.xml"), "7", "13", "7", "3",
           ":", "-n", "3", str(BUILD / "tests/mpi/ops_model"), str(XML), str(STEPS), str(NI), str(NJ), str(NLEV), "regular",
           ":", "-n", "2", str(BUILD / "apps/foehn-server/foehn-server")]
    run = subprocess.run(cmd, cwd=tmp_path, env=dict(os.environ, **MPI_ENV), capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "spine_model: OK" in run.stdout
    want = expected("regular")
    with netCDF4.Dataset(tmp_path / "ops_6h.nc") as ds:
        ds.set_auto_mask(False)
        for name in ["a_avg", "b_avg", "a_inst", "b_avg_of_max"]:
            np.testing.assert_array_equal(ds[name][:], want[name], err_msg=name)
