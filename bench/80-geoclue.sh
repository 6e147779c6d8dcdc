#!/bin/sh
# locd's GeoClue2 face side by side with the real geoclue 2.6, each on a private system bus
# fed the same live NMEA stream: Start to the first location, CPU and wakeups with a client
# active and idle, RSS (bench/geoclue_side_by_side.py says how). Goals (issue 14): first
# location no later than geoclue's, RSS at most half of geoclue's, no wakeups idle.
# Needs root (geoclue's configuration is bound in a mount namespace), geoclue-2.0,
# python3-dbus and python3-gi. RUNS (5), ACTIVE_SECONDS (10), IDLE_SECONDS (60, twice: with the feed
# sending and silent).
set -eu
cd "$(dirname "$0")/.."
locd=${LOCD:-.build/release/locd}
[ -x "$locd" ] || { echo "geoclue: build first: swift build -c release"; exit 1; }
if [ "$(id -u)" -ne 0 ] || [ ! -x /usr/libexec/geoclue ]; then
  echo "geoclue: skipped (needs root and geoclue-2.0)"
  exit 0
fi
/usr/bin/python3 bench/geoclue_side_by_side.py "$locd" "${RUNS:-5}" "${ACTIVE_SECONDS:-10}" "${IDLE_SECONDS:-60}"
