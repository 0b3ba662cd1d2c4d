#!/usr/bin/env python3
"""Snow on a fence: the scene and the caps on its posts (issue 25, item 3).

usage: tools/snow_fence.py obj [scenes/snow-fence.obj]
       tools/snow_fence.py measure OUT/particles.ply [--json]

The scene (scenes/snow-fence.obj, written by `obj`; the ground is the config's plane y = 0): POSTS
square posts of side SIDE and height HEIGHT in a row along x, SPACING apart and centred on x = 0,
and two rails (boxes RAIL thick) from the first post to the last at RAIL_HEIGHTS, centred on z = 0.
Every box is closed, its faces turned outwards.

`measure` reads a run's particles.ply (binary, as blobsim writes it) and prints, for each post, its
cap: the particles whose centre lies above the post's top (within one radius below it) and within
CAP_REACH radii of the post's footprint; their count, their load (volume per unit area of the top, in
radii), the cap's height (the highest top above the post's top, in radii) and its overhang (how far
the cap's particles reach past the top's edge, in radii: snow that grows sideways, held by its
bonds). `--json` prints the same as one JSON object. Exit status 1 when the file cannot be read."""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from snow_roofs import measure_command, read_ply  # noqa: E402

POSTS = 4
SIDE = 0.1  # the posts' side, m
HEIGHT = 0.3  # the posts' height, m
SPACING = 0.3  # between the posts' centres, m
RAIL = 0.03  # the rails' thickness (y and z), m
RAIL_HEIGHTS = (0.12, 0.24)  # the rails' centres, m
CAP_REACH = 4.0  # how far past a post's top a cap's particle may lie, radii


def post_centres():
    return [(k - (POSTS - 1) / 2.0) * SPACING for k in range(POSTS)]


def box(lo, hi):
    """The 8 corners and 12 outward-facing triangles (0-based corner indices) of a box."""
    (x0, y0, z0), (x1, y1, z1) = lo, hi
    v = [(x0, y0, z0), (x1, y0, z0), (x1, y0, z1), (x0, y0, z1),
         (x0, y1, z0), (x1, y1, z0), (x1, y1, z1), (x0, y1, z1)]
    quads = [(0, 1, 2, 3), (4, 7, 6, 5), (0, 4, 5, 1), (3, 2, 6, 7), (0, 3, 7, 4), (1, 5, 6, 2)]
    tris = []
    for a, b, c, d in quads:
        tris += [(a, b, c), (a, c, d)]
    return v, tris


def boxes():
    """(name, lo, hi) of every post and rail."""
    out = []
    for k, x in enumerate(post_centres()):
        out.append((f"post{k}", (x - SIDE / 2, 0.0, -SIDE / 2), (x + SIDE / 2, HEIGHT, SIDE / 2)))
    first, last = post_centres()[0], post_centres()[-1]
    for k, y in enumerate(RAIL_HEIGHTS):
        out.append((f"rail{k}", (first + SIDE / 2, y - RAIL / 2, -RAIL / 2), (last - SIDE / 2, y + RAIL / 2, RAIL / 2)))
    return out


def write_obj(path):
    lines = ["# scenes/snow-fence.obj: written by tools/snow_fence.py obj (fence posts and rails, boxes)"]
    count = 0
    for name, lo, hi in boxes():
        v, tris = box(lo, hi)
        lines.append(f"g {name}")
        lines += [f"v {x:.6f} {y:.6f} {z:.6f}" for x, y, z in v]
        lines += [f"f {count + a + 1} {count + b + 1} {count + c + 1}" for a, b, c in tris]
        count += len(v)
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def measure_post(particles, x, r):
    reach = CAP_REACH * r
    count, volume, height, overhang = 0, 0.0, 0.0, 0.0
    for p in particles:
        dx, dz = abs(p["x"] - x) - SIDE / 2, abs(p["z"]) - SIDE / 2
        if p["y"] < HEIGHT - p["radius"] or dx > reach or dz > reach:
            continue
        count += 1
        volume += 4.0 / 3.0 * math.pi * p["radius"] ** 3
        height = max(height, p["y"] + p["radius"] - HEIGHT)
        overhang = max(overhang, dx + p["radius"], dz + p["radius"])
    return {"count": count, "load": volume / (SIDE * SIDE) / r, "height": height / r, "overhang": overhang / r}


def measure(path):
    particles = read_ply(path)
    if not particles:
        raise ValueError(f"{path}: no particles")
    r = particles[0]["radius"]
    return {f"post {k}": measure_post(particles, x, r) for k, x in enumerate(post_centres())}


def print_report(path, out):
    print(f"{path}: the caps on the posts, in radii (R = particle radius)")
    print(f"  {'post':8} {'grains':>7} {'load/R':>7} {'height/R':>9} {'overhang/R':>11}")
    for name, v in out.items():
        print(f"  {name:8} {v['count']:7d} {v['load']:7.2f} {v['height']:9.2f} {v['overhang']:11.2f}")


def main(argv):
    if len(argv) >= 1 and argv[0] == "obj":
        write_obj(argv[1] if len(argv) > 1 else "scenes/snow-fence.obj")
        return 0
    if len(argv) >= 2 and argv[0] == "measure":
        return measure_command("snow_fence", argv[1], measure, print_report, argv[2:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
