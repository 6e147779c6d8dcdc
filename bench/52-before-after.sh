#!/bin/sh
# Before and after, in one run: the status round trip (connected client) and the p99 of a
# fix reaching 100 subscribers, for this build and for BEFORE (a git revision; default
# 9f6a2c2, the last commit before the shell was reshaped, issue 22), in alternating rounds
# driven by this build's locbench. Prints each round, the medians of ROUNDS (default 5) and
# their ratios. The before build is made once in a worktree under .build/before/ and kept
# (a release build: some minutes the first time). BEFORE=none skips this script;
# BEFORE_LOCD=PATH uses a locd built elsewhere (and the locbench beside it, if any).
#
# Two comparisons, each round: the same client (this build's locbench) against both daemons,
# which isolates the daemon; and each build whole, its own locbench against its own locd,
# which is the round trip a program on that build's client library felt (the client's share
# of a status call is its parse and decode of the reply).
set -eu
cd "$(dirname "$0")/.."
[ -x .build/release/locbench ] || { echo "before-after: build first: make release"; exit 1; }
before=${BEFORE:-9f6a2c2}
rounds=${ROUNDS:-5}
[ "$before" = none ] && { echo "before-after: BEFORE=none, skipped"; exit 0; }
old=${BEFORE_LOCD:-}
if [ -z "$old" ]; then
  rev=$(git rev-parse --short "$before" 2>/dev/null) || {
    echo "before-after: $before is not a revision of this clone (a shallow clone?); skipped"
    exit 0
  }
  tree=.build/before/$rev
  old=$tree/.build/release/locd
  if [ ! -x "$old" ]; then
    echo "before-after: building $rev (release) in $tree, once"
    rm -rf "$tree"
    git worktree prune
    git worktree add --detach "$tree" "$rev" >/dev/null
    (cd "$tree" && swift build -c release --static-swift-stdlib >/dev/null) || {
      echo "before-after: $rev does not build here; skipped"
      exit 0
    }
  fi
fi
new=.build/release/locd
oldbench=$(dirname "$old")/locbench
[ -x "$oldbench" ] || oldbench=""
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
i=1
while [ "$i" -le "$rounds" ]; do
  for side in before after; do
    bin=$new
    [ "$side" = before ] && bin=$old
    .build/release/locbench daemon --round-trip-only --locd "$bin" \
      | sed -n 's/^status round trip (connected client): median \([0-9.]*\) us.*/\1/p' >>"$out/rt-$side"
    .build/release/locbench daemon --latency-only --locd "$bin" >"$out/latency"
    sed -n 's/^fix-to-subscriber latency, 100 subscribers.* p99 \([0-9.]*\) ms.*/\1/p' "$out/latency" >>"$out/p99-$side"
    sed -n 's/^fix-to-subscriber latency, 100 subscribers.* p50 \([0-9.]*\) ms.*/\1/p' "$out/latency" >>"$out/p50-$side"
  done
  echo "round $i: round trip before $(tail -n 1 "$out/rt-before") us, after $(tail -n 1 "$out/rt-after") us;" \
    "100-subscriber p99 before $(tail -n 1 "$out/p99-before") ms, after $(tail -n 1 "$out/p99-after") ms"
  if [ -n "$oldbench" ]; then
    # The before build's locbench runs its whole daemon set (it has no --round-trip-only).
    "$oldbench" daemon --idle-seconds 1 --locd "$old" >"$out/whole"
    sed -n 's/^status round trip (connected client): median \([0-9.]*\) us.*/\1/p' "$out/whole" >>"$out/rt-whole"
    sed -n 's/^fix-to-subscriber latency, 100 subscribers.* p99 \([0-9.]*\) ms.*/\1/p' "$out/whole" >>"$out/p99-whole"
    echo "round $i, whole before build (its own client): round trip $(tail -n 1 "$out/rt-whole") us," \
      "100-subscriber p99 $(tail -n 1 "$out/p99-whole") ms"
  fi
  i=$((i + 1))
done
median() { sort -n "$1" | awk '{v[NR] = $1} END {if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
rb=$(median "$out/rt-before"); ra=$(median "$out/rt-after")
pb=$(median "$out/p99-before"); pa=$(median "$out/p99-after")
echo "status round trip, median of $rounds: before ($before) $rb us, after $ra us," \
  "after/before $(echo "$ra $rb" | awk '{printf "%.2f", $1 / $2}') (target: no slower, <= 1.00)"
echo "fix to 100 subscribers p99, median of $rounds: before $pb ms, after $pa ms," \
  "after/before $(echo "$pa $pb" | awk '{printf "%.2f", $1 / $2}') (target: no slower, <= 1.00)"
mb=$(median "$out/p50-before"); ma=$(median "$out/p50-after")
echo "fix to 100 subscribers p50, median of $rounds: before $mb ms, after $ma ms," \
  "after/before $(echo "$ma $mb" | awk '{printf "%.2f", $1 / $2}') (the p99 is the slowest fix or two: the VM's wakeups; bench/50's floor)"
if [ -n "$oldbench" ]; then
  rw=$(median "$out/rt-whole"); pw=$(median "$out/p99-whole")
  echo "status round trip, each build with its own client, median of $rounds: before $rw us, after $ra us," \
    "after/before $(echo "$ra $rw" | awk '{printf "%.2f", $1 / $2}') (target: no slower, <= 1.00)"
  echo "fix to 100 subscribers p99, each build with its own client, median of $rounds: before $pw ms," \
    "after $pa ms, after/before $(echo "$pa $pw" | awk '{printf "%.2f", $1 / $2}')"
fi
