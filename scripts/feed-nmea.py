#!/usr/bin/env python3
"""Pushes NMEA into a running locd's nmea+tcp-listen source and prints how fast it went.

Usage: scripts/feed-nmea.py PORT SOCKET [MiB] [RUNS]

Sends all of Tests/Fixtures/nmea/*.log concatenated and repeated to about MiB mebibytes
(default 100) over one TCP connection to 127.0.0.1:PORT, RUNS times (default 5), each time
waiting until `locctl --socket SOCKET status --json` shows every byte read; prints bytes
and sentences per second (including the status polling, 10 ms steps) and locd's RSS.
Start locd first, e.g. with a release build:

  .build/release/locd --config /dev/null --socket /tmp/l.sock --state-dir /tmp/l \\
    --source nmea+tcp-listen://:10110 --log-level notice &
  scripts/feed-nmea.py 10110 /tmp/l.sock
"""
import glob, json, os, socket, statistics, subprocess, sys, time

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
port, sock = int(sys.argv[1]), sys.argv[2]
mib = int(sys.argv[3]) if len(sys.argv) > 3 else 100
runs = int(sys.argv[4]) if len(sys.argv) > 4 else 5
locctl = os.path.join(root, ".build/release/locctl")
data = b"".join(open(p, "rb").read() for p in sorted(glob.glob(root + "/Tests/Fixtures/nmea/*.log")))
payload = data * ((mib << 20) // len(data) + 1)


def status():
    out = subprocess.run([locctl, "--socket", sock, "status", "--json"], capture_output=True, check=True).stdout
    return json.loads(out)


def rss(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])


def daemon_pid():
    # The control socket's peer credentials name locd's pid (SO_PEERCRED, unix(7)).
    import struct
    u = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    u.connect(sock)
    pid = struct.unpack("3i", u.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))[0]
    u.close()
    return pid


pid = daemon_pid()
before = rss(pid)
rates = []
for _ in range(runs):
    c0 = status()["sources"][0]["counters"]
    conn = socket.create_connection(("127.0.0.1", port))
    t0 = time.monotonic()
    conn.sendall(payload)
    while status()["sources"][0]["counters"]["bytes"] < c0["bytes"] + len(payload):
        time.sleep(0.01)
    dt = time.monotonic() - t0
    conn.close()
    c = status()["sources"][0]["counters"]
    n = c["sentences"] - c0["sentences"]
    rates.append(n / dt)
    print(f"{len(payload) / 1e6:.1f} MB, {n} sentences, {c['fixes'] - c0['fixes']} fixes in {dt:.2f} s: "
          f"{len(payload) / 1e6 / dt:.1f} MB/s, {n / dt / 1e6:.2f} M sentences/s")
print(f"median {statistics.median(rates) / 1e6:.2f} M sentences/s over {runs} runs; "
      f"locd RSS {before} KiB before, {rss(pid)} KiB after")
