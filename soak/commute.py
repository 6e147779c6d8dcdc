#!/usr/bin/env python3
"""Soak, second run: 30 simulated days of a daily commute under `--clock replay`, 100 timers.

Usage: soak/commute.py [BIN] [DAYS]     (make soak runs it after soak.py; BIN: .build/debug)

The real locd plays a synthetic NMEA log (RMC + GGA) of DAYS (30) days in Oslo, written
here: parked at home (Bærum) with a fix every 5 minutes, at 07:30 local a 40-minute drive
to the office in the centre (a fix every 30 s), parked there, at 16:30 the drive home; every
day. The days run from 2026-10-10 over the end of daylight-saving time (25 October, when
02:30 happens twice) to 2026-11-09. `--clock replay --exit-at-end` with `speed=max`: the
simulated clock is the fixes' time, and locd exits when the replay is over.

100 timer files: 50 solar (13 events, offsets from -90 min to +2 h, some on weekdays or
weekends only) and 50 wall-clock ones (spread over the day, one at 02:30, some with days).
A `locctl watch --json` subscriber records every `timer-fired` event.

The expected firings are computed here, independently of locd: the wall-clock ones with
Python's zoneinfo (RFC 5545: an ambiguous local time is the first, `fold=0`), the solar
ones with the NOAA solar equations (declination and equation of time, centre of the Sun,
no refraction; sunrise/sunset at -0.8333 degrees) at the position the schedule puts the
car at that moment. Every (timer, local date) whose deadline lies inside the replay (two
minutes clear of its ends) must fire exactly once, with `missed` 0, the deadline as
computed (wall clock: to the second; solar: within 120 s, the difference between the
position locd planned from, home or office, and this model), and no firing may be doubled
or fall on a date or weekday that has none. Exit 1 on any failure.
"""
import datetime, json, math, os, subprocess, sys, tempfile, time, zoneinfo

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
bindir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, ".build/debug")
days = int(sys.argv[2]) if len(sys.argv) > 2 else 30
zone = zoneinfo.ZoneInfo("Europe/Oslo")
UTC = datetime.timezone.utc
HOME = (59.9500, 10.6000)  # Bærum
OFFICE = (59.9130, 10.7500)  # Oslo centre, about 9.5 km east-south-east
FIRST_DAY = datetime.date(2026, 10, 10)
LEAVE_HOME, LEAVE_OFFICE, DRIVE_MIN = (7, 30), (16, 30), 40
SOLAR_TOLERANCE = 120.0

# (rule event, elevation in degrees, rising?) — docs/SOLAR.md's table.
SOLAR_EVENTS = [
    ("sunrise", -0.8333, True), ("sunset", -0.8333, False), ("civil-dawn", -6, True),
    ("civil-dusk", -6, False), ("nautical-dawn", -12, True), ("nautical-dusk", -12, False),
    ("astronomical-dawn", -18, True), ("solar-noon", None, None),
    ("golden-hour-morning-end", 6, True), ("golden-hour-evening-start", 6, False),
    ("elevation:-3:morning", -3, True), ("elevation:3:evening", 3, False),
    ("elevation:1.5:morning", 1.5, True),
]
OFFSETS = [("", 0), ("-90m", -5400), ("-30m", -1800), ("-5m", -300), ("+10m", 600), ("+45m", 2700),
           ("+2h", 7200)]
DAY_SETS = [("", set(range(7))), (" Mon-Fri", {0, 1, 2, 3, 4}), (" Sat,Sun", {5, 6}), (" Wed", {2})]


def timers():
    """100 (name, rule, kind, spec, weekdays): kind 'solar' (event index, offset s) or 'clock'."""
    out = []
    for i in range(50):
        event = SOLAR_EVENTS[i % len(SOLAR_EVENTS)]
        off = OFFSETS[(i * 3) % len(OFFSETS)]
        dset = DAY_SETS[0] if i < 30 else DAY_SETS[1 + i % 3]
        out.append(("s%02d" % i, event[0] + off[0] + dset[0], "solar", (event, off[1]), dset[1]))
    clock = ["00:00", "00:00:30", "02:30", "03:00", "23:59:59", "07:29:59", "07:30", "08:10", "16:30",
             "17:10", "12:00", "12:00:01"]
    for i in range(50):
        if i < len(clock):
            hh, mm, ss = (clock[i].split(":") + ["0"])[:3]
        else:
            k = (i * 1733) % 86400  # spread over the day, to the second
            hh, mm, ss = k // 3600, k // 60 % 60, k % 60
        hh, mm, ss = int(hh), int(mm), int(ss)
        text = "%02d:%02d" % (hh, mm) + (":%02d" % ss if ss else "")
        dset = DAY_SETS[0] if i < 35 else DAY_SETS[1 + i % 3]
        out.append(("w%02d" % i, text + dset[0], "clock", (hh, mm, ss), dset[1]))
    return out


# --- the drive -------------------------------------------------------------------------------

def local(d, hm):
    return datetime.datetime(d.year, d.month, d.day, hm[0], hm[1], tzinfo=zone).astimezone(UTC)


def schedule(d):
    """The day's two drives: [(start, end, from, to)] in UTC."""
    out = []
    for hm, a, b in ((LEAVE_HOME, HOME, OFFICE), (LEAVE_OFFICE, OFFICE, HOME)):
        start = local(d, hm)
        out.append((start, start + datetime.timedelta(minutes=DRIVE_MIN), a, b))
    return out


def position(t):
    """Where the car is at `t` (UTC), and its speed in m/s."""
    d = t.astimezone(zone).date()
    drives = schedule(d)
    for start, end, a, b in drives:
        if start <= t <= end:
            f = (t - start).total_seconds() / (end - start).total_seconds()
            return (a[0] + f * (b[0] - a[0]), a[1] + f * (b[1] - a[1])), 4.0
    if drives[0][1] < t < drives[1][0]:
        return OFFICE, 0.0
    return HOME, 0.0


def nmea(body):
    s = 0
    for ch in body.encode():
        s ^= ch
    return "$%s*%02X\r\n" % (body, s)


def angle(v, width):
    a = abs(v)
    deg = int(a)
    return "%0*d%08.5f" % (width, deg, (a - deg) * 60)


def write_log(path, start, end):
    """Fixes from `start` to `end`: every 30 s while driving, else every 5 minutes. Altitude 0
    m (no horizon dip in sunrise and sunset)."""
    n, t = 0, start
    with open(path, "w") as f:
        while t <= end:
            (lat, lon), speed = position(t)
            hms = t.strftime("%H%M%S") + ".00"
            la, lo = angle(lat, 2) + ",N", angle(lon, 3) + ",E"
            f.write(nmea("GPRMC,%s,A,%s,%s,%.1f,110.0,%s,,,A" % (hms, la, lo, speed / 0.514444,
                                                                  t.strftime("%d%m%y"))))
            f.write(nmea("GPGGA,%s,%s,%s,1,09,0.9,0.0,M,18.0,M,," % (hms, la, lo)))
            n += 1
            t += datetime.timedelta(seconds=30 if speed > 0 or _near_drive(t) else 300)
    return n


def _near_drive(t):
    """Within 5 minutes before a drive: step by 30 s so that the drive starts on time."""
    for start, end, _, _ in schedule(t.astimezone(zone).date()):
        if start - datetime.timedelta(minutes=5) <= t <= end:
            return True
    return False


# --- the Sun (NOAA solar calculator equations) ------------------------------------------------

def sun(t):
    """(declination radians, equation of time minutes) at `t` (UTC)."""
    jd = t.timestamp() / 86400.0 + 2440587.5
    T = (jd - 2451545.0) / 36525.0
    L0 = math.radians((280.46646 + T * (36000.76983 + T * 0.0003032)) % 360)
    M = math.radians(357.52911 + T * (35999.05029 - 0.0001537 * T))
    e = 0.016708634 - T * (0.000042037 + 0.0000001267 * T)
    C = (math.sin(M) * (1.914602 - T * (0.004817 + 0.000014 * T)) + math.sin(2 * M) * (0.019993 - 0.000101 * T)
         + math.sin(3 * M) * 0.000289)
    omega = math.radians(125.04 - 1934.136 * T)
    lam = math.radians(math.degrees(L0) + C - 0.00569 - 0.00478 * math.sin(omega))
    eps0 = 23 + (26 + (21.448 - T * (46.815 + T * (0.00059 - T * 0.001813))) / 60) / 60
    eps = math.radians(eps0 + 0.00256 * math.cos(omega))
    decl = math.asin(math.sin(eps) * math.sin(lam))
    y = math.tan(eps / 2) ** 2
    eot = 4 * math.degrees(y * math.sin(2 * L0) - 2 * e * math.sin(M) + 4 * e * y * math.sin(M) * math.cos(2 * L0)
                           - 0.5 * y * y * math.sin(4 * L0) - 1.25 * e * e * math.sin(2 * M))
    return decl, eot


def solar_time(d, event, where_at):
    """When `event` happens on local date `d` at the car's position (iterated: the position
    and the Sun at the estimate), or None."""
    _, elevation, rising = event
    midnight = datetime.datetime(d.year, d.month, d.day, tzinfo=UTC)
    t = midnight + datetime.timedelta(hours=12)
    for _ in range(6):
        lat, lon = where_at(t)
        decl, eot = sun(t)
        noon = 720 - 4 * lon - eot
        minutes = noon
        if elevation is not None:
            phi = math.radians(lat)
            c = (math.sin(math.radians(elevation)) - math.sin(phi) * math.sin(decl)) / (
                math.cos(phi) * math.cos(decl))
            if abs(c) > 1:
                return None
            h = math.degrees(math.acos(c))
            minutes = noon - 4 * h if rising else noon + 4 * h
        t = midnight + datetime.timedelta(minutes=minutes)
    return t


# --- the run ---------------------------------------------------------------------------------

def expected_firings(specs, start, end):
    """{(name, date): deadline} for every occurrence inside (start, end), 2 minutes clear."""
    out = {}
    lo, hi = start + datetime.timedelta(minutes=2), end - datetime.timedelta(minutes=2)
    for name, _, kind, spec, weekdays in specs:
        for k in range(-1, days + 2):
            d = FIRST_DAY + datetime.timedelta(days=k)
            if d.weekday() not in weekdays:
                continue
            if kind == "clock":
                hh, mm, ss = spec
                deadline = datetime.datetime(d.year, d.month, d.day, hh, mm, ss, tzinfo=zone).astimezone(UTC)
            else:
                event, offset = spec
                at = solar_time(d, event, lambda t: position(t)[0])
                if at is None:
                    continue
                deadline = at + datetime.timedelta(seconds=offset)
            if lo < deadline < hi:
                out[(name, d.isoformat())] = deadline
    return out


def parse_time(text):
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))


def main():
    work = tempfile.mkdtemp(prefix="locd-commute-")
    specs = timers()
    tdir = os.path.join(work, "timers.d")
    os.mkdir(tdir)
    os.chmod(tdir, 0o755)
    for name, rule, _, _, _ in specs:
        path = os.path.join(tdir, name + ".timer")
        with open(path, "w") as f:
            f.write("[Timer]\nRule=%s\n" % rule)
        os.chmod(path, 0o644)
    start = local(FIRST_DAY, (0, 0))
    end = local(FIRST_DAY + datetime.timedelta(days=days), (0, 0))
    log_path = os.path.join(work, "commute.nmea")
    fixes = write_log(log_path, start, end)
    conf = os.path.join(work, "locd.conf")
    with open(conf, "w") as f:
        f.write("[Position]\nTimeZone=Europe/Oslo\n[Acquisition]\nPolicy=continuous\n")
    sock = os.path.join(work, "locd.sock")
    t0 = time.time()
    with open(os.path.join(work, "locd.log"), "w") as err:
        locd = subprocess.Popen(
            [os.path.join(bindir, "locd"), "--config", conf, "--socket", sock, "--state-dir",
             os.path.join(work, "state"), "--timers-dir", tdir, "--clock", "replay", "--exit-at-end",
             "--source", "replay:%s?speed=max" % log_path, "--log-level", "info"], stderr=err)
    deadline = time.time() + 30
    while not os.path.exists(sock) and time.time() < deadline:
        time.sleep(0.05)
    events_path = os.path.join(work, "watch.jsonl")
    with open(events_path, "w") as out:
        watch = subprocess.Popen([os.path.join(bindir, "locctl"), "--socket", sock, "watch", "--json"], stdout=out)
        try:
            code = locd.wait(timeout=1800)
        except subprocess.TimeoutExpired:
            locd.kill()
            code = -1
        try:
            watch.wait(timeout=30)
        except subprocess.TimeoutExpired:
            watch.terminate()
    elapsed = time.time() - t0
    fired = []
    with open(events_path) as f:
        for line in f:
            try:
                m = json.loads(line)
            except ValueError:
                continue
            if m.get("event") == "timer-fired":
                fired.append((parse_time(m["time"]), m["data"]))
    return report(specs, fired, expected_firings(specs, start, end), fixes, code, elapsed, work)


def report(specs, fired, expected, fixes, code, elapsed, work):
    failures = []
    seen = {}
    for at, data in fired:
        seen.setdefault((data["name"], data["date"]), []).append((at, data))
    doubled = {k: v for k, v in seen.items() if len(v) > 1}
    missing = sorted(k for k in expected if k not in seen)
    unexpected = sorted(k for k in seen if k not in expected and FIRST_DAY.isoformat() < k[1]
                        and k[1] < (FIRST_DAY + datetime.timedelta(days=days - 1)).isoformat())
    worst = {"clock": 0.0, "solar": 0.0}
    kinds = {s[0]: s[2] for s in specs}
    off, late_max, missed = [], 0.0, []
    for key, deadline in expected.items():
        for at, data in seen.get(key, []):
            got = parse_time(data["deadline"])
            delta = abs((got - deadline).total_seconds())
            kind = kinds[key[0]]
            worst[kind] = max(worst[kind], delta)
            if delta > (1.0 if kind == "clock" else SOLAR_TOLERANCE):
                off.append((key, deadline.isoformat(), data["deadline"]))
            late_max = max(late_max, (at - got).total_seconds())
            if data.get("missed", 0) != 0:
                missed.append((key, data.get("missed")))
    print("commute: %d simulated days, %d fixes, %d timers, locd exited %d, %.0f s, work dir %s"
          % (days, fixes, len(specs), code, elapsed, work))
    print("  firings: %d seen, %d expected; missing %d, doubled %d, unexpected %d, missed>0 %d"
          % (len(fired), len(expected), len(missing), len(doubled), len(unexpected), len(missed)))
    print("  deadlines vs the independent schedule: wall clock max %.1f s, solar max %.1f s; "
          "latest firing %.1f s after its deadline" % (worst["clock"], worst["solar"], late_max))
    for what, items in (("missing", missing), ("doubled", sorted(doubled)), ("unexpected", unexpected),
                        ("deadline off", off), ("missed", missed)):
        if items:
            failures.append("%d %s" % (len(items), what))
            for item in items[:10]:
                print("    %s: %s" % (what, item))
    if code != 0:
        failures.append("locd exited %d" % code)
    if not expected:
        failures.append("no firing expected (the run checked nothing)")
    print("commute: " + ("PASS" if not failures else "FAIL: " + "; ".join(failures)))
    return not failures


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
