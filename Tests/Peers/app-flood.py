#!/usr/bin/python3
"""A user who makes up app ids by the thousand, for locd's bad-input tests: over one plain
session it asks locd to decide COUNT apps named PREFIX0, PREFIX1, ... for its own uid
(`change-app` deny, which anyone may do for their own apps), in batches of 200 requests
sent before their replies are read. Prints one JSON line: how many were taken, how many were
refused with each error code, and the first refusal's message.

Usage: app-flood.py SOCKET COUNT PREFIX
"""
import json, socket, sys

path, count, prefix = sys.argv[1], int(sys.argv[2]), sys.argv[3]
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(path)
f = s.makefile("rwb", buffering=0)


def message():
    line = f.readline()
    if not line:
        sys.exit("locd closed the connection")
    return json.loads(line)


def send(obj):
    f.write((json.dumps(obj) + "\n").encode())


assert message()["type"] == "hello"
send({"id": 0, "method": "hello", "params": {"protocol": 1, "client": "app-flood"}})
assert message()["type"] == "reply"

taken, refused, first = 0, {}, None
for start in range(0, count, 200):
    batch = range(start, min(count, start + 200))
    for n in batch:
        send({"id": n + 1, "method": "change-app", "params": {"app": f"{prefix}{n}", "change": "deny"}})
    answered = 0
    while answered < len(batch):
        m = message()
        if m["type"] == "reply":
            taken += 1
        elif m["type"] == "error" and m.get("id") is not None:
            code = m["error"]["code"]
            refused[code] = refused.get(code, 0) + 1
            first = first or m["error"]["message"]
        else:
            continue
        answered += 1
print(json.dumps({"taken": taken, "refused": refused, "message": first}))
