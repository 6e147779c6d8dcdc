#!/bin/sh
# The daemon from outside: exec to READY=1, idle RSS, wakeups of an idle daemon over
# IDLE_SECONDS (default 60) with no source traffic and with an on-demand gpsd source
# (gpsfake) once it has a good fix (target: none until the refresh; Policy=continuous
# alongside for comparison), status round trips, fix-to-subscriber latency with 100
# subscribers and with 1,000, and that latency's floor (no daemon) at both. No peer is named
# for these; targets are printed next to the figures.
set -eu
cd "$(dirname "$0")/.."
[ -x .build/release/locbench ] || { echo "daemon: build first: swift build -c release"; exit 1; }
.build/release/locbench daemon --idle-seconds "${IDLE_SECONDS:-60}"
# The floor of the latency above: the same feed and reader, 100 Unix sockets, no daemon (a
# bare process relaying each NMEA cycle as one line to each socket in turn): what this
# machine's kernel and scheduler cost. Both are timed from when the fix's bytes were written
# (decision 0058).
.build/release/locbench daemon --delivery-floor
.build/release/locbench daemon --latency-only --subscribers 1000
.build/release/locbench daemon --delivery-floor --subscribers 1000
