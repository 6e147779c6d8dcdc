#!/bin/sh
# NMEA decoding throughput: locd's NMEADecoder (`locbench nmea`) against gpsdecode (gpsd-clients,
# C) on the same input — every fixture log in Tests/Fixtures/nmea concatenated, repeated to at
# least MIN_SENTENCES sentences (lines starting with $ or !). RUNS runs each; medians and ratio.
# Then locd's RSS before and after decoding 10 million sentences with one decoder.
set -eu
cd "$(dirname "$0")/.."
runs=${RUNS:-5}
min_sentences=${MIN_SENTENCES:-1000000}
locbench=.build/release/locbench
command -v gpsdecode >/dev/null || { echo "nmea: gpsdecode missing (apt-get install gpsd-clients)"; exit 1; }
[ -x "$locbench" ] || { echo "nmea: build first: swift build -c release"; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat Tests/Fixtures/nmea/*.log > "$tmp/once.nmea"
per_copy=$(grep -ac '^[$!]' "$tmp/once.nmea")
copies=$(( (min_sentences + per_copy - 1) / per_copy ))
i=0
while [ $i -lt $copies ]; do cat "$tmp/once.nmea"; i=$((i + 1)); done > "$tmp/input.nmea"
sentences=$(grep -ac '^[$!]' "$tmp/input.nmea")
echo "input: $copies copies of the $(ls Tests/Fixtures/nmea/*.log | wc -l) fixture logs," \
  "$sentences sentences, $(wc -c < "$tmp/input.nmea") bytes"

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

: > "$tmp/locd"
: > "$tmp/gpsd"
i=0
while [ $i -lt $runs ]; do
  "$locbench" nmea "$tmp/input.nmea" --rss-sentences 0 | awk '/^locd_sentences_per_second/ { print $2 }' >> "$tmp/locd"
  start=$(date +%s%N)
  gpsdecode < "$tmp/input.nmea" > /dev/null
  end=$(date +%s%N)
  echo "$sentences $start $end" | awk '{ printf "%d\n", $1 / (($3 - $2) / 1e9) }' >> "$tmp/gpsd"
  i=$((i + 1))
done
locd=$(median < "$tmp/locd")
gpsd=$(median < "$tmp/gpsd")
echo "locd (NMEADecoder, in memory, 64 KiB chunks): $locd sentences/s (median of $runs; runs: $(tr '\n' ' ' < "$tmp/locd"))"
echo "gpsdecode $(gpsdecode -V 2>&1 | awk '{ print $NF }') (stdin from a cached file, JSON to /dev/null): $gpsd sentences/s (median of $runs; runs: $(tr '\n' ' ' < "$tmp/gpsd"))"
echo "ratio locd/gpsdecode: $(echo "$locd $gpsd" | awk '{ printf "%.1f", $1 / $2 }')x"
"$locbench" nmea "$tmp/input.nmea" --rss-sentences 10000000 | grep '^rss'
