#!/usr/bin/python3
"""Time from an app's request to the first fix with a modem: source, cold and assisted
(bench/67-modem-ttff.sh).

A private dbus-daemon configured like the system bus; the tests' ModemManager stand-in
(Tests/Peers/modemmanager-stand-in.py: NOT ModemManager; its receiver is a simulation: after
the GPS starts its traces carry no fix for COLD ms, or WARM ms once assisted, then it plays
quectel-l76k-nmea.log) with one modem that takes XTRA data from a server on 127.0.0.1 (a
python http.server thread here, serving 48 KB of made-up bytes); locd with `--source modem:`,
Policy=on-demand. Each run: locd starts with no modem and its start acquisition times out
(Timeout=1s); the modem appears (idle: no Setup with GPS); a reload sets Timeout=1min; then
`locctl locate --timeout 60s` is the app's request, timed from its start to its answer with a
fresh fix. Cold: [Network] Enable=no (no assistance). Assisted: Enable=yes, so locd fetches
the file and injects it before Setup (the measured time includes the download, the inject,
Setup and the simulated warm start). The figure is locd's path plus the stand-in's chosen
delays, not a receiver's real TTFF. Usage: modem_ttff.py LOCD LOCCTL RUNS COLD_MS WARM_MS
"""
import http.server, json, os, shutil, statistics, subprocess, sys, tempfile, threading, time

import private_bus
from private_bus import wait_for

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STAND_IN = ROOT + "/Tests/Peers/modemmanager-stand-in.py"
LOG = ROOT + "/Tests/Fixtures/nmea/quectel-l76k-nmea.log"
FILE = bytes((i * 7919) % 251 for i in range(48_000))


class Files(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Length", str(len(FILE)))
        self.end_headers()
        self.wfile.write(FILE)


def once(locd, locctl, assisted, cold, warm, url):
    work = tempfile.mkdtemp(prefix="locd-bench-ttff-")
    children = []
    try:
        bus, env = private_bus.start(work, ["org.freedesktop.ModemManager1"])
        children.append(bus)
        sock = work + "/bus"
        calls = work + "/calls"

        def logged():
            return open(calls).read().splitlines() if os.path.exists(calls) else []
        children.append(subprocess.Popen(["/usr/bin/python3", STAND_IN, LOG, calls], env=env,
                                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True))
        assert children[-1].stdout.readline().strip() == "ready", "the stand-in did not start"

        def control(*args):
            subprocess.run(["busctl", "--address=unix:path=" + sock, "call", "org.freedesktop.ModemManager1",
                            "/org/locd/test", "org.locd.test.ModemStandIn"] + list(args), check=True, env=env)

        control("SetNewModemAssistance", "uasuu", "1", "1", url, str(cold), str(warm))
        conf = ("[Position]\nStaticFile=\n[Network]\nEnable=%s\nURL=http://127.0.0.1:9/v1/geolocate\n"
                "[Acquisition]\nPolicy=on-demand\nRefreshInterval=1h\nTimeout=%s\n")
        open(work + "/locd.conf", "w").write(conf % ("yes" if assisted else "no", "1s"))
        locd_socket = work + "/locd.sock"
        children.append(subprocess.Popen(
            [locd, "--config", work + "/locd.conf", "--socket", locd_socket, "--state-dir", work + "/state",
             "--log-level", "notice", "--source", "modem:"], env=env, stderr=open(work + "/locd.log", "w")))

        def status():
            r = subprocess.run([locctl, "--socket", locd_socket, "status", "--json"], capture_output=True, text=True)
            return json.loads(r.stdout) if r.returncode == 0 else None

        assert wait_for(lambda: (s := status()) and s["acquisition"]["phase"] == "idle"), "start did not settle"
        control("AddModem", "usuu", "0", "867698041234567", "4", "0")
        assert wait_for(lambda: (s := status()) and s["sources"][0]["counters"]["modems"] == 1), "no modem"
        open(work + "/locd.conf", "w").write(conf % ("yes" if assisted else "no", "1min"))
        subprocess.run([locctl, "--socket", locd_socket, "reload"], check=True, capture_output=True)
        assert not any(l.startswith("Setup 0 4") for l in logged()), "the GPS started before the request"
        start = time.monotonic()
        r = subprocess.run([locctl, "--socket", locd_socket, "locate", "--timeout", "60s", "--json"],
                           capture_output=True, text=True)
        took = time.monotonic() - start
        answer = json.loads(r.stdout)
        assert answer.get("provenance") == "fresh", "no fresh fix: %s" % r.stdout
        injected = sum(1 for l in logged() if l.startswith("InjectAssistanceData "))
        assert injected == (1 if assisted else 0), "InjectAssistanceData %d times" % injected
        return took
    finally:
        for child in reversed(children):
            child.terminate()
            child.wait(5)
        shutil.rmtree(work, ignore_errors=True)


def main():
    locd, locctl = sys.argv[1], sys.argv[2]
    runs, cold, warm = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Files)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = "http://127.0.0.1:%d/xtra2.bin" % server.server_address[1]
    results = {}
    for assisted in (False, True):
        results[assisted] = [once(locd, locctl, assisted, cold, warm, url) for _ in range(runs)]
    for assisted, label in ((False, "cold (no assistance)"), (True, "assisted (XTRA fetched and injected)")):
        times = results[assisted]
        print("modem: request to first fix, %s: median %.2f s over %d runs (%s; the stand-in's start "
              "%d ms)" % (label, statistics.median(times), runs, ", ".join("%.2f" % t for t in times),
                          warm if assisted else cold))
    server.shutdown()


main()
