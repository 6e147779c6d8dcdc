"""astral 3.2 as the peer of `locctl sun --at LAT,LON --date DATE --days N --json`: the nine
standard events of N consecutive local days at one place, one JSON object per day on
standard output (UTC times to the second, null where the event does not happen)."""
import datetime
import json
import sys
from zoneinfo import ZoneInfo

from astral import Observer
from astral import sun

lat, lon = (float(v) for v in sys.argv[1].split(","))
first = datetime.date.fromisoformat(sys.argv[2])
days = int(sys.argv[3])
tz = ZoneInfo(sys.argv[4])
observer = Observer(lat, lon)
names = ("astronomical_dawn", "nautical_dawn", "civil_dawn", "sunrise", "solar_noon", "sunset",
         "civil_dusk", "nautical_dusk", "astronomical_dusk")
calls = (
    lambda d: sun.dawn(observer, d, 18, tzinfo=tz), lambda d: sun.dawn(observer, d, 12, tzinfo=tz),
    lambda d: sun.dawn(observer, d, 6, tzinfo=tz), lambda d: sun.sunrise(observer, d, tzinfo=tz),
    lambda d: sun.noon(observer, d, tzinfo=tz), lambda d: sun.sunset(observer, d, tzinfo=tz),
    lambda d: sun.dusk(observer, d, 6, tzinfo=tz), lambda d: sun.dusk(observer, d, 12, tzinfo=tz),
    lambda d: sun.dusk(observer, d, 18, tzinfo=tz),
)
utc = datetime.timezone.utc
out = sys.stdout
for n in range(days):
    date = first + datetime.timedelta(days=n)
    o = {"date": date.isoformat(), "timezone": sys.argv[4]}
    for name, call in zip(names, calls):
        try:
            o[name] = call(date).astimezone(utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        except ValueError:
            o[name] = None
    out.write(json.dumps(o, separators=(",", ":")) + "\n")
