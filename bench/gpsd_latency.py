"""Fix-to-TPV latency through locd's gpsd face against gpsd's own, in the same run.

usage: gpsd_latency.py LOCD WATCHERS SECONDS

One feeder writes each receiver cycle (RMC, GGA, GSA from a real log of gpsd's project,
Tests/Fixtures/nmea/bu353s4.log, restamped to now, 10 cycles a second) at the same instant
to a pseudo-terminal that gpsd reads (gpsd -N -n, its receiver) and as a datagram to locd's
nmea+udp source. WATCHERS clients watch each daemon (?WATCH json on loopback TCP) and note
when the first TPV of each cycle, with a position, reaches them. Prints per daemon the
median, p90, p99 and max of arrival minus write, over every watcher and cycle, how many
watchers were served at all (gpsd 3.22 closes connections past its compiled-in limit of 64
clients), and the cycles the served ones missed. gpsd sends a TPV per sentence: the first
with the cycle's time and a position counts, which comes after the cycle's first sentence
(GGA); locd sends one when the cycle is complete (after RMC).
"""
import json, os, select, shutil, socket, subprocess, sys, tempfile, threading, time, tty

LOG = os.path.join(os.path.dirname(__file__), "..", "Tests", "Fixtures", "nmea", "bu353s4.log")


def checksum(body):
    c = 0
    for ch in body:
        c ^= ord(ch)
    return "%02X" % c


def free_port(kind=socket.SOCK_STREAM):
    s = socket.socket(socket.AF_INET, kind)
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def cycles():
    """The log's sentences grouped by cycle: (RMC, GGA, GSA) field lists."""
    lines = [l.strip() for l in open(LOG, errors="replace") if l.startswith("$GP")]
    out, current = [], {}
    for l in lines:
        f = (l[1:l.index("*")] if "*" in l else l[1:]).split(",")
        kind = f[0][2:]
        if kind in ("RMC", "GGA", "GSA"):
            current[kind] = f
        if kind == "RMC" and "GGA" in current:
            out.append(dict(current))
    return out


def feed(pty_fd, udp_port, stop, sent):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    source = cycles()
    i = 0
    next_at = time.time()
    while not stop.is_set():
        c = source[i % len(source)]
        i += 1
        now = time.time() + 0.001
        stamp = time.gmtime(now)
        hms = time.strftime("%H%M%S", stamp) + ".%02d" % (int(now * 100) % 100)
        text = ""
        for kind in ("GGA", "GSA", "RMC"):
            f = list(c[kind]) if kind in c else None
            if f is None:
                continue
            if kind in ("GGA", "RMC"):
                f[1] = hms
            if kind == "RMC":
                f[9] = time.strftime("%d%m%y", stamp)
            body = ",".join(f)
            text += "$%s*%s\r\n" % (body, checksum(body))
        data = text.encode()
        key = time.strftime("%H:%M:%S", stamp) + ".%02d" % (int(now * 100) % 100)
        sent[key] = time.time()
        os.write(pty_fd, data)
        s.sendto(data, ("127.0.0.1", udp_port))
        next_at += 0.1
        time.sleep(max(0, next_at - time.time()))


def watch(port, count, stop, arrivals, ready):
    socks = []
    for _ in range(count):
        for attempt in range(100):
            try:
                k = socket.create_connection(("127.0.0.1", port))
                break
            except OSError:
                time.sleep(0.05)
        k.sendall(b'?WATCH={"enable":true,"json":true};\n')
        k.setblocking(False)
        socks.append([k, b"", set()])
    ready.set()
    index = {s[0].fileno(): s for s in socks}
    while not stop.is_set():
        r, _, _ = select.select(list(index), [], [], 0.2)
        now = time.time()
        for fd in r:
            entry = index[fd]
            try:
                chunk = entry[0].recv(65536)
            except BlockingIOError:
                continue
            except OSError:
                chunk = b""  # reset: gpsd closes the connections past its client limit
            if not chunk:
                del index[fd]
                continue
            entry[1] += chunk
            *lines, entry[1] = entry[1].split(b"\n")
            for line in lines:
                if b'"TPV"' not in line or b'"lat"' not in line:
                    continue
                t = json.loads(line).get("time", "")
                key = t[11:22] if len(t) >= 22 else None
                if key and key not in entry[2]:
                    entry[2].add(key)
                    arrivals.append((key, now, fd))


def figures(name, arrivals, sent, watchers, cycles_sent):
    lat = sorted((now - sent[key]) * 1000 for key, now, _ in arrivals if key in sent)
    served = len({fd for _, _, fd in arrivals})
    if not lat:
        print("%-6s no TPV with a position arrived" % name)
        return
    q = lambda p: lat[min(len(lat) - 1, int(p * len(lat)))]
    missed = served * cycles_sent - len(lat)
    print("%-6s %d of %d watchers served, %d TPVs: median %.2f ms, p90 %.2f, p99 %.2f, max %.2f; %d missed"
          % (name, served, watchers, len(lat), q(0.5), q(0.9), q(0.99), lat[-1], max(missed, 0)))


def main():
    locd, watchers, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    gpsd_bin = shutil.which("gpsd") or "/usr/sbin/gpsd"
    tmp = tempfile.mkdtemp()
    master, slave = os.openpty()
    tty.setraw(slave)
    tty.setraw(master)
    gpsd_port, locd_port, udp_port = free_port(), free_port(), free_port(socket.SOCK_DGRAM)
    gpsd = subprocess.Popen([gpsd_bin, "-N", "-n", "-b", "-S", str(gpsd_port), "-F", tmp + "/gpsd.ctl",
                             os.ttyname(slave)], stderr=subprocess.DEVNULL)
    conf = tmp + "/locd.conf"
    with open(conf, "w") as f:
        f.write("[Gpsd]\nEnable=yes\nSocket=%s/gpsd.sock\nListenPort=%d\nMaxClients=1024\n" % (tmp, locd_port))
    daemon = subprocess.Popen([locd, "--config", conf, "--socket", tmp + "/locd.sock", "--state-dir", tmp + "/state",
                               "--source", "nmea+udp://127.0.0.1:%d" % udp_port, "--log-level", "notice"],
                              stderr=subprocess.DEVNULL)
    stop = threading.Event()
    sent = {}
    results = {"gpsd": [], "locd": []}
    threads = []
    try:
        for name, port in (("gpsd", gpsd_port), ("locd", locd_port)):
            ready = threading.Event()
            t = threading.Thread(target=watch, args=(port, watchers, stop, results[name], ready), daemon=True)
            t.start()
            ready.wait(30)
            threads.append(t)
        feeder = threading.Thread(target=feed, args=(master, udp_port, stop, sent), daemon=True)
        feeder.start()
        time.sleep(2)  # both daemons take up the stream; these cycles are not counted
        start = time.time()
        warm = set(sent)
        for name in results:
            results[name].clear()
        time.sleep(seconds)
        stop.set()
        time.sleep(0.3)
        counted = {k: v for k, v in sent.items() if k not in warm and v >= start and v < start + seconds - 0.3}
        print("%d watchers each, %d cycles at 10 Hz, %s" % (watchers, len(counted), locd))
        for name in ("gpsd", "locd"):
            figures(name, [a for a in results[name] if a[0] in counted], counted, watchers, len(counted))
    finally:
        for p in (daemon, gpsd):
            p.terminate()
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                p.kill()
        shutil.rmtree(tmp, ignore_errors=True)


main()
