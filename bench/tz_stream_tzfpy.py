"""tzfpy 2.1.1 as a stream filter, the peer of `locctl tz -`: one LAT,LON per line on
standard input, one zone name per line on standard output (an empty line for a line that is
not a coordinate)."""
import sys

from tzfpy import get_tz

out = sys.stdout
for line in sys.stdin:
    try:
        lat, lon = line.split(",")
        out.write(get_tz(float(lon), float(lat)) + "\n")
    except ValueError:
        out.write("\n")
