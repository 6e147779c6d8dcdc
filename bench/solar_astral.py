"""astral 3.2 on the same location-days as `locbench solar`: the nine standard events of each
local day of Tests/Fixtures/solar/reference.csv. Prints events per second."""
import csv
import datetime
import sys
import time
from zoneinfo import ZoneInfo

from astral import Observer
from astral import sun

path = sys.argv[1] if len(sys.argv) > 1 else "Tests/Fixtures/solar/reference.csv"
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
days = []
seen = set()
with open(path, newline="") as f:
    for row in csv.DictReader(f):
        key = (row["name"], row["date"])
        if key in seen:
            continue
        seen.add(key)
        days.append((Observer(float(row["lat"]), float(row["lon"])),
                     datetime.date.fromisoformat(row["date"]), ZoneInfo(row["tz"])))


def nine(observer, date, tz):
    calls = (
        lambda: sun.dawn(observer, date, 18, tzinfo=tz),
        lambda: sun.dawn(observer, date, 12, tzinfo=tz),
        lambda: sun.dawn(observer, date, 6, tzinfo=tz),
        lambda: sun.sunrise(observer, date, tzinfo=tz),
        lambda: sun.noon(observer, date, tzinfo=tz),
        lambda: sun.sunset(observer, date, tzinfo=tz),
        lambda: sun.dusk(observer, date, 6, tzinfo=tz),
        lambda: sun.dusk(observer, date, 12, tzinfo=tz),
        lambda: sun.dusk(observer, date, 18, tzinfo=tz),
    )
    found = 0
    for call in calls:
        try:
            call()
            found += 1
        except ValueError:  # astral's answer for "does not happen"
            pass
    return found


for observer, date, tz in days:  # warm up
    nine(observer, date, tz)
start = time.process_time()  # CPU time, like locbench: the machines are shared
for _ in range(rounds):
    for observer, date, tz in days:
        nine(observer, date, tz)
elapsed = time.process_time() - start
events = len(days) * 9 * rounds
print(f"astral events/s {int(events / elapsed)} ({elapsed / (len(days) * rounds) * 1e6:.2f} us per day)")
