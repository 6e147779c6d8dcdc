"""Stage 1 of `make tzdata`: zone polygons -> per-cell planar partitions of labelled arcs.

Input: the timezone-boundary-builder polygons as packaged in timezonefinder-data (read
through timezonefinder's public API, versions pinned in requirements.txt). Output: a
pickle (an intermediate, not committed) with, for each 1-degree cell, either one zone
or the zone borders inside it as arcs in cell units (0..65535 per degree, integers),
each with the zone on its left and on its right, plus the zones along the cell's top
edge. docs/decisions/0004-time-zone-boundary-file.md describes the steps and why.
"""

import argparse
import math
import multiprocessing
import pickle
import sys
import time

import numpy as np
import shapely
from shapely import LineString, Polygon, box
from shapely.geometry.polygon import orient
from timezonefinder import TimezoneFinder

# timezonefinder stores coordinates as int32 degrees * 10^7 (its configs.COORD2INT_FACTOR).
U = 10_000_000
# locd's cell units per degree (format constant, see docs/decisions/0004).
S = 65535
# Metres per cell unit of latitude on the mean sphere (R = 6371008.8 m, IUGG R1).
METRES_PER_UNIT = 6371008.8 * math.pi / 180 / S
BLOCK = 10  # degrees per clipping block: big polygons are clipped once per block, not per cell

finder = None
polygons = None
zone_of_polygon = None
tree = None
names = None
options = None


def load():
    global finder, polygons, zone_of_polygon, tree, names
    finder = TimezoneFinder()
    names = list(finder.timezone_names)
    polys, zones = [], []
    for boundary in range(finder.nr_of_polygons):
        rings = [np.round(np.array(r, dtype=np.float64).T * U) for r in finder.get_polygon(boundary)]
        polys.append(Polygon(rings[0], rings[1:]))
        zones.append(int(finder.zone_id_of(boundary)))
    polygons = np.array(polys, dtype=object)
    zone_of_polygon = np.array(zones)
    tree = shapely.STRtree(polygons)


def oracle(x, y):
    """The zone timezonefinder answers at a point given in 10^-7 degrees."""
    return names.index(finder.timezone_at(lng=x / U, lat=y / U))


def polygonal(geometry):
    out = []
    for part in shapely.get_parts(geometry):
        if part.geom_type == "Polygon":
            if part.area > 0:
                out.append(part)
        elif part.geom_type in ("MultiPolygon", "GeometryCollection"):
            out += polygonal(part)
    return out


def faces_of(lines):
    return np.array(shapely.get_parts(shapely.polygonize(shapely.get_parts(lines))), dtype=object)


def label_source_faces(parts, part_zones, cell, stats):
    """Faces of the arrangement of every polygon edge in the cell, each with its zone.

    A face inside exactly one zone's polygons takes that zone; a face inside none (a gap
    in the data) or several (overlapping polygons) takes what timezonefinder answers
    there, which is what the reference points were made with.
    """
    lines = shapely.union_all([p.boundary for p in parts] + [cell.boundary])
    faces = faces_of(lines)
    points = shapely.point_on_surface(faces)
    px, py = shapely.get_x(points), shapely.get_y(points)
    cover = [set() for _ in faces]
    for part, zone in zip(parts, part_zones):
        for i in np.nonzero(shapely.contains_xy(part, px, py))[0]:
            cover[i].add(int(zone))
    labels = []
    for i, zones in enumerate(cover):
        if len(zones) == 1:
            labels.append(next(iter(zones)))
        else:
            stats["oracle_gap" if not zones else "oracle_overlap"] += 1
            labels.append(oracle(px[i], py[i]))
    return faces, np.array(labels)


def dissolve(faces, labels):
    return {int(z): shapely.union_all(faces[labels == z]) for z in sorted(set(labels.tolist()))}


def snapped_partition(regions):
    """The partition rounded to whole cell units by snap-rounding its noded borders.

    Zone slivers thinner than a unit collapse here instead of turning into borders that
    cross each other once rounded. Each face of the rounded arrangement takes the zone it
    overlaps most.
    """
    lines = shapely.union_all([r.boundary for r in regions.values()], grid_size=1.0)
    faces = faces_of(lines)
    zones = list(regions.keys())
    area = np.zeros((len(faces), len(zones)))
    for j, z in enumerate(zones):
        area[:, j] = shapely.area(shapely.intersection(faces, regions[z]))
    return faces, np.array([zones[j] for j in area.argmax(axis=1)])


def directed_edges(regions):
    """(x0, y0, x1, y1) -> zone on the left, over every oriented ring of every region."""
    left = {}
    for zone, region in regions.items():
        for poly in shapely.get_parts(region):
            poly = orient(poly, 1.0)
            for ring in [poly.exterior, *poly.interiors]:
                c = np.asarray(ring.coords)
                for a, b in zip(c[:-1].tolist(), c[1:].tolist()):
                    left[(a[0], a[1], b[0], b[1])] = zone
    return left


def arcs_of(regions, stats):
    """Borders between different zones inside the cell, as (points, left zone, right zone)."""
    left = directed_edges(regions)
    merged = shapely.line_merge(shapely.union_all([r.boundary for r in regions.values()]))
    arcs = []
    for line in shapely.get_parts(merged):
        c = np.asarray(line.coords)
        a, b = c[:-1], c[1:]
        on_border = ((a[:, 0] == b[:, 0]) & ((a[:, 0] == 0) | (a[:, 0] == S))) | (
            (a[:, 1] == b[:, 1]) & ((a[:, 1] == 0) | (a[:, 1] == S))
        )
        i, n = 0, len(on_border)
        while i < n:
            if on_border[i]:
                i += 1
                continue
            j = i
            while j < n and not on_border[j]:
                j += 1
            piece = c[i : j + 1]
            p, q = piece[0].tolist(), piece[1].tolist()
            L = left.get((p[0], p[1], q[0], q[1]))
            R = left.get((q[0], q[1], p[0], p[1]))
            if L is None or R is None:
                stats["label_fallback"] += 1
                mx, my = (p[0] + q[0]) / 2, (p[1] + q[1]) / 2
                d = math.hypot(q[0] - p[0], q[1] - p[1])
                nx, ny = -(q[1] - p[1]) / d * 0.01, (q[0] - p[0]) / d * 0.01
                for zone, region in regions.items():
                    if L is None and shapely.contains_xy(region, mx + nx, my + ny):
                        L = zone
                    if R is None and shapely.contains_xy(region, mx - nx, my - ny):
                        R = zone
            if L is None or R is None:
                raise RuntimeError(f"cannot label an arc at {piece[0]}")
            if L != R:
                arcs.append((piece.astype(np.int64), L, R))
            i = j
    return arcs


def simplify_indices(points, tolerance, x_scale):
    """Indices of the Douglas-Peucker subset of `points` (x scaled by `x_scale` first)."""
    if tolerance <= 0 or len(points) <= 2:
        return np.arange(len(points))
    scaled = points.astype(np.float64)
    scaled[:, 0] *= x_scale
    kept = np.asarray(shapely.simplify(LineString(scaled), tolerance).coords)
    index = {}
    for i, (x, y) in enumerate(scaled.tolist()):
        index.setdefault((x, y), i)
    idx = [index[(x, y)] for x, y in kept.tolist()]
    idx[-1] = len(points) - 1  # a closed arc starts and ends on the same point
    return np.array(idx)


def simplify_arcs(arcs, lat, stats):
    """Simplifies every arc by Douglas-Peucker, halving an arc's tolerance while it crosses
    another simplified arc or itself, or while a closed arc collapses."""
    x_scale = math.cos(math.radians(lat))
    tol = []
    for _, L, R in arcs:
        sea = names[L].startswith("Etc/") or names[R].startswith("Etc/")
        tol.append((options.sea_tolerance if sea else options.land_tolerance) / METRES_PER_UNIT)
    out = [None] * len(arcs)
    todo = set(range(len(arcs)))
    for _round in range(12):
        for i in todo:
            pts = arcs[i][0]
            out[i] = pts[simplify_indices(pts, tol[i], x_scale)]
        lines = np.array([LineString(p) for p in out], dtype=object)
        bad = set()
        for i, p in enumerate(out):
            closed = (p[0] == p[-1]).all()
            if (closed and len(p) < 4) or not lines[i].is_simple:
                bad.add(i)
        if len(lines) > 1:
            pairs = shapely.STRtree(lines).query(lines, predicate="intersects")
            for i, j in pairs.T.tolist():
                if i >= j:
                    continue
                shared = shapely.MultiPoint([out[i][0], out[i][-1], out[j][0], out[j][-1]])
                if not shapely.difference(shapely.intersection(lines[i], lines[j]), shared).is_empty:
                    bad.update((i, j))
        todo = {i for i in bad if tol[i] > 0}
        if not todo:
            break
        stats["resimplified"] += len(todo)
        for i in todo:
            tol[i] = tol[i] / 2 if tol[i] > 0.25 else 0.0
    return [(p, L, R) for p, (_, L, R) in zip(out, arcs)]


def top_profile(regions):
    """[(x, zone)]: the zone along the cell's top edge from x (cell units) eastward."""
    top = LineString([(0, S), (S, S)])
    pieces = []
    for zone, region in regions.items():
        for g in shapely.get_parts(shapely.intersection(region, top)):
            for line in shapely.get_parts(g):
                if line.geom_type == "LineString" and not line.is_empty:
                    xs = np.asarray(line.coords)[:, 0]
                    if xs.max() > xs.min():
                        pieces.append((int(xs.min()), zone))
    pieces.sort()
    profile = []
    for x, zone in pieces:
        if profile and profile[-1][0] == x:
            profile[-1] = (x, zone)
        elif not profile or profile[-1][1] != zone:
            profile.append((x, zone))
    profile[0] = (0, profile[0][1])
    return profile


def cell_partition(parts, part_zones, x0, y0, stats):
    x1, y1 = x0 + U, y0 + U
    cell = box(x0, y0, x1, y1)
    clipped, clipped_zones = [], []
    if len(parts):
        b = shapely.bounds(parts)
        near = (b[:, 0] < x1) & (b[:, 2] > x0) & (b[:, 1] < y1) & (b[:, 3] > y0)
        for part, zone in zip(parts[near], part_zones[near]):
            for piece in polygonal(shapely.intersection(part, cell)):
                clipped.append(piece)
                clipped_zones.append(int(zone))
    if len(set(clipped_zones)) == 1 and shapely.union_all(clipped).area >= cell.area * (1 - 1e-12):
        stats["uniform"] += 1
        return ("u", clipped_zones[0])
    faces, labels = label_source_faces(clipped, clipped_zones, cell, stats)
    if len(set(labels.tolist())) == 1:
        stats["uniform"] += 1
        return ("u", int(labels[0]))
    to_units = lambda c: (c - np.array([x0, y0])) * (S / U)  # noqa: E731
    regions = dissolve(shapely.transform(faces, to_units), labels)
    faces, labels = snapped_partition(regions)
    regions = dissolve(faces, labels)
    if len(regions) == 1:
        stats["uniform"] += 1
        return ("u", next(iter(regions)))
    arcs = simplify_arcs(arcs_of(regions, stats), (y0 + U / 2) / U, stats)
    stats["mixed"] += 1
    return ("m", arcs, top_profile(regions))


def block(corner):
    bx, by = corner
    stats = {k: 0 for k in ("uniform", "mixed", "oracle_gap", "oracle_overlap", "label_fallback", "resimplified")}
    X0, Y0 = bx * U, by * U
    area = box(X0, Y0, X0 + BLOCK * U, Y0 + BLOCK * U)
    parts, zones = [], []
    for i in tree.query(area):
        for piece in polygonal(shapely.intersection(polygons[i], area)):
            parts.append(piece)
            zones.append(zone_of_polygon[i])
    parts = np.array(parts, dtype=object)
    zones = np.array(zones)
    out = {}
    for cy in range(BLOCK):
        for cx in range(BLOCK):
            out[(bx + cx, by + cy)] = cell_partition(parts, zones, X0 + cx * U, Y0 + cy * U, stats)
    return out, stats


def main():
    global options
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", required=True)
    ap.add_argument("--land-tolerance", type=float, default=5.0, help="metres, borders between land zones")
    ap.add_argument("--sea-tolerance", type=float, default=10.0, help="metres, borders with an Etc/ ocean zone")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", help="debug: a Python expression over (bx, by) selecting blocks")
    options = ap.parse_args()
    start = time.time()
    load()
    blocks = [(bx, by) for by in range(-90, 90, BLOCK) for bx in range(-180, 180, BLOCK)]
    if options.only:
        blocks = [b for b in blocks if eval(options.only, {}, {"bx": b[0], "by": b[1]})]
    cells, totals = {}, {}
    with multiprocessing.get_context("fork").Pool(options.jobs) as pool:
        for n, (out, stats) in enumerate(pool.imap(block, blocks)):
            cells.update(out)
            for k, v in stats.items():
                totals[k] = totals.get(k, 0) + v
            if n % 100 == 99:
                print(f"partition: {n + 1}/{len(blocks)} blocks, {time.time() - start:.0f} s", file=sys.stderr)
    meta = {
        "names": names,
        "boundary_release": finder.data_version,
        "land_tolerance_m": options.land_tolerance,
        "sea_tolerance_m": options.sea_tolerance,
    }
    with open(options.out, "wb") as f:
        pickle.dump((meta, cells), f, protocol=4)
    print(f"partition: {totals} in {time.time() - start:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
