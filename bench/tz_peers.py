"""The Python peers of `locbench tz` on the same points: tzfpy (tzf-rs, its own packaged
data) and timezonefinder (the boundary release locd is built from). Prints, per peer, the
time from import to the first answer, lookups per second (CPU time, single thread) over the
random points of Tests/Fixtures/tz/points.csv, and agreement with that file."""
import csv
import sys
import time

path = sys.argv[1] if len(sys.argv) > 1 else "Tests/Fixtures/tz/points.csv"
peer = sys.argv[2]
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
points = []
with open(path, newline="") as f:
    for row in csv.DictReader(f):
        if row["kind"] == "random":
            points.append((float(row["lat"]), float(row["lon"]), row["tz"]))

start = time.perf_counter()
if peer == "tzfpy":
    from tzfpy import get_tz

    def lookup(lat, lon):
        return get_tz(lon, lat)
elif peer == "timezonefinder":
    from timezonefinder import TimezoneFinder

    finder = TimezoneFinder()

    def lookup(lat, lon):
        return finder.timezone_at(lng=lon, lat=lat)
else:
    sys.exit(f"unknown peer {peer}")
lookup(points[0][0], points[0][1])
first = time.perf_counter() - start

agree = sum(1 for lat, lon, tz in points if lookup(lat, lon) == tz)
cpu = time.process_time()
for _ in range(rounds):
    for lat, lon, _tz in points:
        lookup(lat, lon)
cpu = time.process_time() - cpu
print(f"{peer} lookups/s {int(len(points) * rounds / cpu)} first {first * 1000:.2f} ms agreement {agree}/{len(points)}")
