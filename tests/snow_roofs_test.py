#!/usr/bin/env python3
"""tools/snow_roofs.py: its `obj` writes scenes/snow-roofs.obj as committed, and `measure` reads back
known layers: simple cubic lattices (spacing 2 R) of 2 layers on the flat roof and 4 on the ground give
the packing pi / 6, depths 4 R and 8 R, roughness 0, the flat roof at half the ground's load and bare
roofs at 0; an unreadable file fails with status 1.

usage: snow_roofs_test.py SOURCE_ROOT"""
import math
import os
import struct
import subprocess
import sys
import tempfile

ROOT = sys.argv[1]
TOOL = os.path.join(ROOT, "tools", "snow_roofs.py")
sys.path.insert(0, os.path.join(ROOT, "tools"))
import snow_roofs  # noqa: E402

R = 0.02


def lattice(x0, base, layers):
    """Centres of `layers` layers of spacing 2 R over the plan of the patch at x0, aligned with the
    measure's cells."""
    lo_x = x0 + snow_roofs.MARGIN * R
    lo_z = -snow_roofs.D / 2 + snow_roofs.MARGIN * R
    out = []
    for i in range(-1, int(snow_roofs.L / (2 * R))):
        for j in range(-1, int(snow_roofs.D / (2 * R))):
            x, z = lo_x + R + 2 * R * i, lo_z + R + 2 * R * j
            if x0 < x < x0 + snow_roofs.L and abs(z) < snow_roofs.D / 2:
                out += [(x, base + R + 2 * R * k, z) for k in range(layers)]
    return out


def write_ply(path, centres):
    header = ("ply\nformat binary_little_endian 1.0\nelement vertex %d\nproperty float x\nproperty float y\n"
              "property float z\nproperty float radius\nproperty float vx\nproperty float vy\nproperty float vz\n"
              "property uchar state\nproperty uint id\nend_header\n" % len(centres))
    with open(path, "wb") as f:
        f.write(header.encode("ascii"))
        for k, (x, y, z) in enumerate(centres):
            f.write(struct.pack("<7fBI", x, y, z, R, 0, 0, 0, 3, k))


def main():
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        obj = os.path.join(tmp, "roofs.obj")
        subprocess.run([sys.executable, TOOL, "obj", obj], check=True)
        if open(obj).read() != open(os.path.join(ROOT, "scenes", "snow-roofs.obj")).read():
            failures.append("scenes/snow-roofs.obj differs from what tools/snow_roofs.py obj writes")
        patches = snow_roofs.patches()
        flat, ground = patches[0], patches[-1]
        ply = os.path.join(tmp, "particles.ply")
        write_ply(ply, lattice(flat[1], flat[3], 2) + lattice(ground[1], ground[3], 4))
        out = snow_roofs.measure(ply)
        roof, earth = out["roof 0"], out["ground"]
        checks = [
            ("flat roof packing", roof["packing"], math.pi / 6), ("ground packing", earth["packing"], math.pi / 6),
            ("flat roof depth", roof["depth"], 4.0), ("ground depth", earth["depth"], 8.0),
            ("flat roof roughness", roof["roughness"], 0.0), ("ground roughness", earth["roughness_plane"], 0.0),
            ("flat roof / ground", roof["ratio_ground"], 0.5), ("roof 45 load", out["roof 45"]["load"], 0.0),
        ]
        for name, got, want in checks:
            if abs(got - want) > 1e-5:
                failures.append(f"{name}: {got} (expected {want})")
        bad = os.path.join(tmp, "bad.ply")
        open(bad, "wb").write(b"ply\nformat ascii 1.0\nend_header\n")
        if subprocess.run([sys.executable, TOOL, "measure", bad], capture_output=True).returncode != 1:
            failures.append("an ASCII PLY was not refused with status 1")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
