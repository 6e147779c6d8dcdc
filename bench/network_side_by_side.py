#!/usr/bin/python3
"""locd's network positioning side by side with the real geoclue 2.6's Wi-Fi source
(bench/88-network.sh).

Per run, each service is started fresh (no cache, no state) on its own private bus configured
like the system bus, with:
  - the same wpa_supplicant stand-in (Tests/Peers/wpa-supplicant-stand-in.py, python3-dbus:
    NOT wpa_supplicant; one interface, the same three access points, Interface.Scan recorded
    and answered with ScanDone), which is what geoclue 2.6 reads for Wi-Fi;
  - its own instance of the same geolocate stand-in (Tests/Peers/geolocate-stand-in.py: NOT
    beaconDB; answers 59.9139 N 10.7522 E, accuracy 5000 m, and records every request);
  - the locd test agent (Tests/Peers/geoclue-agent.py, MaxAccuracyLevel 8, answering yes).
geoclue runs with a private configuration bound over /etc/geoclue in a mount namespace (needs
root): `[wifi] enable=true`, `url=` the stand-in, submission off, every other source off.
locd runs with `[GeoClue] Enable=yes`, `[Network] Enable=yes`, `URL=` the stand-in, no GNSS
source, no static file. Both clients (a GeoClue2 client below: GetClient, DesktopId,
RequestedAccuracyLevel 8, Start) start at the same moment; measured per service:
  - Start to the first LocationUpdated (median over RUNS), the position and accuracy it says;
  - the service's start (its exec) to that first location: from nothing for both, whatever
    either does before the client's Start;
  - over the first run's client, held for WINDOW seconds with the networks unchanged (and, at
    the same time, on a second pair of rigs, the same networks whose signals wander JITTER dBm
    above and below at each scan, as a real radio's do): how many
    lookups reached the stand-in (and how many of them before the client's Start: locd
    acquires at its own start, geoclue only for a client), how many scans were asked of
    wpa_supplicant, how many LocationUpdated signals came; and how many requests named the
    networks' SSIDs (geoclue 2.6 sends them; locd never does, PRIVACY.md).
The clients start as soon as each service owns its name and the agent is registered; geoclue
is started first, so locd has had less time before its client's Start, not more.
Then the moving laptop (issue 43): a fresh pair of rigs per variant, one client each held for
MOVING seconds, the scene (SCENES below: three places, none of their networks in common)
changed at 100 s and 175 s of it through the stand-in's test interface (SetScene). Variant
"published": the stand-in publishes each change 3 s later as wpa_supplicant does after a scan
of its own (it scans by itself when it loses its access point: BSSRemoved, BSSAdded, BSSs and
CurrentBSS, ScanDone); variant "not published": the change shows only at the next Scan call,
anyone's. Per service: the time from each change to the first lookup naming a network of the
new place ("time to notice"), the scans asked of the stand-in, the lookups sent.
Usage: network_side_by_side.py LOCD_BINARY [RUNS WINDOW JITTER MOVING]   (JITTER 0: no second
pair; MOVING 0: no moving laptop)
"""
import json, os, shutil, statistics, subprocess, sys, tempfile, threading, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PEERS = os.path.join(ROOT, "Tests", "Peers")
PY = "/usr/bin/python3"

BSS = [
    {"bssid": "00:11:22:33:44:01", "ssid": "home", "signal": -52, "frequency": 2437, "age": 3},
    {"bssid": "00:11:22:33:44:02", "ssid": "office", "signal": -61, "frequency": 5180, "age": 2},
    {"bssid": "00:11:22:33:44:03", "ssid": "cafe", "signal": -70, "frequency": 2412, "age": 5},
]
# The moving laptop's places after the first (BSS): when (s after the client's Start) and what.
SCENES = [
    (100, [{"bssid": "00:11:22:33:55:%02x" % i, "ssid": "work%d" % i, "signal": -50 - 8 * i, "frequency": 2437,
            "age": 1} for i in range(1, 4)]),
    (175, [{"bssid": "00:11:22:33:66:%02x" % i, "ssid": "station%d" % i, "signal": -48 - 9 * i, "frequency": 5180,
            "age": 1} for i in range(1, 5)]),
]
# What the stand-in waits before publishing a change (its own scan after losing its access
# point); -1: nothing published until someone scans.
PUBLISH_DELAY = 3

# The private system bus and waiting, as geoclue's side-by-side bench has them.
from geoclue_side_by_side import BUS_CONF, wait_for  # noqa: E402


GEOCLUE_CONF = """[agent]
whitelist=locd-test-agent
[network-nmea]
enable=false
[3g]
enable=false
[cdma]
enable=false
[modem-gps]
enable=false
[compass]
enable=false
[wifi]
enable=true
url=%s
submit-data=false
"""


def lines(path):
    try:
        return open(path).read().splitlines()
    except OSError:
        return []


def run_client(hold):
    """The GeoClue2 client: prints {"first", "lat", "lon", "accuracy", "updates"} as JSON."""
    import dbus, dbus.mainloop.glib
    from gi.repository import GLib
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.SystemBus()
    svc, iface = "org.freedesktop.GeoClue2", "org.freedesktop.GeoClue2.Client"
    manager = bus.get_object(svc, "/org/freedesktop/GeoClue2/Manager")
    path = manager.GetClient(dbus_interface="org.freedesktop.GeoClue2.Manager")
    client = bus.get_object(svc, path)
    client.Set(iface, "DesktopId", "network-bench", dbus_interface="org.freedesktop.DBus.Properties")
    client.Set(iface, "RequestedAccuracyLevel", dbus.UInt32(8), dbus_interface="org.freedesktop.DBus.Properties")
    loop = GLib.MainLoop()
    out = {"first": None, "updates": 0, "t0": None}

    def updated(old, new):
        out["updates"] += 1
        if out["first"] is None:
            out["first"] = time.monotonic() - t0
            props = bus.get_object(svc, new).GetAll("org.freedesktop.GeoClue2.Location",
                                                    dbus_interface="org.freedesktop.DBus.Properties")
            out.update(lat=float(props["Latitude"]), lon=float(props["Longitude"]),
                       accuracy=float(props["Accuracy"]))
            GLib.timeout_add(int(max(hold - out["first"], 0.5) * 1000), loop.quit)

    bus.add_signal_receiver(updated, signal_name="LocationUpdated", path=path)
    GLib.timeout_add(max(60, hold + 5) * 1000, loop.quit)
    t0 = out["t0"] = time.monotonic()
    client.Start(dbus_interface=iface)
    loop.run()
    print(json.dumps(out), flush=True)


class Rig:
    """One service (geoclue or locd) with its bus, wpa_supplicant and geolocate stand-ins and agent."""

    def __init__(self, name, tmp, locd, jitter=0, suffix=""):
        self.name = name + ("_jitter" if jitter else "") + suffix
        self.dir, self.children = os.path.join(tmp, self.name), []
        try:
            self.start(name, locd, jitter)
        except BaseException:
            self.stop()
            raise

    def start(self, name, locd, jitter):
        os.makedirs(self.dir + "/etc")
        os.makedirs(self.dir + "/server")
        open(self.dir + "/server/MODE", "w").write("ok\n")
        json.dump(BSS, open(self.dir + "/bss.json", "w"))
        if name == "geoclue":
            policies = ["/etc/dbus-1/system.d/org.freedesktop.GeoClue2.conf",
                        "/etc/dbus-1/system.d/org.freedesktop.GeoClue2.Agent.conf"]
        else:
            policies = [os.path.join(ROOT, "dbus", "org.freedesktop.GeoClue2.locd.conf")]
        policies.append(os.path.join(PEERS, "wpa-supplicant-stand-in.conf"))
        includes = "".join("<include>%s</include>" % p for p in policies)
        open(self.dir + "/bus.conf", "w").write(BUS_CONF % (self.dir + "/bus", includes))
        self.spawn(["dbus-daemon", "--config-file=" + self.dir + "/bus.conf", "--nofork"])
        wait_for(lambda: os.path.exists(self.dir + "/bus"))
        self.env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS="unix:path=" + self.dir + "/bus")
        self.requests, self.scans = self.dir + "/server/requests.log", self.dir + "/scans.log"
        self.spawn([PY, os.path.join(PEERS, "geolocate-stand-in.py"), self.dir + "/server/port", self.requests])
        wait_for(lambda: os.path.exists(self.dir + "/server/port") and open(self.dir + "/server/port").read().strip())
        url = "http://127.0.0.1:%s/v1/geolocate" % open(self.dir + "/server/port").read().strip()
        wpa = self.spawn([PY, os.path.join(PEERS, "wpa-supplicant-stand-in.py"), self.dir + "/bss.json", self.scans,
                          str(jitter)],
                         env=self.env, log=self.dir + "/wpa.out")
        if not wait_for(lambda: "ready" in open(self.dir + "/wpa.out").read()):
            sys.exit("the wpa_supplicant stand-in did not start: " + open(self.dir + "/wpa.out").read()[-2000:])
        self.started = time.monotonic()
        if name == "geoclue":
            open(self.dir + "/etc/geoclue.conf", "w").write(GEOCLUE_CONF % url)
            self.service = self.spawn(
                ["unshare", "-m", "--propagation", "private", "/bin/sh", "-c",
                 "mount --bind %s/etc /etc/geoclue && exec /usr/libexec/geoclue -t 0" % self.dir],
                env=self.env, log=self.dir + "/service.log")
        else:
            open(self.dir + "/empty.nmea", "w").close()
            open(self.dir + "/locd.conf", "w").write(
                "[GeoClue]\nEnable=yes\n[Position]\nStaticFile=\n[Network]\nEnable=yes\nURL=%s\n" % url)
            self.service = self.spawn(
                [locd, "--config", self.dir + "/locd.conf", "--socket", self.dir + "/locd.sock",
                 "--state-dir", self.dir + "/state", "--source", "replay:" + self.dir + "/empty.nmea"],
                env=self.env, log=self.dir + "/service.log")
        owned = lambda: subprocess.run(["busctl", "--address=" + self.env["DBUS_SYSTEM_BUS_ADDRESS"], "status",
                                        "org.freedesktop.GeoClue2"], capture_output=True).returncode == 0
        if not wait_for(owned):
            sys.exit("%s did not take org.freedesktop.GeoClue2: %s" % (name, open(self.dir + "/service.log").read()[-2000:]))
        self.spawn([PY, os.path.join(PEERS, "geoclue-agent.py"), "8", "yes"], env=self.env, stdin=subprocess.PIPE,
                   log=self.dir + "/agent.out")
        wait_for(lambda: "ready" in open(self.dir + "/agent.out").read())

    def spawn(self, args, env=None, stdin=None, log="/dev/null"):
        p = subprocess.Popen(args, env=env, stdin=stdin, stdout=open(log, "w"), stderr=subprocess.STDOUT)
        self.children.append(p)
        return p

    def client(self, hold, results):
        before = len(lines(self.requests))
        r = subprocess.run([PY, __file__, "--client", str(hold)], env=self.env, capture_output=True, text=True,
                           timeout=hold + 120)
        try:
            results[self.name] = json.loads(r.stdout.strip().splitlines()[-1])
        except (IndexError, ValueError):
            results[self.name] = {"first": None, "error": r.stderr.strip()[-300:]}
        results[self.name]["before"] = before
        r = results[self.name]
        if r.get("first") is not None and r.get("t0") is not None:
            r["sinceExec"] = r["t0"] + r["first"] - self.started
        results[self.name]["lookups"] = len(lines(self.requests))
        bodies = [json.loads(line).get("body") or "" for line in lines(self.requests)]
        results[self.name]["ssids"] = sum('"ssid"' in body for body in bodies)
        results[self.name]["scans"] = len(lines(self.scans))

    def stop(self):
        for p in reversed(self.children):
            p.terminate()
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def set_scene(rig, scene, delay):
    """The stand-in's radio sees `scene` now (published `delay` s later, -1: at the next Scan)."""
    subprocess.run(["busctl", "--address=" + rig.env["DBUS_SYSTEM_BUS_ADDRESS"], "call", "--",
                    "fi.w1.wpa_supplicant1", "/", "org.locd.test.Supplicant", "SetScene", "si",
                    json.dumps(scene), str(delay)], check=True, capture_output=True)


def moving_run(locd, hold):
    """The moving laptop: per variant (published, not published) a geoclue and a locd rig, the
    scene changed at SCENES' times after the clients' Start. Returns, per rig, the seconds from
    each change to the first lookup naming one of the new place's networks (None: not noticed
    within the window), the scans and the lookups."""
    tmp = tempfile.mkdtemp(prefix="locd-bench-moving-")
    rigs = []
    try:
        for suffix in ("_published", "_quiet"):
            for name in ("geoclue", "locd"):
                rigs.append(Rig(name, tmp, locd, 0, suffix))
        results = {}
        threads = [threading.Thread(target=r.client, args=(hold, results)) for r in rigs]
        start = time.time()
        for t in threads:
            t.start()
        changed = []
        for at, scene in SCENES:
            time.sleep(max(0, start + at - time.time()))
            changed.append(time.time())
            for r in rigs:
                set_scene(r, scene, PUBLISH_DELAY if r.name.endswith("_published") else -1)
        for t in threads:
            t.join()
        out = {}
        for r in rigs:
            requests = [json.loads(line) for line in lines(r.requests)]
            notice = []
            for (at, scene), when in zip(SCENES, changed):
                macs = [b["bssid"].lower() for b in scene]
                hits = [q["time"] - when for q in requests
                        if q.get("time", 0) >= when and any(m in (q.get("body") or "").lower() for m in macs)]
                notice.append(min(hits) if hits else None)
            out[r.name] = {"notice": notice, "scans": results[r.name]["scans"], "lookups": len(requests)}
        return out
    finally:
        for r in rigs:
            r.stop()
        shutil.rmtree(tmp, ignore_errors=True)


def one_run(locd, hold, jitter):
    tmp = tempfile.mkdtemp(prefix="locd-bench-network-")
    rigs = []
    try:
        for name, j in [("geoclue", 0), ("locd", 0)] + ([("geoclue", jitter), ("locd", jitter)] if jitter else []):
            rigs.append(Rig(name, tmp, locd, j))
        results = {}
        threads = [threading.Thread(target=r.client, args=(hold, results)) for r in rigs]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return results
    finally:
        for r in rigs:
            r.stop()
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    locd = sys.argv[1]
    runs, window, jitter, moving = (int(a) for a in (sys.argv[2:] + ["3", "600", "5", "240"][len(sys.argv[2:]):])[:4])
    runs = max(runs, 1)
    firsts = {"geoclue": [], "locd": []}
    execs = {"geoclue": [], "locd": []}
    held = None
    for i in range(runs):
        results = one_run(locd, window if i == 0 else 2, jitter if i == 0 else 0)
        if i == 0:
            held = results
        for name, r in results.items():
            if name not in firsts:
                continue
            if r.get("first") is not None:
                firsts[name].append(r["first"])
                execs[name].append(r["sinceExec"])
            elif "error" in r:
                print("%s: %s" % (name, r["error"]), file=sys.stderr)
    names = ("geoclue", "locd")
    rows = [
        ("Start to first location (median of %d)" % runs,
         lambda n: "%.0f ms" % (statistics.median(firsts[n]) * 1000) if firsts[n] else "none"),
        ("service start to first location (median)",
         lambda n: "%.0f ms" % (statistics.median(execs[n]) * 1000) if execs[n] else "none"),
        ("  runs that got one", lambda n: "%d/%d" % (len(firsts[n]), runs)),
        ("position", lambda n: "%.4f, %.4f" % (held[n]["lat"], held[n]["lon"]) if "lat" in held[n] else "none"),
        ("accuracy", lambda n: "%.0f m" % held[n]["accuracy"] if "accuracy" in held[n] else "none"),
        ("lookups sent before Start", lambda n: str(held[n]["before"])),
        ("lookups sent in all, to the window's end", lambda n: str(held[n]["lookups"])),
        ("  of them carrying SSIDs", lambda n: str(held[n]["ssids"])),
        ("Wi-Fi scans asked, to the window's end", lambda n: str(held[n]["scans"])),
        ("LocationUpdated over %d s" % window, lambda n: str(held[n].get("updates", 0))),
    ]
    if jitter:
        moving = lambda key: lambda n: str(held[n + "_jitter"].get(key, 0))
        rows += [
            ("the same networks, signals wandering +-%d dBm:" % jitter, lambda n: ""),
            ("  lookups sent in all, to the window's end", moving("lookups")),
            ("  Wi-Fi scans asked, to the window's end", moving("scans")),
            ("  LocationUpdated over %d s" % window, moving("updates")),
        ]
    if moving:
        m = moving_run(locd, moving)
        seconds = lambda key: lambda n: ", ".join(
            "%.1f s" % x if x is not None else "none" for x in m[n + key]["notice"])
        count = lambda key, what: lambda n: str(m[n + key][what])
        changes = " and ".join("%d s" % at for at, _ in SCENES)
        rows += [
            ("a moving laptop: the scene changed at %s of a %d s client," % (changes, moving), lambda n: ""),
            ("  the supplicant publishing each change %d s later:" % PUBLISH_DELAY, lambda n: ""),
            ("    time to notice each change", seconds("_published")),
            ("    Wi-Fi scans asked", count("_published", "scans")),
            ("    lookups sent", count("_published", "lookups")),
            ("  nothing published until a scan:", lambda n: ""),
            ("    time to notice each change", seconds("_quiet")),
            ("    Wi-Fi scans asked", count("_quiet", "scans")),
            ("    lookups sent", count("_quiet", "lookups")),
        ]
    width = max(len(r[0]) for r in rows)
    print("%-*s  %18s  %18s" % (width, "", "geoclue 2.6", "locd"))
    for label, value in rows:
        print("%-*s  %18s  %18s" % (width, label, *(value(n) for n in names)))


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--client":
        run_client(float(sys.argv[2]))
    else:
        main()
