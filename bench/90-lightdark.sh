#!/bin/sh
# Light and dark (decision 0065): how soon a transition reaches an app through the desktop
# portal (real clock, and simulated time under --clock replay), and locd-session's wakeups
# between transitions (IDLE seconds, default 30). bench/lightdark.py says how. Needs
# dbus-daemon, xdg-desktop-portal, python3-dbus and python3-gi. LOCD, LOCCTL
# and LOCD_SESSION pick the binaries.
set -eu
cd "$(dirname "$0")/.."
locd=${LOCD:-.build/release/locd}
locctl=${LOCCTL:-.build/release/locctl}
session=${LOCD_SESSION:-.build/release/locd-session}
[ -x "$locd" ] && [ -x "$locctl" ] && [ -x "$session" ] || { echo "lightdark: build first: swift build -c release"; exit 1; }
if ! command -v dbus-daemon >/dev/null || ! /usr/bin/python3 -c 'import dbus, gi' 2>/dev/null \
  || [ ! -x /usr/libexec/xdg-desktop-portal ]; then
  echo "lightdark: skipped (needs dbus-daemon, xdg-desktop-portal, python3-dbus and python3-gi)"
  exit 0
fi
/usr/bin/python3 bench/lightdark.py "$locd" "$locctl" "$session" "${IDLE:-30}"
