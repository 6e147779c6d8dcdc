#!/bin/sh
# libFuzzer over locd's parsers of outside input (`make fuzz`), one target after another:
#   nmea         NMEA framing and decoding (fuzz/FuzzNMEA.swift, corpus fuzz/corpus)
#   config       locd.conf and timer files through the key table (fuzz/FuzzConfig.swift,
#                fuzz/corpus-config)
#   timerrule    timer rules, days, time spans, distances (fuzz/FuzzTimerRule.swift,
#                fuzz/corpus-timerrule)
#   json         JSON and gpsd's reports (fuzz/FuzzJSON.swift, fuzz/corpus-json)
#   btsnoop      beacon decoding from btsnoop captures (fuzz/FuzzBTSnoop.swift, fuzz/corpus-btsnoop)
#   advertising  HCI advertising reports, AD structures, beacon frames (fuzz/FuzzAdvertising.swift,
#                fuzz/corpus-advertising)
#   bluez        Device1 announcements, property changes and removals into the bluez: source's
#                device table (fuzz/FuzzBlueZ.swift, fuzz/corpus-bluez)
#   wire         the socket protocol: WireRequest.decode and ServerMessage.decode
#                (fuzz/FuzzWireRequest.swift, fuzz/corpus-wire)
#   params       every method's params decoded to typed requests, and the same objects as
#                apps.json and state.json records (fuzz/FuzzWireParams.swift, fuzz/corpus-params,
#                with the dictionary fuzz/params.dict: numbers past the conversions' limits)
# Usage: fuzz/run.sh [TARGET...]
#   FUZZ_TARGETS  which targets when none is named (default: every one fuzz/Main.swift lists)
#   FUZZ_SECONDS  how long to fuzz each target (default 600)
# One binary serves every target: the LocCore and LocProtocol sources and fuzz/*.swift compiled
# as one module with `swiftc -sanitize=fuzzer,address` (once, not once per target);
# FUZZ_TARGET picks the target (fuzz/Main.swift). Each is fuzzed from its committed corpus and
# seeds made here, then what was found is merged into a minimized corpus (every edge reached,
# few inputs). A crash stops the run; its input is left in fuzz/corpus-work/TARGET/ (crash-*):
# turn it into a plain regression test. Each target ends with its executions and their rate.
set -eu
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-600}
all=$(sed -n 's/^  "\([a-z0-9]*\)": fuzz.*/\1/p' fuzz/Main.swift)
targets=${*:-${FUZZ_TARGETS:-$all}}
binary=.build/fuzz/fuzz-locd
mkdir -p .build/fuzz

# Seeds: every NMEA fixture log cut into pieces of 10 lines (libFuzzer works best on small inputs).
seed_nmea() {
  for log in Tests/Fixtures/nmea/*.log; do
    split -l 10 -a 3 "$log" "$1/$(basename "$log" .log)-"
  done
}

# Seeds: the shipped locd.conf in pieces, and timer files and spans of each kind.
seed_config() {
  split -l 12 -a 2 conf/locd.conf "$1/locd.conf-"
  printf '[Timer]\nRule=sunset-30m Mon-Fri\nMissed=once\n[Action]\nUnit=night-mode.service\n' > "$1/timer-unit"
  printf '[Timer]\nRule=07:30\n[Action]\nCommand=/usr/bin/logger "it is \\"late\\""\nUser=nobody\n' > "$1/timer-command"
  printf '[Position]\nFreshFor=1h 30min\nSignificantDistance=2.5km\n[Sources]\nSource=\nSource=replay:/x?speed=max\n' \
    > "$1/spans"
}

# Seeds: a rule, span or distance of each form docs/TIMERS.md and locd.conf(5) give.
seed_timerrule() {
  i=0
  for rule in 'sunset-30m Mon-Fri' '07:30' '23:59:59 Sat,Sun' 'civil-dusk+10m' 'elevation:-8.5:evening+1h5m' \
    'solar-noon Fri..Mon' 'astronomical_dawn-12h' '1h 30min' '2.5km' '500ms' '0.5s' 'sunrise+1h30m45s Mon,Wed-Fri'; do
    i=$((i + 1))
    printf '%s' "$rule" > "$1/rule-$i"
  done
}

# Seeds: gpsd's own reports from the fixtures' regression output, one per input, and requests.
seed_json() {
  grep -h '^{' Tests/Fixtures/nmea/*.chk | sort -u | head -400 | split -l 1 -a 3 - "$1/gpsd-"
  printf '{"id":1,"method":"hello","params":{"version":1}}' > "$1/hello"
  printf '{"a":[1,-2.5e3,true,null,"\\u00e9\\ud83d\\ude00"],"b":{"c":{}},"d":"x\\n"}' > "$1/mixed"
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

# Seeds for the bluez target (the encoding in fuzz/FuzzBlueZ.swift): a device announced with
# an address, an RSSI and an iBeacon or AltBeacon frame of the fixtures' UUID, then changed,
# invalidated, cut short and removed.
seed_bluez() {
  python3 - "$1" <<'PY'
import sys
out = sys.argv[1]
uuid = bytes.fromhex("494e54454c4c495f524f434b535f4857")
ibeacon = bytes([0x4C, 0x00, 23, 0x02, 0x15]) + uuid + bytes([0x50, 0x75, 0xF2, 0xFF, 0xC2])
altbeacon = bytes([0x18, 0x01, 24, 0xBE, 0xAC]) + uuid + bytes([0, 1, 0, 2, 0xC5, 0x00])
address = bytes([0, 0xA4, 0xC1, 0x38, 0xEC, 0x0B, 0x03])
seeds = {
  "added": bytes([0x00, 3]) + address + bytes([1, 0xBE, 3, 1]) + ibeacon,
  "changed": bytes([0x00, 2]) + address + bytes([3, 1]) + altbeacon + bytes([0x01, 1, 1, 0xC0, 0x01, 1, 2]),
  "cut": bytes([0x04, 3]) + address + bytes([1, 0xC0, 3, 2]) + ibeacon[:12],
  "removed": bytes([0x00, 3]) + address + bytes([1, 0xBE, 3, 1]) + ibeacon + bytes([0x02, 0x01, 1, 1, 0xB0, 0x03]),
}
for name, blob in seeds.items():
    open("%s/%s" % (out, name), "wb").write(blob)
PY
}

# Seeds: the request and message lines of PROTOCOL.md's examples, one per file.
seed_wire() {
  grep -h '^{"' docs/PROTOCOL.md | split -l 1 -a 3 - "$1/doc-"
}

# Seeds for the params target (fuzz/FuzzWireParams.swift): a byte naming the method by its
# place in WireRequest.methods, then the params of a PROTOCOL.md example of that method;
# and an apps.json record with regions (dwell among them) under the first method.
seed_params() {
  python3 - "$1" <<'PY'
import json, re, sys
out = sys.argv[1]
src = open("Sources/LocProtocol/Messages/WireRequest.swift").read()
names = re.findall(r'"([a-z-]+)"', src[src.index("static let methods"):src.index("]", src.index("static let methods"))])
n = 0
for line in open("docs/PROTOCOL.md"):
    if not line.startswith('{"') or '"method"' not in line:
        continue
    m = json.loads(line)
    if m["method"] in names:
        body = json.dumps(m.get("params", {}), separators=(",", ":")).encode()
        open("%s/doc-%03d" % (out, n), "wb").write(bytes([names.index(m["method"])]) + body)
        n += 1
record = {"uid": 1000, "app": "org.example.Fences", "status": "always", "accuracy": "full",
          "provisional": False, "upgradeAsked": False, "registrations": ["region"],
          "firstSeen": "2026-06-21T10:00:00Z", "lastUsed": None,
          "regions": [{"id": "home", "latitude": 59.9, "longitude": 10.7, "radius": 150,
                       "entry": True, "exit": True, "dwell": 300}]}
open("%s/record" % out, "wb").write(bytes([0]) + json.dumps(record, separators=(",", ":")).encode())
PY
}

fuzz_one() {
  name=$1
  case "$name" in
    nmea) corpus=fuzz/corpus; max_len=4096 ;;
    json) corpus=fuzz/corpus-json; max_len=65536 ;;
    advertising) corpus=fuzz/corpus-advertising; max_len=2048 ;;
    wire) corpus=fuzz/corpus-wire; max_len=8192 ;;
    params) corpus=fuzz/corpus-params; max_len=8192 ;;
    *) corpus=fuzz/corpus-$name; max_len=4096 ;;
  esac
  echo "$all" | grep -qx "$name" || { echo "fuzz: unknown target $name (fuzz/Main.swift: $(echo $all))"; exit 2; }
  export FUZZ_TARGET=$name
  work=fuzz/corpus-work/$name
  rm -rf "$work/seed"
  mkdir -p "$work/new" "$work/seed" "$corpus"
  case "$name" in
    nmea) seed_nmea "$work/seed" ;;
    config) seed_config "$work/seed" ;;
    timerrule) seed_timerrule "$work/seed" ;;
    json) seed_json "$work/seed" ;;
    btsnoop | advertising) seed_beacons "$name" "$work/seed" ;;
    wire) seed_wire "$work/seed" ;;
    params) seed_params "$work/seed" ;;
    bluez) seed_bluez "$work/seed" ;;
  esac

  echo "fuzz: $name for $seconds s from $(ls "$corpus" | wc -l) corpus inputs and $(ls "$work/seed" | wc -l) seeds"
  status=0
  dict=""
  [ -f "fuzz/$name.dict" ] && dict="-dict=fuzz/$name.dict"
  "$binary" -max_total_time="$seconds" -max_len=$max_len -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    $dict -artifact_prefix="$work/" "$work/new" "$corpus" "$work/seed" 2> "$work/log" || status=$?
  grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' "$work/log" | sed "s/^/fuzz: $name: /"
  if [ $status -ne 0 ]; then
    grep -m 1 -A 2 -E 'Fatal error|ERROR: (AddressSanitizer|libFuzzer)' "$work/log" || tail -40 "$work/log"
    grep -A 3 '^MS: ' "$work/log" | tail -4
    echo "fuzz: $name FAILED (status $status); crashing inputs: $(ls "$work"/crash-* "$work"/timeout-* "$work"/oom-* 2>/dev/null)"
    exit $status
  fi

  # Keep a small set of inputs that still covers every edge reached (set-cover merge on edge
  # coverage alone), in a fresh directory that then replaces the corpus.
  rm -rf "$work/merged"
  mkdir -p "$work/merged"
  "$binary" -set_cover_merge=1 -use_counters=0 -max_len=$max_len "$work/merged" "$corpus" "$work/new" "$work/seed" \
    > /dev/null 2>&1
  rm -rf "$corpus"
  mv "$work/merged" "$corpus"
  rm -rf "$work/new"
  echo "fuzz: $name: no crash in $seconds s; corpus: $(ls "$corpus" | wc -l) inputs, $(du -sh "$corpus" | cut -f1)"
}

echo "fuzz: building $binary"
rm -f "$binary"
# ld.gold warns about every ASan assembly helper it cannot export, and LocProtocol's
# `import LocCore` is moot in one module; those lines are noise.
swiftc -sanitize=fuzzer,address -parse-as-library -O -g -swift-version 6 -module-name LocCore \
  $(find Sources/LocCore Sources/LocProtocol -name "*.swift") fuzz/*.swift -o "$binary" 2>&1 \
  | grep -v -e 'Cannot export local symbol' -e 'ignoring import' -e '^ *[0-9]* | ' -e '^ *|' || true
[ -x "$binary" ] || { echo "fuzz: build failed"; exit 1; }

for target in $targets; do fuzz_one "$target"; done
