#!/bin/sh
# What the daemon spends per fix with and without skies (issue 42, item 7; decision 0069):
# instructions (valgrind's callgrind, total Ir) of a stripped release locd replaying every
# fixture log of Tests/Fixtures/nmea, concatenated, as fast as it can (`--clock replay
# --exit-at-end`, replay:...?speed=max), from start to exit, divided by the fixes the input
# decodes to (`locctl decode`). Three daemons on the same input:
#   before      9f6a2c2, before the sky view (BEFORE_LOCD=PATH, default the build
#               bench/52-before-after.sh makes in .build/before/9f6a2c2);
#   no reader   this build, the replay released by `locctl watch` (locations only): nobody
#               reads satellites, so no sky is assembled;
#   skies read  this build, released by `locctl watch` too, with `[NMEAOut] Enable=yes` (a
#               pty nobody opens): a sky reader from the start, so skies are assembled
#               throughout, and nothing else differs.
# Startup (zone data, config) is in every figure, the same for all three; the third column
# against the second is what a sky reader costs. Acquisition is continuous in all three: the
# logs' times jump years forward and back (each jump a clock step since b39124d; before it an
# on-demand daemon without a location subscriber lived through every 15-minute refresh of
# those years), and continuous acquisition keeps the figures comparable with 9f6a2c2's, which
# still does. Needs valgrind.
set -eu
cd "$(dirname "$0")/.."
locd=${LOCD:-.build/release/locd}
locctl=${LOCCTL:-.build/release/locctl}
before=${BEFORE_LOCD:-}
[ -z "$before" ] && [ -x .build/before/9f6a2c2/.build/release/locd ] && before=.build/before/9f6a2c2/.build/release/locd
command -v valgrind >/dev/null || { echo "sky-cost: valgrind missing (apt-get install valgrind)"; exit 0; }
[ -x "$locd" ] && [ -x "$locctl" ] || { echo "sky-cost: build first: swift build -c release"; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat Tests/Fixtures/nmea/*.log > "$tmp/input.nmea"
printf '[Acquisition]\nPolicy=continuous\n' > "$tmp/plain.conf"
printf '[Acquisition]\nPolicy=continuous\n[NMEAOut]\nEnable=yes\nLink=%s/nmea\n' "$tmp" > "$tmp/sky.conf"
fixes=$("$locctl" decode --json "$tmp/input.nmea" 2> /dev/null | grep -c '"time"' || true)
echo "input: the $(ls Tests/Fixtures/nmea/*.log | wc -l) fixture logs, $(wc -c < "$tmp/input.nmea") bytes," \
  "$fixes fixes (locctl decode)"

# Instructions of one daemon run: $1 the locd, $2... the locctl command that releases it.
instructions() {
  daemon=$1
  shift
  name=$(basename "$(dirname "$(dirname "$(dirname "$daemon")")")")-$$-$(date +%s%N)
  cp "$daemon" "$tmp/locd.$name"
  strip "$tmp/locd.$name"
  rm -rf "$tmp/state" && mkdir "$tmp/state"
  sock="$tmp/locd.sock"
  rm -f "$sock"
  valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.$name" "$tmp/locd.$name" --config "$tmp/${CONF:-plain}.conf" \
    --socket "$sock" --state-dir "$tmp/state" --timers-dir "$tmp/state" --log-level warning \
    --clock replay --exit-at-end --source "replay:$tmp/input.nmea?speed=max" > /dev/null 2>&1 &
  pid=$!
  i=0
  while [ ! -S "$sock" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
  "$locctl" --socket "$sock" "$@" > /dev/null 2>&1 &
  client=$!
  wait $pid || true
  kill $client 2>/dev/null || true
  wait $client 2>/dev/null || true
  awk '/^summary:|^totals:/ { print $2; exit }' "$tmp/cg.$name"
}

per_fix() { awk -v n="$1" -v f="$fixes" 'BEGIN { printf "%.0f", n / f }'; }
printf '%-12s %16s %12s\n' "daemon" "instructions" "per fix"
if [ -n "$before" ]; then
  b=$(instructions "$before" watch)
  printf '%-12s %16s %12s\n' "before" "$b" "$(per_fix "$b")"
fi
n=$(instructions "$locd" watch)
printf '%-12s %16s %12s\n' "no reader" "$n" "$(per_fix "$n")"
s=$(CONF=sky instructions "$locd" watch)
printf '%-12s %16s %12s\n' "skies read" "$s" "$(per_fix "$s")"
awk -v n="$n" -v s="$s" -v f="$fixes" \
  'BEGIN { printf "a sky reader costs %.0f instructions per fix (%.1f %% of the run)\n", (s - n) / f, 100 * (s - n) / n }'
[ -n "$before" ] && awk -v b="$b" -v n="$n" -v f="$fixes" \
  'BEGIN { printf "no reader against before: %+.0f instructions per fix (%+.1f %%)\n", (n - b) / f, 100 * (n - b) / b }'
[ -n "$before" ] || echo "(no 9f6a2c2 locd: bench/52-before-after.sh builds it, or BEFORE_LOCD=PATH)"
