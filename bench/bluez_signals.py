#!/usr/bin/python3
"""The live cost of the bluez: source (bench/65-bluez.sh): locd's CPU time per BlueZ
PropertiesChanged signal, each one advertisement (RSSI and an iBeacon ManufacturerData, as
BlueZ sends them with DuplicateData), at 10,000 a second, while a client ranges them.

A private dbus-daemon configured like the system bus; python3-dbusmock's bluez5 template as
BlueZ (no Bluetooth controller here) with adapter hci0 and TRANSMITTERS devices, given a
method that sends a batch of PropertiesChanged from its own connection (what BlueZ's would
be); the release locd with `--source bluez:` and `locctl beacons range UUID` running, so
discovery is on and every signal goes through sd-bus, the device table and the ranging
machine. Per round, SIGNALS signals in batches of 1,000 every 100 ms; the round ends when
locd's `advertisements` counter has counted them all. CPU time (utime + stime from
/proc/PID/stat) of locd and of dbus-daemon over the round, divided by SIGNALS; medians of
ROUNDS rounds. The budget of issue 13 is 5 % of one core for 10,000 advertisements a second.
Usage: bluez_signals.py LOCD LOCCTL [SIGNALS ROUNDS]
"""
import json, os, shutil, statistics, subprocess, sys, tempfile, time

import dbus

from private_bus import cpu_seconds as cpu, start, wait_for

UUID = "494e5445-4c4c-495f-524f-434b535f4857"
RATE, BATCH = 10_000, 1_000


# Runs inside the stand-in (dbusmock's AddMethod): args[0] signals, round-robin over the
# devices, RSSI moving over 30 dB; sent straight on the stand-in's connection.
BURST = """
import dbus.lowlevel
paths = self.bench_paths
frame = self.bench_frame
for i in range(args[0]):
    n = self.bench_sent + i
    m = dbus.lowlevel.SignalMessage(paths[n % len(paths)], 'org.freedesktop.DBus.Properties', 'PropertiesChanged')
    m.append('org.bluez.Device1',
             {'RSSI': dbus.Int16(-45 - (n * 7) % 30, variant_level=1),
              'ManufacturerData': dbus.Dictionary({dbus.UInt16(76): dbus.ByteArray(frame, variant_level=1)},
                                                  signature='qv', variant_level=1)},
             dbus.Array([], signature='s'), signature='sa{sv}as')
    self.connection.send_message(m)
self.bench_sent += args[0]
"""


def frame(minor):
    """An iBeacon frame after the company id: 0x02 0x15, UUID, major 1, minor, power -59."""
    return bytes([0x02, 0x15]) + bytes.fromhex(UUID.replace("-", "")) + bytes([0, 1, minor >> 8, minor & 0xFF, 0xC5])


def main():
    locd, locctl = sys.argv[1], sys.argv[2]
    signals = int(sys.argv[3]) if len(sys.argv) > 3 else 50_000
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 5
    for transmitters in (19, 256):
        measure(locd, locctl, signals, rounds, transmitters)


def measure(locd, locctl, signals, rounds, transmitters):
    work = tempfile.mkdtemp(prefix="locd-bench-bluez-")
    children = []
    try:
        bus_process, env = start(work, ["org.bluez"])
        children.append(bus_process)
        bus_pid = bus_process.pid
        sock = work + "/bus"
        children.append(subprocess.Popen([sys.executable, "-m", "dbusmock", "--system", "--template", "bluez5"],
                                         env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        bus = dbus.bus.BusConnection("unix:path=" + sock)
        assert wait_for(lambda: bus.name_has_owner("org.bluez")), "the BlueZ stand-in did not start"
        root = bus.get_object("org.bluez", "/")
        root.AddAdapter("hci0", "bench", dbus_interface="org.bluez.Mock")
        paths = [str(root.AddDevice("hci0", "C0:FF:EE:00:%02X:%02X" % (i >> 8, i & 0xFF), "beacon",
                                    dbus_interface="org.bluez.Mock")) for i in range(transmitters)]
        mock = dbus.Interface(root, "org.freedesktop.DBus.Mock")
        mock.AddMethod("org.bluez.Mock", "BenchSetup", "", "",
                       "self.bench_paths = %r\nself.bench_frame = %r\nself.bench_sent = 0" % (paths, frame(1)))
        mock.AddMethod("org.bluez.Mock", "Burst", "u", "", BURST)
        root.BenchSetup(dbus_interface="org.bluez.Mock")
        # Each device its own minor: TRANSMITTERS beacons ranged.
        for i, path in enumerate(paths):
            bus.get_object("org.bluez", path).Set(
                "org.bluez.Device1", "ManufacturerData",
                dbus.Dictionary({dbus.UInt16(76): dbus.ByteArray(frame(i), variant_level=1)}, signature="qv",
                                variant_level=1), dbus_interface="org.freedesktop.DBus.Properties")
        locd_socket = work + "/locd.sock"
        children.append(subprocess.Popen(
            [locd, "--config", "/dev/null", "--socket", locd_socket, "--state-dir", work + "/state",
             "--log-level", "notice", "--source", "bluez:"], env=env, stderr=open(work + "/locd.log", "w")))
        locd_pid = children[-1].pid

        def status():
            r = subprocess.run([locctl, "--socket", locd_socket, "status", "--json"], capture_output=True, text=True)
            return json.loads(r.stdout) if r.returncode == 0 else None

        def counter(name):
            s = status()
            return s and s["sources"][0]["counters"].get(name)

        assert wait_for(lambda: counter("adapter") == 1), "locd did not find the adapter"
        children.append(subprocess.Popen([locctl, "--socket", locd_socket, "beacons", "range", UUID, "--json"],
                                         stdout=subprocess.DEVNULL))
        assert wait_for(lambda: counter("discovering") == 1), "locd did not start discovery"
        results = []
        for _ in range(rounds):
            before = counter("advertisements")
            start_locd, start_bus = cpu(locd_pid), cpu(bus_pid)
            begin = time.monotonic()
            for k in range(signals // BATCH):
                root.Burst(dbus.UInt32(BATCH), dbus_interface="org.bluez.Mock")
                time.sleep(max(0, begin + (k + 1) * BATCH / RATE - time.monotonic()))
            assert wait_for(lambda: counter("advertisements") >= before + signals // BATCH * BATCH), \
                "locd did not count every signal"
            n = signals // BATCH * BATCH
            results.append(((cpu(locd_pid) - start_locd) / n, (cpu(bus_pid) - start_bus) / n,
                            n / (time.monotonic() - begin)))
        per_locd = statistics.median(r[0] for r in results)
        per_bus = statistics.median(r[1] for r in results)
        rate = statistics.median(r[2] for r in results)
        print("bluez: %d transmitters, %d signals a round at %.0f/s (median of %d): locd %.1f us CPU a signal, "
              "10,000/s costs %.1f %% of a core (budget 5 %%); dbus-daemon %.1f us a signal"
              % (transmitters, signals // BATCH * BATCH, rate, rounds, per_locd * 1e6, per_locd * 1e4 * 100,
                 per_bus * 1e6))
        sys.stdout.flush()
    finally:
        for child in reversed(children):
            child.terminate()
            try:
                child.wait(5)
            except subprocess.TimeoutExpired:
                child.kill()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
