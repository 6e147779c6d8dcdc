#!/bin/sh
# What decoding a log costs, whole process (issue 42, item 7): `locctl decode --json` against
# gpsdecode (gpsd-clients, C; JSON out) on the same input, every fixture log of
# Tests/Fixtures/nmea concatenated and repeated to at least DECODE_MB megabytes (12). RUNS (5)
# runs of each, in turn, after one of each not counted; the wall time of each process
# (date before and after, output to /dev/null); prints each one's runs, the minimum, and
# gpsdecode's minimum over locctl's (how many times faster locd decodes). BEFORE_LOCCTL=PATH
# adds a locctl of another build to the same rounds (default: 9f6a2c2's, before the sky view,
# where bench/52-before-after.sh built it). bench/35-offline.sh has the medians beside the
# other offline commands; this one the minimum, the instructions and the build before. With
# valgrind installed, the instructions of one run of each locctl (callgrind's total, stripped
# copies) on an eighth of the input; INSTRUCTIONS=0 skips that.
set -eu
cd "$(dirname "$0")/.."
runs=${RUNS:-5}
megabytes=${DECODE_MB:-12}
locctl=${LOCCTL:-.build/release/locctl}
before=${BEFORE_LOCCTL:-}
# The before build bench/52-before-after.sh makes of 9f6a2c2, when it is there.
[ -z "$before" ] && [ -x .build/before/9f6a2c2/.build/release/locctl ] && before=.build/before/9f6a2c2/.build/release/locctl
command -v gpsdecode >/dev/null || { echo "decode-cost: gpsdecode missing (apt-get install gpsd-clients)"; exit 1; }
[ -x "$locctl" ] || { echo "decode-cost: build first: swift build -c release"; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat Tests/Fixtures/nmea/*.log > "$tmp/once.nmea"
size=$(wc -c < "$tmp/once.nmea")
copies=$(( (megabytes * 1000000 + size - 1) / size ))
i=0
while [ $i -lt $copies ]; do cat "$tmp/once.nmea"; i=$((i + 1)); done > "$tmp/input.nmea"
echo "input: $copies copies of the $(ls Tests/Fixtures/nmea/*.log | wc -l) fixture logs," \
  "$(wc -c < "$tmp/input.nmea") bytes, $(grep -ac '^[$!]' "$tmp/input.nmea") sentences"

# Milliseconds of wall time of one run of the command (its output to /dev/null).
elapsed() {
  start=$(date +%s%N)
  "$@" > /dev/null 2>&1
  end=$(date +%s%N)
  echo $(( (end - start) / 1000000 ))
}
locd_run() { elapsed "$locctl" decode --json "$tmp/input.nmea"; }
before_run() { elapsed "$before" decode --json "$tmp/input.nmea"; }
gpsd_run() { elapsed sh -c 'exec gpsdecode < "$1"' sh "$tmp/input.nmea"; }

locd_run > /dev/null
gpsd_run > /dev/null
[ -n "$before" ] && before_run > /dev/null
: > "$tmp/locd"; : > "$tmp/gpsd"; : > "$tmp/before"
i=0
while [ $i -lt "$runs" ]; do
  locd_run >> "$tmp/locd"
  gpsd_run >> "$tmp/gpsd"
  [ -n "$before" ] && before_run >> "$tmp/before"
  i=$((i + 1))
done
minimum() { sort -n "$1" | head -n 1; }
l=$(minimum "$tmp/locd")
g=$(minimum "$tmp/gpsd")
echo "locctl decode --json: minimum $l ms of $runs (runs: $(tr '\n' ' ' < "$tmp/locd")ms)"
echo "gpsdecode $(gpsdecode -V 2>&1 | awk '{ print $NF }'): minimum $g ms of $runs (runs: $(tr '\n' ' ' < "$tmp/gpsd")ms)"
echo "gpsdecode/locctl (minimum over minimum): $(echo "$g $l" | awk '{ printf "%.1f", $1 / $2 }')x"
if [ -n "$before" ]; then
  b=$(minimum "$tmp/before")
  echo "before ($before): minimum $b ms (runs: $(tr '\n' ' ' < "$tmp/before")ms);" \
    "gpsdecode/before $(echo "$g $b" | awk '{ printf "%.1f", $1 / $2 }')x," \
    "this/before $(echo "$l $b" | awk '{ printf "%.3f", $1 / $2 }')"
fi

[ "${INSTRUCTIONS:-1}" = 0 ] && exit 0
command -v valgrind >/dev/null || { echo "instructions: skipped (no valgrind)"; exit 0; }
head -c $(( $(wc -c < "$tmp/input.nmea") / 8 )) "$tmp/input.nmea" > "$tmp/eighth.nmea"
# On a stripped copy: valgrind 3.19 gives up on the release build's debug information.
instructions() {
  strip -o "$tmp/stripped" "$1"
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$tmp/stripped" decode --json "$tmp/eighth.nmea" 2>&1 \
    > /dev/null | awk '/Collected :/ { print $NF }'
}
n=$(instructions "$locctl")
echo "instructions, locctl decode --json of $(wc -c < "$tmp/eighth.nmea") bytes (callgrind): $n"
if [ -n "$before" ]; then
  m=$(instructions "$before")
  echo "instructions, before: $m; this/before $(echo "$n $m" | awk '{ printf "%.3f", $1 / $2 }')"
fi
