#!/usr/bin/python3
"""Holds many connections to locd's control socket at once, for the end-to-end tests and
scripts/bench-server.sh: run under setpriv(1) it makes peers of another uid.

Usage: locd-clients.py SOCKET COUNT [--no-read]

Opens COUNT connections, then prints "ready" and follows commands on stdin, one a line:
  send I TEXT    sends TEXT and a newline on connection I ("*": on every open one)
  close I        closes connection I ("*": all)
  sync           prints "synced" (every line received before it was printed first)
and prints what it receives, one line each:
  I LINE         connection I received LINE
  I EOF          locd closed connection I
  I FAILED WHY   connecting (or sending) failed
With --no-read the sockets are never read: clients that do not read their events.
Ends when stdin ends.
"""
import os
import resource
import selectors
import socket
import sys


def main():
    path, count = sys.argv[1], int(sys.argv[2])
    reading = "--no-read" not in sys.argv[3:]
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    out = sys.stdout
    conns = {}
    buffers = {}
    sel = selectors.DefaultSelector()
    for i in range(count):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(path)
        except OSError as e:
            out.write(f"{i} FAILED {e}\n")
            s.close()
            continue
        conns[i] = s
        buffers[i] = b""
        if reading:
            s.setblocking(False)
            sel.register(s, selectors.EVENT_READ, i)
    out.write("ready\n")
    out.flush()
    sel.register(sys.stdin, selectors.EVENT_READ, None)
    stdin_buffer = b""

    def close(i):
        s = conns.pop(i, None)
        if s is None:
            return
        if reading:
            sel.unregister(s)
        s.close()

    def command(line):
        verb, _, rest = line.partition(" ")
        target, _, text = rest.partition(" ")
        targets = list(conns) if target == "*" else [int(target)] if target else []
        if verb == "send":
            for i in targets:
                if i not in conns:
                    continue
                try:
                    conns[i].setblocking(True)
                    conns[i].sendall(text.encode() + b"\n")
                    if reading:
                        conns[i].setblocking(False)
                except OSError as e:
                    out.write(f"{i} FAILED {e}\n")
        elif verb == "close":
            for i in targets:
                close(i)
        elif verb == "sync":
            out.write("synced\n")

    while True:
        for key, _ in sel.select():
            i = key.data
            if i is None:
                chunk = os.read(sys.stdin.fileno(), 65536)
                if not chunk:
                    return
                stdin_buffer += chunk
                while b"\n" in stdin_buffer:
                    line, stdin_buffer = stdin_buffer.split(b"\n", 1)
                    command(line.decode())
                continue
            if i not in conns:
                continue
            try:
                chunk = conns[i].recv(65536)
            except BlockingIOError:
                continue
            except OSError:
                chunk = b""
            if not chunk:
                if buffers[i]:
                    out.write(f"{i} {buffers[i].decode(errors='replace')}\n")
                out.write(f"{i} EOF\n")
                close(i)
                continue
            buffers[i] += chunk
            while b"\n" in buffers[i]:
                line, buffers[i] = buffers[i].split(b"\n", 1)
                out.write(f"{i} {line.decode(errors='replace')}\n")
        out.flush()


if __name__ == "__main__":
    main()
