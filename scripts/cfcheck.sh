#!/usr/bin/env bash
# Runs the CF checker (cfchecks) offline on the given files, with the
# standard name table installed by bootstrap.sh and local stand-ins for the
# area type and region tables.
#
# foehn writes Conventions = "CF-1.10", but the newest cfchecker on PyPI
# (4.1.0) knows CF versions up to 1.8 only and rejects any file that claims
# a later one. foehn's files use nothing introduced after CF-1.8, so each
# file is checked as a copy whose Conventions attribute says CF-1.8, against
# the CF-1.8 rules. Exits non-zero if any file has errors.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
for f in "$@"; do
  copy="$tmp/$(basename "$f")"
  cp "$f" "$copy"
  ncatted -h -a Conventions,global,o,c,CF-1.8 "$copy"
  "$here/.venv/bin/cfchecks" -v 1.8 \
    -s "$here/.venv/share/cf-standard-name-table.xml" \
    -a "$here/tests/data/cf/area-type-table.xml" \
    -r "$here/tests/data/cf/region-names.xml" "$copy" || status=1
done
exit $status
