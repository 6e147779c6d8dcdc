#!/bin/sh
# Apps: the engine's time per 10 Hz fix with 1,000 apps authorized when-in-use, 200 of them
# in use (issue 11: p99 at most 2 ms), and the same with none in use and with no apps (a fix
# must cost nothing for apps that may not receive it). No peer is named for this; 5 runs,
# medians.
set -eu
cd "$(dirname "$0")/.."
[ -x .build/release/locbench ] || { echo "apps: build first: swift build -c release"; exit 1; }
runs=${RUNS:-5}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
i=0
while [ $i -lt "$runs" ]; do
  .build/release/locbench apps --apps 1000 --in-use 200 >>"$out"
  i=$((i + 1))
done
head -n 1 "$out"
median() { grep "^$1 " "$out" | awk '{print $2}' | sort -n | awk '{a[NR]=$1} END {print a[int((NR + 1) / 2)]}'; }
echo "per fix, 200 apps in use: p50 median $(median fix_p50_us) us, p99 median $(median fix_p99_us) us (target: p99 <= 2000 us)"
echo "per fix, 1000 apps none in use: p50 median $(median idle_apps_p50_us) us; no apps: $(median no_apps_p50_us) us"
