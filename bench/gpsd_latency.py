"""Fix-to-TPV latency through locd's gpsd face against gpsd's own, in the same run.

usage: gpsd_latency.py LOCD WATCHERS SECONDS

One feeder writes each receiver cycle (RMC, GGA, GSA from a real log of gpsd's project,
Tests/Fixtures/nmea/bu353s4.log, restamped to now, 10 cycles a second) at the same instant
to a pseudo-terminal that gpsd reads (gpsd -N -n, its receiver) and as a datagram to locd's
nmea+udp source. WATCHERS clients watch each daemon (?WATCH json on loopback TCP) and note
when the first TPV of each cycle, with a position, reaches them (each daemon's watchers in a
process of their own, the time the kernel received each segment, SO_TIMESTAMPNS, so how fast a watcher reads
does not count). Prints per daemon the median, p90, p99
and max of arrival minus write, over every watcher and cycle, how many watchers were served
at all (gpsd 3.22 closes connections past its compiled-in limit of 64 clients), and the
cycles the served ones missed; when gpsd served fewer, locd's figures again over its first
that many watchers of each cycle (the same number of writes as gpsd's). gpsd sends a TPV per sentence: the first
with the cycle's time and a position counts, which comes after the cycle's first sentence
(GGA); locd sends one when the cycle is complete (after RMC).
"""
import multiprocessing, os, select, shutil, socket, struct, subprocess, sys, tempfile, time, tty

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


def feed(write, start_at, offset, stop, out):
    """Runs in its own process, one per daemon (a write to a pty can take a millisecond in the
    kernel: one feeder writing to both daemons in turn held the second back by that much):
    writes each receiver cycle at its scheduled instant, start_at plus a tenth of a second
    per cycle, stamped with that instant, plus OFFSET: the two feeders write the same bytes
    half a cycle apart, so the two daemons do not take the two CPUs from each other (written
    at the same moment, the second to wake waited for the first one's whole fan-out). Sends back through OUT each cycle's key and the clock just before its write."""
    source = cycles()
    sent = {}
    i = 0
    while not stop.is_set():
        c = source[i % len(source)]
        at = start_at + 0.1 * i
        i += 1
        stamp = time.gmtime(at)
        hms = time.strftime("%H%M%S", stamp) + ".%02d" % (int(at * 100) % 100)
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
        key = time.strftime("%H:%M:%S", stamp) + ".%02d" % (int(at * 100) % 100)
        time.sleep(max(0, at + offset - time.time()))
        sent[key] = time.time()
        write(data)
    out.send(sent)


def pty_writer(fd):
    return lambda data: os.write(fd, data)


def udp_writer(port):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    return lambda data: s.sendto(data, ("127.0.0.1", port))


SO_TIMESTAMPNS = 35  # asm-generic/socket.h; also SCM_TIMESTAMPNS


def received_at(ancillary):
    """The kernel's receive time of the data recvmsg returned (SCM_TIMESTAMPNS), or now."""
    for level, kind, data in ancillary:
        if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(data) >= 16:
            seconds, nanoseconds = struct.unpack("qq", data[:16])
            return seconds + nanoseconds / 1e9
    return time.time()


def watch(port, count, stop, ready, out):
    """Runs in its own process (one per daemon, so neither daemon's watchers wait for the
    other's under one interpreter lock): connects COUNT watchers, then notes for each the
    arrival of the first TPV with a position of each cycle, the clock read right after the
    kernel's receive time of the segment that brought it. Sends the arrivals back through OUT when STOP is set."""
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
        # The kernel's receive time of each segment: when the daemon's write reached this
        # socket, however long this process takes to come to it.
        k.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        socks.append([k, b"", set()])
    index = {s[0].fileno(): s for s in socks}
    poller = select.epoll()
    for fd in index:
        poller.register(fd, select.EPOLLIN)
    arrivals = []
    ready.set()
    while not stop.is_set():
        for fd, _ in poller.poll(0.2):
            entry = index.get(fd)
            if entry is None:
                continue
            try:
                chunk, ancillary, _, _ = entry[0].recvmsg(65536, 64)
            except BlockingIOError:
                continue
            except OSError:
                chunk, ancillary = b"", []  # reset: gpsd closes the connections past its client limit
            now = received_at(ancillary)
            if not chunk:
                poller.unregister(fd)
                del index[fd]
                continue
            entry[1] += chunk
            *lines, entry[1] = entry[1].split(b"\n")
            for line in lines:
                # No JSON parsing here: a watcher that parsed every line would be slower than
                # the daemons it measures. The cycle's key is the time's hh:mm:ss.ss.
                if b'"TPV"' not in line or b'"lat"' not in line:
                    continue
                at = line.find(b'"time":"')
                key = line[at + 19:at + 30].decode() if at >= 0 else None
                if key and len(key) == 11 and key not in entry[2]:
                    entry[2].add(key)
                    arrivals.append((key, now, fd))
    out.send(arrivals)


def figures(name, arrivals, sent, watchers, cycles_sent):
    """Prints the figures of ARRIVALS; returns how many watchers were served."""
    lat = sorted((now - sent[key][name[:4]]) * 1000 for key, now, _ in arrivals if key in sent)
    served = len({fd for _, _, fd in arrivals})
    if not lat:
        print("%-6s no TPV with a position arrived" % name)
        return 0
    q = lambda p: lat[min(len(lat) - 1, int(p * len(lat)))]
    missed = served * cycles_sent - len(lat)
    # The first watcher of each cycle: how long before the daemon's first write lands.
    first = {}
    for key, now, _ in arrivals:
        if key in sent:
            first[key] = min(first.get(key, now), now)
    firsts = sorted((now - sent[key][name[:4]]) * 1000 for key, now in first.items())
    print("%-6s %d of %d watchers served, %d TPVs: median %.2f ms, p90 %.2f, p99 %.2f, max %.2f; %d missed;"
          " first of a cycle: median %.2f ms"
          % (name, served, watchers, len(lat), q(0.5), q(0.9), q(0.99), lat[-1], max(missed, 0),
             firsts[len(firsts) // 2]))
    return served


def first_of_each_cycle(arrivals, n):
    """The first N arrivals of each cycle: a daemon's figures for as many watchers as the
    other one served (each write to a watcher is a syscall done in turn, so a daemon with
    more watchers to write to has a later median by that alone)."""
    by_cycle = {}
    for a in sorted(arrivals, key=lambda a: a[1]):
        by_cycle.setdefault(a[0], []).append(a)
    return [a for group in by_cycle.values() for a in group[:n]]


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
    watchers_stop = multiprocessing.Event()
    pipes = {}
    procs = []
    try:
        for name, port in (("gpsd", gpsd_port), ("locd", locd_port)):
            ready = multiprocessing.Event()
            mine, theirs = multiprocessing.Pipe(duplex=False)
            p = multiprocessing.Process(target=watch, args=(port, watchers, watchers_stop, ready, theirs), daemon=True)
            p.start()
            ready.wait(30)
            pipes[name] = mine
            procs.append(p)
        feeders_stop = multiprocessing.Event()
        start_at = time.time() + 0.5
        feeds = {}
        for name, make, arg, offset in (("gpsd", pty_writer, master, 0), ("locd", udp_writer, udp_port, 0.05)):
            mine, theirs = multiprocessing.Pipe(duplex=False)
            p = multiprocessing.Process(
                target=lambda m=make, a=arg, o=offset, t=theirs: feed(m(a), start_at, o, feeders_stop, t), daemon=True)
            p.start()
            feeds[name] = mine
            procs.append(p)
        time.sleep(2.5)  # both daemons take up the stream; these cycles are not counted
        start = time.time()
        time.sleep(seconds)
        feeders_stop.set()
        sent_by = {name: pipe.recv() for name, pipe in feeds.items()}
        time.sleep(0.3)
        watchers_stop.set()
        results = {name: pipe.recv() for name, pipe in pipes.items()}
        sent = {k: {"gpsd": v, "locd": sent_by["locd"][k]} for k, v in sent_by["gpsd"].items() if k in sent_by["locd"]}
        counted = {k: v for k, v in sent.items() if v["gpsd"] >= start and v["gpsd"] < start + seconds - 0.3}
        print("%d watchers each, %d cycles at 10 Hz, %s" % (watchers, len(counted), locd))
        arrivals = {name: [a for a in results[name] if a[0] in counted] for name in results}
        served = {name: figures(name, arrivals[name], counted, watchers, len(counted)) for name in ("gpsd", "locd")}
        if 0 < served["gpsd"] < served["locd"]:
            # As many watchers as gpsd served: locd's first that many of each cycle.
            figures("locd%d" % served["gpsd"], first_of_each_cycle(arrivals["locd"], served["gpsd"]), counted,
                    watchers, len(counted))
    finally:
        for p in (daemon, gpsd):
            p.terminate()
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                p.kill()
        shutil.rmtree(tmp, ignore_errors=True)


main()
