#!/bin/sh
# The compass: source: the engine's part of a heading alone (`locbench heading`: 10 sessions,
# filter 0 and 45), then locd's CPU time per heading (utime+stime from /proc/PID/stat over N
# readings, default 10000), claimed and pushed to a client, and for comparison while nobody
# wants heading. Against the iio-sensor-proxy stand-in of the tests (python3-dbusmock's
# iio-sensors-proxy template with the compass object) on a private bus; bench/compass_cpu.py
# says how. LOCD, LOCCTL and LOCBENCH pick the binaries.
set -eu
cd "$(dirname "$0")/.."
locd=${LOCD:-.build/release/locd}
locctl=${LOCCTL:-.build/release/locctl}
locbench=${LOCBENCH:-.build/release/locbench}
[ -x "$locd" ] && [ -x "$locctl" ] && [ -x "$locbench" ] || { echo "compass: build first: swift build -c release"; exit 1; }
"$locbench" heading --rounds "${RUNS:-5}"
if ! /usr/bin/python3 -c 'import dbus, importlib; importlib.import_module("dbusmock.templates.iio-sensors-proxy")' \
  2>/dev/null; then
  echo "compass: skipped (needs python3-dbus and python3-dbusmock)"
  exit 0
fi
/usr/bin/python3 bench/compass_cpu.py "$locd" "$locctl" "${HEADINGS:-10000}"
