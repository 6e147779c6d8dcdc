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
# For scale, a Swift program linked like locd (static standard library, and libstdc++ when
# make release links it statically) that prints "ready" and sleeps: the RSS any Swift
# program starts from (decision 0031).
floor_dir=$(mktemp -d)
trap 'rm -rf "$floor_dir"' EXIT
printf 'import Glibc\nprint("ready")\nfflush(stdout)\nsleep(3600)\n' > "$floor_dir/sleeps.swift"
if swiftc -O -static-stdlib -L .build/static-libstdc++ "$floor_dir/sleeps.swift" -o "$floor_dir/sleeps" 2>/dev/null; then
  export FLOOR="$floor_dir/sleeps"
fi
/usr/bin/python3 bench/geoclue_side_by_side.py "$locd" "${RUNS:-5}" "${ACTIVE_SECONDS:-10}" "${IDLE_SECONDS:-60}"
