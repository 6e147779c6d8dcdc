#!/usr/bin/python3
"""Light and dark (bench/90-lightdark.sh): how soon a transition reaches an app through the
desktop portal, and how often locd-session wakes up between transitions.

Everything runs on a private session bus (dbus-daemon configured as a session bus, open to
its clients): locd-session (Portal=yes), the real xdg-desktop-portal (1.16 in Debian 12, with
the permission store it needs), and an app that subscribes to the portal's SettingChanged
(the tests' Tests/Peers/portal-settings-client.py, python3-dbus).

1. Real clock: locd with a manual location moved east or west until its schedule's next
   transition is 45 to 150 s away (a sunset or a sunrise moves 4 minutes per degree of
   longitude; the schedule's 25 km cells make the steps about 80 s at 49 deg N). The
   transition's second comes from `locctl mode --json`; the app notes when SettingChanged
   arrives (time.time()). Latency = arrival - transition.
2. Simulated time: locd --clock replay on a receiver parked at the same latitude, fixes at
   10 Hz from 60 s before the transition of the cell to 10 s after, played at speed 1. The
   engine fires the transition when simulated time passes it (with the next fix), so the
   latency in simulated time is the wall time from the moment the replay reached the
   transition (the last fix before it, from a `locctl watch` of the fixes, plus what is left
   to the transition) to the arrival at the app.
3. Wakeups: locd-session's voluntary + involuntary context switches (/proc/PID/status) over
   IDLE seconds with nothing to do (no transition in that window).

darkman is not packaged in Debian 12 and its repository could not be fetched here, so there is
no peer to set beside these figures.
Usage: lightdark.py LOCD LOCCTL LOCD_SESSION [IDLE_SECONDS]
"""
import calendar, json, os, shutil, subprocess, sys, tempfile, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from private_bus import switches, wait_for

PORTAL = "/usr/libexec/xdg-desktop-portal"
STORE = "/usr/share/dbus-1/services/org.freedesktop.impl.portal.PermissionStore.service"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LAT = 48.85
SESSION_CONF = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>session</type><listen>unix:path=%s</listen><auth>EXTERNAL</auth>
<servicedir>%s</servicedir>
<policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/>
<allow own="*"/></policy></busconfig>"""


def iso(t):
    return calendar.timegm(time.strptime(t, "%Y-%m-%dT%H:%M:%SZ"))


def owned(env, name):
    """Whether `name` has an owner on the session bus of `env` (busctl status)."""
    return subprocess.run(["busctl", "--user", "status", name], env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode == 0


class Rig:
    """A private session bus with locd-session, the portal and an app (the tests' portal
    client, Tests/Peers/portal-settings-client.py, noting when each SettingChanged arrives)."""

    def __init__(self, work, locd_socket, session_binary):
        self.work = work
        self.children = []
        for d in ("services", "portals", "home", "run", "config/locd"):
            os.makedirs(work + "/" + d, exist_ok=True)
        os.chmod(work + "/run", 0o700)
        shutil.copy(STORE, work + "/services/")
        shutil.copy(ROOT + "/dbus/locd.portal", work + "/portals/")
        open(work + "/config/locd/session.conf", "w").write("[Faces]\nPortal=yes\nScripts=no\n")
        sock = work + "/bus"
        open(work + "/session.conf", "w").write(SESSION_CONF % (sock, work + "/services"))
        self.spawn(["dbus-daemon", "--config-file=" + work + "/session.conf", "--nofork"], None)
        assert wait_for(lambda: os.path.exists(sock)), "dbus-daemon did not start"
        self.env = dict(os.environ, DBUS_SESSION_BUS_ADDRESS="unix:path=" + sock, HOME=work + "/home",
                        XDG_RUNTIME_DIR=work + "/run", XDG_CONFIG_HOME=work + "/config",
                        XDG_CURRENT_DESKTOP="sway", XDG_DESKTOP_PORTAL_DIR=work + "/portals")
        self.session = self.spawn([session_binary, "--socket", locd_socket, "--log-level", "warning"], self.env)
        assert wait_for(lambda: owned(self.env, "org.freedesktop.impl.portal.desktop.locd")), \
            "locd-session did not take its name"
        self.spawn([PORTAL], self.env)
        assert wait_for(lambda: owned(self.env, "org.freedesktop.portal.Desktop"), timeout=30), \
            "xdg-desktop-portal did not start"
        self.arrivals = []
        app = subprocess.Popen(["/usr/bin/python3", ROOT + "/Tests/Peers/portal-settings-client.py", "600",
                                "--times"], env=self.env, stdout=subprocess.PIPE, text=True)
        self.children.append(app)

        def read():
            for line in app.stdout:
                e = json.loads(line)
                if "changed" in e:
                    self.arrivals.append((e["at"], e["changed"]))

        threading.Thread(target=read, daemon=True).start()

    def spawn(self, argv, env):
        p = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.children.append(p)
        return p

    def close(self):
        for p in reversed(self.children):
            p.terminate()
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                p.kill()


def rss(pid):
    """VmRSS of `pid` (/proc/PID/status)."""
    for line in open("/proc/%d/status" % pid):
        if line.startswith("VmRSS:"):
            return " ".join(line.split()[1:])
    return "?"


def locctl(locctl_binary, sock, *args):
    return subprocess.run([locctl_binary, "--socket", sock] + list(args), capture_output=True, text=True,
                          check=True).stdout


def real_clock(locd, locctl_binary, session_binary, idle):
    work = tempfile.mkdtemp(prefix="locd-bench-lightdark-")
    sock = work + "/locd.sock"
    os.mkdir(work + "/state", 0o700)
    daemon = subprocess.Popen([locd, "--config", "/dev/null", "--socket", sock, "--state-dir", work + "/state",
                               "--source", "replay:/dev/null", "--log-level", "warning"],
                              stderr=subprocess.DEVNULL)
    rig = None
    try:
        assert wait_for(lambda: os.path.exists(sock)), "locd did not start"
        time.sleep(0.3)
        lon = 0.0
        transition = None
        for _ in range(12):
            locctl(locctl_binary, sock, "set-location", "%.4f" % LAT, "%.4f" % lon)
            s = json.loads(locctl(locctl_binary, sock, "mode", "--json"))
            at = iso(s["transitions"][0]["at"])
            ahead = at - time.time()
            if 45 <= ahead <= 150:
                transition = (at, s["transitions"][0]["mode"])
                break
            # Earlier by 4 min a degree east; aim 90 s ahead, within a day.
            shift = ((ahead - 90) % 86400) / 240.0
            lon = (lon + shift + 180) % 360 - 180
        assert transition, "no place with a transition 45 to 150 s away"
        rig = Rig(work + "/session", sock, session_binary)
        pid = rig.session.pid
        time.sleep(2)
        window = min(idle, transition[0] - time.time() - 5)
        before = switches(pid)
        time.sleep(max(0, window))
        idle_switches = switches(pid) - before
        expected = 1 if transition[1] == "dark" else 2
        assert wait_for(lambda: any(v == expected for _, v in rig.arrivals), timeout=180), "no SettingChanged"
        arrival = next(t for t, v in rig.arrivals if v == expected)
        print("real clock: %s at %s UTC reached the app through xdg-desktop-portal %.0f ms after its second"
              % (transition[1], time.strftime("%H:%M:%S", time.gmtime(transition[0])),
                 (arrival - transition[0]) * 1000))
        print("locd-session wakeups between transitions: %d context switches in %.0f s (0 wanted)"
              % (idle_switches, window))
    finally:
        if rig:
            rig.close()
        daemon.terminate()
        daemon.wait(10)
        shutil.rmtree(work, ignore_errors=True)


def nmea(t, lat, lon):
    """RMC and GGA for a parked receiver at `t` (seconds, tenths kept)."""
    g = time.gmtime(int(t))
    hhmmss = "%02d%02d%02d.%02d" % (g.tm_hour, g.tm_min, g.tm_sec, round((t % 1) * 100))
    date = "%02d%02d%02d" % (g.tm_mday, g.tm_mon, g.tm_year % 100)

    def angle(v, digits):
        d = int(abs(v))
        return "%0*d%08.5f" % (digits, d, (abs(v) - d) * 60)

    la = angle(lat, 2) + (",N" if lat >= 0 else ",S")
    lo = angle(lon, 3) + (",E" if lon >= 0 else ",W")
    out = ""
    for body in ("GPRMC,%s,A,%s,%s,0.0,0.0,%s,,,A" % (hhmmss, la, lo, date),
                 "GPGGA,%s,%s,%s,1,09,0.9,100.0,M,50.0,M,," % (hhmmss, la, lo)):
        s = 0
        for c in body.encode():
            s ^= c
        out += "$%s*%02X\r\n" % (body, s)
    return out


def simulated(locd, locctl_binary, session_binary):
    work = tempfile.mkdtemp(prefix="locd-bench-lightdark-replay-")
    sock = work + "/locd.sock"
    os.mkdir(work + "/state", 0o700)
    daemon = None
    rig = None
    watch = None
    try:
        # The drive is on 2024-03-20, sunset in Paris about 18:04 UTC; its exact second for the
        # cell comes from the replaying locd itself once the first fix is in.
        start = calendar.timegm((2024, 3, 20, 18, 2, 0, 0, 0, 0))
        with open(work + "/drive.nmea", "w") as f:
            for i in range(0, 10 * 200):
                f.write(nmea(start + i / 10.0, LAT, 2.35))
        daemon = subprocess.Popen([locd, "--config", "/dev/null", "--socket", sock, "--state-dir", work + "/state",
                                   "--clock", "replay", "--source", "replay:%s/drive.nmea?speed=1" % work,
                                   "--log-level", "warning"], stderr=subprocess.DEVNULL)
        assert wait_for(lambda: os.path.exists(sock))
        time.sleep(0.3)
        rig = Rig(work + "/session", sock, session_binary)
        fixes = []
        watch = subprocess.Popen([locctl_binary, "--socket", sock, "watch", "--json"], stdout=subprocess.PIPE,
                                 text=True)

        def read():
            for line in watch.stdout:
                e = json.loads(line)
                if e.get("event") == "location" and e["data"].get("fix"):
                    fixes.append((iso(e["data"]["fix"]["time"][:19] + "Z") + float("0." + e["data"]["fix"]["time"][20:23]),
                                  time.time()))

        threading.Thread(target=read, daemon=True).start()
        assert wait_for(lambda: len(fixes) > 0, timeout=30), "the replay did not start"
        s = json.loads(locctl(locctl_binary, sock, "mode", "--json"))
        sunset = iso(next(t["at"] for t in s["transitions"] if t["mode"] == "dark"))
        assert wait_for(lambda: any(v == 1 for _, v in rig.arrivals), timeout=240), "no SettingChanged"
        arrival = next(t for t, v in rig.arrivals if v == 1)
        last = max((f for f in fixes if f[0] <= sunset), key=lambda f: f[0])
        reached = last[1] + (sunset - last[0])
        print("simulated time (--clock replay, 10 Hz fixes, speed 1): dark reached the app %.0f ms after "
              "the replay reached the sunset of the cell (%s UTC simulated; a fix falls on that second, so "
              "the transition fires with it: the figure is the app's receipt against a locctl watch's receipt "
              "of that fix)" % ((arrival - reached) * 1000, time.strftime("%H:%M:%S", time.gmtime(sunset))))
        print("locd-session RSS: %s" % rss(rig.session.pid))
    finally:
        if watch:
            watch.terminate()
        if rig:
            rig.close()
        if daemon:
            daemon.terminate()
            daemon.wait(10)
        shutil.rmtree(work, ignore_errors=True)


def main():
    locd, locctl_binary, session_binary = sys.argv[1:4]
    idle = float(sys.argv[4]) if len(sys.argv) > 4 else 30
    real_clock(locd, locctl_binary, session_binary, idle)
    simulated(locd, locctl_binary, session_binary)


if __name__ == "__main__":
    main()
