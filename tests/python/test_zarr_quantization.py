"""Quantization of Zarr stores (docs/compression.md, docs/kmscale.md):
- the same XML attributes as NetCDF (quantization on a file, its fields'
  own quantization_nsb/nsd winning) give Zarr chunks holding, bit for bit,
  what netCDF-C's quantization writes in the NetCDF file of the same run,
  for bitround, granular_bitround and bitgroom, float and double;
- BitRound's values equal numpy's round-to-nearest (ties away from zero) of
  the unquantized file's at the kept mantissa bits;
- fill values (masked points, and NaN, which foehn writes as the fill
  value) stay the fill value, infinities stay as the model sent them
  (netCDF-C 4.9.0 makes them zeros in granular_bitround and NaN at odd
  positions in bitgroom: compared on finite values only);
- the CF-1.12 metadata in the arrays' attributes: a container array per
  algorithm (algorithm, implementation), quantization and
  quantization_nsb/nsd on each variable; Conventions = "CF-1.12";
  xarray.open_zarr opens the store;
- the report's bytes on disk of a quantized store equal the sum of its
  chunk files' sizes (os.stat; metadata files not counted), and its ratio;
- the chunk files are the same bytes with 1 server and 2 attached writers.
1 model rank + 1 server, and 2 model ranks attached.

Run as a script under mpiexec, this file is itself the model
(`python test_zarr_quantization.py XML`): fields on a lon/lat grid split in
latitude bands, every seventh point masked, NaN and infinities in ts."""
import json
import os
import sys

import numpy as np

NI, NJ, NLEV, STEPS = 72, 36, 3, 2


def smooth(step, j0, j1):
    lat = np.arange(j0, j1, dtype=np.float64)[:, None]
    lon = np.arange(NI, dtype=np.float64)[None, :]
    return 100.0 * np.sin(lat / 11.0) + 0.3 * np.cos(lon / 7.0) + 0.01 * step + 1e-3 * lat * lon


def masked(j0, j1):
    jj, ii = np.meshgrid(np.arange(j0, j1), np.arange(NI), indexing="ij")
    return (ii + 3 * jj) % 7 == 0


def with_non_finite(step, j0, j1):
    values = smooth(step, j0, j1)
    jj, ii = np.meshgrid(np.arange(j0, j1), np.arange(NI), indexing="ij")
    values[(ii * 5 + jj) % 23 == 1] = np.nan
    values[(ii + 2 * jj) % 29 == 2] = np.inf
    values[(ii + 7 * jj) % 31 == 3] = -np.inf
    return values


def model(xml):
    import foehn
    comm = foehn.init("zq", xml)
    rank, size = comm.Get_rank(), comm.Get_size()
    j0, j1 = rank * NJ // size, (rank + 1) * NJ // size
    with foehn.Context("zq", comm) as ctx:
        ctx.set_domain_rectilinear("dom", NI, NJ, 0, j0, np.arange(NI, dtype=np.float64) * 5.0,
                                   np.arange(j0, j1, dtype=np.float64) * 5.0 - 87.5)
        ctx.set_domain_mask("dom", (~masked(j0, j1)).astype(np.int32).ravel())
        ctx.set_axis("lev", np.arange(1.0, NLEV + 1))
        ctx.close_definition()
        for step in range(1, STEPS + 1):
            ctx.update_calendar(step)
            ctx.write("ts", np.ascontiguousarray(with_non_finite(step, j0, j1)))
            ctx.write("ta", np.ascontiguousarray(np.stack([smooth(step + 3 * k, j0, j1) for k in range(NLEV)])))
    foehn.finalize()


if __name__ == "__main__":
    model(sys.argv[1])
    sys.exit(0)

import netCDF4  # noqa: E402
import pytest  # noqa: E402

from conftest import BUILD, run_mpmd  # noqa: E402
from test_quantization import bitround  # noqa: E402  (the numpy reference NetCDF's test uses)

# Each algorithm's file attributes and the per-field overrides; the same
# for the NetCDF file and the Zarr store.
ALGORITHMS = {
    "bitround": ('quantization="bitround" quantization_nsb="9"', {"ts": 9, "ta": 3, "ta8": 20}),
    "granular_bitround": ('quantization="granular_bitround" quantization_nsd="3"', {"ts": 3, "ta": 2, "ta8": 9}),
    "bitgroom": ('quantization="bitgroom" quantization_nsd="3"', {"ts": 3, "ta": 2, "ta8": 9}),
}


def file_xml(name, fmt, attributes, keep):
    what = "nsb" if "nsb" in attributes else "nsd"
    return f"""    <file id="{name}" format="{fmt}" compression_level="4" {attributes}>
      <field field_ref="ts"/>
      <field field_ref="ta" quantization_{what}="{keep['ta']}"/>
      <field field_ref="ta" name="ta8" prec="8" quantization_{what}="{keep['ta8']}"/>
    </file>
"""


FILES = "".join(file_xml(f"{a}_{ext}", fmt, attrs, keep) for a, (attrs, keep) in ALGORITHMS.items()
                for ext, fmt in (("nc", "netcdf4"), ("zarr", "zarr")))
XML = f"""<simulation><context id="zq">
  <variable_definition><variable id="report_file" type="string">report.json</variable></variable_definition>
  <calendar type="noleap" start_date="2000-01-01" time_origin="2000-01-01" timestep="1h"/>
  <axis_definition><axis id="lev"/></axis_definition>
  <domain_definition><domain id="dom" ni_glo="{NI}" nj_glo="{NJ}"/></domain_definition>
  <grid_definition><grid id="g3"><domain domain_ref="dom"/><axis axis_ref="lev"/></grid></grid_definition>
  <field_definition prec="4" operation="instant">
    <field id="ts" domain_ref="dom"/>
    <field id="ta" grid_ref="g3"/>
  </field_definition>
  <file_definition type="one_file" output_freq="1ts">
    <file id="plain">
      <field field_ref="ts"/>
      <field field_ref="ta"/>
      <field field_ref="ta" name="ta8" prec="8"/>
    </file>
{FILES}  </file_definition>
</context></simulation>
"""

RUNS = [(1, 1), (2, 0)]
FILL = {4: np.float32(9.9692099683868690e+36), 8: np.float64(9.9692099683868690e+36)}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Each configuration's directory, run once for the module."""
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = str(BUILD / "python")  # the model imports foehn from the build
    try:
        out = {}
        for clients, servers in RUNS:
            d = tmp_path_factory.mktemp(f"zq_{clients}_{servers}")
            (d / "model.xml").write_text(XML)
            run = run_mpmd(d, clients, servers, [sys.executable, __file__, d / "model.xml"], timeout=240)
            assert run.returncode == 0, run.stdout + run.stderr
            out[(clients, servers)] = d
        return out
    finally:
        if old is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = old


def read_nc(path, name):
    with netCDF4.Dataset(path) as nc:
        nc.set_auto_mask(False)
        return nc[name][:]


def read_zarr(path, name):
    import zarr
    return zarr.open_array(str(path / name), mode="r")[:]


def same_bits(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and np.ascontiguousarray(a).tobytes() == \
        np.ascontiguousarray(b).tobytes()


@pytest.mark.parametrize("config", RUNS)
@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_zarr_equals_netcdf_bit_for_bit(runs, config, algorithm):
    d = runs[config]
    keep = ALGORITHMS[algorithm][1]
    for name in ("ts", "ta", "ta8"):
        plain = read_nc(d / "plain.nc", name)
        nc = read_nc(d / f"{algorithm}_nc.nc", name)
        zr = read_zarr(d / f"{algorithm}_zarr.zarr", name)
        assert zr.dtype == nc.dtype == plain.dtype and zr.shape == nc.shape == plain.shape, name
        fill = FILL[plain.dtype.itemsize]
        finite = np.isfinite(plain)
        is_fill = plain == fill
        assert np.all(is_fill[..., masked(0, NJ)]), name  # masked points hold the fill value
        # Finite values: the Zarr chunk holds what netCDF-C wrote.
        assert same_bits(zr[finite], nc[finite]), (name, np.flatnonzero(zr[finite] != nc[finite])[:5])
        # Not the plain values: the dropped bits were used.
        data = finite & ~is_fill
        assert not np.array_equal(zr[data], plain[data]), name
        # Fill values stay, NaN and infinities are what the model sent.
        assert np.all(zr[is_fill] == fill), name
        assert same_bits(zr[~finite], plain[~finite]), name
        if name == "ts":
            assert np.isinf(plain).any() and is_fill.sum() > STEPS * masked(0, NJ).sum()  # NaN became fill
        if algorithm == "bitround":  # an independent reference: numpy's rounding of the plain values
            assert same_bits(zr[data], bitround(plain[data], keep[name])), name
            assert np.max(np.abs(zr[data] - plain[data]) / np.abs(plain[data])) <= 2.0 ** -(keep[name] + 1), name
        else:  # the digit algorithms keep that many significant digits
            error = np.abs(zr[data].astype(np.float64) - plain[data]) / np.abs(plain[data])
            assert 0 < np.max(error) <= 0.5 * 10.0 ** (1 - keep[name]), (name, np.max(error))


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_cf_quantization_metadata_in_the_store(runs, algorithm):
    import xarray as xr
    store = runs[(1, 1)] / f"{algorithm}_zarr.zarr"
    keep = ALGORITHMS[algorithm][1]
    attribute = "quantization_nsb" if algorithm == "bitround" else "quantization_nsd"
    netcdf_attribute = {"bitround": "_QuantizeBitRoundNumberOfSignificantBits",
                        "granular_bitround": "_QuantizeGranularBitRoundNumberOfSignificantDigits",
                        "bitgroom": "_QuantizeBitGroomNumberOfSignificantDigits"}[algorithm]
    with xr.open_zarr(store, decode_times=False) as z:
        assert z.attrs["Conventions"] == "CF-1.12"
        container = z[f"quantization_{algorithm}"]
        assert container.dims == ()
        assert container.attrs["algorithm"] == algorithm
        assert container.attrs["implementation"].startswith("foehn version ")
        assert "libnetcdf version 4.9" in container.attrs["implementation"]
        for name in ("ts", "ta", "ta8"):
            assert z[name].attrs["quantization"] == f"quantization_{algorithm}", name
            assert z[name].attrs[attribute] == keep[name], name
            assert z[name].attrs[netcdf_attribute] == keep[name], name
    # The NetCDF file of the same run says the same (its container, its attributes).
    with netCDF4.Dataset(runs[(1, 1)] / f"{algorithm}_nc.nc") as nc:
        assert nc[f"quantization_{algorithm}"].algorithm == algorithm
        for name in ("ts", "ta", "ta8"):
            assert nc[name].getncattr(attribute) == keep[name]
            assert nc[name].getncattr(netcdf_attribute) == keep[name]
    with open(store / "ts" / ".zarray") as f:  # quantized, then shuffled and deflated
        meta = json.load(f)
    assert meta["compressor"] == {"id": "zlib", "level": 4}
    assert meta["filters"] == [{"id": "shuffle", "elementsize": 4}]


@pytest.mark.parametrize("config", RUNS)
def test_report_counts_the_chunk_files(runs, config):
    """The report's disk bytes of each store: every chunk file (data, time,
    coordinates) written by this run, metadata not counted."""
    d = runs[config]
    report = json.loads((d / "report.json").read_text())
    files = {f["file"]: f for f in report["files"]}
    raw = STEPS * NI * NJ * (4 + 4 * NLEV + 8 * NLEV)
    for algorithm in ALGORITHMS:
        store = d / f"{algorithm}_zarr.zarr"
        chunks = [p for p in store.rglob("*") if p.is_file() and not p.name.startswith(".")]
        assert any(p.parent.name == "ta8" for p in chunks)
        disk = sum(p.stat().st_size for p in chunks)
        f = files[f"{algorithm}_zarr"]
        assert f["raw_bytes"] == raw
        assert f["disk_bytes"] == disk, algorithm
        assert f["compression_ratio"] == raw / disk
        assert f["compression_ratio"] > 1.5, algorithm  # the rounded smooth fields deflate well


def test_store_bytes_do_not_depend_on_the_writers(runs):
    """Quantized chunks are the same files with 1 server and 2 attached
    writers (each chunk quantized whole by its one writer)."""
    def files(store):
        return {p.relative_to(store): p.read_bytes() for p in store.rglob("*") if p.is_file()
                and not p.name.startswith(".")}
    for algorithm in ALGORITHMS:
        one, two = (files(runs[config] / f"{algorithm}_zarr.zarr") for config in RUNS)
        assert one.keys() == two.keys() and len(one) > 3 * STEPS, algorithm
        assert all(one[k] == two[k] for k in one), algorithm
