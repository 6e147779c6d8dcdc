#!/bin/sh
# The offline commands as a user runs them: whole processes, wall time from exec to exit, on
# the same input in the same run, RUNS runs each, medians and ratios (issue 16's targets:
# tz - >= 5x tzfpy, sun over ten years >= 20x astral, decode >= 20x gpsdecode).
#   tz:     1,000,000 LAT,LON lines (fixed seed) through `locctl tz -` and tzfpy's stream filter;
#           and the parsing alone (`locbench tzparse`: line splitting and the two numbers, no
#           lookup, no output; CPU time, >= 10 M lines/s)
#   sun:    `locctl sun --days 3660 --json` at Oslo and astral writing the same JSON lines
#   decode: the fixture logs repeated to 1,000,000 sentences, `locctl decode --json` and gpsdecode
set -eu
cd "$(dirname "$0")/.."
# dash ignores arguments after `. FILE`: pass the package list as the positional parameters.
set -- tzfpy==2.1.1 astral==3.2
. bench/venv.sh
runs=${RUNS:-5}
locctl=.build/release/locctl
locbench=.build/release/locbench
[ -x "$locctl" ] && [ -x "$locbench" ] || { echo "offline: build first: make release"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$PY" -c '
import random
random.seed(16)
with open("'"$tmp"'/points.txt", "w") as f:
    for _ in range(1000000):
        f.write(f"{random.uniform(-60, 70):.5f},{random.uniform(-180, 180):.5f}\n")'
cat Tests/Fixtures/nmea/*.log > "$tmp/once.nmea"
per_copy=$(grep -ac '^[$!]' "$tmp/once.nmea")
i=0
while [ $i -lt $(( (1000000 + per_copy - 1) / per_copy )) ]; do cat "$tmp/once.nmea"; i=$((i + 1)); done > "$tmp/input.nmea"
sentences=$(grep -ac '^[$!]' "$tmp/input.nmea")

# Seconds of wall time of `sh -c CMD`, stdout to /dev/null.
seconds() { "$PY" -c '
import subprocess, sys, time
t = time.perf_counter()
subprocess.run(["sh", "-c", sys.argv[1]], check=True, stdout=subprocess.DEVNULL)
print(f"{time.perf_counter() - t:.4f}")' "$1"; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# measure NAME CMD: RUNS timings into $tmp/NAME, prints the median.
measure() {
  : > "$tmp/$1"
  n=0
  while [ $n -lt "$runs" ]; do seconds "$2" >> "$tmp/$1"; n=$((n + 1)); done
  median < "$tmp/$1"
}

# Both sides must give the same answers before their times mean anything.
"$locctl" tz - < "$tmp/points.txt" > "$tmp/tz.locd" || true
"$PY" bench/tz_stream_tzfpy.py < "$tmp/points.txt" > "$tmp/tz.tzfpy"
agree=$(paste -d' ' "$tmp/tz.locd" "$tmp/tz.tzfpy" | awk '$1 == $2 { n++ } END { print n + 0 }')
tz_locd=$(measure tzl "$locctl tz - < $tmp/points.txt")
tz_peer=$(measure tzp "$PY bench/tz_stream_tzfpy.py < $tmp/points.txt")
tz_parse=$("$locbench" tzparse "$tmp/points.txt" --rounds "$runs" | awk '/^locd parse lines\/s/ { print $4 }')
sun_locd=$(measure sunl "$locctl sun --at 59.9139,10.7522 --tz Europe/Oslo --date 2026-01-01 --days 3660 --json")
sun_peer=$(measure sunp "$PY bench/sun_astral_days.py 59.9139,10.7522 2026-01-01 3660 Europe/Oslo")
dec_locd=$(measure decl "$locctl decode --json $tmp/input.nmea 2>/dev/null")
if command -v gpsdecode >/dev/null; then
  dec_peer=$(measure decp "gpsdecode < $tmp/input.nmea")
else
  dec_peer=""
fi

echo "offline commands, whole process, wall time, median of $runs runs"
awk -v a="$tz_locd" -v b="$tz_peer" -v same="$agree" 'BEGIN {
  printf "  tz -, 1000000 lines:   locctl %.3f s (%.1f M lines/s), tzfpy %.3f s: %.1fx (same zone on %d lines)\n",
    a, 1 / a, b, b / a, same }'
awk -v r="$tz_parse" 'BEGIN {
  printf "  tz - parsing alone:    %.1f M lines/s (locbench tzparse: split and scan, no lookup, CPU time)\n", r / 1e6 }'
awk -v a="$sun_locd" -v b="$sun_peer" 'BEGIN {
  printf "  sun, 3660 days --json: locctl %.3f s, astral %.3f s: %.1fx\n", a, b, b / a }'
if [ -n "$dec_peer" ]; then
  awk -v a="$dec_locd" -v b="$dec_peer" -v n="$sentences" 'BEGIN {
    printf "  decode, %d sentences: locctl --json %.3f s, gpsdecode %.3f s: %.1fx\n", n, a, b, b / a }'
else
  echo "  decode: gpsdecode missing (apt-get install gpsd-clients); locctl --json $dec_locd s"
fi
