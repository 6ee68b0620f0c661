"""Lossy quantization and the lossless filters of NetCDF outputs
(docs/compression.md):
- quantization="bitround" with quantization_nsb, on a file or a field (the
  field's own attributes win), by parallel writers, attached and with
  deflate: the stored values are the unquantized run's values rounded to
  nearest at the kept mantissa bits (computed here in numpy), float and
  double;
- granular_bitround and bitgroom with quantization_nsd keep that many
  significant digits;
- the CF-1.12 metadata (container variable with algorithm and
  implementation; quantization and quantization_nsb/nsd on each variable)
  is written and cfchecks passes (but for netCDF-C's own _Quantize*
  attributes, which its CF-1.8 rules do not know);
- compression_type gzip, szip and None as XIOS spells them; SZ and ZFP and
  inconsistent attributes are refused at their XML line;
- a file with a quantized variable says Conventions = "CF-1.12";
- quantization set from Fortran (xios_set_field_attr, xios_set_file_attr)
  by tests/mpi/fortran/xios_quantize_model.f90;
- foehn plan's compressed-size estimate against the run's files.

The model is test_file_options.py's (a smooth 2-D field ts and a 3-D field
ta on a 180 x 90 grid split in latitude bands, 3 steps)."""
import pathlib
import subprocess
import sys

import netCDF4
import numpy as np
import pytest

from conftest import ROOT

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from test_file_options import context_xml  # noqa: E402

MODEL = HERE / "test_file_options.py"

QUANTIZED_XML = context_xml("""  <field_definition prec="4" operation="instant">
    <field id="ts" domain_ref="dom"/>
    <field id="ta" grid_ref="g3"/>
  </field_definition>
  <file_definition output_freq="1ts" type="one_file">
    <file id="plain">
      <field field_ref="ts"/>
      <field field_ref="ta"/>
      <field field_ref="ta" name="ta8" prec="8"/>
    </file>
    <file id="rounded" quantization="bitround" quantization_nsb="9" compression_level="4">
      <field field_ref="ts"/>
      <field field_ref="ta" quantization_nsb="3"/>
      <field field_ref="ta" name="ta8" prec="8" quantization_nsb="20"/>
    </file>
    <file id="digits" quantization="granular_bitround" quantization_nsd="3">
      <field field_ref="ts"/>
      <field field_ref="ta" quantization="bitgroom" quantization_nsd="2"/>
    </file>
    <file id="filters">
      <field field_ref="ts" compression_type="szip"/>
      <field field_ref="ta" compression_type="gzip" compression_level="6"/>
      <field field_ref="ta" name="ta_none" compression_type="None" compression_level="6"/>
    </file>
  </file_definition>
""")

pytestmark = pytest.mark.usefixtures("importable_package")  # conftest.py


def run_model(tmp_path, mpmd, xml_text, clients, servers):
    xml = tmp_path / "model.xml"
    xml.write_text(xml_text)
    return mpmd(tmp_path, clients, servers, [sys.executable, MODEL, xml])


def bitround(values, nsb):
    """Round to nearest (ties away from zero) at nsb explicit mantissa bits,
    on the IEEE bits: add half of the last kept bit, clear the dropped bits."""
    uint, mantissa = (np.uint32, 23) if values.dtype == np.float32 else (np.uint64, 52)
    drop = mantissa - nsb
    bits = values.view(uint)
    half = uint(1) << uint(drop - 1)
    mask = ~((uint(1) << uint(drop)) - uint(1))
    return ((bits + half) & mask).view(values.dtype)


def read(path, name):
    with netCDF4.Dataset(path) as nc:
        nc.set_auto_mask(False)
        return nc[name][:]


# 2 servers writing one file collectively; attached to the 2 model ranks.
@pytest.mark.parametrize("clients,servers", [(2, 2), (2, 0)])
def test_bitround_keeps_the_nearest_mantissa(tmp_path, mpmd, clients, servers):
    run = run_model(tmp_path, mpmd, QUANTIZED_XML, clients, servers)
    assert run.returncode == 0, run.stdout + run.stderr
    for name, nsb in (("ts", 9), ("ta", 3), ("ta8", 20)):
        plain = read(tmp_path / "plain.nc", name)
        stored = read(tmp_path / "rounded.nc", name)
        assert stored.dtype == plain.dtype
        np.testing.assert_array_equal(stored.view(np.uint8), bitround(plain, nsb).view(np.uint8), err_msg=name)
        assert not np.array_equal(stored, plain), name  # the run's values do use the dropped bits
        # Relative error at most half of the last kept bit.
        assert np.max(np.abs(stored - plain) / np.abs(plain)) <= 2.0 ** -(nsb + 1), name
    with netCDF4.Dataset(tmp_path / "rounded.nc") as nc:
        container = nc["quantization_bitround"]
        assert container.algorithm == "bitround"
        assert container.implementation.startswith("libnetcdf version 4.9")
        for name, nsb in (("ts", 9), ("ta", 3), ("ta8", 20)):
            assert nc[name].getncattr("quantization") == "quantization_bitround"
            assert nc[name].quantization_nsb == nsb
            assert nc[name].filters()["complevel"] == 4  # deflated after rounding
    # Rounded values deflate far better than the unrounded ones.
    assert (tmp_path / "rounded.nc").stat().st_size < 0.5 * (tmp_path / "plain.nc").stat().st_size


def test_digit_algorithms_filters_and_cf_metadata(tmp_path, mpmd):
    run = run_model(tmp_path, mpmd, QUANTIZED_XML, 2, 2)
    assert run.returncode == 0, run.stdout + run.stderr
    with netCDF4.Dataset(tmp_path / "digits.nc") as nc:
        assert nc["quantization_granular_bitround"].algorithm == "granular_bitround"
        assert nc["quantization_bitgroom"].algorithm == "bitgroom"
        assert nc["ts"].getncattr("quantization") == "quantization_granular_bitround" and nc["ts"].quantization_nsd == 3
        assert nc["ta"].getncattr("quantization") == "quantization_bitgroom" and nc["ta"].quantization_nsd == 2
    for name, nsd in (("ts", 3), ("ta", 2)):
        plain = read(tmp_path / "plain.nc", name).astype(np.float64)
        stored = read(tmp_path / "digits.nc", name).astype(np.float64)
        error = np.abs(stored - plain) / np.abs(plain)
        assert 0 < np.max(error) <= 0.5 * 10.0 ** (1 - nsd), (name, np.max(error))
    # CF-1.12 defines the quantization attributes: files with a quantized
    # variable say it, the others keep CF-1.10.
    for name, conventions in (("rounded", "CF-1.12"), ("digits", "CF-1.12"), ("plain", "CF-1.10"),
                              ("filters", "CF-1.10")):
        with netCDF4.Dataset(tmp_path / f"{name}.nc") as nc:
            assert nc.Conventions == conventions, name
    # Lossless filters read back exactly; None wins over a level.
    with netCDF4.Dataset(tmp_path / "filters.nc") as nc:
        assert nc["ts"].filters()["szip"] and not nc["ts"].filters()["zlib"]
        assert nc["ta"].filters()["complevel"] == 6 and nc["ta"].filters()["shuffle"]
        assert not nc["ta_none"].filters()["zlib"]
    for name in ("ts", "ta"):
        np.testing.assert_array_equal(read(tmp_path / "filters.nc", name), read(tmp_path / "plain.nc", name))
    for name in ("rounded", "digits"):
        result = subprocess.run(["bash", str(ROOT / "scripts/cfcheck.sh"), str(tmp_path / f"{name}.nc")],
                                capture_output=True, text=True)
        # cfchecker 4.1.0 knows CF up to 1.8 (scripts/cfcheck.sh): it takes
        # netCDF-C's own reserved attribute (_QuantizeBitRoundNumberOfSignificantBits,
        # ...) for an invalid name; every other rule must pass.
        errors = [line for line in result.stdout.splitlines() if line.startswith("ERROR:")]
        assert errors and all("Invalid attribute name: _Quantize" in e for e in errors), result.stdout


@pytest.mark.parametrize("attributes,message", [
    ('compression_type="SZ"', 'compression_type="SZ" is not available: it needs an HDF5 filter plugin'),
    ('compression_type="gzip"', 'compression_type="gzip" needs a compression_level from 1 to 9'),
    ('quantization="bitround"', 'quantization="bitround" needs quantization_nsb'),
    ('quantization="bitround" quantization_nsb="4" quantization_nsd="2"',
     'quantization="bitround" takes quantization_nsb, not quantization_nsd'),
    ('quantization="bitgroom" quantization_nsd="9"', "quantization_nsd=9 is out of range for prec=4 (1 to 7)"),
    ('quantization_nsb="4"', "quantization_nsb or quantization_nsd without quantization"),
])
def test_refused_at_the_xml_line(tmp_path, mpmd, attributes, message):
    xml = context_xml(f"""  <field_definition prec="4" operation="instant">
    <field id="ts" domain_ref="dom"/>
    <field id="ta" grid_ref="g3"/>
  </field_definition>
  <file_definition output_freq="1ts">
    <file id="bad">
      <field field_ref="ts" {attributes}/>
    </file>
  </file_definition>
""")
    run = run_model(tmp_path, mpmd, xml, 1, 0)
    assert run.returncode != 0
    line = 1 + xml.splitlines().index(next(s for s in xml.splitlines() if attributes in s))
    assert f"model.xml:{line}" in run.stderr, run.stderr
    assert message in run.stderr, run.stderr


FORTRAN_XML = """<simulation><context id="atm">
  <calendar type="gregorian" start_date="2000-01-01 00:00:00" timestep="1h"/>
  <domain_definition><domain id="globe" type="rectilinear"/></domain_definition>
  <field_definition prec="4" operation="instant">
    <field id="tas" domain_ref="globe"/>
    <field id="tas_q" field_ref="tas"/>
  </field_definition>
  <file_definition output_freq="1ts" type="one_file">
    <file id="plain"><field field_ref="tas"/></file>
    <file id="rounded"><field field_ref="tas_q"/></file>
    <file id="coarse"><field field_ref="tas"/></file>
  </file_definition>
</context></simulation>
"""


@pytest.mark.parametrize("servers", [0, 1])
def test_quantization_set_from_fortran(tmp_path, mpmd, servers):
    """xios_set_field_attr(tas_q, quantization="bitround", quantization_nsb=6)
    and xios_set_file_attr(coarse, ... quantization_nsb=3): the stored bits
    are numpy's round-to-nearest of the plain file's at 6 and 3 bits."""
    from conftest import BUILD
    (tmp_path / "iodef.xml").write_text(FORTRAN_XML)
    run = mpmd(tmp_path, 2, servers, [BUILD / "tests/mpi/fortran/xios_quantize_model"])
    assert run.returncode == 0 and "xios_quantize_model: OK" in run.stdout, run.stdout + run.stderr
    plain = read(tmp_path / "plain.nc", "tas")
    assert plain.shape == (2, 4, 8)
    for file, name, nsb in (("rounded", "tas_q", 6), ("coarse", "tas", 3)):
        stored = read(tmp_path / f"{file}.nc", name)
        np.testing.assert_array_equal(stored.view(np.uint8), bitround(plain, nsb).view(np.uint8), err_msg=file)
        assert not np.array_equal(stored, plain), file
        with netCDF4.Dataset(tmp_path / f"{file}.nc") as nc:
            assert nc[name].quantization_nsb == nsb and nc.Conventions == "CF-1.12"


def test_plan_estimates_the_compressed_size(tmp_path, mpmd):
    """foehn plan's estimate from a synthetic sample (docs/compression.md)
    against the sizes on disk of the same XML's run (its smooth fields):
    conservative (never below what the run wrote) and within the factor
    the doc states (6); files without deflate have no estimate."""
    import json
    from conftest import BUILD
    from test_file_options import NI, NJ, NLEV
    run = run_model(tmp_path, mpmd, QUANTIZED_XML, 2, 0)
    assert run.returncode == 0, run.stdout + run.stderr
    plan = subprocess.run([BUILD / "apps/foehn/foehn", "plan", "--json", "--domain", f"dom={NI},{NJ}", "--axis",
                           f"lev={NLEV}", "--duration", "3h", tmp_path / "model.xml"], capture_output=True, text=True,
                          timeout=60)
    assert plan.returncode == 0, plan.stderr
    files = {f["id"]: f for f in json.loads(plan.stdout)["contexts"][0]["files"]}
    for name in ("rounded", "filters"):
        on_disk = (tmp_path / f"{name}.nc").stat().st_size
        estimate = files[name]["estimated_bytes"]
        assert on_disk <= estimate <= 6 * on_disk, (name, estimate, on_disk)
        assert estimate < files[name]["total_bytes"]
    # digits: quantized but not deflated, so no smaller on disk than raw (nor in the estimate).
    assert files["digits"]["estimated_bytes"] == files["digits"]["total_bytes"]
    assert (tmp_path / "digits.nc").stat().st_size >= files["digits"]["total_bytes"]
