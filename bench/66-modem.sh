#!/bin/sh
# The modem: source asleep: wakeups of locd over IDLE_SECONDS (default 60) once an on-demand
# modem source has a good fix and its GPS is switched off (target: none until the refresh),
# and, for comparison, while the GPS runs (Policy=continuous, a trace a second). Against the
# ModemManager stand-in of the tests (Tests/Peers/modemmanager-stand-in.py, python3-dbus) on a
# private bus; bench/modem_idle.py says how. LOCD and LOCCTL pick the binaries.
set -eu
cd "$(dirname "$0")/.."
locd=${LOCD:-.build/release/locd}
locctl=${LOCCTL:-.build/release/locctl}
[ -x "$locd" ] && [ -x "$locctl" ] || { echo "modem: build first: swift build -c release"; exit 1; }
if ! /usr/bin/python3 -c 'import dbus, gi' 2>/dev/null \
  || [ ! -f /usr/share/dbus-1/interfaces/org.freedesktop.ModemManager1.Modem.Location.xml ]; then
  echo "modem: skipped (needs python3-dbus, python3-gi and modemmanager-dev)"
  exit 0
fi
/usr/bin/python3 bench/modem_idle.py "$locd" "$locctl" "${IDLE_SECONDS:-60}"
