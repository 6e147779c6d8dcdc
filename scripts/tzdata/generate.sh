#!/bin/sh
# make tzdata: rebuilds data/timezone-boundaries.bin from timezone-boundary-builder's
# polygons (via PyPI's timezonefinder-data, pinned in requirements.txt), then reads the
# result back with an independent reader and prints its agreement with
# Tests/Fixtures/tz/points.csv. About 4 minutes on 2 cores. See docs/TIMEZONES.md.
set -eu
cd "$(dirname "$0")/../.."
# The tzdata release the boundary release was built against: timezone-boundary-builder
# names each release after it (2026c boundaries follow tzdata 2026c's zones).
TZDATA_VERSION=2026c
work=.build/tzdata
venv=$work/venv
out=${TZDATA_OUT:-data/timezone-boundaries.bin}
mkdir -p "$work" "$(dirname "$out")"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/python" -m pip install -q --disable-pip-version-check -r scripts/tzdata/requirements.txt
"$venv/bin/python" scripts/tzdata/partition.py --out "$work/cells.pkl" \
  --land-tolerance 5 --sea-tolerance 10
"$venv/bin/python" scripts/tzdata/pack.py "$work/cells.pkl" --tzdata-version "$TZDATA_VERSION" --out "$out"
"$venv/bin/python" scripts/tzdata/check.py "$out" Tests/Fixtures/tz/points.csv
ls -l "$out"
