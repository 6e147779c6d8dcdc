"""RSS and wakeups of locd with its gpsd face against gpsd plus locd, in the same run.

usage: gpsd_footprint.py LOCD SECONDS [WATCHERS]

One feeder writes each receiver cycle (GGA, GSA, RMC and, every fifth, the GSV group, from a
real log of gpsd's project, Tests/Fixtures/nmea/bu353s4.log, restamped to now, once a second
as the receiver did) at the same instant to two pseudo-terminals, as a serial GPS would:

  face:  locd reads the first (serial:) and serves the gpsd clients itself ([Gpsd]).
  pair:  gpsd reads the second (gpsd -N -n, its receiver) and serves the gpsd clients, and a
         second locd reads gpsd (gpsd://) for its own clients: what a machine runs today.

WATCHERS gpsd clients (1) watch each setup (?WATCH json on loopback TCP) and read
everything, and one `locctl watch` streams each locd's events (locd's own clients). Both
locds run `[Acquisition] Policy=continuous`, so both keep their receiver (the pty, or gpsd's
watch) awake whatever their clients ask. After a warm-up of 3 s, over SECONDS: CPU time and voluntary context switches
(wakeups, /proc/PID/status) of each process, then VmRSS and VmHWM at the end, printed side
by side; the pair's figures are the sum of its two processes.
"""
import os, select, shutil, socket, subprocess, sys, tempfile, threading, time, tty

LOG = os.path.join(os.path.dirname(__file__), "..", "Tests", "Fixtures", "nmea", "bu353s4.log")


def checksum(body):
    c = 0
    for ch in body:
        c ^= ord(ch)
    return "%02X" % c


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def cycles():
    """The log's cycles: lists of field lists, each cycle from its GGA to before the next."""
    out, current = [], []
    for l in open(LOG, errors="replace"):
        if not l.startswith("$GP"):
            continue
        f = l.strip()[1:].split("*")[0].split(",")
        if f[0] == "GPGGA" and current:
            out.append(current)
            current = []
        current.append(f)
    if current:
        out.append(current)
    return out


def feed(fds, stop):
    source = cycles()
    i = 0
    next_at = time.time()
    while not stop.is_set():
        c = source[i % len(source)]
        i += 1
        now = time.time()
        stamp = time.gmtime(now)
        hms = time.strftime("%H%M%S", stamp) + ".000"
        text = ""
        for f in c:
            f = list(f)
            if f[0] in ("GPGGA", "GPRMC"):
                f[1] = hms
            if f[0] == "GPRMC":
                f[9] = time.strftime("%d%m%y", stamp)
            body = ",".join(f)
            text += "$%s*%s\r\n" % (body, checksum(body))
        for fd in fds:
            os.write(fd, text.encode())
        next_at += 1.0
        time.sleep(max(0, next_at - time.time()))


def watch(port, count, stop):
    socks = []
    for _ in range(count):
        for attempt in range(200):
            try:
                k = socket.create_connection(("127.0.0.1", port))
                break
            except OSError:
                time.sleep(0.05)
        k.sendall(b'?WATCH={"enable":true,"json":true};\n')
        socks.append(k)
    while not stop.is_set():
        r, _, _ = select.select(socks, [], [], 0.5)
        for k in r:
            try:
                if not k.recv(65536):
                    socks.remove(k)
            except OSError:
                socks.remove(k)


def proc(pid):
    """(cpu seconds, voluntary context switches, VmRSS kB, VmHWM kB) of a process."""
    stat = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    cpu = (int(stat[11]) + int(stat[12])) / os.sysconf("SC_CLK_TCK")
    fields = dict(line.split(":", 1) for line in open("/proc/%d/status" % pid))
    kb = lambda k: int(fields[k].split()[0])
    return cpu, int(fields["voluntary_ctxt_switches"]), kb("VmRSS"), kb("VmHWM")


def main():
    locd, seconds = sys.argv[1], float(sys.argv[2])
    watchers = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    gpsd_bin = shutil.which("gpsd") or "/usr/sbin/gpsd"
    tmp = tempfile.mkdtemp()
    ptys = [os.openpty() for _ in range(2)]
    for m, s in ptys:
        tty.setraw(m)
        tty.setraw(s)
    face_port, gpsd_port = free_port(), free_port()
    procs = {}
    try:
        conf = tmp + "/face.conf"
        with open(conf, "w") as f:
            f.write("[Acquisition]\nPolicy=continuous\n[Gpsd]\nEnable=yes\nSocket=%s/gpsd.sock\nListenPort=%d\n"
                    % (tmp, face_port))
        os.mkdir(tmp + "/face")
        procs["locd (face)"] = subprocess.Popen(
            [locd, "--config", conf, "--socket", tmp + "/face/locd.sock", "--state-dir", tmp + "/face",
             "--source", "serial:%s?baud=4800" % os.ttyname(ptys[0][1]), "--log-level", "notice"],
            stderr=subprocess.DEVNULL)
        procs["gpsd"] = subprocess.Popen(
            [gpsd_bin, "-N", "-n", "-b", "-S", str(gpsd_port), "-F", tmp + "/gpsd.ctl", os.ttyname(ptys[1][1])],
            stderr=subprocess.DEVNULL)
        time.sleep(0.5)
        with open(tmp + "/pair.conf", "w") as f:
            f.write("[Acquisition]\nPolicy=continuous\n")
        os.mkdir(tmp + "/pair")
        procs["locd (behind gpsd)"] = subprocess.Popen(
            [locd, "--config", tmp + "/pair.conf", "--socket", tmp + "/pair/locd.sock", "--state-dir",
             tmp + "/pair", "--source", "gpsd://127.0.0.1:%d" % gpsd_port, "--log-level", "notice"],
            stderr=subprocess.DEVNULL)
        locctl = os.path.join(os.path.dirname(locd), "locctl")
        clients = [subprocess.Popen([locctl, "--socket", tmp + "/%s/locd.sock" % d, "watch", "--json"],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                   for d in ("face", "pair")]
        stop = threading.Event()
        threading.Thread(target=feed, args=([m for m, _ in ptys], stop), daemon=True).start()
        for port in (face_port, gpsd_port):
            threading.Thread(target=watch, args=(port, watchers, stop), daemon=True).start()
        time.sleep(3)
        before = {name: proc(p.pid) for name, p in procs.items()}
        time.sleep(seconds)
        after = {name: proc(p.pid) for name, p in procs.items()}
        stop.set()
        rows = {}
        for name in procs:
            a, b = before[name], after[name]
            rows[name] = (b[0] - a[0], b[1] - a[1], b[2], b[3])
        pair = tuple(rows["gpsd"][i] + rows["locd (behind gpsd)"][i] for i in range(4))
        print("%d s, 1 Hz feed, %d gpsd watcher(s) each, %s" % (seconds, watchers, locd))
        print("%-22s %10s %10s %10s %10s" % ("", "CPU s", "wakeups", "RSS MB", "peak MB"))
        for name, r in list(rows.items()) + [("gpsd + locd", pair)]:
            print("%-22s %10.2f %10d %10.1f %10.1f" % (name, r[0], r[1], r[2] / 1024, r[3] / 1024))
    finally:
        for p in list(procs.values()) + locals().get("clients", []):
            p.terminate()
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                p.kill()
        shutil.rmtree(tmp, ignore_errors=True)


main()
