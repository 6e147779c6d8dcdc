#!/bin/sh
# Status latency with 2,000 clients that subscribe and never read (issue 28's partial), on
# the release build; with BEFORE=PATH to another locd, the two alternate, RUNS times each
# (default 2). Needs python3.
set -eu
cd "$(dirname "$0")/.."
locd=${LOCD:-.build/release/locd}
[ -x "$locd" ] || { echo "slow-readers: build first: swift build -c release"; exit 1; }
runs=${RUNS:-2}
i=0
while [ "$i" -lt "$runs" ]; do
  if [ -n "${BEFORE:-}" ]; then echo "before ($BEFORE):"; python3 bench/slow_readers.py "$BEFORE" 2000 30; fi
  echo "locd ($locd):"
  python3 bench/slow_readers.py "$locd" 2000 30
  i=$((i + 1))
done
