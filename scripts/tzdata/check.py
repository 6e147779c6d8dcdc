"""Reads a boundary file the way locd does and prints its agreement with points.csv.

A second, independent reader of the format (the first is Sources/LocCore/ZoneBoundaries.swift):
`make tzdata` runs it so a generator change that breaks the file or the answers shows at once.
"""

import argparse
import csv
import math
import struct
import zlib

S = 65535


class BoundaryFile:
    def __init__(self, data):
        self.data = data
        (magic, version, header_size, size, zones, cols, rows, units, names_at, names_len,
         grid_at, grid_len, nodes_at, nodes_len) = struct.unpack_from("<8sHHIHHHHIIIIII", data, 0)
        assert magic == b"LOCD-TZB" and version == 1 and size == len(data) and units == S
        self.release = data[48:56].rstrip(b"\0").decode()
        self.tzdata = data[56:64].rstrip(b"\0").decode()
        (crc,) = struct.unpack_from("<I", data, 64)
        assert crc == zlib.crc32(data[header_size:]), "checksum"
        self.names = data[names_at : names_at + names_len].decode("ascii").split("\n")[:-1]
        assert len(self.names) == zones
        self.grid = data[grid_at : grid_at + grid_len]
        self.nodes = data[nodes_at : nodes_at + nodes_len]
        self.cols = cols

    def lookup(self, lat, lon):
        # The cell whose (west, east] x (south, north] holds the point; -180 is 180.
        lon_from_west = 360.0 if lon == -180 else lon + 180
        lat_from_south = lat + 90
        col = math.ceil(lon_from_west) - 1
        row = max(math.ceil(lat_from_south) - 1, 0)
        # In half units: the middle of the cell unit the point falls in.
        qx = max(2 * math.ceil((lon_from_west - col) * S) - 1, 1)
        qy = max(2 * math.ceil((lat_from_south - row) * S) - 1, 1)
        (ref,) = struct.unpack_from("<I", self.grid, 4 * (row * self.cols + col))
        x0, x1, y0, y1 = 0, S, 0, S
        while True:
            if ref & 0x8000_0000:
                return ref & 0xFFFF
            if ref & 0x4000_0000:
                return self.leaf(ref & 0x3FFF_FFFF, qx, qy, y1)
            xm, ym = (x0 + x1) // 2, (y0 + y1) // 2
            k = 0
            if qx > 2 * xm:
                x0, k = xm, k + 1
            else:
                x1 = xm
            if qy > 2 * ym:
                y0, k = ym, k + 2
            else:
                y1 = ym
            (ref,) = struct.unpack_from("<I", self.nodes, (ref & 0x3FFF_FFFF) + 4 * k)

    def leaf(self, at, qx, qy, top):
        n = self.nodes
        count_profile, count_lines = struct.unpack_from("<HH", n, at)
        zone = None
        for i in range(count_profile):
            s, z = struct.unpack_from("<HH", n, at + 4 + 4 * i)
            if 2 * s < qx or zone is None:
                zone = z
        head = at + 4 + 4 * count_profile
        body = head + 10 * count_lines
        best = None
        for i in range(count_lines):
            left, right, x, y, length = struct.unpack_from("<5H", n, head + 10 * i)
            b, end = body, body + length
            body = end
            while b < end:
                c = n[b]
                if c < 0x80:
                    nx, ny = x + ((c ^ 0x40) - 0x40), y + ((n[b + 1] ^ 0x80) - 0x80)
                    b += 2
                elif c < 0xC0:
                    v = (c & 0x3F) | (n[b + 1] << 6) | (n[b + 2] << 14)
                    nx, ny = x + (((v & 0x7FF) ^ 0x400) - 0x400), y + (((v >> 11) ^ 0x400) - 0x400)
                    b += 3
                else:
                    nx, ny = struct.unpack_from("<HH", n, b + 1)
                    b += 5
                if (2 * x < qx) != (2 * nx < qx):
                    if nx > x:
                        wx, wy, dx, dy, below = x, y, nx - x, ny - y, right
                    else:
                        wx, wy, dx, dy, below = nx, ny, x - nx, y - ny, left
                    num = 2 * wy * dx + (qx - 2 * wx) * dy
                    if qy * dx <= num <= 2 * top * dx and (best is None or num * best[1] < best[0] * dx):
                        best = (num, dx, below)
                x, y = nx, ny
        return best[2] if best else zone


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("file")
    ap.add_argument("points")
    args = ap.parse_args()
    with open(args.file, "rb") as f:
        bf = BoundaryFile(f.read())
    agree, total, misses = {}, {}, []
    with open(args.points) as f:
        for row in csv.DictReader(f):
            kind = row["kind"]
            got = bf.names[bf.lookup(float(row["lat"]), float(row["lon"]))]
            total[kind] = total.get(kind, 0) + 1
            if got == row["tz"]:
                agree[kind] = agree.get(kind, 0) + 1
            else:
                misses.append(f"{kind} {row['lat']},{row['lon']} expected {row['tz']} got {got}")
    print(f"check: boundary release {bf.release}, tzdata {bf.tzdata}, {len(bf.names)} zones")
    for kind in total:
        a = agree.get(kind, 0)
        print(f"check: {kind}: {a}/{total[kind]} ({100 * a / total[kind]:.2f}%)")
    for m in misses:
        print("check: miss:", m)


if __name__ == "__main__":
    main()
