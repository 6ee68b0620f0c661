"""Compression ratios and errors per algorithm on the proxy model's fields
(issue 23): one attached run of apps/miniapp writes its 13 fields (O48 L20 by
default, 2 records) into one file per way of storing them, and this script
reports for each file its size, the ratio to the uncompressed NetCDF file,
the write time the report gives, and the largest error against the
uncompressed values: relative to each value (quantization) and relative to
each level's range (GRIB packing), the worst field. Writes
results/compression.{json,md}.

  .venv/bin/python bench/compression.py                 # O48 L20, 36 steps
  .venv/bin/python bench/compression.py --grid 96 --levels 40
"""
import argparse
import json
import os
import pathlib
import subprocess
import time

import eccodes
import netCDF4
import numpy as np

import miniapp_runs

FIELDS = [("u", 131), ("v", 132), ("t", 130), ("d", 155), ("vo", 138), ("q", 133), ("cc", 248), ("o3", 203),
          ("crwc", 75), ("cswc", 76), ("clwc", 246), ("ciwc", 247), ("sp", 134)]
# file name: (file attributes, field attributes, GRIB keys or None for NetCDF)
WAYS = {
    "plain": ("", "", None),
    "deflate4": ('compression_level="4"', "", None),
    "szip": ("", 'compression_type="szip"', None),
    "bitround_nsb12_deflate4": ('compression_level="4" quantization="bitround" quantization_nsb="12"', "", None),
    "bitround_nsb7_deflate4": ('compression_level="4" quantization="bitround" quantization_nsb="7"', "", None),
    "granular_bitround_nsd3_deflate4": ('compression_level="4" quantization="granular_bitround" quantization_nsd="3"',
                                        "", None),
    "bitgroom_nsd3_deflate4": ('compression_level="4" quantization="bitgroom" quantization_nsd="3"', "", None),
    "grib2_simple16": ('format="grib2"', "", "grid_simple"),
    "grib2_ccsds16": ('format="grib2"', "", "grid_ccsds"),
}


def iodef():
    files = []
    for name, (file_attrs, field_attrs, packing) in WAYS.items():
        fields = []
        for f, param in FIELDS:
            keys = ""
            if packing:
                level = "surface" if f == "sp" else "hybrid"
                keys = (f'<variable name="paramId" type="int">{param}</variable>'
                        f'<variable name="typeOfLevel" type="string">{level}</variable>'
                        f'<variable name="packingType" type="string">{packing}</variable>'
                        f'<variable name="bitsPerValue" type="int">16</variable>')
            fields.append(f'        <field field_ref="{f}" {field_attrs}>{keys}</field>')
        files.append(f'      <file id="{name}" output_freq="3h" {file_attrs}>\n' + "\n".join(fields) + "\n      </file>")
    return f"""<?xml version="1.0"?>
<simulation>
  <context id="atm" src="{miniapp_runs.MINIAPP / 'ifs_context.xml'}">
    <file_definition type="one_file">
{chr(10).join(files)}
    </file_definition>
  </context>
</simulation>
"""


def grib_levels(path):
    with open(path, "rb") as f:
        while (h := eccodes.codes_grib_new_from_file(f)) is not None:
            yield eccodes.codes_get_values(h)
            eccodes.codes_release(h)


def errors(plain, name, way):
    """(largest error relative to each value, largest error relative to each level's range), over fields."""
    rel_value = rel_range = 0.0
    if WAYS[way][2]:
        messages = list(grib_levels(f"{way}.grib2"))  # record, then field in file order, then level
        records = plain["u"].shape[0]
        per_record = len(messages) // records
        first = 0  # the field's first message in a record
    else:
        other = netCDF4.Dataset(f"{way}.nc")
    for f, _ in FIELDS:
        exact = np.asarray(plain[f][:], dtype=np.float64)
        levels = exact.reshape(-1, exact.shape[-1])
        if WAYS[way][2]:
            depth = levels.shape[0] // records
            stored = np.stack([messages[r * per_record + first + k] for r in range(records) for k in range(depth)])
            first += depth
        else:
            stored = np.asarray(other[f][:], dtype=np.float64).reshape(levels.shape)
        error = np.abs(stored - levels)
        nonzero = levels != 0
        rel_value = max(rel_value, float(np.max(error[nonzero] / np.abs(levels[nonzero]))))
        span = levels.max(axis=1, keepdims=True) - levels.min(axis=1, keepdims=True)
        rel_range = max(rel_range, float(np.max(error / np.where(span > 0, span, 1))))
    if not WAYS[way][2]:
        other.close()
    return rel_value, rel_range


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", default=str(miniapp_runs.ROOT / "build"))
    p.add_argument("--out", default=str(miniapp_runs.HERE / "results"))
    p.add_argument("--runs-dir", default=str(miniapp_runs.ROOT / "out/compression"))
    p.add_argument("--grid", type=int, default=48)
    p.add_argument("--levels", type=int, default=20)
    p.add_argument("--steps", type=int, default=36)
    a = p.parse_args()
    workdir = pathlib.Path(a.runs_dir)
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "iodef.xml").write_text(iodef())
    cmd = ["mpiexec", "-n", "1", str(pathlib.Path(a.build).resolve() / "apps/miniapp/miniapp"), "--output", "foehn",
           "--iodef", "iodef.xml", "--grid", str(a.grid), "--levels", str(a.levels), "--steps", str(a.steps)]
    run = subprocess.run(cmd, cwd=workdir, env=dict(os.environ, **miniapp_runs.MPI_ENV), capture_output=True,
                         text=True)
    if run.returncode != 0:
        raise SystemExit(run.stdout + run.stderr)
    os.chdir(workdir)
    sizes = {w: pathlib.Path(f"{w}.{'grib2' if WAYS[w][2] else 'nc'}").stat().st_size for w in WAYS}
    table = {}
    with netCDF4.Dataset("plain.nc") as plain:
        for w in WAYS:
            rel_value, rel_range = errors(plain, "plain", w)
            table[w] = {"bytes": sizes[w], "ratio": sizes["plain"] / sizes[w], "max_error_of_value": rel_value,
                        "max_error_of_range": rel_range}
    cfg = {"grid": a.grid, "levels": a.levels, "steps": a.steps, "started": time.strftime("%Y-%m-%d %H:%M:%S"),
           "load": os.getloadavg()[0]}
    lines = [f"Proxy model O{a.grid} L{a.levels}, {a.steps} steps (2 records of 13 float32 fields), attached, "
             "one run; errors against the uncompressed file, the worst of the 13 fields.", "",
             "| file | bytes | ratio to plain | max error / value | max error / level range |", "|---|---|---|---|---|"]
    for w, t in table.items():
        lines.append(f"| {w} | {t['bytes']} | {t['ratio']:.2f} | {t['max_error_of_value']:.2e} | "
                     f"{t['max_error_of_range']:.2e} |")
    md = "\n".join(lines) + "\n"
    out = pathlib.Path(a.out)
    (out / "compression.json").write_text(json.dumps({"config": cfg, "files": table}, indent=2) + "\n")
    (out / "compression.md").write_text(md)
    print(md)


if __name__ == "__main__":
    main()
