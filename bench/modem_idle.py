#!/usr/bin/python3
"""Wakeups of locd with a modem: source (bench/66-modem.sh).

A private dbus-daemon configured like the system bus; the tests' ModemManager stand-in
(Tests/Peers/modemmanager-stand-in.py: NOT ModemManager, it serves ModemManager 1.20's XML
and plays quectel-l76k-nmea.log one receiver cycle a second as Location updates while GPS
NMEA is enabled) with one modem; locd with `--source modem:`. Run 1, Policy=on-demand
(RefreshInterval=1h): once acquisition settled and the source is `idle` (the stand-in saw
Setup without the GPS bit), locd's context switches (voluntary + involuntary, from
/proc/PID/status: each wakeup of a sleeping process is one) over SECONDS. Run 2,
Policy=continuous: the same count while the GPS runs. Usage: modem_idle.py LOCD LOCCTL [SECONDS]

What the idle wakeups are: under strace -p (2026-12-03, debug build, 30 s window) the only
ones were two expiries of locd's CLOCK_REALTIME timerfd (the engine's timers: the last fix
ageing, then re-armed for the refresh an hour on); no monotonic timer of the source and no
bus message.
"""
import json, os, shutil, subprocess, sys, tempfile, time

from private_bus import start, switches, wait_for

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STAND_IN = ROOT + "/Tests/Peers/modemmanager-stand-in.py"
LOG = ROOT + "/Tests/Fixtures/nmea/quectel-l76k-nmea.log"


def run(locd, locctl, seconds, policy):
    work = tempfile.mkdtemp(prefix="locd-bench-modem-")
    children = []
    try:
        bus, env = start(work, ["org.freedesktop.ModemManager1"])
        children.append(bus)
        sock = work + "/bus"
        calls = work + "/calls"
        children.append(subprocess.Popen(["/usr/bin/python3", STAND_IN, LOG, calls], env=env,
                                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True))
        assert children[-1].stdout.readline().strip() == "ready", "the stand-in did not start"
        subprocess.run(["busctl", "--address=unix:path=" + sock, "call", "org.freedesktop.ModemManager1",
                        "/org/locd/test", "org.locd.test.ModemStandIn", "AddModem", "usuu", "0",
                        "867698041234567", "7", "0"], check=True, env=env)
        open(work + "/locd.conf", "w").write("[Acquisition]\nPolicy=%s\nRefreshInterval=1h\n" % policy)
        locd_socket = work + "/locd.sock"
        children.append(subprocess.Popen(
            [locd, "--config", work + "/locd.conf", "--socket", locd_socket, "--state-dir", work + "/state",
             "--log-level", "notice", "--source", "modem:"], env=env, stderr=open(work + "/locd.log", "w")))
        pid = children[-1].pid

        def source():
            r = subprocess.run([locctl, "--socket", locd_socket, "status", "--json"], capture_output=True, text=True)
            return json.loads(r.stdout)["sources"][0] if r.returncode == 0 else None

        want = "idle" if policy == "on-demand" else "connected"
        # On-demand: idle, and ModemManager's answer to the Setup without the GPS bit is in
        # (gpsRunning 0), so the window holds no part of the switch itself.
        running = 0 if policy == "on-demand" else 1
        assert wait_for(lambda: (s := source()) and s["state"] == want and s["counters"]["fixes"] >= 1
                        and s["counters"]["gpsRunning"] == running), "the modem source did not become %s" % want
        if policy == "on-demand":
            # The stand-in answered the Setup without the GPS bit; its reply and signal read.
            assert wait_for(lambda: sum(1 for l in open(calls) if l.startswith("Setup ")) == 2), "no Setup off"
            time.sleep(1)
        before = switches(pid)
        time.sleep(seconds)
        wakeups = switches(pid) - before
        aged = None
        if policy == "on-demand":
            # Then as long again, now that the last fix has aged past FreshFor= (10 s): the
            # engine's own timer for that is behind, so only the refresh's is left.
            before = switches(pid)
            time.sleep(seconds)
            aged = switches(pid) - before
        setups = [l.split()[2] for l in open(calls) if l.startswith("Setup ")]
        return wakeups, setups, source()["counters"]["traces"], aged
    finally:
        for child in reversed(children):
            child.terminate()
            child.wait(5)
        shutil.rmtree(work, ignore_errors=True)


def main():
    locd, locctl = sys.argv[1], sys.argv[2]
    seconds = int(sys.argv[3]) if len(sys.argv) > 3 else 60
    wakeups, setups, _, aged = run(locd, locctl, seconds, "on-demand")
    print("modem: idle, on-demand modem: source after a good fix (Setup sources %s), %d s: %d wakeups "
          "(target 0 from the source until the 1 h refresh; the rest are the engine's as the last "
          "fix ages, see bench/modem_idle.py)"
          % ("→".join(setups), seconds, wakeups))
    print("modem: the next %d s, the last fix aged: %d wakeups (target 0 until the refresh)" % (seconds, aged))
    wakeups, _, traces, _ = run(locd, locctl, seconds, "continuous")
    print("modem: for comparison, Policy=continuous, the GPS on (a trace a second), %d s: %d wakeups (%.1f/s)"
          % (seconds, wakeups, wakeups / seconds))


main()
