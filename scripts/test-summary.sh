#!/bin/sh
# Prints the end of `make test`: how many tests ran, failed and were skipped, and every
# skipped test by name with the reason its trait gives (Swift Testing's `.enabled(if:, "why")`),
# so a run that could not exercise something says so. Reads the JUnit XML that
# `swift test --xunit-output FILE` writes for Swift Testing (FILE with -swift-testing before
# its extension). Usage: scripts/test-summary.sh RESULTS.xml
set -eu
xml=$1
if [ ! -s "$xml" ]; then
  echo "test summary: no results in $xml (the test run did not finish)"
  exit 1
fi
awk '
  function unescape(s) {
    gsub(/&quot;/, "\"", s); gsub(/&apos;/, "\047", s); gsub(/&lt;/, "<", s); gsub(/&gt;/, ">", s)
    gsub(/&amp;/, "\\&", s); return s
  }
  function attr(line, name,   re, v) {
    re = " " name "=\"[^\"]*\""
    if (match(line, re)) { v = substr(line, RSTART + length(name) + 3, RLENGTH - length(name) - 4); return unescape(v) }
    return ""
  }
  /<testcase / { tests++; current = attr($0, "classname") "/" attr($0, "name") }
  /<failure/ { if (!(current in seen)) { seen[current] = 1; failed[++nf] = current } }
  /<skipped *\/>/ { skipped[++ns] = current ": (no reason given)" }
  /<skipped>/ {
    reason = $0; sub(/.*<skipped>/, "", reason); sub(/<\/skipped>.*/, "", reason)
    skipped[++ns] = current ": " unescape(reason)
  }
  END {
    printf "test summary: %d tests, %d failed, %d skipped\n", tests, nf, ns
    for (i = 1; i <= nf; i++) printf "  failed   %s\n", failed[i]
    for (i = 1; i <= ns; i++) printf "  skipped  %s\n", skipped[i]
  }
' "$xml"
