#!/bin/sh
# Solar engine: the nine standard events of the 960 location-days of the reference fixture,
# locd (locbench solar) and astral 3.2 (pip, .venv) side by side; 5 runs each, medians, ratio.
# Both measure CPU time of their process, so other work on the machine does not count.
set -eu
cd "$(dirname "$0")/.."
# dash ignores arguments after `. FILE`: pass the package list as the positional parameters.
set -- astral==3.2
. bench/venv.sh
csv=Tests/Fixtures/solar/reference.csv
runs=5
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
locd_runs=""; solver_runs=""; astral_runs=""
for i in $(seq $runs); do
  out=$(.build/release/locbench solar "$csv" --rounds 50)
  locd_runs="$locd_runs $(echo "$out" | awk '/^locd events/ { print $3 }')"
  solver_runs="$solver_runs $(echo "$out" | awk '/^locd solver/ { print $5 }' | tr -d '(')"
  astral_runs="$astral_runs $("$PY" bench/solar_astral.py "$csv" 2 | awk '{ print $3 }')"
done
locd=$(echo $locd_runs | tr ' ' '\n' | median)
solver=$(echo $solver_runs | tr ' ' '\n' | median)
astral=$(echo $astral_runs | tr ' ' '\n' | median)
echo "solar: 960 location-days x 9 events, median of $runs runs"
echo "  locd   $locd events/s (per-day solve $solver us for nine events)"
echo "  astral $astral events/s"
awk -v a="$locd" -v b="$astral" 'BEGIN { printf "  locd/astral %.1fx\n", a / b }'
