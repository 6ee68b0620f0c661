"""Reading files into the model (issue 21, item 4; docs/api.md, "Reading
files"). input.nc is written here with netCDF4-python, independently of
foehn, from seeded random values: one variable per grid type foehn writes
(rectilinear x levels, curvilinear, reduced Gaussian, unstructured x levels
both ways round, an axis alone, a scalar, and a field without a time
dimension). read_model.py reads it through foehn in other decompositions,
attached and beside a server, and compares every value exactly with the
arrays the file was written from; `foehn check` accepts read.xml and
reports what a read file may not ask."""
import subprocess
import sys

import netCDF4
import numpy as np
import pytest

from conftest import BUILD, ROOT

pytestmark = pytest.mark.usefixtures("importable_package")  # conftest.py

XML = ROOT / "tests/python/read.xml"
R, L, NJ, NI, CJ, CI, G, U = 3, 3, 5, 6, 4, 5, 88, 50


def write_reference(directory):
    rng = np.random.default_rng(21)
    ref = {
        "ta": rng.standard_normal((R, L, NJ, NI)).astype(np.float32),
        "cv": rng.standard_normal((R, CJ, CI)),
        "gs": rng.standard_normal((R, G)),
        "us": rng.standard_normal((R, L, U)).astype(np.float32),
        "ui": rng.standard_normal((R, U, L)).astype(np.float32),
        "prof": rng.standard_normal((R, L)),
        "glob": rng.standard_normal(R),
        "orog": rng.standard_normal((NJ, NI)),
    }
    dims = {"ta": ("time_counter", "lev", "y", "x"), "cv": ("time_counter", "cy", "cx"),
            "gs": ("time_counter", "gcell"), "us": ("time_counter", "lev", "cell"),
            "ui": ("time_counter", "cell", "lev"), "prof": ("time_counter", "lev"), "glob": ("time_counter",),
            "orog": ("y", "x")}
    with netCDF4.Dataset(directory / "input.nc", "w") as nc:
        nc.createDimension("time_counter", None)
        for name, n in (("lev", L), ("y", NJ), ("x", NI), ("cy", CJ), ("cx", CI), ("gcell", G), ("cell", U)):
            nc.createDimension(name, n)
        time = nc.createVariable("time_counter", "f8", ("time_counter",))
        time[:] = 7200.0 * np.arange(R)
        for name, values in ref.items():
            nc.createVariable(name, values.dtype, dims[name])[:] = values
    np.savez(directory / "reference.npz", **ref)


@pytest.mark.parametrize("clients,servers", [(2, 0), (1, 1), (2, 1)])
def test_read_every_grid(mpmd, tmp_path, clients, servers):
    write_reference(tmp_path)
    run = mpmd(tmp_path, clients, servers,
               [sys.executable, ROOT / "tests/python/read_model.py", XML, tmp_path / "reference.npz"], timeout=90)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "read_model: OK" in run.stdout, run.stdout + run.stderr


def test_missing_variable_is_named(mpmd, tmp_path):
    write_reference(tmp_path)
    with netCDF4.Dataset(tmp_path / "input.nc", "a") as nc:
        nc.renameVariable("gs", "gs_renamed")
    script = tmp_path / "one.py"
    script.write_text(f"""
import numpy as np, foehn
comm = foehn.init("reader", "{XML}")
with foehn.Context("rd", comm) as ctx:
    ctx.set_domain_type("gauss", "gaussian", {G}, 1)
    ctx.set_domain_block("gauss", 0, {G}, 0, 1)
    ctx.set_domain_coordinates("gauss", np.zeros({G}), np.zeros({G}))
    for d, ni, nj, t in (("rect", {NI}, {NJ}, "rectilinear"), ("curv", {CI}, {CJ}, "curvilinear"),
                         ("unstr", {U}, 1, "unstructured")):
        ctx.set_domain_type(d, t, ni, nj)
        ctx.set_domain_block(d, 0, ni, 0, nj)
        ctx.set_domain_coordinates(d, np.zeros(ni if t == "rectilinear" else ni * nj),
                                   np.zeros(nj if t == "rectilinear" else ni * nj))
    ctx.set_axis("lev", [1.0, 2.0, 3.0])
    ctx.close_definition()
    ctx.update_calendar(0)
    try:
        ctx.read("gs_in", np.empty({G}))
    except foehn.Error as e:
        print("ERROR", e.code, e)
foehn.finalize()
""")
    run = mpmd(tmp_path, 1, 0, [sys.executable, script], timeout=60)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "ERROR 5 " in run.stdout, run.stdout + run.stderr
    assert "read.xml:" in run.stdout and "variable 'gs'" in run.stdout and "input.nc" in run.stdout
    assert "the file has no such variable" in run.stdout


def test_foehn_check_reads(tmp_path):
    tool = str(BUILD / "apps/foehn/foehn")
    ok = subprocess.run([tool, "check", str(XML)], capture_output=True, text=True, timeout=30)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    bad = tmp_path / "bad.xml"
    bad.write_text(XML.read_text().replace('mode="read" output_freq="2h"',
                                           'mode="read" output_freq="2h" type="multiple_file"')
                   .replace('<field id="cv_in" name="cv" domain_ref="curv"/>',
                            '<field id="cv_in" name="cv" domain_ref="curv" operation="average"/>'))
    refused = subprocess.run([tool, "check", str(bad)], capture_output=True, text=True, timeout=30)
    assert refused.returncode != 0
    out = refused.stdout + refused.stderr
    assert "bad.xml:27" in out and 'type="multiple_file" is not supported' in out, out
    assert "bad.xml:29" in out and "operation 'average' is not supported" in out, out
