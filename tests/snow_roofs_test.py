#!/usr/bin/env python3
"""tools/snow_roofs.py: its `obj` writes scenes/snow-roofs.obj as committed, and `measure` reads back
known layers: simple cubic lattices (spacing 2 R) of 2 layers on the flat roof and 4 on the ground give
the packing pi / 6, depths 4 R and 8 R, roughness 0, the flat roof at half the ground's load and bare
roofs at 0; a close-packed (111) layer at any rotation and offset reads roughness 0 (every cell of 2 R
holds a top-layer centre); `--pitches` lays out other roofs and `obj --pitches 0,45,70` writes
scenes/snow-roofs-small.obj as committed; the overhang counts the grains at rest hanging past an eave
(not those touching the roof, too far past or below it, or moving); an unreadable file fails with
status 1.

`ratios BLOBSIM` instead runs tests/run/snow-roofs-small.json (granular snow on roofs at 0, 45 and 70
degrees, 2,800 grains, seconds) and checks the shape of EN 1991-1-3's mu1 normalised by the flat roof:
0.2 to 0.8 at 45 degrees, at most 0.1 at 70, and the flat roof's packing at least 0.5.

usage: snow_roofs_test.py SOURCE_ROOT [ratios BLOBSIM]"""
import math
import os
import random
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


def close_packed(x0, base, layers, angle, offset):
    """Centres of `layers` close-packed (111) layers (ABC stacking, layer spacing 2 R sqrt(2/3)) over
    the patch at x0, the lattice turned by `angle` about the patch's centre and shifted by `offset`."""
    c, s = math.cos(angle), math.sin(angle)
    cx = x0 + snow_roofs.L / 2
    out = []
    for k in range(layers):
        for i in range(-20, 21):
            for j in range(-20, 21):
                u = offset[0] + (k % 3) * R + 2 * R * i + (j % 2) * R
                v = offset[1] + (k % 3) * R / math.sqrt(3) + j * R * math.sqrt(3)
                x, z = cx + c * u - s * v, s * u + c * v
                if x0 < x < x0 + snow_roofs.L and abs(z) < snow_roofs.D / 2:
                    out.append({"x": x, "y": base + R + 2 * R * math.sqrt(2 / 3) * k, "z": z, "radius": R})
    return out


def ratios(blobsim):
    """The small scene's roof ratios and flat-roof packing against the issue's targets."""
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        config = os.path.join(ROOT, "tests", "run", "snow-roofs-small.json")
        run = subprocess.run([blobsim, "run", config, "-o", tmp], capture_output=True, text=True)
        if run.returncode != 0:
            return [f"blobsim run {config} failed ({run.returncode}): {run.stderr.strip()}"]
        out = snow_roofs.measure(os.path.join(tmp, "particles.ply"), [0.0, 45.0, 70.0])
    print("  roof ratios to the flat roof: 45: %.2f, 70: %.2f; flat roof packing %.3f, roughness %.2f R" % (
        out["roof 45"]["ratio_flat_roof"], out["roof 70"]["ratio_flat_roof"], out["roof 0"]["packing"],
        out["roof 0"]["roughness"]))
    if not 0.2 <= out["roof 45"]["ratio_flat_roof"] <= 0.8:
        failures.append(f"45 degrees: {out['roof 45']['ratio_flat_roof']:.2f} of the flat roof (expected 0.2 to 0.8)")
    if out["roof 70"]["ratio_flat_roof"] > 0.1:
        failures.append(f"70 degrees: {out['roof 70']['ratio_flat_roof']:.2f} of the flat roof (expected at most 0.1)")
    if out["roof 0"]["packing"] < 0.5:
        failures.append(f"flat roof packing {out['roof 0']['packing']:.3f} (expected at least 0.5)")
    return failures


def main():
    if len(sys.argv) >= 4 and sys.argv[2] == "ratios":
        failures = ratios(sys.argv[3])
        for f in failures:
            print("FAIL:", f)
        return 1 if failures else 0
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
        # Overhang: on the 45 degree roof, at rest: one grain on the low eave's edge (its centre R / 2
        # past it: it touches the roof), one hanging 1.5 R past it (extent 2.5 R) and one 3 R past it and
        # 4 R below the edge (extent 4 R), one 9 R past (too far: the next roof's reach), one falling
        # past at 1 m/s; at the high end one 2 R past and 6 R below (too low). Low eave: 2 grains, 4 R.
        x0, slope, base = [(x, t, b) for name, x, t, b in patches if name == "roof 45"][0]
        top = base + slope * snow_roofs.L
        grain = lambda x, y, v=0.0: {"x": x, "y": y, "z": 0.0, "radius": R, "vx": 0.0, "vy": -v, "vz": 0.0}
        hung = [grain(x0 - 0.5 * R, base + R), grain(x0 - 1.5 * R, base + R), grain(x0 - 3 * R, base - 4 * R),
                grain(x0 - 9 * R, base), grain(x0 - 2 * R, base, 1.0), grain(x0 + snow_roofs.L + 2 * R, top - 6 * R)]
        got = snow_roofs.overhang(hung, x0, slope, base, R)
        if got["low"]["grains"] != 2 or abs(got["low"]["extent"] - 4.0) > 1e-9 or got["high"]["grains"] != 0:
            failures.append(f"overhang of known grains: {got} (expected 2 grains to 4 R past the low eave, none past the high end)")
        if snow_roofs.measure(ply)["roof 0"]["overhang"]["low"]["grains"] != 0:
            failures.append("overhang: lattices within the roofs' plans read grains past the eaves")
        rng = random.Random(1)
        for _ in range(6):
            angle, offset = rng.uniform(0, math.pi / 3), (rng.uniform(0, 2 * R), rng.uniform(0, 2 * R))
            layer = close_packed(flat[1], flat[3], 3, angle, offset)
            got = snow_roofs.measure_patch(layer, flat[1], 0.0, flat[3], R)["roughness"]
            if got > 1e-9:
                failures.append(f"close-packed layer turned {math.degrees(angle):.1f} degrees: roughness {got} (expected 0)")
        small = os.path.join(tmp, "small.obj")
        subprocess.run([sys.executable, TOOL, "obj", small, "--pitches", "0,45,70"], check=True)
        if open(small).read() != open(os.path.join(ROOT, "scenes", "snow-roofs-small.obj")).read():
            failures.append("scenes/snow-roofs-small.obj differs from what tools/snow_roofs.py obj --pitches 0,45,70 writes")
        if [name for name, *_ in snow_roofs.patches([0.0, 45.0, 70.0])] != ["roof 0", "roof 45", "roof 70", "ground"]:
            failures.append("--pitches 0,45,70: not three roofs and the ground")
        bad = os.path.join(tmp, "bad.ply")
        open(bad, "wb").write(b"ply\nformat ascii 1.0\nend_header\n")
        if subprocess.run([sys.executable, TOOL, "measure", bad], capture_output=True).returncode != 1:
            failures.append("an ASCII PLY was not refused with status 1")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
