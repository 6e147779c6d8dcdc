#!/bin/sh
# JSON parsing work as objects grow (`locbench json`): nanoseconds per member for objects of
# 24 to 100,000 members (flat when parsing is linear), the 6,000-member line of issue 10
# against the default member bound (rejected after the first 1,024 members), and one status
# reply of locd's (bench/status-reply.json) parsed, then parsed and decoded as locctl does.
set -eu
cd "$(dirname "$0")/.."
locbench=.build/release/locbench
[ -x "$locbench" ] || { echo "json: build first: swift build -c release"; exit 1; }
"$locbench" json --rounds 5
