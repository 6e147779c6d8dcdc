#!/usr/bin/env python3
"""Soak: the real locd for MINUTES minutes under a steady mix of load, measured.

Usage: soak/soak.py MINUTES [BIN]     (make soak MINUTES=N; BIN defaults to .build/debug)

- a 10 Hz source: gpsd (gpsfake) playing a log written with current times, moving;
  gpsd is killed (SIGKILL) and started again every minute;
- 200 clients connecting, saying hello, asking for status, leaving, again and again;
- 20 slow readers subscribed to every event that read one line a second (locd drops
  them as slow consumers; they come back);
- SIGHUP (reload) every 10 s.

The slow readers fill their queues (MaxQueuedBytesPerClient=, 1 MiB each) for the first
minutes, so RSS climbs until locd drops them; judge the curve on runs of 10 minutes or more.

Measured: every `status` of a dedicated client, once a second (time from request to reply);
locd's RSS and open descriptors every 10 s, printed as a curve. Fails (exit 1) when a
status took 50 ms or more, when RSS over the second half grew by more than 10 % (plus
2 MiB of slack for allocator noise), or when the descriptors at the end exceed those after
the first minute by more than 8 (a client or gpsd connection in flight).
"""
import datetime, json, os, random, signal, socket, statistics, subprocess, sys, tempfile, threading, time

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
minutes = float(sys.argv[1]) if len(sys.argv) > 1 else 3
bindir = sys.argv[2] if len(sys.argv) > 2 else os.path.join(root, ".build/debug")
work = tempfile.mkdtemp(prefix="locd-soak-")
sock_path = os.path.join(work, "locd.sock")
stop = threading.Event()
counts = {"client cycles": 0, "client errors": 0, "slow reconnects": 0, "gpsd restarts": 0, "reloads": 0}
lock = threading.Lock()


def bump(key, n=1):
    with lock:
        counts[key] += n


def nmea(body):
    s = 0
    for ch in body.encode():
        s ^= ch
    return "$%s*%02X\r\n" % (body, s)


def write_log(path, seconds):
    """`seconds` of 10 Hz epochs (RMC + GGA) from now, driving east at 10 m/s."""
    start = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    with open(path, "w") as f:
        for i in range(int(seconds * 10)):
            t = start + datetime.timedelta(milliseconds=100 * i)
            hms = t.strftime("%H%M%S") + ".%02d" % (t.microsecond // 10000)
            dmy = t.strftime("%d%m%y")
            lon = 10.7 + i * 1.0 / 111320 / 0.5  # 1 m per epoch at 60 N
            deg = int(lon)
            lon_s = "%03d%07.4f" % (deg, (lon - deg) * 60)
            f.write(nmea("GPRMC,%s,A,5954.0000,N,%s,E,19.4,90.0,%s,,,A" % (hms, lon_s, dmy)))
            f.write(nmea("GPGGA,%s,5954.0000,N,%s,E,1,09,0.8,20.0,M,18.0,M,," % (hms, lon_s)))


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Client:
    def __init__(self, timeout=5.0):
        self.s = socket.socket(socket.AF_UNIX)
        self.s.settimeout(timeout)
        self.s.connect(sock_path)
        self.buf = b""
        self.line()  # greeting
        self.call({"id": 0, "method": "hello", "params": {"protocol": 1}})

    def line(self):
        while b"\n" not in self.buf:
            chunk = self.s.recv(65536)
            if not chunk:
                raise ConnectionError("closed")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def call(self, request):
        self.s.sendall((json.dumps(request) + "\n").encode())
        while True:
            m = self.line()
            if m.get("type") in ("reply", "error") and m.get("id") == request["id"]:
                return m

    def close(self):
        self.s.close()


def client_loop():
    n = 1
    while not stop.is_set():
        try:
            c = Client()
            n += 1
            c.call({"id": n, "method": "status"})
            c.close()
            bump("client cycles")
        except Exception:
            bump("client errors")
        stop.wait(random.uniform(0.5, 2.0))


def slow_reader():
    while not stop.is_set():
        try:
            c = Client()
            c.call({"id": 1, "method": "subscribe", "params": {"events": "all"}})
            c.s.settimeout(None)
            while not stop.is_set():
                if not c.s.recv(64):  # a line's worth, now and then
                    break
                stop.wait(1.0)
            c.close()
        except Exception:
            pass
        if not stop.is_set():
            bump("slow reconnects")  # dropped by locd (slow-consumer), or refused
        stop.wait(1.0)


class Gpsd:
    def __init__(self, port):
        self.port, self.proc = port, None

    def start(self):
        log = os.path.join(work, "drive.nmea")
        write_log(log, 90)
        err = open(os.path.join(work, "gpsfake.log"), "a")
        self.proc = subprocess.Popen(
            ["gpsfake", "-q", "-n", "-c", "0.05", "-P", str(self.port), log], stdout=err, stderr=err)

    def kill(self):
        # gpsd is gpsfake's child: kill it hard, then gpsfake.
        for pid in os.listdir("/proc"):
            try:
                stat = open("/proc/%s/stat" % pid).read()
            except (OSError, ValueError):
                continue
            if "(gpsd)" in stat and stat.rsplit(")", 1)[1].split()[1] == str(self.proc.pid):
                os.kill(int(pid), signal.SIGKILL)
        self.proc.terminate()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def run_load(counts_path):
    """The child process: the clients and slow readers until SIGTERM, then their counts."""
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    threads = [threading.Thread(target=client_loop, daemon=True) for _ in range(200)]
    threads += [threading.Thread(target=slow_reader, daemon=True) for _ in range(20)]
    for t in threads:
        t.start()
    while not stop.is_set():
        stop.wait(0.5)
    with open(counts_path, "w") as f:
        json.dump({k: counts[k] for k in ("client cycles", "client errors", "slow reconnects")}, f)
    os._exit(0)


def proc_figures(pid):
    rss = 0
    for line in open("/proc/%d/status" % pid):
        if line.startswith("VmRSS:"):
            rss = int(line.split()[1])
    return rss, len(os.listdir("/proc/%d/fd" % pid))


def main():
    port = free_port()
    gpsd = Gpsd(port)
    gpsd.start()
    conf = os.path.join(work, "locd.conf")
    with open(conf, "w") as f:
        f.write("[Acquisition]\nPolicy=continuous\n")
    log = open(os.path.join(work, "locd.log"), "w")
    locd = subprocess.Popen(
        [os.path.join(bindir, "locd"), "--config", conf, "--socket", sock_path, "--state-dir",
         os.path.join(work, "state"), "--source", "gpsd://127.0.0.1:%d" % port, "--log-level", "info"],
        stderr=log)
    deadline = time.time() + 15
    while not os.path.exists(sock_path) and time.time() < deadline:
        time.sleep(0.05)
    # The load runs in its own process, so that its 220 threads never hold the probe's GIL.
    counts_path = os.path.join(work, "load.json")
    load = os.fork()
    if load == 0:
        run_load(counts_path)
    probe = Client()
    latencies, curve = [], []
    start = time.time()
    end = start + minutes * 60
    next_hup, next_gpsd, next_sample, i = start + 10, start + 60, start, 1000
    while time.time() < end:
        now = time.time()
        after = []
        if now >= next_hup:
            locd.send_signal(signal.SIGHUP)
            bump("reloads")
            after.append("SIGHUP")
            next_hup += 10
        if now >= next_gpsd:
            gpsd.kill()
            gpsd.start()
            bump("gpsd restarts")
            after.append("gpsd restart")
            next_gpsd += 60
        if now >= next_sample:
            rss, fds = proc_figures(locd.pid)
            curve.append((now - start, rss, fds))
            next_sample += 10
        i += 1
        t0 = time.perf_counter()
        reply = probe.call({"id": i, "method": "status"})
        latencies.append(((time.perf_counter() - t0) * 1000, now - start, after))
        if reply.get("type") != "reply":
            print("status failed:", reply)
        time.sleep(max(0, 1 - (time.time() - now)))
    status = probe.call({"id": i + 1, "method": "status"})["result"]
    rss, fds = proc_figures(locd.pid)
    curve.append((time.time() - start, rss, fds))  # the last figures under load
    os.kill(load, signal.SIGTERM)
    os.waitpid(load, 0)
    with open(counts_path) as f:
        counts.update(json.load(f))
    locd.send_signal(signal.SIGTERM)
    code = locd.wait(30)
    gpsd.kill()
    report(latencies, curve, status, code)


def report(latencies, curve, status, code):
    print("soak: %.1f min, locd exited %d, work dir %s" % (minutes, code, work))
    print("  t(s)   RSS(KiB)  fds")
    for t, rss, fds in curve:
        print("  %5.0f  %8d  %4d  %s" % (t, rss, fds, "#" * max(1, rss // 2048)))
    lat = sorted(ms for ms, _, _ in latencies)
    p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))]
    print("  status: %d calls, median %.1f ms, p99 %.1f ms, max %.1f ms"
          % (len(lat), statistics.median(lat), p99, lat[-1]))
    # The slowest calls, with what the probe did just before (a reload or a gpsd restart
    # delays the next reply by the time locd spends on it).
    for ms, t, after in sorted(latencies, reverse=True)[:3]:
        print("    %.1f ms at %.0f s%s" % (ms, t, (", right after " + " and ".join(after)) if after else ""))
    src = status["sources"][0]["counters"]
    server = status["server"]
    print("  source: fixes %s, connects %s, disconnects %s; rejected %s"
          % (src.get("fixes"), src.get("connects"), src.get("disconnects"), status.get("rejectedFixes")))
    print("  server: accepted %s, droppedSlow %s, refusedTooMany %s"
          % (server.get("accepted"), server.get("droppedSlow"), server.get("refusedTooMany")))
    print("  load: " + ", ".join("%s %d" % kv for kv in counts.items()))
    half = [rss for t, rss, _ in curve if t >= curve[-1][0] / 2]
    growth = half[-1] - half[0]
    after_first_minute = [fds for t, _, fds in curve if t >= 60] or [curve[0][2]]
    failures = []
    if lat[-1] >= 50:
        failures.append("a status took %.1f ms (>= 50)" % lat[-1])
    if growth > half[0] * 0.10 + 2048:
        failures.append("RSS grew %d KiB over the second half" % growth)
    if curve[-1][2] > after_first_minute[0] + 8:
        failures.append("descriptors %d -> %d" % (after_first_minute[0], curve[-1][2]))
    if code != 0:
        failures.append("locd exited %d" % code)
    print("soak: " + ("PASS" if not failures else "FAIL: " + "; ".join(failures)))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
