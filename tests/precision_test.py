#!/usr/bin/env python3
"""Precision at any placement: the tiny scene run at the origin and again moved to survey
coordinates (x + 580,000, z + 5,800,000: every mesh, plane, emitter, bound, camera and light moved
by the same offset) gives the same outputs moved by the offset, to 1/1000 of the smallest radius:
particles.ply's positions (doubles far from the origin, floats near it, as ply.h says) and every
position vector in scene.pov and frame_NNNN.pov (the mesh's vertices, the blobs' centres, the tiles'
boxes, the camera and the light). Two steps of free fall, before any particle reaches a surface: a
contact leaves a particle a skin clear of the surface that grows with the coordinates (1e-9 of them,
src/step/step.c: 5.8 mm at z = 5.8e6), which is the simulation's business, not the outputs'.

usage: precision_test.py BLOBSIM RUN_DIR"""
import json
import os
import re
import subprocess
import sys
import tempfile

from models_test import read_ply_records

OFFSET = (580000.0, 0.0, 5800000.0)


def moved(v):
    return [a + b for a, b in zip(v, OFFSET)]


def shift(config):
    env, parts = config["environment"], config["particles"]
    for mesh in env["meshes"]:
        mesh["translate"] = moved(mesh.get("translate", [0, 0, 0]))
    for plane in env.get("planes", []):
        plane["point"] = moved(plane["point"])
    for e in parts["emitters"]:
        e["min"], e["max"] = moved(e["min"]), moved(e["max"])
    bounds = config["collision"]["bounds"]
    bounds["min"], bounds["max"] = moved(bounds["min"]), moved(bounds["max"])
    cam = config["render"]["camera"]
    cam["location"], cam["look_at"] = moved(cam["location"]), moved(cam["look_at"])
    for light in config["render"]["lights"]:
        light["location"] = moved(light["location"])


VECTOR = re.compile(r"<([^<>,]+),([^<>,]+),([^<>,]+)>")


def vectors(path):
    return [tuple(float(c) for c in m.groups()) for m in VECTOR.finditer(open(path).read())]


def fail(message):
    sys.exit("FAIL: " + message)


def main():
    blobsim, run_dir = sys.argv[1], os.path.abspath(sys.argv[2])
    base = json.load(open(os.path.join(run_dir, "tiny.json")))
    base["environment"]["meshes"][0]["file"] = os.path.join(run_dir, "tiny.obj")
    base["render"]["lights"] = [{"location": [-3, 6, -4], "color": [1, 1, 1]}]
    base["motion"]["steps"] = 2
    base["output"]["frame_every"] = 1
    with tempfile.TemporaryDirectory() as work:
        outs = []
        for name in ("origin", "survey"):
            config = json.loads(json.dumps(base))
            if name == "survey":
                shift(config)
            config["output"]["directory"] = os.path.join(work, name)
            path = os.path.join(work, name + ".json")
            json.dump(config, open(path, "w"))
            r = subprocess.run([blobsim, "run", path, "--quiet"], capture_output=True, text=True)
            if r.returncode != 0:
                fail(f"run {name}: exit {r.returncode}: {r.stderr}")
            outs.append(os.path.join(work, name))
        smallest = base["particles"]["radius"] * (1 - base["particles"]["radius_spread"])
        tol = 1e-3 * smallest
        types, a = read_ply_records(os.path.join(outs[0], "particles.ply"))
        types_far, b = read_ply_records(os.path.join(outs[1], "particles.ply"))
        if types["x"] != "float" or types_far["x"] != "double":
            fail(f"particles.ply: x is {types['x']} at the origin and {types_far['x']} far from it "
                 "(expected float and double)")
        if len(a) != len(b):
            fail(f"particles.ply: {len(a)} particles at the origin, {len(b)} far from it")
        worst = max(abs(q[c] - OFFSET[i] - p[c]) for p, q in zip(a, b) for i, c in enumerate("xyz"))
        if worst > tol:
            fail(f"particles.ply: positions differ by up to {worst:g} after the offset (> {tol:g})")
        print(f"particles.ply: {len(a)} particles, positions within {worst:.3g} (tolerance {tol:g})")
        scenes = sorted(f for f in os.listdir(outs[0]) if f.endswith(".pov") and f != "animation.pov")
        for scene in scenes:
            va, vb = vectors(os.path.join(outs[0], scene)), vectors(os.path.join(outs[1], scene))
            if len(va) != len(vb):
                fail(f"{scene}: {len(va)} vectors at the origin, {len(vb)} far from it")
            worst, positions = 0.0, 0
            for p, q in zip(va, vb):
                if p == q:
                    continue  # colours, normals, directions: not moved
                positions += 1
                worst = max(worst, max(abs(q[i] - OFFSET[i] - p[i]) for i in range(3)))
            if worst > tol or positions == 0:
                fail(f"{scene}: {positions} position vectors differ by up to {worst:g} after the offset (> {tol:g})")
            print(f"{scene}: {positions} positions within {worst:.3g}")
    print("ok: precision")


if __name__ == "__main__":
    main()
