#!/bin/sh
# Timers and regeneration in the engine: CPU time of one significant change with 1,000 timers
# (zone, today's and tomorrow's solar days, every deadline re-planned) and of one 10 Hz fix
# that changes nothing. No peer is named for this; 5 runs, medians.
set -eu
cd "$(dirname "$0")/.."
[ -x .build/release/locbench ] || { echo "timers: build first: swift build -c release"; exit 1; }
runs=${RUNS:-5}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
i=0
while [ $i -lt "$runs" ]; do
  .build/release/locbench timers --timers 1000 >>"$out"
  i=$((i + 1))
done
head -n 1 "$out"
median() { grep "^$1 " "$out" | awk '{print $2}' | sort -n | awk '{a[NR]=$1} END {print a[int((NR + 1) / 2)]}'; }
echo "regeneration per significant change, 1000 timers: median $(median regeneration_us) us ($runs runs)"
echo "planning per 10 Hz fix without significant change: median $(median fix_us) us (target: microseconds)"
if grep -q '^fix_lookup_us ' "$out"; then
  echo "the same with the shipped time-zone boundary lookup: median $(median fix_lookup_us) us"
fi
