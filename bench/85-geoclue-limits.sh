#!/bin/sh
# Issue 28's attacks on the GeoClue face at the issue's size (bench/geoclue_limits.py says
# which): clients one user takes, calls a silent agent holds, log lines per Start. Prints what
# the binary does; LOCD and LOCCTL choose it (default: the release build). Needs root,
# dbus-daemon, python3-dbus and python3-gi.
set -eu
cd "$(dirname "$0")/.."
locd=${LOCD:-.build/release/locd}
locctl=${LOCCTL:-$(dirname "$locd")/locctl}
[ -x "$locd" ] || { echo "geoclue-limits: build first: swift build -c release"; exit 1; }
if [ "$(id -u)" -ne 0 ]; then
  echo "geoclue-limits: skipped (needs root to run peers as other users)"
  exit 0
fi
/usr/bin/python3 bench/geoclue_limits.py "$locd" "$locctl"
