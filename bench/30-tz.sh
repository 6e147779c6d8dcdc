#!/bin/sh
# Time zone from coordinates: the 10,000 random points of Tests/Fixtures/tz/points.csv,
# locd (locbench tz) and the Python peers tzfpy 2.1.1 and timezonefinder 9.0.0 (pip, .venv)
# side by side; 5 runs each, medians, ratios. Lookups/s are CPU time of one thread; "first"
# is wall time from nothing loaded to the first answer (locd: open, map, validate, look up;
# peers: import, load, look up). Also the wall time of a whole `locctl tz LAT LON` process.
set -eu
cd "$(dirname "$0")/.."
# dash ignores arguments after `. FILE`: pass the package list as the positional parameters.
set -- tzfpy==2.1.1 timezonefinder-data==3.2026.3.post1 timezonefinder==9.0.0
. bench/venv.sh
csv=Tests/Fixtures/tz/points.csv
runs=5
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
field() { awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }'; }
locd_rate=""; locd_first=""; tzfpy_rate=""; tzfpy_first=""; tf_rate=""; tf_first=""; process=""
for i in $(seq $runs); do
  out=$(.build/release/locbench tz "$csv" --rounds 100)
  locd_rate="$locd_rate $(echo "$out" | awk '/^locd lookups/ { print $3 }')"
  locd_first="$locd_first $(echo "$out" | awk '/^locd first/ { print $4 }')"
  out=$("$PY" bench/tz_peers.py "$csv" tzfpy 5)
  tzfpy_rate="$tzfpy_rate $(echo "$out" | field lookups/s)"
  tzfpy_first="$tzfpy_first $(echo "$out" | field first)"
  out=$("$PY" bench/tz_peers.py "$csv" timezonefinder 1)
  tf_rate="$tf_rate $(echo "$out" | field lookups/s)"
  tf_first="$tf_first $(echo "$out" | field first)"
  process="$process $("$PY" -c '
import subprocess, sys, time
t = time.perf_counter()
for _ in range(20):
    subprocess.run([".build/release/locctl", "tz", "59.9139", "10.7522"], check=True, stdout=subprocess.DEVNULL)
print(f"{(time.perf_counter() - t) / 20 * 1000:.2f}")')"
done
echo "$out" | sed 's/^/last timezonefinder run: /'
m() { echo $1 | tr ' ' '\n' | median; }
echo "tz: 10000 random points, single thread, median of $runs runs"
echo "  locd           $(m "$locd_rate") lookups/s, first lookup $(m "$locd_first") ms"
echo "  tzfpy          $(m "$tzfpy_rate") lookups/s, first lookup $(m "$tzfpy_first") ms"
echo "  timezonefinder $(m "$tf_rate") lookups/s, first lookup $(m "$tf_first") ms"
echo "  locctl tz LAT LON, whole process: $(m "$process") ms"
awk -v a="$(m "$locd_rate")" -v b="$(m "$tzfpy_rate")" -v c="$(m "$tf_rate")" \
  'BEGIN { printf "  locd/tzfpy %.1fx, locd/timezonefinder %.1fx\n", a / b, a / c }'
