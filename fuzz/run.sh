#!/bin/sh
# libFuzzer over locd's parsers of outside input (`make fuzz`), one target after another:
#   nmea         NMEA framing and decoding (fuzz/FuzzNMEA.swift, corpus fuzz/corpus)
#   btsnoop      beacon decoding from btsnoop captures (fuzz/FuzzBTSnoop.swift, fuzz/corpus-btsnoop)
#   advertising  HCI advertising reports, AD structures, beacon frames (fuzz/FuzzAdvertising.swift,
#                fuzz/corpus-advertising)
#   FUZZ_SECONDS  how long to fuzz each target (default 600)
#   FUZZ_TARGETS  which targets (default: all three)
# Each target is built from the LocCore sources plus its fuzz/Fuzz*.swift with
# `swiftc -sanitize=fuzzer,address`, fuzzed from its committed corpus and seeds cut from the
# fixtures, then what was found is merged into a minimized corpus (every edge reached, few
# inputs). A crash stops the run; its input is left in fuzz/corpus-work/TARGET/ (crash-*):
# turn it into a plain regression test.
set -eu
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-600}
targets=${FUZZ_TARGETS:-nmea btsnoop advertising}
mkdir -p .build/fuzz

# Seeds: every NMEA fixture log cut into pieces of 10 lines (libFuzzer works best on small inputs).
seed_nmea() {
  for log in Tests/Fixtures/nmea/*.log; do
    split -l 10 -a 3 "$log" "$1/$(basename "$log" .log)-"
  done
}

# Seeds: each beacon fixture capture cut into small captures (its header and 1 to 8 records,
# the advertising reports among them), and for the advertising target the HCI events alone,
# each prefixed by its length as FuzzAdvertising.swift reads them.
seed_beacons() {
  python3 - "$1" "$2" Tests/Fixtures/beacons/*.btsnoop <<'PY'
import struct, sys
kind, out, files = sys.argv[1], sys.argv[2], sys.argv[3:]
n = 0
for path in files:
    data = open(path, "rb").read()
    header, records, o = data[:16], [], 16
    while o + 24 <= len(data):
        incl = struct.unpack(">I", data[o + 4:o + 8])[0]
        records.append(data[o:o + 24 + incl])
        o += 24 + incl
    picks = [i for i, r in enumerate(records) if r[24:26] == b"\x04\x3e"][::40]
    for k, i in enumerate(picks):
        group = records[i:i + 1 + k % 8]
        if kind == "btsnoop":
            blob = header + b"".join(group)
        else:
            blob = b"".join(bytes([len(r) - 25]) + r[25:] for r in group if len(r) - 25 < 256)
        open("%s/%s-%04d" % (out, path.split("/")[-1].split(".")[0], n), "wb").write(blob)
        n += 1
PY
}

fuzz_one() {
  name=$1
  case "$name" in
    nmea) source=fuzz/FuzzNMEA.swift; corpus=fuzz/corpus; max_len=4096 ;;
    btsnoop) source=fuzz/FuzzBTSnoop.swift; corpus=fuzz/corpus-btsnoop; max_len=4096 ;;
    advertising) source=fuzz/FuzzAdvertising.swift; corpus=fuzz/corpus-advertising; max_len=2048 ;;
    *) echo "fuzz: unknown target $name"; exit 2 ;;
  esac
  work=fuzz/corpus-work/$name
  binary=.build/fuzz/fuzz-$name
  mkdir -p "$work/new" "$work/seed" "$corpus"

  echo "fuzz: building $binary"
  # ld.gold warns about every ASan assembly helper it cannot export; those lines are noise.
  swiftc -sanitize=fuzzer,address -parse-as-library -O -g -module-name LocCore \
    $(find Sources/LocCore -name "*.swift") "$source" -o "$binary" 2>&1 | grep -v 'Cannot export local symbol' || true
  [ -x "$binary" ] || { echo "fuzz: build failed"; exit 1; }

  rm -f "$work"/seed/*
  if [ "$name" = nmea ]; then seed_nmea "$work/seed"; else seed_beacons "$name" "$work/seed"; fi

  echo "fuzz: $name for $seconds s from $(ls "$corpus" | wc -l) corpus inputs and $(ls "$work/seed" | wc -l) seeds"
  status=0
  "$binary" -max_total_time="$seconds" -max_len=$max_len -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$work/" "$work/new" "$corpus" "$work/seed" || status=$?
  if [ $status -ne 0 ]; then
    echo "fuzz: $name FAILED (status $status); crashing inputs: $(ls "$work"/crash-* "$work"/timeout-* "$work"/oom-* 2>/dev/null)"
    exit $status
  fi

  # Keep a small set of inputs that still covers every edge reached (set-cover merge on edge
  # coverage alone), in a fresh directory that then replaces the corpus.
  rm -rf "$work/merged"
  mkdir -p "$work/merged"
  "$binary" -set_cover_merge=1 -use_counters=0 -max_len=$max_len "$work/merged" "$corpus" "$work/new" "$work/seed" \
    2>&1 | tail -1
  rm -rf "$corpus"
  mv "$work/merged" "$corpus"
  rm -rf "$work/new"
  echo "fuzz: $name: no crash in $seconds s; corpus: $(ls "$corpus" | wc -l) inputs, $(du -sh "$corpus" | cut -f1)"
}

for target in $targets; do fuzz_one "$target"; done
