#!/usr/bin/env python3
"""tools/snow_fence.py: its `obj` writes scenes/snow-fence.obj as committed, and `measure` reads back a
known cap: a column of 3 grains on a post's top and one grain beside it past the top's edge give 4
grains, a height of 6 R and an overhang of 2 R, grains on the ground and on the other posts' sides do
not count; an unreadable file fails with status 1.

`caps BLOBSIM` instead runs tests/run/snow-fence-small.json (granular snow falling on the two middle
posts of the fence, 900 grains, seconds) and checks that caps form on both: at least 10 grains each
and a cap at least 3 R high.

usage: snow_fence_test.py SOURCE_ROOT [caps BLOBSIM]"""
import math
import os
import subprocess
import sys
import tempfile

ROOT = sys.argv[1]
TOOL = os.path.join(ROOT, "tools", "snow_fence.py")
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import snow_fence  # noqa: E402
from snow_roofs_test import R, write_ply  # noqa: E402


def known_cap():
    """The measure on a made-up cap on post 1."""
    failures = []
    x = snow_fence.post_centres()[1]
    top = snow_fence.HEIGHT
    centres = [(x, top + R + 2 * R * k, 0.0) for k in range(3)]
    centres.append((x + snow_fence.SIDE / 2 + R, top + R, 0.0))  # beside the top, past its edge by 2 R
    centres.append((x, R, 0.3))  # on the ground
    centres.append((snow_fence.post_centres()[2] + snow_fence.SIDE / 2 + R, top / 2, 0.0))  # by a post's side
    with tempfile.TemporaryDirectory() as tmp:
        ply = os.path.join(tmp, "particles.ply")
        write_ply(ply, centres)
        out = snow_fence.measure(ply)
        bad = subprocess.run([sys.executable, TOOL, "measure", os.path.join(tmp, "missing.ply")],
                             capture_output=True, text=True)
    cap = out["post 1"]
    load = 4 * 4.0 / 3.0 * math.pi * R ** 3 / snow_fence.SIDE ** 2 / R
    checks = [
        (cap["count"] == 4, f"post 1: {cap['count']} grains (expected 4)"),
        (abs(cap["height"] - 6.0) < 1e-4, f"post 1: height {cap['height']:.6f} R (expected 6)"),
        (abs(cap["overhang"] - 2.0) < 1e-4, f"post 1: overhang {cap['overhang']:.6f} R (expected 2)"),
        (abs(cap["load"] - load) < 1e-4 * load, f"post 1: load {cap['load']:.6f} R (expected {load:.6f})"),
        (all(out[f"post {k}"]["count"] == 0 for k in (0, 2, 3)), "grains counted on posts 0, 2 or 3"),
        (bad.returncode == 1, f"measure of a missing file: exit {bad.returncode} (expected 1)"),
    ]
    return [message for ok, message in checks if not ok]


def obj_as_committed():
    with tempfile.TemporaryDirectory() as tmp:
        obj = os.path.join(tmp, "fence.obj")
        subprocess.run([sys.executable, TOOL, "obj", obj], check=True)
        if open(obj).read() != open(os.path.join(ROOT, "scenes", "snow-fence.obj")).read():
            return ["scenes/snow-fence.obj differs from what tools/snow_fence.py obj writes"]
    return []


def caps(blobsim):
    """Caps on the two middle posts of the small scene."""
    with tempfile.TemporaryDirectory() as tmp:
        config = os.path.join(ROOT, "tests", "run", "snow-fence-small.json")
        run = subprocess.run([blobsim, "run", config, "-o", tmp], capture_output=True, text=True)
        if run.returncode != 0:
            return [f"blobsim run {config} failed ({run.returncode}): {run.stderr.strip()}"]
        out = snow_fence.measure(os.path.join(tmp, "particles.ply"))
    failures = []
    for name in ("post 1", "post 2"):
        cap = out[name]
        print(f"  {name}: {cap['count']} grains, height {cap['height']:.2f} R, overhang {cap['overhang']:.2f} R")
        if cap["count"] < 10 or cap["height"] < 3.0:
            failures.append(f"{name}: {cap['count']} grains, {cap['height']:.2f} R high (expected >= 10, >= 3 R)")
    return failures


def main():
    failures = caps(sys.argv[3]) if len(sys.argv) >= 4 and sys.argv[2] == "caps" else obj_as_committed() + known_cap()
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
