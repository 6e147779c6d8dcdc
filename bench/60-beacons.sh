#!/bin/sh
# Beacons: the CPU cost of advertisements through the btsnoop/HCI/beacon decoder and the
# ranging and monitoring machine (`locbench beacons`), from the fixture captures
# (Tests/Fixtures/beacons): decode only on the captures as recorded, then a capture of
# ADVERTISEMENTS (default 200,000) beacon advertisements at 10,000 a second built from their
# iBeacon records, with the captures' own transmitters and with 256. Target: 10,000
# advertisements a second at 5% of one core or less. No peer decoder is installed here
# (btmon comes with bluez); the budget is printed next to the figures.
set -eu
cd "$(dirname "$0")/.."
locbench=.build/release/locbench
[ -x "$locbench" ] || { echo "beacons: build first: swift build -c release"; exit 1; }
"$locbench" beacons Tests/Fixtures/beacons/*.btsnoop --rounds "${RUNS:-5}" \
  --advertisements "${ADVERTISEMENTS:-200000}"
