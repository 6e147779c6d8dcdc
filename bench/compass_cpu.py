#!/usr/bin/python3
"""CPU time of locd per compass heading (bench/67-compass.sh).

A private dbus-daemon configured like the system bus, with iio-sensor-proxy's own bus policy
(when its package is installed) and locd's (dbus/net.hadess.SensorProxy.locd.conf); the
tests' iio-sensor-proxy stand-in: NOT iio-sensor-proxy, python3-dbusmock's iio-sensors-proxy
template with the compass object added at /net/hadess/SensorProxy/Compass (where the real one
has it; see Tests/EndToEndTests/SensorProxyStandIn.swift), each reading a CompassHeading
change and one PropertiesChanged; locd with `--source compass:`.

Run 1: a client has sent start-heading with filter 0, so each reading is claimed, taken,
handed to the engine and pushed to the client as a `heading` event. Run 2, for comparison:
nobody wants heading, the compass is not claimed, and locd reads each PropertiesChanged and
drops it (the stand-in signals everyone; iio-sensor-proxy would not signal locd at all then).
For each, locd's utime+stime (/proc/PID/stat) over N readings, divided by N.
Usage: compass_cpu.py LOCD LOCCTL [N]
"""
import json, os, shutil, socket, subprocess, sys, tempfile, threading, time

import dbus

import private_bus
from private_bus import cpu_seconds, wait_for

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OWN_POLICY = "/etc/dbus-1/system.d/net.hadess.SensorProxy.conf"
POLICIES = [p for p in [OWN_POLICY] if os.path.exists(p)] + [
    ROOT + "/dbus/net.hadess.SensorProxy.locd.conf", ROOT + "/Tests/Peers/iio-sensor-proxy-stand-in.conf"]
NAME = "net.hadess.SensorProxy"
PATH = "/net/hadess/SensorProxy/Compass"
IFACE = "net.hadess.SensorProxy.Compass"
DRIVER = "org.locd.Tests.CompassDriver"
UPDATE = """name, value = args
setattr(self, {'HasCompass': 'has_compass', 'CompassHeading': 'compass_heading'}[name], value)
self.UpdateProperties('net.hadess.SensorProxy.Compass', {name: value})"""


def run(locd, locctl, n, wanted):
    work = tempfile.mkdtemp(prefix="locd-bench-compass-")
    children = []
    try:
        bus_process, env = private_bus.start(work, policies=POLICIES)
        children.append(bus_process)
        address = env["DBUS_SYSTEM_BUS_ADDRESS"]
        children.append(subprocess.Popen(["/usr/bin/python3", "-m", "dbusmock", "--system", "--template",
                                          "iio-sensors-proxy"], env=env, stdout=subprocess.DEVNULL,
                                         stderr=subprocess.DEVNULL))
        bus = dbus.bus.BusConnection(address)
        assert wait_for(lambda: bus.name_has_owner(NAME)), "the stand-in did not start"
        main = bus.get_object(NAME, "/net/hadess/SensorProxy")
        main.AddObject(PATH, IFACE, {"HasCompass": True, "CompassHeading": -1.0},
                       [("ClaimCompass", "", "", ""), ("ReleaseCompass", "", "", "")],
                       dbus_interface="org.freedesktop.DBus.Mock")
        compass = bus.get_object(NAME, PATH)
        compass.AddMethod(DRIVER, "Update", "sv", "", UPDATE, dbus_interface="org.freedesktop.DBus.Mock")
        update = compass.get_dbus_method("Update", DRIVER)
        update("HasCompass", True)
        update("CompassHeading", dbus.Double(-1.0))
        locd_socket = work + "/locd.sock"
        children.append(subprocess.Popen(
            [locd, "--config", "/dev/null", "--socket", locd_socket, "--state-dir", work + "/state",
             "--log-level", "notice", "--source", "compass:"], env=env, stderr=open(work + "/locd.log", "w")))
        pid = children[-1].pid

        polls = [0]

        def source():
            polls[0] += 1
            r = subprocess.run([locctl, "--socket", locd_socket, "status", "--json"], capture_output=True, text=True)
            return json.loads(r.stdout)["sources"][0] if r.returncode == 0 else None

        assert wait_for(lambda: (s := source()) and s["counters"]["compass"] == 1), "no compass"
        received = [0]
        if wanted:
            client = socket.socket(socket.AF_UNIX)
            client.connect(locd_socket)
            reader = client.makefile("r")
            reader.readline()  # the greeting
            client.sendall(b'{"id":0,"method":"hello","params":{"protocol":1,"client":"bench"}}\n')
            reader.readline()
            client.sendall(b'{"id":1,"method":"start-heading","params":{"filter":0}}\n')
            reader.readline()

            def read():
                for line in reader:
                    if '"event":"heading"' in line:
                        received[0] += 1

            threading.Thread(target=read, daemon=True).start()
            assert wait_for(lambda: source()["counters"]["claimed"] == 1), "not claimed"
        time.sleep(0.5)
        counter = "headings" if wanted else "unclaimedHeadings"
        start = source()["counters"][counter]
        polls[0] = 0
        before = cpu_seconds(pid)
        for i in range(n):
            update("CompassHeading", dbus.Double((i * 7.3 + 1) % 360))
        assert wait_for(lambda: source()["counters"][counter] - start >= n, 120), "readings not all taken"
        if wanted:
            assert wait_for(lambda: received[0] >= n, 60), "events not all received"
        # The status polls while waiting are locd's work too: measured apart and taken off.
        used = cpu_seconds(pid) - before
        polled = polls[0]
        polls_before = cpu_seconds(pid)
        for _ in range(50):
            source()
        per_poll = (cpu_seconds(pid) - polls_before) / 50
        return max(0.0, used - polled * per_poll), used, polled, received[0]
    finally:
        for child in reversed(children):
            child.terminate()
            child.wait(5)
        shutil.rmtree(work, ignore_errors=True)


def main():
    locd, locctl = sys.argv[1], sys.argv[2]
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 10000
    net, used, polled, got = run(locd, locctl, n, True)
    print("compass: %d headings claimed and pushed to a client (filter 0, %d events received): "
          "locd %.3f s CPU, %.1f µs a heading (%.3f s measured less %d status polls)"
          % (n, got, net, net / n * 1e6, used, polled))
    net, used, polled, _ = run(locd, locctl, n, False)
    print("compass: for comparison, %d readings while nobody wants heading (not claimed, dropped): "
          "locd %.3f s CPU, %.1f µs a reading (%.3f s measured less %d status polls)"
          % (n, net, net / n * 1e6, used, polled))


main()
