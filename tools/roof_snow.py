#!/usr/bin/env python3
"""The snow layer on the house of scenes/house.obj, from a run's particles.ply.

usage: tools/roof_snow.py OUT/particles.ply [...]

For the particles over the roof that rest there (stuck, or asleep or free below 0.5 m/s: granular snow) (|x| < 3, 0.3 < |z| < 2.1: the two slopes, clear of the ridge,
the eaves and the chimney) it prints each one's distance from the roof plane along the plane's normal,
in particle radii (one layer of particles touching the roof is at 1 R, a second at about 3 R), as
quantiles and a histogram by bands of 2 R; for the fence posts, the height of the highest particle
over each post's top (y = 1) in radii."""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from snow_roofs import read_ply  # noqa: E402  (any properties in any order: spins too)

RIDGE, EAVE_Y, EAVE_Z = 5.0, 2.6, 2.4  # the roof top: y = 5 - |z| (scenes/house.obj)
POSTS = [-4.8 + 0.8 * k for k in range(13)]  # fence post centres in x, at z = -4.5, tops at y = 1


FREE, STUCK, SLEEPING = 0, 1, 3  # bsParticleState (include/blobsim/particles.h)


def resting(p):
    """Stuck, asleep, or free and slower than 0.5 m/s (settled granular snow, not a falling flake)."""
    speed = math.sqrt(p["vx"] ** 2 + p["vy"] ** 2 + p["vz"] ** 2)
    return p["state"] in (STUCK, SLEEPING) or (p["state"] == FREE and speed < 0.5)


def report(path):
    particles = read_ply(path)
    slope = (RIDGE - EAVE_Y) / EAVE_Z
    cos = 1.0 / math.sqrt(1.0 + slope * slope)
    roof = []
    caps = {}
    for p in particles:
        if not resting(p):
            continue
        x, y, z, r = p["x"], p["y"], p["z"], p["radius"]
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
    print(f"{path}: {n} particles resting over the roof")
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
