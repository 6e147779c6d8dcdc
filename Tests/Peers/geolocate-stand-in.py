#!/usr/bin/env python3
"""A stand-in for an ichnaea-compatible geolocation service (beaconDB, Mozilla Location
Service): POST /v1/geolocate on 127.0.0.1, for locd's tests. It is NOT the real service:
it answers what the test tells it and records every request it gets.

Usage: geolocate-stand-in.py PORTFILE LOGFILE
Prints nothing; writes its port to PORTFILE once listening. Each request is appended to
LOGFILE as one JSON line: {"path", "userAgent", "contentType", "body", "time"} (body as
text, time the wall clock's seconds when it came).
What it answers is read, per request, from the file MODE next to LOGFILE (one word; the
test rewrites it between requests):
  ok        200 {"location":{"lat":59.9139,"lng":10.7522},"accuracy":5000}
  notfound  404 ichnaea's not-found error
  error     500
  garbage   200 "this is not json"
  nan       200 with NaN coordinates (Python's json writes the NaN literal)
  range     200 with latitude 123
  zero      200 with accuracy 0
  negative  200 with accuracy -20
  tiny      200 with accuracy 1e-300 (a place said to be known better than an atom)
  huge      200 with a 10 MB body
  silent    accepts and never answers
  trickle   sends the headers and then one byte a second
GET /files/NAME serves the file NAME of the directory files/ next to LOGFILE (404 if there
is none), standing in for a GNSS assistance server (a modem's XTRA file); each GET is
logged as {"method": "GET", "path", "userAgent", "headers"} (every header name it had).
"""
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

port_file, log_file = sys.argv[1], sys.argv[2]
mode_file = os.path.join(os.path.dirname(log_file), "MODE")
lock = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, body, content_type="application/json"):
        data = body if isinstance(body, bytes) else body.encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        with lock:
            with open(log_file, "a") as log:
                log.write(json.dumps({
                    "method": "GET", "path": self.path, "userAgent": self.headers.get("User-Agent"),
                    "headers": sorted(self.headers.keys())}) + "\n")
        name = self.path[len("/files/"):] if self.path.startswith("/files/") else ""
        path = os.path.join(os.path.dirname(log_file), "files", os.path.basename(name))
        if not name or not os.path.isfile(path):
            self.answer(404, "no such file", "text/plain")
            return
        with open(path, "rb") as f:
            self.answer(200, f.read(), "application/octet-stream")

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length).decode("utf-8", "replace")
        with lock:
            with open(log_file, "a") as log:
                log.write(json.dumps({
                    "path": self.path, "userAgent": self.headers.get("User-Agent"),
                    "contentType": self.headers.get("Content-Type"), "body": body,
                    "time": time.time()}) + "\n")
        try:
            mode = open(mode_file).read().strip()
        except OSError:
            mode = "ok"
        place = {"location": {"lat": 59.9139, "lng": 10.7522}, "accuracy": 5000}
        if mode == "ok":
            self.answer(200, json.dumps(place))
        elif mode == "notfound":
            self.answer(404, json.dumps({"error": {"errors": [{"domain": "geolocation",
                "reason": "notFound", "message": "Not found"}], "code": 404, "message": "Not found"}}))
        elif mode == "error":
            self.answer(500, "internal error", "text/plain")
        elif mode == "garbage":
            self.answer(200, "this is not json")
        elif mode == "nan":
            self.answer(200, json.dumps({"location": {"lat": float("nan"), "lng": 10.0}, "accuracy": 10}))
        elif mode == "range":
            self.answer(200, json.dumps({"location": {"lat": 123.0, "lng": 10.0}, "accuracy": 10}))
        elif mode == "zero":
            self.answer(200, json.dumps({"location": {"lat": 59.0, "lng": 10.0}, "accuracy": 0}))
        elif mode == "tiny":
            self.answer(200, json.dumps({"location": {"lat": 59.9139, "lng": 10.7522}, "accuracy": 1e-300}))
        elif mode == "negative":
            self.answer(200, json.dumps({"location": {"lat": 59.0, "lng": 10.0}, "accuracy": -20}))
        elif mode == "huge":
            self.answer(200, b" " * (10 * 1024 * 1024))
        elif mode == "silent":
            time.sleep(600)
        elif mode == "trickle":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "1000")
            self.end_headers()
            for _ in range(600):
                try:
                    self.wfile.write(b" ")
                    self.wfile.flush()
                except OSError:
                    return
                time.sleep(1)


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
with open(port_file + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
os.rename(port_file + ".tmp", port_file)
server.serve_forever()
