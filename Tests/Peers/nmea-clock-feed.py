#!/usr/bin/python3
"""A receiver that is always on time, for the system tier: writes one NMEA 0183 cycle (GGA and
RMC, 3D fix, eight satellites, HDOP 0.9) a second, stamped with this machine's UTC clock, at a
fixed place, to locd's nmea+unix-listen:// socket, reconnecting while locd restarts.

Usage: nmea-clock-feed.py SOCKET LATITUDE LONGITUDE
  Prints "connected" each time it connects.
"""
import socket, sys, time


def checksum(body):
    c = 0
    for ch in body.encode():
        c ^= ch
    return "%02X" % c


def sentence(body):
    return "$%s*%s\r\n" % (body, checksum(body))


def angle(value, width, positive, negative):
    hemisphere = positive if value >= 0 else negative
    value = abs(value)
    degrees = int(value)
    minutes = (value - degrees) * 60
    return "%0*d%07.4f" % (width, degrees, minutes), hemisphere


def cycle(now, lat, lon):
    t = time.gmtime(now)
    stamp = "%02d%02d%02d.00" % (t.tm_hour, t.tm_min, t.tm_sec)
    date = "%02d%02d%02d" % (t.tm_mday, t.tm_mon, t.tm_year % 100)
    la, ns = angle(lat, 2, "N", "S")
    lo, ew = angle(lon, 3, "E", "W")
    gga = "GPGGA,%s,%s,%s,%s,%s,1,08,0.9,45.0,M,50.0,M,," % (stamp, la, ns, lo, ew)
    rmc = "GPRMC,%s,A,%s,%s,%s,%s,0.0,0.0,%s,,,A" % (stamp, la, ns, lo, ew, date)
    return (sentence(gga) + sentence(rmc)).encode()


def main():
    path, lat, lon = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
    while True:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(path)
        except OSError:
            s.close()
            time.sleep(0.2)
            continue
        print("connected", flush=True)
        try:
            while True:
                now = time.time()
                # Each cycle at the top of its second, as a receiver sends it.
                time.sleep(1 - (now % 1))
                s.sendall(cycle(time.time(), lat, lon))
        except OSError:
            s.close()


if __name__ == "__main__":
    main()
