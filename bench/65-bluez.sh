#!/bin/sh
# The bluez: source live: locd's CPU time per BlueZ PropertiesChanged signal (one
# advertisement each) at 10,000 a second while a client ranges, with 19 and with 256
# transmitters, against python3-dbusmock's bluez5 template on a private bus (no Bluetooth
# controller here; bench/bluez_signals.py says how). Budget (issue 13): 10,000 advertisements
# a second at 5 % of one core or less. SIGNALS (50,000 a round), RUNS (5).
set -eu
cd "$(dirname "$0")/.."
locd=${LOCD:-.build/release/locd}
locctl=${LOCCTL:-.build/release/locctl}
[ -x "$locd" ] && [ -x "$locctl" ] || { echo "bluez: build first: swift build -c release"; exit 1; }
if ! /usr/bin/python3 -c 'import dbus, dbusmock.templates.bluez5' 2>/dev/null; then
  echo "bluez: skipped (needs python3-dbus and python3-dbusmock)"
  exit 0
fi
/usr/bin/python3 bench/bluez_signals.py "$locd" "$locctl" "${SIGNALS:-50000}" "${RUNS:-5}"
