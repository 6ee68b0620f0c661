"""A grid that defines its domain, axis and scalar in place (issue 21 item 9),
run by tests/mpi/fortran/xios_inline_model.f90 on xios_inline.xml, attached
(1 rank), 1 model rank + 1 server and 2 + 1: the domain `box` exists only
inside grid `box_depth` and gets its size and coordinates from the model; the
axis `depth` is defined there with its values, used by id by a field's
axis_ref and by a second grid that sets `positive` on it; a scalar is defined
inside a third grid. The file must hold the values numpy computes from the
global indices, and the axis and scalar coordinates the XML gave. (The model
also checks that an all-.true. axis mask is accepted and that 0.5 * (3600s +
1ts) is written "1800s 0.5ts".)

The same model also runs on the XML split as XIOS's generic_testcase splits
its contexts: a first <context id="inline"> with the calendar and grids, then
a second <context id="inline" src=...> that includes the fields and files;
XIOS continues the first context with the second, and so must foehn. A field
id defined in both halves is still an error, named at its line."""
import re
import subprocess

import netCDF4
import numpy as np
import pytest

from conftest import BUILD, ROOT

MODEL = BUILD / "tests/mpi/fortran/xios_inline_model"
XML = ROOT / "tests/mpi/fortran/xios_inline.xml"
NI, NJ, NLEV, NSTEPS = 8, 6, 3, 2


@pytest.mark.parametrize("clients,servers", [(1, 0), (1, 1), (2, 1)], ids=["c1_s0", "c1_s1", "c2_s1"])
def test_grid_defining_its_elements(tmp_path, mpmd, clients, servers):
    (tmp_path / "iodef.xml").write_text(XML.read_text())
    result = mpmd(tmp_path, clients, servers, [MODEL], timeout=180)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "xios_inline_model: OK" in result.stdout, result.stdout + result.stderr
    check_file(tmp_path)


def split_context(tmp_path, extra_field=""):
    """xios_inline.xml as two <context id="inline">: grids in the first, the
    fields and files in an included file named by the second."""
    text = XML.read_text()
    head, rest = text.split("    <field_definition", 1)
    body, tail = rest.split("  </context>", 1)
    (tmp_path / "context_inline.xml").write_text(
        '<context id="inline">\n' + extra_field + "    <field_definition" + body + "</context>\n")
    (tmp_path / "iodef.xml").write_text(
        head + '  </context>\n  <context id="inline" src="./context_inline.xml"/>\n' + tail)


def test_repeated_context_id_continues_the_first(tmp_path, mpmd):
    split_context(tmp_path)
    assert (tmp_path / "iodef.xml").read_text().count('<context id="inline"') == 2
    result = mpmd(tmp_path, 1, 0, [MODEL], timeout=180)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "xios_inline_model: OK" in result.stdout, result.stdout + result.stderr
    check_file(tmp_path)


def test_repeated_context_id_keeps_ids_distinct(tmp_path):
    split_context(tmp_path, '    <grid_definition><grid id="point"><scalar id="h2"/></grid></grid_definition>\n')
    check = subprocess.run([str(BUILD / "apps/foehn/foehn"), "check", str(tmp_path / "iodef.xml")],
                           capture_output=True, text=True, timeout=60)
    said = check.stdout + check.stderr
    assert check.returncode != 0, said
    assert re.search(r"context_inline\.xml:2: .*duplicate grid id 'point' \(first defined at \S*iodef\.xml:17\)", said), said


def check_file(tmp_path):
    k, j, i = np.meshgrid(np.arange(NLEV), np.arange(NJ), np.arange(NI), indexing="ij")
    with netCDF4.Dataset(tmp_path / "inline_out.nc") as ds:
        assert ds["temp"].dimensions == ("time_counter", "depth", "lat", "lon")
        assert ds["profile"].dimensions == ("time_counter", "depth")
        assert ds["tmean"].dimensions == ("time_counter",)
        assert len(ds.dimensions["time_counter"]) == NSTEPS
        for r, step in enumerate(range(1, NSTEPS + 1)):
            np.testing.assert_array_equal(ds["temp"][r], 100.0 * k + 10.0 * j + i + step)
            np.testing.assert_array_equal(ds["profile"][r], 100.0 * np.arange(NLEV) + step)
            np.testing.assert_array_equal(ds["tmean"][r], step + 0.5)
        # The axis's values and attributes from the grid's <axis>, positive
        # from the second grid's child that names it.
        depth = ds["depth"]
        np.testing.assert_array_equal(depth[:], [5.0, 15.0, 30.0])
        assert (depth.units, depth.standard_name, depth.positive) == ("m", "depth", "down")
        # The domain's coordinates from the model, the scalar's from the XML.
        np.testing.assert_array_equal(ds["lon"][:], 10.0 * np.arange(NI))
        np.testing.assert_array_equal(ds["lat"][:], -50.0 + 20.0 * np.arange(NJ))
        height = ds["height"]
        assert height.dimensions == () and height[...] == 2.0 and height.units == "m"
