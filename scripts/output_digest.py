#!/usr/bin/env python3
"""Prints a digest of every NetCDF file under the given directories: per file,
its dimensions, global attributes, and per variable its type, dimensions,
attributes and a SHA-256 of its raw values (no masking, no scaling).

Two builds write the same output when their digests are equal, whatever
HDF5's byte layout in the file (which parallel writes may vary). Used to show
that a refactoring changed no output:

    scripts/output_digest.py build/tests/mpi/out /tmp/pytest-base > after.txt
    diff before.txt after.txt
"""
import hashlib
import pathlib
import sys

import netCDF4
import numpy as np


# Attributes that record when a file was made (CDO's history), not what it holds.
VOLATILE_ATTRIBUTES = {"history"}


def attribute_text(owner):
    parts = []
    for name in owner.ncattrs():
        if name in VOLATILE_ATTRIBUTES:
            continue
        value = owner.getncattr(name)
        if isinstance(value, np.ndarray):
            value = f"{value.dtype}:{value.tolist()}"
        elif isinstance(value, np.generic):
            value = f"{value.dtype}:{value.item()!r}"
        parts.append(f"{name}={value!r}")
    return ";".join(parts)


def digest_group(group, prefix, lines):
    for name, dim in group.dimensions.items():
        lines.append(f"{prefix}dim {name} {len(dim)}{' unlimited' if dim.isunlimited() else ''}")
    lines.append(f"{prefix}attrs {attribute_text(group)}")
    for name, var in group.variables.items():
        var.set_auto_maskandscale(False)
        data = np.ascontiguousarray(var[...]) if var.size else np.empty(0)
        sha = hashlib.sha256(data.tobytes()).hexdigest()[:16]
        lines.append(f"{prefix}var {name} {var.dtype} {var.dimensions} {attribute_text(var)} {sha}")
    for name, sub in group.groups.items():
        digest_group(sub, f"{prefix}{name}/", lines)


def main(roots):
    # Roots are numbered, not named, so that two runs' temporary directories compare equal.
    for number, root in enumerate(map(pathlib.Path, roots)):
        for path in sorted(root.rglob("*.nc")):
            rel = path.relative_to(root)
            lines = []
            try:
                with netCDF4.Dataset(path) as ds:
                    digest_group(ds, "", lines)
            except OSError as e:
                lines.append(f"unreadable: {e}")
            for line in lines:
                print(f"{number}/{rel}: {line}")


if __name__ == "__main__":
    main(sys.argv[1:])
