#!/bin/sh
# The modem: source's time from an app's request (locctl locate) to the first fix, cold
# (network positioning off: no assistance) and assisted (on: the XTRA file fetched from a local
# server and injected before Setup), medians of RUNS (default 3) each. Against the tests'
# ModemManager stand-in, whose receiver simulates its start: COLD_MS (default 8000) without
# assistance, WARM_MS (default 1000) with it; bench/modem_ttff.py says how. LOCD and LOCCTL
# pick the binaries.
set -eu
cd "$(dirname "$0")/.."
locd=${LOCD:-.build/release/locd}
locctl=${LOCCTL:-.build/release/locctl}
[ -x "$locd" ] && [ -x "$locctl" ] || { echo "modem-ttff: build first: swift build -c release"; exit 1; }
if ! /usr/bin/python3 -c 'import dbus, gi' 2>/dev/null \
  || [ ! -f /usr/share/dbus-1/interfaces/org.freedesktop.ModemManager1.Modem.Location.xml ]; then
  echo "modem-ttff: skipped (needs python3-dbus, python3-gi and modemmanager-dev)"
  exit 0
fi
/usr/bin/python3 bench/modem_ttff.py "$locd" "$locctl" "${RUNS:-3}" "${COLD_MS:-8000}" "${WARM_MS:-1000}"
