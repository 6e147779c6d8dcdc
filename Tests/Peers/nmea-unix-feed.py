#!/usr/bin/python3
"""An NMEA feed on a Unix stream socket, for GeoClue's network-NMEA source (geoclue -u SOCKET)
in locd's side-by-side tests: the same replay locd reads, one epoch a second.

Usage: nmea-unix-feed.py SOCKET FILE
  Listens on SOCKET; every connection gets FILE's sentences, the ones sharing a time field
  together, one such epoch a second, from the start, looping. Prints "listening" when ready.
"""
import os, socket, sys, threading, time


def epochs(path):
    groups, current, stamp = [], [], None
    for line in open(path, "rb"):
        if not line.startswith(b"$"):
            continue
        fields = line.split(b",")
        t = fields[1] if len(fields) > 1 else b""
        if current and t != stamp:
            groups.append(b"".join(current))
            current = []
        stamp = t
        current.append(line.rstrip(b"\r\n") + b"\r\n")
    if current:
        groups.append(b"".join(current))
    return groups


def serve(conn, groups):
    try:
        while True:
            for g in groups:
                conn.sendall(g)
                time.sleep(1)
    except OSError:
        conn.close()


path, groups = sys.argv[1], epochs(sys.argv[2])
if os.path.exists(path):
    os.unlink(path)
server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
server.bind(path)
server.listen(4)
print("listening", flush=True)
while True:
    conn, _ = server.accept()
    threading.Thread(target=serve, args=(conn, groups), daemon=True).start()
