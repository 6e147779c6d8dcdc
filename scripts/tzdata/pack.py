"""Stage 2 of `make tzdata`: per-cell arcs -> the boundary file locd memory-maps.

Builds, for every mixed 1-degree cell, a quadtree whose leaves hold the zone borders
crossing them (delta-encoded polylines with the zones on their left and right) and the
zones along their top edge, then writes the file described in
docs/decisions/0004-time-zone-boundary-file.md. Same input, same bytes.
"""

import argparse
import pickle
import struct
import sys
import time
import zlib

import numpy as np

S = 65535
MAGIC = b"LOCD-TZB"
FORMAT_VERSION = 1
HEADER_SIZE = 80
COLUMNS, ROWS = 360, 180
UNIFORM, LEAF = 0x8000_0000, 0x4000_0000

options = None


def segments_of(arcs):
    """Rows: west x, west y, east x, east y, zone below, arc, index in arc, L, R, from x, from y, to x, to y."""
    rows = []
    for arc_id, (points, L, R) in enumerate(arcs):
        p = points.tolist()
        for i in range(len(p) - 1):
            (ax, ay), (bx, by) = p[i], p[i + 1]
            if bx >= ax:  # eastward (or vertical, which never counts): south of it is R
                rows.append((ax, ay, bx, by, R, arc_id, i, L, R, ax, ay, bx, by))
            else:
                rows.append((bx, by, ax, ay, L, arc_id, i, L, R, ax, ay, bx, by))
    if not rows:
        return np.zeros((0, 13), np.int64)
    return np.array(rows, np.int64)


def evaluate(seg, profile, top, qx, qy):
    """Zones at points (qx[i] / 2, qy / 2) by the reader's rule (see the decision record).

    Queries are in half units: a reader asks at the middle of a unit (odd qx, qy), the
    profile of a child is evaluated at y = its top edge (even qy).
    """
    starts = np.array([2 * s for s, _ in profile])
    zones = np.array([z for _, z in profile])
    fallback = zones[np.searchsorted(starts, qx, side="left") - 1]
    if len(seg) == 0:
        return fallback
    wx, wy, ex, ey, below = seg[:, 0], seg[:, 1], seg[:, 2], seg[:, 3], seg[:, 4]
    dx, dy = ex - wx, ey - wy
    out = np.empty(len(qx), np.int64)
    for b in range(0, len(qx), 512):
        x = qx[b : b + 512, None]
        num = 2 * wy * dx + (x - 2 * wx) * dy  # height at x / 2, times 2 dx
        ok = (2 * wx < x) & (x < 2 * ex) & (num >= qy * dx) & (num <= 2 * top * dx)
        y = np.where(ok, num / np.maximum(dx, 1), np.inf)
        j = y.argmin(axis=1)  # the first of equals, as the reader keeps the first
        out[b : b + 512] = np.where(np.isfinite(y.min(axis=1)), below[j], fallback[b : b + 512])
    return out


def line_profile(seg, profile, top, x0, x1, yl):
    """The zones along y = yl for x in (x0, x1), as [(x, zone)]: zone from x + 0.5 eastward."""
    cand = [np.array([x0]), np.array([s for s, _ in profile], np.int64)]
    if len(seg):
        s = seg[np.maximum(seg[:, 1], seg[:, 3]) >= yl]
        cand += [s[:, 0], s[:, 2]]
        for yy in (yl, top):
            c = s[(np.minimum(s[:, 1], s[:, 3]) <= yy) & (np.maximum(s[:, 1], s[:, 3]) >= yy) & (s[:, 1] != s[:, 3])]
            xc = c[:, 0] + (yy - c[:, 1]) * (c[:, 2] - c[:, 0]) / (c[:, 3] - c[:, 1])
            f = np.floor(xc).astype(np.int64)
            cand += [f - 1, f, f + 1]
    cand = np.unique(np.concatenate(cand))
    cand = cand[(cand >= x0) & (cand < x1)]
    out = []
    for x, z in zip(cand.tolist(), evaluate(seg, profile, top, 2 * cand + 1, 2 * yl).tolist()):
        if not out or out[-1][1] != z:
            out.append((x, z))
    return out


def restrict(profile, x0, x1):
    first = profile[0][1]
    for s, z in profile:
        if s <= x0:
            first = z
    out = [(x0, first)]
    for s, z in profile:
        if x0 < s < x1 and z != out[-1][1]:
            out.append((s, z))
    return out


def select(seg, x0, x1, y0, y1):
    """Segments that can be the lowest crossing above a point of [x0, x1) x [y0, y1]."""
    if len(seg) == 0:
        return seg
    wx, wy, ex, ey = seg[:, 0], seg[:, 1], seg[:, 2], seg[:, 3]
    a, b = np.maximum(wx, x0), np.minimum(ex, x1)
    dx = np.maximum(ex - wx, 1)
    ya = wy + (a - wx) * (ey - wy) / dx
    yb = wy + (b - wx) * (ey - wy) / dx
    return seg[(b > a) & (np.maximum(ya, yb) >= y0 - 1) & (np.minimum(ya, yb) <= y1 + 1)]


def polylines(seg):
    """Consecutive segments of one arc, as runs."""
    if len(seg) == 0:
        return []
    cut = np.ones(len(seg), bool)
    cut[1:] = (seg[1:, 5] != seg[:-1, 5]) | (seg[1:, 6] != seg[:-1, 6] + 1)
    at = np.nonzero(cut)[0].tolist() + [len(seg)]
    return [seg[at[i] : at[i + 1]] for i in range(len(at) - 1)]


def build(seg, profile, x0, x1, y0, y1, depth, stats):
    if len(seg) == 0 and len(profile) == 1:
        stats["uniform nodes"] += 1
        return ("u", profile[0][1])
    lines = polylines(seg)
    small = len(lines) + len(profile) <= options.max_items and len(seg) <= options.max_segments
    if small or depth >= options.max_depth or x1 - x0 < 4:
        stats["leaves"] += 1
        return ("l", lines, profile)
    xm, ym = (x0 + x1) // 2, (y0 + y1) // 2
    low = line_profile(seg, profile, y1, x0, x1, ym)
    stats["internal nodes"] += 1
    kids = []
    for a, b, c, d, p in ((x0, xm, y0, ym, low), (xm, x1, y0, ym, low), (x0, xm, ym, y1, profile), (xm, x1, ym, y1, profile)):
        kids.append(build(select(seg, a, b, c, d), restrict(p, a, b), a, b, c, d, depth + 1, stats))
    return ("i", kids)


def encode_steps(xs, ys):
    body = bytearray()
    for i in range(1, len(xs)):
        dx, dy = xs[i] - xs[i - 1], ys[i] - ys[i - 1]
        if -64 <= dx <= 63 and -128 <= dy <= 127:
            body += bytes((dx & 0x7F, dy & 0xFF))
        elif -1024 <= dx <= 1023 and -1024 <= dy <= 1023:
            v = (dx & 0x7FF) | ((dy & 0x7FF) << 11)
            body += bytes((0x80 | (v & 0x3F), (v >> 6) & 0xFF, (v >> 14) & 0xFF))
        else:
            body += struct.pack("<BHH", 0xC0, xs[i], ys[i])
    return bytes(body)


def serialize(trees, stats):
    nodes = bytearray()

    def emit(node):
        if node[0] == "u":
            return UNIFORM | node[1]
        if node[0] == "i":
            while len(nodes) % 4:
                nodes.append(0)
            at = len(nodes)
            nodes.extend(bytes(16))
            nodes[at : at + 16] = struct.pack("<4I", *[emit(k) for k in node[1]])
            stats["bytes: internal nodes"] += 16
            return at
        _, lines, profile = node
        while len(nodes) % 2:
            nodes.append(0)
        at = len(nodes)
        nodes.extend(struct.pack("<HH", len(profile), len(lines)))
        for s, z in profile:
            nodes.extend(struct.pack("<HH", s, z))
        bodies = []
        for run in lines:
            xs = run[:, 9].tolist() + [int(run[-1, 11])]
            ys = run[:, 10].tolist() + [int(run[-1, 12])]
            body = encode_steps(xs, ys)
            bodies.append(body)
            nodes.extend(struct.pack("<5H", int(run[0, 7]), int(run[0, 8]), xs[0], ys[0], len(body)))
        for body in bodies:
            nodes.extend(body)
        stats["bytes: leaf headers and profiles"] += 4 + 4 * len(profile) + 10 * len(lines)
        stats["bytes: polyline steps"] += sum(len(b) for b in bodies)
        stats["vertices stored"] += sum(len(r) + 1 for r in lines)
        assert at < LEAF
        return LEAF | at

    grid = bytearray()
    for row in range(ROWS):
        for col in range(COLUMNS):
            grid += struct.pack("<I", emit(trees[(col - 180, row - 90)]))
    return bytes(grid), bytes(nodes)


def cell_tree(item):
    key, cell = item
    stats = {"uniform nodes": 0, "leaves": 0, "internal nodes": 0}
    if cell[0] == "u":
        return key, ("u", cell[1]), stats
    _, arcs, profile = cell
    return key, build(segments_of(arcs), profile, 0, S, 0, S, 0, stats), stats


def ascii8(text):
    raw = text.encode("ascii")
    assert len(raw) <= 8
    return raw + bytes(8 - len(raw))


def main():
    global options
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("cells")
    ap.add_argument("--out", required=True)
    ap.add_argument("--tzdata-version", required=True)
    ap.add_argument("--max-items", type=int, default=16, help="polylines + profile entries in a leaf")
    ap.add_argument("--max-segments", type=int, default=256, help="segments in a leaf")
    ap.add_argument("--max-depth", type=int, default=12)
    ap.add_argument("--jobs", type=int, default=2)
    options = ap.parse_args()
    start = time.time()
    with open(options.cells, "rb") as f:
        meta, cells = pickle.load(f)
    names = meta["names"]
    items = sorted(cells.items(), key=lambda kv: (kv[0][1], kv[0][0]))
    trees, stats = {}, {}
    import multiprocessing

    with multiprocessing.get_context("fork").Pool(options.jobs) as pool:
        for key, tree, s in pool.imap(cell_tree, items, chunksize=64):
            trees[key] = tree
            for k, v in s.items():
                stats[k] = stats.get(k, 0) + v
    stats.update({"bytes: internal nodes": 0, "bytes: leaf headers and profiles": 0, "bytes: polyline steps": 0, "vertices stored": 0})
    grid, nodes = serialize(trees, stats)
    name_bytes = b"".join(n.encode("ascii") + b"\n" for n in names)
    names_at = HEADER_SIZE
    grid_at = names_at + len(name_bytes)
    grid_at += -grid_at % 4
    nodes_at = grid_at + len(grid)
    size = nodes_at + len(nodes)
    body = bytearray(size - HEADER_SIZE)
    body[0 : len(name_bytes)] = name_bytes
    body[grid_at - HEADER_SIZE : grid_at - HEADER_SIZE + len(grid)] = grid
    body[nodes_at - HEADER_SIZE :] = nodes
    header = MAGIC + struct.pack(
        "<HHIHHHHIIIIII",
        FORMAT_VERSION, HEADER_SIZE, size, len(names), COLUMNS, ROWS, S,
        names_at, len(name_bytes), grid_at, len(grid), nodes_at, len(nodes),
    )
    header += ascii8(meta["boundary_release"]) + ascii8(options.tzdata_version)
    header += struct.pack("<I", zlib.crc32(body)) + bytes(12)
    assert len(header) == HEADER_SIZE
    with open(options.out, "wb") as f:
        f.write(header + body)
    print(f"pack: {size} bytes, {stats} in {time.time() - start:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
