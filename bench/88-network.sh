#!/bin/sh
# locd's network positioning side by side with the real geoclue 2.6's Wi-Fi source, each on a
# private system-like bus with the same wpa_supplicant stand-in and its own instance of the same
# geolocate stand-in (bench/network_side_by_side.py says how): Start to the first location,
# the position and accuracy each reports, and how many lookups (and scans) each sends while a
# client is held for NETWORK_SECONDS with the networks unchanged. Goals (issue 23): the same
# position, first location no later than geoclue's, fewer lookups. Both clients run at once,
# so the window costs its length once. Needs root (geoclue's configuration is bound in a mount
# namespace), geoclue-2.0, python3-dbus and python3-gi. RUNS (3: the first holds the window,
# the others measure the first location only), NETWORK_SECONDS (600, the issue's 10 minutes),
# SIGNAL_JITTER (5 dBm: a second pair of rigs, in the same window, whose signals wander by
# that much at each scan; 0 leaves it out), MOVING_SECONDS (240: the moving laptop of issue 43,
# the scene changed at 100 s and 175 s, time to notice, scans and lookups for both; 0 leaves
# it out).
set -eu
cd "$(dirname "$0")/.."
locd=${LOCD:-.build/release/locd}
[ -x "$locd" ] || { echo "network: build first: swift build -c release"; exit 1; }
if [ "$(id -u)" -ne 0 ] || [ ! -x /usr/libexec/geoclue ]; then
  echo "network: skipped (needs root and geoclue-2.0)"
  exit 0
fi
/usr/bin/python3 bench/network_side_by_side.py "$locd" "${RUNS:-3}" "${NETWORK_SECONDS:-600}" "${SIGNAL_JITTER:-5}" \
  "${MOVING_SECONDS:-240}"
