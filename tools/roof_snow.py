#!/usr/bin/env python3
"""The snow layer on the house of scenes/house.obj, from a run's particles.ply.

usage: tools/roof_snow.py OUT/particles.ply [...]

For the stuck particles over the roof (|x| < 3, 0.3 < |z| < 2.1: the two slopes, clear of the ridge,
the eaves and the chimney) it prints each one's distance from the roof plane along the plane's normal,
in particle radii (one layer of particles touching the roof is at 1 R, a second at about 3 R), as
quantiles and a histogram by bands of 2 R; for the fence posts, the height of the highest particle
over each post's top (y = 1) in radii."""
import math
import struct
import sys

RIDGE, EAVE_Y, EAVE_Z = 5.0, 2.6, 2.4  # the roof top: y = 5 - |z| (scenes/house.obj)
POSTS = [-4.8 + 0.8 * k for k in range(13)]  # fence post centres in x, at z = -4.5, tops at y = 1


def read(path):
    data = open(path, "rb").read()
    end = data.index(b"end_header\n") + len(b"end_header\n")
    header = data[:end]
    count = int(header.split(b"element vertex ")[1].split(b"\n")[0])
    rec = struct.Struct("<7fBI" if b"property uint id" in header else "<7fB")
    return [rec.unpack_from(data, end + k * rec.size) for k in range(count)]


def report(path):
    particles = read(path)
    slope = (RIDGE - EAVE_Y) / EAVE_Z
    cos = 1.0 / math.sqrt(1.0 + slope * slope)
    roof = []
    caps = {}
    for x, y, z, r, _vx, _vy, _vz, state, *_id in particles:
        if state != 1:
            continue
        chimney = 1.1 < x < 1.8 and 0.5 < z < 1.2
        if abs(x) < 3.0 and 0.3 < abs(z) < 2.1 and not chimney:
            d = (y - (RIDGE - abs(z) * slope)) * cos / r
            if d > -0.5:
                roof.append(d)
        for k, px in enumerate(POSTS):
            if abs(x - px) < 0.05 and abs(z + 4.5) < 0.05 and y > 1.0:
                caps[k] = max(caps.get(k, 0.0), (y - 1.0) / r)
    roof.sort()
    n = len(roof)
    print(f"{path}: {n} stuck particles over the roof")
    if n:
        q = lambda f: roof[min(n - 1, int(f * n))]
        print(f"  distance from the roof / R: median {q(0.5):.2f}, 90% {q(0.9):.2f}, 99% {q(0.99):.2f}, max {roof[-1]:.2f}")
        bands = {}
        for d in roof:
            bands[int(d // 2)] = bands.get(int(d // 2), 0) + 1
        print("  by bands of 2 R: " + ", ".join(f"[{2 * b}, {2 * b + 2}): {bands[b]}" for b in sorted(bands)[:12]))
    tops = [caps.get(k, 0.0) for k in range(len(POSTS))]
    print("  fence post caps, highest particle centre over the top / R: " + " ".join(f"{t:.1f}" for t in tops))


for p in sys.argv[1:]:
    report(p)
