#!/bin/sh
# Regions through the engine (`locbench regions-engine`): 100,000 regions registered by
# register-region requests of 10 always apps, then a 1 Hz drive at 25 m/s through the city
# layout, per Engine.handle of a fix (acceptance, publishing, the monitor, delivery through
# the apps gate, the hint and the timers after the event), beside the same drive without
# regions. RUNS runs (default 3), medians. bench/70-regions.sh has the core's own figures.
set -eu
cd "$(dirname "$0")/.."
locbench=.build/release/locbench
[ -x "$locbench" ] || { echo "regions-engine: build first: swift build -c release"; exit 1; }
runs=${RUNS:-3}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
i=0
while [ $i -lt "$runs" ]; do
  "$locbench" regions-engine >>"$out"
  i=$((i + 1))
done
head -n 1 "$out"
median() { grep "^$1 " "$out" | awk '{print $2}' | sort -n | awk '{a[NR]=$1} END {print a[int((NR + 1) / 2)]}'; }
echo "registration through requests: $(median register_total_ms) ms for 100,000"
echo "per fix: p50 $(median fix_p50_us) us, p99 $(median fix_p99_us) us; without regions p50 $(median no_regions_fix_p50_us) us"
echo "first fix (decides every region): $(median first_fix_ms) ms; region events delivered: $(median events_delivered)"
