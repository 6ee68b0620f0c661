"""The Python package foehn (bindings/python) and the minimal models of
docs/minimal-models.md.

Run as a script under mpiexec, this file is itself the Python test model
(`python test_python_binding.py values|errors XML`); the tests below launch
it beside foehn-server or attached and check its files with xarray against
numpy references computed independently (spine_reference.py)."""
import json
import re
import shutil
import sys

import numpy as np

STEPS, NI, NJ, NLEV = 7, 13, 7, 3


# ---------------------------------------------------------------- the model

def model_values(xml):
    """2 ranks in row bands write the spine fields: t as float32 (float64 at
    steps divisible by 3, narrowed to the file's float), ps by handle."""
    import foehn
    comm = foehn.init("pymodel", xml)
    rank, size = comm.Get_rank(), comm.Get_size()
    j0, j1 = rank * NJ // size, (rank + 1) * NJ // size
    k, j, i = np.meshgrid(np.arange(NLEV), np.arange(j0, j1), np.arange(NI), indexing="ij")
    lon = -180.0 + 360.0 * (np.arange(NI) + 0.5) / NI
    lat = -90.0 + 180.0 * (np.arange(j0, j1) + 0.5) / NJ
    failures = []
    with foehn.Context("test", comm) as ctx:
        ctx.set_calendar(start_date="2000-01-01 06:00:00", timestep="300s")  # time_origin from the XML
        ctx.set_domain_rectilinear("dom", NI, NJ, 0, j0, lon, lat)
        ctx.set_axis("lev", [1.0, 2.0, 3.0])
        ctx.close_definition()
        h_ps = ctx.field_handle("ps")
        for step in range(1, STEPS + 1):
            ctx.update_calendar(step)
            if ctx.is_active("t") != (step % 2 == 0 or step % 3 == 0) or ctx.is_active("unused"):
                failures.append(f"is_active at step {step}")
            t = (1000.0 * step + 100.0 * k + j + 0.25 * i).astype(np.float32)  # exact in float32
            assert t.flags.c_contiguous and t.shape == (NLEV, j1 - j0, NI)
            ctx.write("t", t.astype(np.float64) if step % 3 == 0 else t)
            ctx.write(h_ps, 1.0e5 + step + i[0] * 1e-3 + j[0] * 1e-6)
    if not ctx.closed:
        failures.append("the context manager did not close the context")
    foehn.finalize()
    failures = comm.allreduce(failures)
    if rank == 0:
        print("python_model:", "OK" if not failures else f"FAILED {failures}")
    comm.Free()


def model_errors(xml):
    """One rank, attached: each bad call prints {case, type, code, message}."""
    import foehn
    comm = foehn.init("pymodel", xml)
    t = np.zeros((NLEV, NJ, NI), np.float32)

    def case(name, call):
        try:
            call()
            out = {"case": name, "type": None}
        except (foehn.Error, TypeError) as e:
            code = [n for n in dir(foehn) if n.startswith("ERR_") and getattr(foehn, n) == getattr(e, "code", None)]
            out = {"case": name, "type": type(e).__name__, "code": code, "message": str(e)}
        print("CASE " + json.dumps(out), flush=True)

    case("unknown_context", lambda: foehn.Context("no_such_context", comm))
    with foehn.Context("test", comm) as ctx:
        ctx.set_domain_rectilinear("dom", NI, NJ, 0, 0, np.linspace(0, 360, NI, endpoint=False), np.linspace(-80, 80, NJ))
        ctx.set_axis("lev", [1.0, 2.0, 3.0])
        case("before_close_definition", lambda: ctx.write("t", t))
        ctx.close_definition()
        ctx.update_calendar(2)
        case("wrong_size", lambda: ctx.write("t", t.ravel()[:-1]))
        case("non_contiguous", lambda: ctx.write("t", np.zeros((NLEV, NJ, 2 * NI), np.float32)[:, :, ::2]))
        case("fortran_order", lambda: ctx.write("t", np.asfortranarray(t)))
        case("int_dtype", lambda: ctx.write("t", t.astype(np.int32)))
        case("big_endian", lambda: ctx.write("t", t.astype(">f4")))
        case("list", lambda: ctx.write("t", t.tolist()))
        case("unknown_field", lambda: ctx.write("no_such_field", t))
        case("first_write", lambda: ctx.write("t", t))
        case("second_write", lambda: ctx.write("t", t))
    case("after_close", lambda: ctx.write("t", t))
    foehn.finalize()
    comm.Free()


def model_dynamic(xml):
    """Dynamic time steps (set_model_time) on the minimal model's XML: tas
    every hour, model times every 40 minutes."""
    import foehn
    comm = foehn.init("pymodel", xml)
    with foehn.Context("atm", comm) as ctx:
        ctx.set_domain_rectilinear("globe", 8, 4, 0, 0, np.arange(8) * 45.0, -67.5 + np.arange(4) * 45.0)
        ctx.close_definition()
        for step in range(1, 7):
            ctx.set_model_time(2400.0 * step)
            ctx.write("tas", np.full((4, 8), float(step)))
        try:
            ctx.update_calendar(7)
        except foehn.Error as e:
            print("mixing:", e.code == foehn.ERR_STATE, e)
    foehn.finalize()
    comm.Free()


NCELL = 30  # the unstructured domain of model_domains


def cell_values(g, step, lev=0):
    return 1000.0 * step + 100.0 * lev + g


def model_domains(xml):
    """The domain calls on the `unstr` context of grids.xml: 2 ranks hold
    alternate cells of an unstructured domain, listed in reverse order, with
    3-corner bounds; every fifth cell is masked, and rank 1 sends compressed
    data (every other local point; those left out are written as the fill
    value)."""
    import foehn
    comm = foehn.init("pymodel", xml)
    rank = comm.Get_rank()
    cells = np.arange(NCELL)[rank::2][::-1].astype(np.int32)
    lon, lat = 12.0 * cells, -45.0 + 3.0 * cells
    corners = np.array([[0.0, 5.0, -5.0]])
    with foehn.Context("unstr", comm) as ctx:
        ctx.set_domain_type("dom", "unstructured", NCELL)
        ctx.set_domain_index("dom", cells)
        ctx.set_domain_coordinates("dom", lon, lat, lon[:, None] + corners, lat[:, None] + corners[:, ::-1])
        ctx.set_domain_mask("dom", cells % 5 != 0)
        sent = cells
        if rank == 1:
            positions = np.arange(0, len(cells), 2, dtype=np.int32)
            ctx.set_domain_data_index("dom", positions)
            sent = cells[positions]
        ctx.set_axis("lev", [1.0, 2.0, 3.0])
        # run-time attributes and variables
        assert ctx.get_attribute("field", "ta", "unit") == "K" and ctx.get_attribute("field", "ta", "comment") is None
        assert ctx.get_variable("no_such_variable") is None
        ctx.set_attribute("field", "ps", "long_name", "surface pressure set from Python")
        ctx.close_definition()
        assert ctx.is_used("ps") and ctx.is_used("ua")
        assert foehn.date_add("360_day", "2000-02-30", "1d") == "2000-03-01 00:00:00"
        assert foehn.date_add("gregorian", "2000-02-28 23:00:00", "2ts", "30mi") == "2000-02-29 00:00:00"
        for step in range(1, 5):
            ctx.update_calendar(step)
            ctx.write("ps", cell_values(sent, step))
            levels = np.stack([cell_values(sent, step, k) for k in range(3)])  # (lev, cell)
            ctx.write("ta", levels.astype(np.float32))
            ctx.write("ua", np.ascontiguousarray(levels.T))
    foehn.finalize()
    comm.Free()


AXES = {"cell": 60, "depth": 10, "band": 4, "bin": 7, "plev": 3}  # tests/mpi/data/axes_bindings.xml


def axes_values(step, rank=0):
    """The fields of axes_bindings.xml at a step, whole, from global indices alone."""
    depth, band = np.meshgrid(np.arange(AXES["depth"]), np.arange(AXES["band"]), indexing="ij")
    g, k = np.arange(AXES["cell"]), np.arange(AXES["plev"])[:, None]
    return {"prof": 1000.0 * step + 10.0 * depth + band,                    # (depth, band)
            "hist": (1000.0 * step + np.arange(AXES["bin"])).astype(np.float32),
            "t2m": 1000.0 * step + 0.5 * g,
            "tp": (1000.0 * step + 10.0 * k + 0.25 * g).astype(np.float32),  # (plev, cell)
            "gmean": np.array([1000.0 * step + 0.5 + rank])}                 # rank 0's value is kept


def model_axes(xml):
    """The axis-part and scalar calls on axes_bindings.xml: depth decomposed by range
    with values and bounds from the model (rank 0 holds the first 7), bin
    by index in reversed interleaved order (values from the XML), the
    scalar height2m set to 2 m, and gmean, a field of a scalar alone. Bad
    bounds raise ValueError naming the axis and the shape."""
    import foehn
    comm = foehn.init("pymodel", xml)
    rank, size = comm.Get_rank(), comm.Get_size()
    cells = np.array_split(np.arange(AXES["cell"]), size)[rank]
    depths = np.arange(AXES["depth"])[:7] if rank == 0 else np.arange(AXES["depth"])[7:] if rank == size - 1 else np.arange(0)
    bins = np.arange(AXES["bin"])[::-1]
    bins = bins[bins % size == rank].astype(np.int32)
    with foehn.Context("axes", comm) as ctx:
        ctx.set_domain_type("dom", "unstructured", AXES["cell"])
        ctx.set_domain_block("dom", int(cells[0]), len(cells))
        ctx.set_domain_coordinates("dom", 3.0 * cells, -60.0 + 2.0 * cells)
        ctx.set_axis("depth", 10.0 * depths + 5.0)
        ctx.set_axis_decomposition("depth", AXES["depth"], int(depths[0]) if len(depths) else 0, len(depths))
        try:
            ctx.set_axis_bounds("depth", 10.0 * depths)
        except ValueError as e:
            assert "axis 'depth'" in str(e) and f"({len(depths)})" in str(e), e
        else:
            raise AssertionError("1-D bounds were accepted")
        ctx.set_axis_bounds("depth", np.stack([10.0 * depths, 10.0 * depths + 10.0], axis=1))
        ctx.set_axis_index("bin", AXES["bin"], bins)
        ctx.set_scalar("height2m", 2.0, "m")
        ctx.close_definition()
        for step in range(1, 5):
            ctx.update_calendar(step)
            v = axes_values(step, rank)
            ctx.write("prof", np.ascontiguousarray(v["prof"][depths]))
            ctx.write("hist", v["hist"][bins])
            ctx.write("t2m", v["t2m"][cells])
            ctx.write("tp", np.ascontiguousarray(v["tp"][:, cells]))
            ctx.write("gmean", v["gmean"])
    foehn.finalize()
    comm.Free()


if __name__ == "__main__":
    {"values": model_values, "errors": model_errors, "dynamic": model_dynamic, "domains": model_domains,
     "axes": model_axes}[sys.argv[1]](sys.argv[2])
    sys.exit(0)


# ---------------------------------------------------------------- the tests

import pytest  # noqa: E402  (not needed by the model above)
import xarray as xr  # noqa: E402

from conftest import BUILD, ROOT  # noqa: E402
from spine_reference import ps_values, t_values  # noqa: E402

XML = ROOT / "tests/mpi/data/spine.xml"
EXAMPLES = ROOT / "docs/examples"
PYTHON_EXAMPLE = ROOT / "bindings/python/examples/minimal_model.py"


pytestmark = pytest.mark.usefixtures("importable_package")  # conftest.py


@pytest.mark.parametrize("servers", [0, 1])
def test_python_model_values_exact(tmp_path, mpmd, servers):
    run = mpmd(tmp_path, 2, servers, [sys.executable, __file__, "values", XML])
    assert run.returncode == 0, run.stdout + run.stderr
    assert "python_model: OK" in run.stdout, run.stdout + run.stderr

    steps = [s for s in range(1, STEPS + 1) if s % 2 == 0]
    with xr.open_dataset(tmp_path / "spine_one.nc", decode_times=False) as ds:
        assert ds["ta"].dtype == np.float32 and ds["ps"].dtype == np.float64
        # start 2000-01-01 06:00 and 300 s steps set from Python; origin 1999-12-31 from the XML
        np.testing.assert_array_equal(ds["time_counter"].values, [86400.0 + 6 * 3600 + 300.0 * s for s in steps])
        np.testing.assert_array_equal(ds["lev"].values, [1.0, 2.0, 3.0])
        for r, s in enumerate(steps):
            np.testing.assert_array_equal(ds["ta"].values[r], t_values(s, NLEV, NJ, NI))
            np.testing.assert_array_equal(ds["ps"].values[r], ps_values(s, NJ, NI))
    # multiple_file: one part per server, or per model rank when attached;
    # the parts' rows, in order, make up the whole field (t written as float64 here).
    parts = sorted(tmp_path.glob("spine_multi_*.nc"))
    assert len(parts) == (servers or 2)
    rows = []
    for p in parts:
        with xr.open_dataset(p, decode_times=False) as ds:
            rows.append(ds["ta"].values)
    ta = np.concatenate(rows, axis=-2) if servers == 0 else rows[0]
    for r, s in enumerate([3, 6]):
        np.testing.assert_array_equal(ta[r], t_values(s, NLEV, NJ, NI))


def test_python_errors(tmp_path, mpmd):
    run = mpmd(tmp_path, 1, 0, [sys.executable, __file__, "errors", XML])
    assert run.returncode == 0, run.stdout + run.stderr
    cases = {c["case"]: c for c in (json.loads(line[5:]) for line in run.stdout.splitlines() if line.startswith("CASE "))}
    assert len(cases) == 12, run.stdout + run.stderr

    def error(name, code, *words):
        c = cases[name]
        assert c["type"] == "Error" and c["code"] == [code], c
        for w in words:
            assert w in c["message"], c

    n = NLEV * NJ * NI
    error("wrong_size", "ERR_ARGUMENT", "'t'", f"expected {n}", f"given {n - 1}")
    error("unknown_context", "ERR_CONFIG", "no_such_context")
    error("before_close_definition", "ERR_STATE", "foehn_close_definition")
    error("unknown_field", "ERR_ARGUMENT", "no_such_field")
    error("second_write", "ERR_ARGUMENT", "already written")
    error("after_close", "ERR_STATE", "closed")
    for name in ["non_contiguous", "fortran_order"]:
        assert cases[name]["type"] == "TypeError" and "C-contiguous" in cases[name]["message"], cases[name]
    for name, got in [("int_dtype", "int32"), ("big_endian", ">f4"), ("list", "list")]:
        assert cases[name]["type"] == "TypeError", cases[name]
        assert "float32 or float64" in cases[name]["message"] and got in cases[name]["message"], cases[name]
    assert cases["first_write"]["type"] is None


def test_python_dynamic_time_steps(tmp_path, mpmd):
    run = mpmd(tmp_path, 1, 0, [sys.executable, __file__, "dynamic", EXAMPLES / "iodef.xml"])
    assert run.returncode == 0, run.stdout + run.stderr
    assert "mixing: True" in run.stdout, run.stdout + run.stderr
    with xr.open_dataset(tmp_path / "minimal.nc", decode_times=False) as ds:
        # hourly instants are reached at 2400 s x steps 2, 3, 5 and 6; each record is stamped then
        np.testing.assert_array_equal(ds["time_counter"].values, [4800.0, 7200.0, 12000.0, 14400.0])
        np.testing.assert_array_equal(ds["tas"].values[:, 0, 0], [2.0, 3.0, 5.0, 6.0])


@pytest.mark.parametrize("servers", [0, 1])
def test_python_domain_calls(tmp_path, mpmd, servers):
    run = mpmd(tmp_path, 2, servers, [sys.executable, __file__, "domains", ROOT / "tests/mpi/data/grids.xml"])
    assert run.returncode == 0, run.stdout + run.stderr
    g = np.arange(NCELL)
    # written: rank 0's cells (even) and every other cell of rank 1's reversed list
    rank1 = g[1::2][::-1]
    sent = (g % 2 == 0) | np.isin(g, rank1[::2])
    valid = sent & (g % 5 != 0)
    with xr.open_dataset(tmp_path / "unstr_one.nc", decode_times=False) as ds:
        np.testing.assert_array_equal(ds["lon"].values, 12.0 * g)
        np.testing.assert_array_equal(ds["lat"].values, -45.0 + 3.0 * g)
        np.testing.assert_array_equal(ds[ds["lon"].attrs["bounds"]].values, 12.0 * g[:, None] + [0.0, 5.0, -5.0])
        np.testing.assert_array_equal(ds[ds["lat"].attrs["bounds"]].values, -45.0 + 3.0 * g[:, None] + [-5.0, 5.0, 0.0])
        assert ds["ps"].attrs["long_name"] == "surface pressure set from Python"
        assert ds["ps_mean"].attrs["long_name"] == "surface pressure set from Python"  # by field_ref
        for r, step in enumerate([2, 4]):
            ps = np.where(valid, cell_values(g, step), np.nan)
            np.testing.assert_array_equal(ds["ps"].values[r], ps)
            ta = np.stack([np.where(valid, cell_values(g, step, k), np.nan) for k in range(3)])
            np.testing.assert_array_equal(ds["ta"].values[r], ta.astype(np.float32))
            np.testing.assert_array_equal(ds["ua"].values[r], ta.T.astype(np.float32))


@pytest.mark.parametrize("servers", [0, 1])
def test_python_axis_parts_and_scalars(tmp_path, mpmd, servers):
    run = mpmd(tmp_path, 2, servers, [sys.executable, __file__, "axes", ROOT / "tests/mpi/data/axes_bindings.xml"])
    assert run.returncode == 0, run.stdout + run.stderr
    depth = np.arange(AXES["depth"])
    with xr.open_dataset(tmp_path / "axes_one.nc", decode_times=False) as ds:
        for r, step in enumerate([2, 4]):
            now = axes_values(step)
            for name in ("prof", "hist", "t2m", "tp"):
                np.testing.assert_array_equal(ds[name].values[r], now[name], err_msg=name)
            np.testing.assert_array_equal(ds["gmean"].values[r], now["gmean"][0])
        assert ds["gmean"].dims == ("time_counter",)
        np.testing.assert_array_equal(ds["depth"].values, 10.0 * depth + 5.0)
        np.testing.assert_array_equal(ds["depth_bounds"].values, np.stack([10.0 * depth, 10.0 * depth + 10.0], 1))
        np.testing.assert_array_equal(ds["bin"].values, 200.0 + 10.0 * np.arange(AXES["bin"]))
        # the scalar: the value set from Python (the XML says 10), named by t2m's coordinates
        assert ds["height"].values == 2.0 and ds["height"].attrs["units"] == "m"
        assert "height" in ds["t2m"].encoding.get("coordinates", "") + ds["t2m"].attrs.get("coordinates", "")


# ------------------------------------------------- docs/minimal-models.md

MINIMAL = {
    "c": lambda: [BUILD / "tests/mpi/minimal_model_c"],
    "fortran": lambda: [BUILD / "tests/mpi/fortran/minimal_model_f"],
    "fortran_xios": lambda: [BUILD / "tests/mpi/fortran/minimal_model_xios"],
    "python": lambda: [sys.executable, PYTHON_EXAMPLE],
}


@pytest.mark.parametrize("servers", [0, 1])
@pytest.mark.parametrize("language", sorted(MINIMAL))
def test_minimal_model_runs_and_writes_exact_values(tmp_path, mpmd, language, servers):
    shutil.copy(EXAMPLES / "iodef.xml", tmp_path / "iodef.xml")
    run = mpmd(tmp_path, 2, servers, MINIMAL[language]())
    assert run.returncode == 0, run.stdout + run.stderr
    with xr.open_dataset(tmp_path / "minimal.nc") as ds:
        assert ds["tas"].dtype == np.float32 and ds["tas"].shape == (4, 4, 8)
        assert str(ds["time_counter"].values[0])[:19] == "2000-01-01T01:00:00"
        np.testing.assert_array_equal(ds["lon"].values, np.arange(8) * 45.0)
        np.testing.assert_array_equal(ds["lat"].values, -67.5 + np.arange(4) * 45.0)
        j, i = np.mgrid[0:4, 0:8]
        for r in range(4):
            np.testing.assert_array_equal(ds["tas"].values[r], (274.0 + r + i + 10 * j).astype(np.float32))


def test_docs_show_exactly_the_tested_examples():
    doc = (ROOT / "docs/minimal-models.md").read_text()
    blocks = re.findall(r"^```(\w+)\n(.*?)^```$", doc, flags=re.S | re.M)
    files = [("c", EXAMPLES / "minimal_model.c"), ("fortran", EXAMPLES / "minimal_model.f90"),
             ("fortran", EXAMPLES / "minimal_model_xios.f90"), ("python", PYTHON_EXAMPLE),
             ("xml", EXAMPLES / "iodef.xml")]
    for lang, path in files:
        assert (lang, path.read_text()) in blocks, f"docs/minimal-models.md does not show {path} as it is"
        if lang != "xml":
            assert len(path.read_text().splitlines()) < 40, path
