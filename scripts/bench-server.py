#!/usr/bin/python3
"""Figures for issue 15 ("Stalls and squatting"): what hostile local clients do to the
real locd. Run as root (other uids, prlimit, SO_SNDBUFFORCE); prints one line a figure.

Usage: scripts/bench-server.py [--build-dir DIR] [--clients N] [which ...]
  which: latency squat memory emfile (default: all)
  --build-dir  where locd is (default .build/debug; give an older build to compare)
  --clients    non-reading clients for "memory" (default 2000)

latency  two clients pipeline unknown-method requests as fast as locd takes them; a third
         asks `status` 20 times: median and worst round trip.
squat    uid 65534 opens 2,100 connections and says hello; then root connects.
memory   N clients subscribe to every event of a 10 Hz replay at full speed and never
         read for 8 s: locd's peak RSS meanwhile, clients dropped, and how many of those
         read `slow-consumer` as their last line when they read.
emfile   locd's descriptor limit is lowered to what it has open + 2 and 5 clients
         connect: CPU locd uses over the next 3 s, and log lines it writes meanwhile.
"""
import json
import os
import resource
import selectors
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
JUNK = b'{"id":1,"method":"x"}\n' * 20000


class Locd:
    def __init__(self, build, config="", source=None):
        self.dir = tempfile.mkdtemp(prefix="locd-bench-")
        os.chmod(self.dir, 0o755)
        self.sock = self.dir + "/locd.sock"
        conf = self.dir + "/locd.conf"
        with open(conf, "w") as f:
            f.write("[Daemon]\nSocketMode=0666\nSocketGroup=\n" + config)
        args = [build + "/locd", "--config", conf, "--socket", self.sock, "--state-dir", self.dir + "/state",
                "--log-level", "debug"]
        if source:
            args += ["--source", source]
        self.log = self.dir + "/locd.log"

        def limits():
            resource.setrlimit(resource.RLIMIT_NOFILE, (8192, 8192))
        self.proc = subprocess.Popen(args, stderr=open(self.log, "w"), stdin=subprocess.DEVNULL, preexec_fn=limits)
        for _ in range(200):
            if os.path.exists(self.sock):
                try:
                    c = self.connect()
                    c.recv(4096)
                    c.close()
                    return
                except OSError:
                    pass
            time.sleep(0.05)
        raise RuntimeError("locd did not start; see " + self.log)

    def connect(self):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(self.sock)
        return s

    def cpu_seconds(self):
        fields = open(f"/proc/{self.proc.pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def rss_mib(self):
        for line in open(f"/proc/{self.proc.pid}/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return 0

    def status(self):
        c = Client(self.connect())
        c.hello()
        c.send('{"id":9,"method":"status"}')
        return c.until(lambda m: m.get("id") == 9)["result"]

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        shutil.rmtree(self.dir, ignore_errors=True)


class Client:
    def __init__(self, sock):
        self.s = sock
        self.buf = b""

    def send(self, line):
        self.s.sendall(line.encode() + b"\n")

    def line(self, timeout=30):
        self.s.settimeout(timeout)
        while b"\n" not in self.buf:
            chunk = self.s.recv(65536)
            if not chunk:
                return None
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def until(self, match, timeout=60):
        while True:
            m = self.line(timeout)
            if m is None or match(m):
                return m

    def hello(self):
        self.line()
        self.send('{"id":0,"method":"hello","params":{"protocol":1}}')
        return self.until(lambda m: m.get("id") == 0)


def latency(build, _):
    locd = Locd(build)
    stop = threading.Event()

    def pipeline():
        c = Client(locd.connect())
        c.hello()
        c.s.settimeout(None)

        def drain():
            try:
                while c.s.recv(1 << 20):
                    pass
            except OSError:
                pass
        threading.Thread(target=drain, daemon=True).start()
        try:
            while not stop.is_set():
                c.s.sendall(JUNK)
        except OSError:
            pass  # locd stopped
    for _ in range(2):
        threading.Thread(target=pipeline, daemon=True).start()
    time.sleep(1)
    third = Client(locd.connect())
    third.hello()
    times = []
    for i in range(20):
        t = time.monotonic()
        third.send(f'{{"id":{i + 1},"method":"status"}}')
        third.until(lambda m: m.get("id") == i + 1)
        times.append((time.monotonic() - t) * 1000)
    stop.set()
    print(f"latency: third client's status with two pipelining: median {statistics.median(times):.1f} ms, "
          f"worst {max(times):.1f} ms")
    locd.stop()


def squat(build, _):
    locd = Locd(build)
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        os.setgroups([])
        os.setgid(65534)
        os.setuid(65534)
        held, refused = [], 0
        for _ in range(2100):
            c = Client(locd.connect())
            try:
                first = c.line(10)
            except OSError:
                first = None
            if first and first.get("type") == "hello":
                c.send('{"id":0,"method":"hello","params":{"protocol":1}}')
                held.append(c)
            else:
                refused += 1
        os.write(w, f"{len(held)} {refused}\n".encode())
        try:
            time.sleep(30)
        finally:
            os._exit(0)
    os.close(w)
    held, refused = os.read(r, 100).decode().split()
    t = time.monotonic()
    root = Client(locd.connect())
    first = root.line(10)
    ms = (time.monotonic() - t) * 1000
    verdict = "greeted" if first.get("type") == "hello" else "refused: " + first["error"]["code"]
    print(f"squat: uid 65534 holds {held} sessions ({refused} refused); root connecting: {verdict} in {ms:.1f} ms")
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    locd.stop()


def memory(build, count):
    replay = f"replay:{ROOT}/Tests/Fixtures/nmea/nmea-rtk.log?speed=max&loop=1"
    locd = Locd(build, source=replay)
    clients = []
    for _ in range(count):
        c = Client(locd.connect())
        c.hello()
        c.send('{"id":1,"method":"subscribe","params":{"events":"all"}}')
        clients.append(c)
    # 8 s, then every client reads: a dropped client's last words wait 10 s for it to read.
    peak = 0
    for _ in range(16):
        peak = max(peak, locd.rss_mib())
        time.sleep(0.5)
    counters = locd.status()["server"]
    told = dropped = 0
    sel = selectors.DefaultSelector()
    for c in clients:
        c.s.setblocking(False)
        sel.register(c.s, selectors.EVENT_READ, c)
    deadline = time.monotonic() + 15
    while sel.get_map() and time.monotonic() < deadline:
        for key, _ in sel.select(1):
            c = key.data
            try:
                data = c.s.recv(1 << 22)
            except BlockingIOError:
                continue
            except ConnectionResetError:
                data = b""
            if data:
                c.buf = (c.buf + data)[-4096:]
                continue
            sel.unregister(c.s)
            dropped += 1
            lines = [line for line in c.buf.split(b"\n") if line]
            told += bool(lines) and b'"slow-consumer"' in lines[-1]
    print(f"memory: {count} non-reading subscribers: peak RSS {peak:.0f} MiB in 8 s; droppedSlow "
          f"{counters['droppedSlow']}; reading then, {dropped} reached the end, {told} of them after slow-consumer")
    locd.stop()


def emfile(build, _):
    locd = Locd(build)
    n = len(os.listdir(f"/proc/{locd.proc.pid}/fd"))
    resource.prlimit(locd.proc.pid, resource.RLIMIT_NOFILE, (n + 2, n + 2))
    lines_before = sum(1 for _ in open(locd.log, errors="replace"))
    cpu = locd.cpu_seconds()
    clients = [locd.connect() for _ in range(5)]
    time.sleep(3)
    used = locd.cpu_seconds() - cpu
    lines = sum(1 for _ in open(locd.log, errors="replace")) - lines_before
    answered = 0
    for c in clients:
        c.settimeout(0.5)
        try:
            answered += bool(c.recv(4096))
        except OSError:
            pass
    print(f"emfile: limit {n + 2} descriptors, 5 clients: locd used {used:.2f} s CPU in 3 s, "
          f"wrote {lines} log lines; {answered} of 5 clients got an answer")
    locd.stop()


def main():
    args = sys.argv[1:]
    build = os.path.join(ROOT, ".build/debug")
    count = 2000
    if "--build-dir" in args:
        i = args.index("--build-dir")
        build = args[i + 1]
        del args[i:i + 2]
    if "--clients" in args:
        i = args.index("--clients")
        count = int(args[i + 1])
        del args[i:i + 2]
    resource.setrlimit(resource.RLIMIT_NOFILE, (16384, 16384))
    for which in args or ["latency", "squat", "memory", "emfile"]:
        {"latency": latency, "squat": squat, "memory": memory, "emfile": emfile}[which](build, count)


if __name__ == "__main__":
    main()
