#!/bin/sh
# Runs every benchmark script (bench/[0-9]*.sh) in order; each prints its own figures.
# The machines are noisy: scripts repeat runs and print medians and ratios.
set -u
cd "$(dirname "$0")/.."
status=0
for script in bench/[0-9]*.sh; do
  [ -e "$script" ] || continue
  echo "== $script"
  sh "$script" || { echo "bench: $script failed"; status=1; }
done
exit $status
