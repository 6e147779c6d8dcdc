#!/bin/sh
# The syscall layer's rule (decision 0034, DESIGN.md 9c): libc is reached only through the
# syscall layer, which has three rooms: Sources/LocClient/Syscalls/ (what a client of the
# socket needs, decision 0038), Sources/LocHost/Syscalls/ (files, accounts, clocks and the
# process: what locctl shares with the daemon without libsystemd) and
# Sources/LocSystem/Syscalls/ (the rest). Anywhere else in
# Sources/ a Swift file must not import the C library (Glibc, Musl, Darwin) nor read or set
# errno; LocCore's maths come from its one maths file. Prints each offending line as
# FILE:LINE: and exits 1 if there is one.
# Tests/, Examples/ and fuzz/ are not held to it. Run by `make lint`.
set -eu
cd "$(dirname "$0")/.."
allowed_client=Sources/LocClient/Syscalls/
allowed_host=Sources/LocHost/Syscalls/
allowed_dir=Sources/LocSystem/Syscalls/
allowed_maths=Sources/LocCore/Support/Maths.swift
status=0
for file in $(find Sources -name '*.swift' | sort); do
  case "$file" in "$allowed_client"*|"$allowed_host"*|"$allowed_dir"*|"$allowed_maths") continue ;; esac
  # Comments are not code: drop what follows // (a string holding // loses its tail, which
  # can only hide a use, never invent one).
  found=$(sed 's|//.*||' "$file" | awk -v f="$file" '
    /^[[:space:]]*(@_exported[[:space:]]+)?import[[:space:]]+(Glibc|Musl|Darwin)([[:space:]]|$)/ {
      printf "%s:%d: imports the C library (%s): call a wrapper in a Syscalls/ folder (LocClient, LocHost, LocSystem) instead\n", f, NR, $NF }
    /(^|[^A-Za-z0-9_.])errno([^A-Za-z0-9_]|$)/ {
      printf "%s:%d: reads errno outside the Syscalls/ folders (their wrappers capture it at the call)\n", f, NR }')
  if [ -n "$found" ]; then
    echo "$found"
    status=1
  fi
done
if [ $status -ne 0 ]; then
  echo "lint-syscalls: libc used outside $allowed_client, $allowed_host, $allowed_dir and $allowed_maths (see docs/decisions/0034-one-syscall-layer.md)" >&2
fi
exit $status
