#!/bin/sh
# Regenerates link/locd.order, the order in which the release link lays out locd's functions
# (decision 0057): the functions that run while locd serves, side by side at the start of
# .text, so that the pages the kernel maps around each fault hold code that runs rather than
# its cold neighbours. Run it after changes that add or rename hot code; a stale file only
# costs memory (lld leaves a name it does not find, and a new function goes with the cold).
#
# What runs is read two ways over the same four workloads (the GeoClue face with a client
# active, bench/80-geoclue.sh's run; the demo drive with `locctl watch` and status calls;
# a gpsd source fed by gpsfake; a gpsd source with no gpsd, retried):
# - callgrind over the release build, its profile cut in two where the event loop starts
#   (--dump-before=sd_event_loop): what runs from then on, which is after locd paged its
#   code out (MADV_PAGEOUT), the standard library's and the runtime's functions and the
#   first turns of the loop included, comes first; what ran before, start-up, next. The
#   names are the release build's own, generic specializations and outlined helpers too.
# - an instrumented build (-profile-generate) running at full speed: every function of
#   locd's own modules that ran, most called first; those callgrind did not see come last
#   (the instrumented build inlines and specializes differently, so some of its names are
#   not the release build's).
# Needs root, geoclue-2.0, gpsd, gpsd-clients and valgrind; takes about 10 minutes.
set -eu
cd "$(dirname "$0")/.."
root=$(pwd)
work=$(mktemp -d /tmp/locd-order-XXXXXX)
trap 'rm -rf "$work"' EXIT
toolchain=$(dirname "$(command -v swift)")

echo "order: building the instrumented locd"
swift build -c release --static-swift-stdlib --scratch-path "$work/pgo" -Xswiftc -profile-generate \
  --product locd >"$work/pgo.log" 2>&1 || { tail -20 "$work/pgo.log"; exit 1; }
pgo=$(swift build -c release --scratch-path "$work/pgo" --show-bin-path)/locd
echo "order: building the release locd"
make -s release >/dev/null
strip --strip-debug -o "$work/locd" .build/release/locd

# The three workloads, each with LOCD (a command) as the daemon.
workloads() {
  kind=$1
  if [ -x /usr/libexec/geoclue ] && [ "$(id -u)" -eq 0 ]; then
    LOCD_DATA_DIR="$root/data" LOCD="$work/run-$kind" RUNS=1 ACTIVE_SECONDS=10 IDLE_SECONDS=5 \
      sh bench/80-geoclue.sh >"$work/geoclue-$kind.log" 2>&1
  else
    echo "order: geoclue workload skipped (needs root and geoclue-2.0)"
  fi
  d="$work/drive-$kind"
  mkdir -p "$d/timers.d"
  for f in demo/timers.d/*.timer; do install -m 0644 "$f" "$d/timers.d/"; done
  LOCD_DATA_DIR="$root/data" "$work/run-$kind" --config /dev/null --socket "$d/s" --state-dir "$d/st" \
    --timers-dir "$d/timers.d" --clock replay --source "replay:$root/demo/badajoz-elvas.nmea?speed=20&loop=1" \
    >"$d/log" 2>&1 &
  pid=$!
  sleep 8
  timeout 40 .build/release/locctl --socket "$d/s" watch >/dev/null 2>&1 &
  for _ in 1 2 3 4 5 6; do
    sleep 5
    .build/release/locctl --socket "$d/s" status >/dev/null 2>&1 || true
  done
  for c in sun timers zone sources apps; do .build/release/locctl --socket "$d/s" "$c" >/dev/null 2>&1 || true; done
  kill "$pid"
  wait "$pid" || true
  g="$work/gpsd-$kind"
  mkdir -p "$g"
  gpsfake -P 29479 -S -c 0.1 -q Tests/Fixtures/nmea/quectel-l76k-nmea.log >"$g/gpsfake.log" 2>&1 &
  fake=$!
  sleep 3
  LOCD_DATA_DIR="$root/data" "$work/run-$kind" --config /dev/null --socket "$g/s" --state-dir "$g/st" \
    --timers-dir "$g/t" --source gpsd://127.0.0.1:29479 >"$g/log" 2>&1 &
  pid=$!
  sleep 6
  timeout 20 .build/release/locctl --socket "$g/s" watch >/dev/null 2>&1 &
  for _ in 1 2 3; do
    sleep 6
    .build/release/locctl --socket "$g/s" status >/dev/null 2>&1 || true
  done
  kill "$pid"
  wait "$pid" || true
  kill "$fake" 2>/dev/null || true
  wait "$fake" 2>/dev/null || true
  # No gpsd at all (the default source refused, retried with backoff): a common first run.
  n="$work/nogpsd-$kind"
  mkdir -p "$n"
  LOCD_DATA_DIR="$root/data" "$work/run-$kind" --config /dev/null --socket "$n/s" --state-dir "$n/st" \
    --timers-dir "$n/t" --source gpsd://127.0.0.1:1 >"$n/log" 2>&1 &
  pid=$!
  for _ in 1 2 3 4; do
    sleep 4
    .build/release/locctl --socket "$n/s" status >/dev/null 2>&1 || true
  done
  kill "$pid"
  wait "$pid" || true
}

mkdir -p "$work/profiles" "$work/callgrind"
printf '#!/bin/sh\nLLVM_PROFILE_FILE=%s/profiles/%%p.profraw exec %s "$@"\n' "$work" "$pgo" >"$work/run-pgo"
printf '#!/bin/sh\nexec valgrind --tool=callgrind --demangle=no --dump-before=sd_event_loop --callgrind-out-file=%s/callgrind/%%p %s "$@"\n' \
  "$work" "$work/locd" >"$work/run-callgrind"
chmod +x "$work/run-pgo" "$work/run-callgrind"
echo "order: the workloads, instrumented"
workloads pgo
echo "order: the workloads, under callgrind"
workloads callgrind

"$toolchain/llvm-profdata" merge -o "$work/locd.profdata" "$work"/profiles/*.profraw
"$toolchain/llvm-profdata" show --all-functions --counts "$work/locd.profdata" >"$work/profile.txt"
# Names the standard library's unsplit objects define, when locd links them: a function
# there cannot be moved alone, and naming it would drag the whole object's code (hundreds of
# KB) into the hot part. locd links neither now (decision 0057); a use of one (String's
# contains(_: String) is _StringProcessing's) would bring both back.
archives=$(dirname "$toolchain")/lib/swift_static/linux
mkdir -p "$work/ar"
: >"$work/unsplit.txt"
if nm "$work/locd" | grep -q '17_StringProcessing'; then
  echo "order: locd links _StringProcessing (and _RegexParser): their names are left out"
  (cd "$work/ar" && ar x "$archives/libswift_StringProcessing.a" && ar x "$archives/libswift_RegexParser.a")
  nm --defined-only "$work"/ar/*.o 2>/dev/null | awk 'NF == 3 {print $3}' | sort -u >"$work/unsplit.txt"
fi
nm --defined-only "$work/locd" | awk 'NF == 3 && ($2 == "t" || $2 == "T" || $2 == "W") {print $3}' | sort -u >"$work/defined.txt"
mkdir -p link
# callgrind's parts: PID.1 is start-up (dumped where the loop begins), PID what came after.
serving=$(ls "$work"/callgrind | grep -v '\.' | sed "s|^|$work/callgrind/|")
startup=$(ls "$work"/callgrind | grep '\.1$' | sed "s|^|$work/callgrind/|")
# shellcheck disable=SC2086 # word splitting wanted: one path a profile
python3 scripts/order_names.py $serving $startup "$work/profile.txt" --defined "$work/defined.txt" \
  --exclude "$work/unsplit.txt" >link/locd.order.new
mv link/locd.order.new link/locd.order
# SwiftPM does not know the link reads the order: drop the binary so the next build links it.
rm -f .build/release/locd
echo "order: link/locd.order, $(grep -vc '^#' link/locd.order) functions; make release relinks locd"
