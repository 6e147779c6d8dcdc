#!/usr/bin/env python3
"""Writes the embedded demo drive of `make run` (demo/README.md) to stdout.

Usage: demo/make-drive.py > demo/badajoz-elvas.nmea

A synthetic drive, not a recording: a car on the road from Badajoz (Spain) to Elvas
(Portugal) on 2026-06-21, starting 26 s before sunset a little over half a kilometre
east of the border, crossing it about 25 s later, and parking in Elvas. It is written as a
u-blox receiver writes NMEA 0183 at 1 Hz (RMC, VTG, GGA, GSA, GSV, GLL, CRLF) with that
kind of receiver's errors added: a slowly wandering position error (first-order
Gauss-Markov, 1.8 m per axis, 60 s correlation time) plus 0.3 m of white noise, altitude
error three times as large, HDOP wandering around 0.9, satellites rising and setting,
speed and course jitter while moving, and the frozen course and 0.0x-knot speeds a
parked receiver reports. The random generator has a fixed seed, so the output is the
same byte for byte on every run (a test checks the committed file against it).
"""
import math
import random

SEED = 20260621
DATE = (2026, 6, 21)
# Sunset at the start point is 19:56:51Z (`locctl sun --at 38.8888,-7.028 --date
# 2026-06-21`); the drive starts 26 s earlier, so the demo's `Rule=sunset` fires at once.
START = 19 * 3600 + 56 * 60 + 25
# Waypoints (latitude, longitude, target speed in m/s on the leg that starts there), drawn
# by hand along the road; not surveyed. The border (the Caia river) lies near 7.036 W.
ROUTE = [
    (38.88880, -7.02800, 28.0),
    (38.89080, -7.04100, 28.0),
    (38.89400, -7.07000, 29.0),
    (38.89300, -7.10000, 28.0),
    (38.88850, -7.12800, 16.0),
    (38.88500, -7.14500, 13.0),
    (38.88200, -7.15800, 9.0),
    (38.88080, -7.16280, 0.0),
]
PARKED = 120  # seconds parked in Elvas after the drive
ALTITUDE = (186.0, 290.0)  # metres above sea level at Badajoz and at Elvas
GEOID = 51.2  # geoid separation there (EGM96), metres
# Satellites: PRN, elevation and azimuth at the start (degrees), elevation change per hour.
SKY = [
    (2, 62, 295, -9), (5, 14, 310, -6), (6, 48, 72, 8), (11, 35, 160, -11), (12, 8, 25, 5),
    (13, 71, 210, -4), (15, 22, 250, 7), (17, 5, 120, -3), (19, 40, 105, 10),
    (20, 27, 335, 6), (24, 17, 190, -8), (29, 55, 40, -5),
]
EARTH = 6371008.8  # mean Earth radius, metres (IUGG)


class Wander:
    """A first-order Gauss-Markov process: standard deviation `sigma`, correlation time `tau` s."""

    def __init__(self, rng, sigma, tau):
        self.rng, self.sigma, self.phi = rng, sigma, math.exp(-1.0 / tau)
        self.value = rng.gauss(0, sigma)

    def step(self):
        self.value = self.phi * self.value + self.sigma * math.sqrt(1 - self.phi**2) * self.rng.gauss(0, 1)
        return self.value


def leg_lengths():
    out = []
    for (a, b) in zip(ROUTE, ROUTE[1:]):
        north = math.radians(b[0] - a[0]) * EARTH
        east = math.radians(b[1] - a[1]) * EARTH * math.cos(math.radians(a[0]))
        out.append((math.hypot(north, east), math.degrees(math.atan2(east, north)) % 360))
    return out


def truth():
    """(second, lat, lon, speed m/s, course, fraction of the way) at 1 Hz, then parked."""
    legs = leg_lengths()
    total = sum(length for length, _ in legs)
    s, v, t, out = 0.0, ROUTE[0][2], 0, []
    while s < total - 0.5 or v > 0.3:
        done, leg = s, 0
        while leg < len(legs) - 1 and done >= legs[leg][0]:
            done -= legs[leg][0]
            leg += 1
        f = min(1.0, done / legs[leg][0])
        a, b = ROUTE[leg], ROUTE[leg + 1]
        lat, lon = a[0] + f * (b[0] - a[0]), a[1] + f * (b[1] - a[1])
        out.append((t, lat, lon, v, legs[leg][1], s / total))
        # The driver: towards the leg's speed (1.5 m/s^2 up, 2 m/s^2 down), braking in time
        # for a slower next leg and for the stop at the end.
        target = a[2]
        ahead = max(0.0, legs[leg][0] - done)
        nxt = ROUTE[leg + 1][2]
        target = min(target, math.sqrt(nxt**2 + 2 * 1.8 * ahead))
        target = min(target, math.sqrt(2 * 1.8 * max(0.0, total - s)))
        v = min(v + 1.5, target) if v < target else max(v - 2.0, target)
        s = min(total, s + v)
        t += 1
        if t > 3600:
            raise SystemExit("the drive does not end")
    end = out[-1]
    for k in range(1, PARKED + 1):
        out.append((end[0] + k, ROUTE[-1][0], ROUTE[-1][1], 0.0, end[4], 1.0))
    return out


def sentence(body):
    check = 0
    for c in body.encode("ascii"):
        check ^= c
    return "$%s*%02X\r\n" % (body, check)


def angle(value, digits, pos, neg):
    a = abs(value)
    d = int(a)
    return "%0*d%08.5f,%s" % (digits, d, (a - d) * 60, pos if value >= 0 else neg)


def main():
    rng = random.Random(SEED)
    north, east = Wander(rng, 1.8, 60), Wander(rng, 1.8, 60)
    up, hdop = Wander(rng, 5.4, 60), Wander(rng, 0.12, 120)
    y, m, d = DATE
    date = "%02d%02d%02d" % (d, m, y % 100)
    lines = [
        "# Synthetic drive Badajoz (ES) -> Elvas (PT), 2026-06-21 19:56:25Z, 1 Hz, u-blox style NMEA.\r\n",
        "# Not a recording: written by demo/make-drive.py (seed %d); see demo/README.md.\r\n" % SEED,
    ]
    course_shown = None
    for (t, lat, lon, v, course, frac) in truth():
        sec = START + t
        hms = "%02d%02d%02d.00" % (sec // 3600 % 24, sec // 60 % 60, sec % 60)
        dn, de = north.step() + rng.gauss(0, 0.3), east.step() + rng.gauss(0, 0.3)
        plat = lat + math.degrees(dn / EARTH)
        plon = lon + math.degrees(de / (EARTH * math.cos(math.radians(lat))))
        alt = ALTITUDE[0] + frac * (ALTITUDE[1] - ALTITUDE[0]) + up.step()
        h = min(2.5, max(0.6, 0.9 + hdop.step()))
        if v > 0.5:
            speed = max(0.0, v + rng.gauss(0, 0.08))
            course_shown = (course + rng.gauss(0, 0.8)) % 360
        else:
            speed = abs(rng.gauss(0, 0.05))  # a parked receiver's speed; its course stays put
        la, lo = angle(plat, 2, "N", "S"), angle(plon, 3, "E", "W")
        knots, kmh = speed / 0.514444, speed * 3.6
        sky = []
        for (prn, el, az, rate) in SKY:
            e = el + rate * t / 3600
            if e > 0:
                snr = int(min(50, max(12, 19 + 0.4 * e + rng.gauss(0, 2))))
                sky.append((prn, int(e), int(az + t / 240) % 360, snr))
        used = [p for (p, e, _, snr) in sky if e >= 10 and snr >= 28][:12]
        cog = "%.2f" % course_shown
        lines.append(sentence("GPRMC,%s,A,%s,%s,%.3f,%s,%s,,,A" % (hms, la, lo, knots, cog, date)))
        lines.append(sentence("GPVTG,%s,T,,M,%.3f,N,%.3f,K,A" % (cog, knots, kmh)))
        lines.append(
            sentence("GPGGA,%s,%s,%s,1,%02d,%.2f,%.1f,M,%.1f,M,," % (hms, la, lo, len(used), h, alt, GEOID))
        )
        fields = ",".join(["%02d" % p for p in used] + [""] * (12 - len(used)))
        lines.append(sentence("GPGSA,A,3,%s,%.2f,%.2f,%.2f" % (fields, h * 1.7, h, h * 1.35)))
        groups = [sky[i : i + 4] for i in range(0, len(sky), 4)]
        for n, group in enumerate(groups):
            sats = ",".join("%02d,%02d,%03d,%02d" % s for s in group)
            lines.append(sentence("GPGSV,%d,%d,%02d,%s" % (len(groups), n + 1, len(sky), sats)))
        lines.append(sentence("GPGLL,%s,%s,%s,A,A" % (la, lo, hms)))
    print("".join(lines), end="")


if __name__ == "__main__":
    main()
