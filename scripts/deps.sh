#!/bin/sh
# Installs the Debian packages that building, running and testing locd need, if missing.
# Usage: scripts/deps.sh [build|test|bench|system|docs|deb]
set -eu
what=${1:-build}
pkgs="libsystemd-dev libcurl4-openssl-dev pkg-config tzdata libstdc++-12-dev"
case "$what" in
  # groff-base and man-db: the install tests run make docs. GeoClue's interface XML, daemon
  # and demo programs, gammastep, redshift and python3-dbus are the peers of locd's GeoClue2
  # face (docs/GEOCLUE.md). python3-dbusmock's bluez5 template stands in for BlueZ (no
  # Bluetooth controller on a build machine) in the tests of the bluez: source. zsh and fish
  # run the completion scripts locctl makes for them; librsvg2-bin renders locctl sun --svg
  # (and is what --png runs); chrony's chronyd (run with -x, never setting the clock) reads
  # the time samples of [Time] ChronySocket=. python3-gps, libgps-dev, gcc and
  # libc6-dev are clients of the gpsd face: the gps module's client loop, and a small C
  # program on libgps that the test compiles (GpsdFaceTests); tmux gives cgps the terminal
  # whose screen that test reads. xdg-desktop-portal (1.16) is the real portal a Flatpak app's
  # location goes through to the GeoClue face (WifiAppsTests). modemmanager-dev ships
  # ModemManager's interface XML, which the ModemManager stand-in of the modem: source's
  # tests serves and is checked against. iio-sensor-proxy ships the bus policy and the
  # introspection XML the compass stand-in is checked against (its daemon is never started).
  test|bench) pkgs="$pkgs gpsd gpsd-clients systemd dbus-daemon dbus-bin util-linux python3-venv groff-base man-db
    python3-dbus python3-gi geoclue-2.0 libgeoclue-2-dev geoclue-2-demo gammastep redshift python3-dbusmock
    zsh fish librsvg2-bin chrony python3-gps libgps-dev gcc libc6-dev tmux xdg-desktop-portal modemmanager-dev iio-sensor-proxy" ;;
  # make test-system (docs/SYSTEM-TIER.md): systemd-nspawn boots this machine's root with
  # systemd as PID 1; polkitd answers timedated's and systemd's questions about locd's user
  # inside it; the peers of the journeys are those of the tests.
  system) pkgs="$pkgs systemd-container polkitd dbus-daemon dbus-bin util-linux gpsd gpsd-clients geoclue-2.0
    geoclue-2-demo chrony python3-dbus python3-gi" ;;
  # make docs: groff and lexgrog check the man pages.
  docs) pkgs="groff-base man-db" ;;
  # make deb: dpkg-buildpackage, debhelper (debian/control's Build-Depends) and the
  # compilers build-essential stands for; no fakeroot (Rules-Requires-Root: no).
  deb) pkgs="$pkgs dpkg-dev debhelper build-essential" ;;
esac
missing=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "deps: installing$missing"
if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
