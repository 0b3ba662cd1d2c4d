#!/usr/bin/env python3
"""The dynamics defects of tests/repros/, each reduced to one particle: run each config and check
the particle ends where a user expects (tests/repros/README.md says what each showed before).

usage: repros_test.py BLOBSIM REPROS_DIR"""
import math
import os
import struct
import subprocess
import sys
import tempfile


def particle(path):
    data = open(path, "rb").read()
    body = data.index(b"end_header\n") + len(b"end_header\n")
    x, y, z, r, vx, vy, vz, state = struct.unpack("<7fB", data[body:body + 29])
    return (x, y, z), r, (vx, vy, vz), state


def dot(a, b):
    return sum(p * q for p, q in zip(a, b))


def unit(v):
    n = math.sqrt(dot(v, v))
    return tuple(c / n for c in v)


FLOAT = 1e-6  # particles.ply holds floats: allow their rounding


def check_box_corner(p, r, v):
    inside = all(abs(c) <= 1.0 - r * (1 - 1e-5) + FLOAT for c in p)
    return inside, f"centre {p} inside the box [-1, 1]^3 and clear of it by R = {r}"


def walls_clear(p, normals, clearance):
    return all(dot(p, n) >= clearance - FLOAT for n in normals)


def check_v60(p, r, v):
    normals = [unit((-math.sqrt(3), 1, 0)), unit((math.sqrt(3), 1, 0))]
    return walls_clear(p, normals, r * (1 - 1e-5)), f"centre {p} in front of both walls by R = {r}"


def check_frozen(p, r, v):
    normals = [unit((-0.8660254037844387, 0.5, 0)), unit((0.8660254037844387, 0.5, 0))]
    ok = walls_clear(p, normals, r * (1 - 1e-5)) and p[2] <= -0.5
    return ok, f"centre {p} slid down the crease (free slide: z = -0.505) and stays clear of both walls"


def check_ray_crease(p, r, v):
    normals = [unit((-1, 1, 0)), unit((1, 1, 0))]
    return walls_clear(p, normals, 0.0), f"point {p} on the inner side of both walls"


def check_ray_plane(p, r, v):
    return p[1] >= 0.0, f"point {p} on or above the plane y = 0"


def check_skate(p, r, v):
    ok = abs(p[0] + 0.0025) <= 1e-6 and abs(p[2]) <= 1e-6 and v == (0.0, 0.0, 0.0)
    return ok, f"centre {p} velocity {v}: landed at x = -0.0025 and at rest"


CHECKS = {
    "karabassi-box-corner": check_box_corner,
    "karabassi-v60-crease": check_v60,
    "crease-frozen": check_frozen,
    "ray-crease": check_ray_crease,
    "ray-plane": check_ray_plane,
    "karabassi-skate": check_skate,
}


def main():
    blobsim, repros = sys.argv[1], sys.argv[2]
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, check in sorted(CHECKS.items()):
            out = os.path.join(tmp, name)
            subprocess.run([blobsim, "run", os.path.join(repros, name, "config.json"), "-o", out, "--quiet"],
                           check=True)
            p, r, v, state = particle(os.path.join(out, "particles.ply"))
            ok, what = check(p, r, v)
            print(f"{'ok  ' if ok else 'FAIL'} {name}: {what}")
            failed += not ok
    print(f"{len(CHECKS) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
