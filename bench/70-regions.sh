#!/bin/sh
# Regions: 100,000 circular regions (`locbench regions`) in three layouts — spread over the
# world (radii 10 m to 100 km), crowded in one city (50 m to 1 km, 35 a square kilometre),
# crowded on the North Pole and across the antimeridian — each side by side with a brute
# force (every region's exact distance on every fix) in the same run. Per-fix time along a
# 1 Hz drive and for scattered fixes (a new place every fix: cold caches, the worst case),
# registration (CPU), heap bytes per region (glibc's malloc_info before and after), the
# first fix (which decides every fresh region once) and the acquisition hint. RUNS runs
# (default 3), medians. Targets: registration <= 200 ms, per-fix median <= 5 us,
# <= 256 bytes a region.
set -eu
cd "$(dirname "$0")/.."
locbench=.build/release/locbench
[ -x "$locbench" ] || { echo "regions: build first: swift build -c release"; exit 1; }
runs=${RUNS:-3}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
i=0
while [ $i -lt "$runs" ]; do
  "$locbench" regions >>"$out"
  i=$((i + 1))
done
head -n 1 "$out"
# median LAYOUT METRIC: the number after "LAYOUT METRIC" (or after "median" when it follows).
median() {
  awk -v l="$1" -v m="$2" '$1 == l && $2 == m { v = ($3 == "median") ? $4 : $3; print v }' "$out" |
    sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'
}
for layout in world city pole+antimeridian; do
  echo "$layout: registration $(median "$layout" registration_ms) ms (target <= 200);" \
    "heap $(median "$layout" heap_bytes_per_region) bytes/region (target <= 256);" \
    "first fix $(median "$layout" first_fix_ms) ms"
  echo "$layout: per fix, drive $(median "$layout" drive_fix_us) us (brute force $(median "$layout" drive_brute_fix_us) us);" \
    "scattered $(median "$layout" scattered_fix_us) us (brute force $(median "$layout" scattered_brute_fix_us) us);" \
    "target median <= 5 us"
  echo "$layout: acquisition hint $(median "$layout" hint_us) us"
done
echo "runs: $runs; the last run's lines in full:"
tail -n 21 "$out"
