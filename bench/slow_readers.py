"""Status latency while many clients subscribe and never read (issue 28's partial).

usage: slow_readers.py LOCD CLIENTS SECONDS

Starts LOCD with an nmea+udp source fed 10 receiver cycles a second (GGA and RMC from a
real log of gpsd's project, restamped to now), connects CLIENTS clients that subscribe to
location, source-status, acquisition and significant-change events and never read, and
asks for status every 50 ms for SECONDS seconds on one more connection. Prints the
latencies (median, p99, max), the five slowest with when they came, the clients dropped
as slow consumers, and locd's peak RSS.
"""
import json, os, resource, shutil, socket, subprocess, sys, tempfile, threading, time

LOG = os.path.join(os.path.dirname(__file__), "..", "Tests", "Fixtures", "nmea", "nmea-rtk.log")


def checksum(body):
    c = 0
    for ch in body:
        c ^= ord(ch)
    return "%02X" % c


def feed(port, stop):
    lines = [l.strip() for l in open(LOG, errors="replace") if l.startswith("$") and ("GGA" in l or "RMC" in l)]
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    i = 0
    while not stop.is_set():
        now = time.gmtime()
        hms = time.strftime("%H%M%S", now) + ".00"
        for kind in ("GGA", "RMC"):
            while True:
                line = lines[i % len(lines)]
                i += 1
                if kind in line[:7]:
                    break
            f = (line[1:line.index("*")] if "*" in line else line[1:]).split(",")
            f[1] = hms
            if kind == "RMC" and len(f) > 9:
                f[2], f[9] = "A", time.strftime("%d%m%y", now)
            body = ",".join(f)
            s.sendto(("$%s*%s\r\n" % (body, checksum(body))).encode(), ("127.0.0.1", port))
        time.sleep(0.1)


def main():
    locd, clients, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, clients + 256)), hard))
    tmp = tempfile.mkdtemp()
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    path = tmp + "/locd.sock"
    daemon = subprocess.Popen([locd, "--config", "/dev/null", "--socket", path, "--state-dir", tmp + "/state",
                               "--source", "nmea+udp://127.0.0.1:%d" % port, "--log-level", "notice"],
                              stderr=subprocess.DEVNULL)
    stop = threading.Event()
    feeder = threading.Thread(target=feed, args=(port, stop), daemon=True)
    try:
        for _ in range(500):
            if os.path.exists(path):
                break
            time.sleep(0.01)
        feeder.start()
        time.sleep(1)
        slow = []
        hello = (b'{"id":0,"method":"hello","params":{"protocol":1,"client":"slow"}}\n'
                 b'{"id":1,"method":"subscribe","params":{"events":["location","source-status",'
                 b'"acquisition","significant-change"]}}\n')
        for _ in range(clients):
            c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            c.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            c.connect(path)
            c.sendall(hello)
            slow.append(c)
        p = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        p.connect(path)
        f = p.makefile("rwb")
        f.readline()
        f.write(b'{"id":0,"method":"hello","params":{"protocol":1,"client":"probe"}}\n')
        f.flush()
        f.readline()
        calls, n, t0 = [], 1, time.time()
        while time.time() < t0 + seconds:
            t = time.perf_counter()
            f.write(b'{"id":%d,"method":"status"}\n' % n)
            f.flush()
            while True:
                m = json.loads(f.readline())
                if m.get("id") == n:
                    break
            calls.append(((time.perf_counter() - t) * 1000, time.time() - t0))
            n += 1
            time.sleep(0.05)
        result = m.get("result", {})
        dropped = result.get("status", result).get("server", {}).get("droppedSlow")
        lat = sorted(c[0] for c in calls)
        print("%d slow readers, %d status calls: median %.2f ms, p99 %.2f ms, max %.2f ms; slowest %s" % (
            clients, len(lat), lat[len(lat) // 2], lat[int(len(lat) * 0.99)], lat[-1],
            ", ".join("%.0f ms at %.1f s" % c for c in sorted(calls, reverse=True)[:5])))
        with open("/proc/%d/status" % daemon.pid) as s:
            peak = [l.split()[1] for l in s if l.startswith("VmHWM")][0]
        print("  dropped as slow consumers: %s; locd peak RSS %.1f MiB" % (dropped, int(peak) / 1024))
    finally:
        stop.set()
        daemon.terminate()
        daemon.wait(10)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
