#!/bin/sh
# libFuzzer over NMEA framing and decoding (`make fuzz`).
#   FUZZ_SECONDS  how long to fuzz (default 600)
# Builds the LocCore sources plus fuzz/FuzzNMEA.swift with `swiftc -sanitize=fuzzer,address`,
# fuzzes starting from the committed corpus (fuzz/corpus) and seeds cut from the fixture logs,
# then merges what was found into a minimized fuzz/corpus (every edge reached, few inputs). A crash stops the run; its input is
# left in fuzz/corpus-work/ (crash-*): turn it into a plain regression test.
set -eu
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-600}
work=fuzz/corpus-work
binary=.build/fuzz/fuzz-nmea
mkdir -p .build/fuzz "$work/new" "$work/seed" fuzz/corpus

echo "fuzz: building $binary"
# ld.gold warns about every ASan assembly helper it cannot export; those lines are noise.
swiftc -sanitize=fuzzer,address -parse-as-library -O -g -module-name LocCore \
  $(find Sources/LocCore -name "*.swift") fuzz/FuzzNMEA.swift -o "$binary" 2>&1 | grep -v 'Cannot export local symbol' || true
[ -x "$binary" ] || { echo "fuzz: build failed"; exit 1; }

# Seeds: every fixture log cut into pieces of 10 lines (libFuzzer works best on small inputs).
rm -f "$work"/seed/*
for log in Tests/Fixtures/nmea/*.log; do
  split -l 10 -a 3 "$log" "$work/seed/$(basename "$log" .log)-"
done

echo "fuzz: $seconds s from $(ls fuzz/corpus | wc -l) corpus inputs and $(ls "$work/seed" | wc -l) seeds"
status=0
"$binary" -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
  -artifact_prefix="$work/" "$work/new" fuzz/corpus "$work/seed" || status=$?
if [ $status -ne 0 ]; then
  echo "fuzz: FAILED (status $status); crashing inputs: $(ls "$work"/crash-* "$work"/timeout-* "$work"/oom-* 2>/dev/null)"
  exit $status
fi

# Keep a small set of inputs that still covers every edge reached (set-cover merge on edge
# coverage alone), in a fresh directory that then replaces the corpus.
rm -rf "$work/merged"
mkdir -p "$work/merged"
"$binary" -set_cover_merge=1 -use_counters=0 -max_len=4096 "$work/merged" fuzz/corpus "$work/new" "$work/seed" \
  2>&1 | tail -1
rm -rf fuzz/corpus
mv "$work/merged" fuzz/corpus
rm -rf "$work/new"
echo "fuzz: no crash in $seconds s; corpus: $(ls fuzz/corpus | wc -l) inputs, $(du -sh fuzz/corpus | cut -f1)"
