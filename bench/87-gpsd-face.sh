#!/bin/sh
# Fix-to-TPV latency with 100 watchers (issue 25): locd's gpsd face against gpsd itself,
# both fed the same cycles at the same instant, in the same run (bench/gpsd_latency.py says
# how). RUNS (3), WATCHERS (100), DURATION (10 s). Then RSS and wakeups of locd with the face
# against gpsd plus a locd reading gpsd, the same feed, the same time, one run
# (bench/gpsd_footprint.py): FOOTPRINT_SECONDS (60). Needs gpsd and python3.
set -eu
cd "$(dirname "$0")/.."
locd=${LOCD:-.build/release/locd}
[ -x "$locd" ] || { echo "gpsd-face: build first: swift build -c release"; exit 1; }
command -v gpsd >/dev/null 2>&1 || [ -x /usr/sbin/gpsd ] || { echo "gpsd-face: skipped (needs gpsd)"; exit 0; }
i=0
while [ "$i" -lt "${RUNS:-3}" ]; do
  /usr/bin/python3 bench/gpsd_latency.py "$locd" "${WATCHERS:-100}" "${DURATION:-10}"
  i=$((i + 1))
done
/usr/bin/python3 bench/gpsd_footprint.py "$locd" "${FOOTPRINT_SECONDS:-60}"
