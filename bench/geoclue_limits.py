#!/usr/bin/python3
"""Issue 28's attacks on the GeoClue face, at the issue's size, against a locd binary on a
private bus configured like the system bus (dbus-daemon's built-in limits: 128 pending replies
per connection, reply_timeout never), the attacker uid 65534, the others root and uid 1.
Prints, for the binary given (run it with main's and with this branch's):
  - clients: 40 connections x 64 CreateClient by uid 65534, how many it got and in how long,
    and whether root and uid 1 then get a client;
  - silent agent: an agent of uid 65534 that never answers AuthorizeApp and 180 Starts of
    that user's clients (as many as it may make), then 100 AddAgents from a connection that
    never answers at all: how many calls the agent was asked, and whether root and uid 1
    can register an agent and have a Start decided while it stays;
  - logs (first, so that nothing else spent the throttle): 200 Starts and Stops of a granted
    app and 200 of a denied one, by uid 65534, with locd at LogLevel=info: the lines logged.
Usage: geoclue_limits.py LOCD LOCCTL   (as root; python3-dbus, python3-gi, dbus-daemon)
"""
import json, os, shutil, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PEERS = os.path.join(ROOT, "Tests", "Peers")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from geoclue_side_by_side import BUS_CONF, wait_for, owned  # noqa: E402


def as_user(uid):
    return ["setpriv", "--reuid=%d" % uid, "--regid=%d" % uid, "--clear-groups", "--pdeathsig", "KILL", "--"]


def main():
    locd, locctl = sys.argv[1], sys.argv[2]
    tmp = tempfile.mkdtemp(prefix="locd-bench-geoclue-limits-")
    os.chmod(tmp, 0o755)
    children = []

    def spawn(args, env, log, stdin=subprocess.PIPE):
        p = subprocess.Popen(args, env=env, stdin=stdin, stdout=open(log, "w"), stderr=subprocess.STDOUT)
        children.append(p)
        return p

    def text(log):
        return open(log).read()

    try:
        policy = os.path.join(ROOT, "dbus", "org.freedesktop.GeoClue2.locd.conf")
        open(tmp + "/bus.conf", "w").write(BUS_CONF % (tmp + "/bus", "<include>%s</include>" % policy))
        spawn(["dbus-daemon", "--config-file=" + tmp + "/bus.conf", "--nofork"], None, tmp + "/bus.log")
        wait_for(lambda: os.path.exists(tmp + "/bus"))
        env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS="unix:path=" + tmp + "/bus")
        open(tmp + "/locd.conf", "w").write("[Daemon]\nLogLevel=info\n[GeoClue]\nEnable=yes\n")
        sock = tmp + "/locd.sock"
        spawn([locd, "--config", tmp + "/locd.conf", "--socket", sock, "--state-dir", tmp + "/state",
               "--source", "replay:/dev/null"], env, tmp + "/locd.log")
        if not wait_for(lambda: owned(env)):
            sys.exit("locd did not take the name: " + text(tmp + "/locd.log")[-2000:])

        def counters():
            r = subprocess.run([locctl, "--socket", sock, "status", "--json"], capture_output=True, text=True)
            return json.loads(r.stdout)["geoclue"]["counters"]

        def clients(uid, conns, per, name):
            log = "%s/%s.out" % (tmp, name)
            p = spawn(as_user(uid) + [PEERS + "/geoclue-flood.py", "clients", str(conns), str(per)], env, log)
            wait_for(lambda: "}" in text(log), timeout=120)
            return p, json.loads(text(log))

        for command in (["apps", "grant", "org.example.Looped", "--user", "65534"],
                        ["apps", "deny", "org.example.Refused", "--user", "65534"]):
            subprocess.run([locctl, "--socket", sock] + command, check=True, capture_output=True)
        before = len(text(tmp + "/locd.log").splitlines())
        loop_start = time.time()
        for app in ("org.example.Looped", "org.example.Refused"):
            subprocess.run(as_user(65534) + [PEERS + "/geoclue-flood.py", "loop", "1", "200", app], env=env,
                           check=True, capture_output=True, timeout=300)
        lines = text(tmp + "/locd.log").splitlines()[before:]
        print("logs: 400 Starts (200 granted, 200 denied) in %.1f s: %d lines at info" % (
            time.time() - loop_start, len(lines)))
        flood_start = time.time()
        flood, got = clients(65534, 40, 64, "flood")
        took = time.time() - flood_start
        print("clients: uid 65534, 40 connections x 64 CreateClient: %d created, %s refused (%.1f s)"
              % (got["created"], sum(got["refused"].values()), took))
        for uid in (0, 1):
            p, mine = clients(uid, 1, 1, "clients-%d" % uid)
            print("clients: then uid %d's CreateClient: %s" % (
                uid, "a client" if mine["created"] == 1 else "refused: " + (mine["message"] or "?")))
            p.stdin.close()
        flood.stdin.close()
        flood.wait(10)
        time.sleep(1)

        silent = spawn(as_user(65534) + [PEERS + "/geoclue-agent.py", "8", "hold"], env, tmp + "/silent.out")
        wait_for(lambda: "ready" in text(tmp + "/silent.out"))
        starts_log = tmp + "/starts.out"
        starts = spawn(as_user(65534) + [PEERS + "/geoclue-flood.py", "starts", "3", "60", "org.example.Flood"], env,
                       starts_log)
        wait_for(lambda: "sent" in text(starts_log), timeout=60)
        agents_log = tmp + "/agents.out"
        agents = spawn(as_user(65534) + [PEERS + "/geoclue-flood.py", "agents", "1", "100"], env, agents_log)
        wait_for(lambda: "sent" in text(agents_log), timeout=60)
        time.sleep(3)
        asked = text(tmp + "/silent.out").count("authorize ")
        sent = [l for l in text(starts_log).splitlines() if l.startswith("sent")]
        print("silent agent: uid 65534 %s Starts, 100 AddAgents; the agent was asked %d AuthorizeApp" % (
            sent[0].split()[1] if sent else "?", asked))
        for uid in (0, 1):
            log = "%s/agent-%d.out" % (tmp, uid)
            spawn(as_user(uid) + [PEERS + "/geoclue-agent.py", "8", "yes"], env, log)
            wait_for(lambda: "ready" in text(log) or "failed" in text(log), timeout=30)
            r = subprocess.run(as_user(uid) + [PEERS + "/geoclue-probe.py", "start", "org.example.Other%d" % uid, "8"],
                               env=env, capture_output=True, text=True, timeout=60)
            print("silent agent: then uid %d's AddAgent: %s; its Start: %s" % (
                uid, "added" if "ready" in text(log) else text(log).strip(), r.stdout.strip()))
        print("silent agent: counters %s" % {k: v for k, v in counters().items()
                                             if k in ("authorizeCalls", "agentCallsRefused", "agentTimeouts")})
        for p in (silent, starts, agents):
            p.stdin.close()
            p.wait(10)
        time.sleep(1)

    finally:
        for p in reversed(children):
            p.terminate()
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                p.kill()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
