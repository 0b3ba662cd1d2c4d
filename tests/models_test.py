#!/usr/bin/env python3
"""Real models (../shared/models: spot.obj, teapot.obj; its README says where they come from): each
passes `check`, which reports its open edges (the teapot's spout and lid) or none (Spot, closed), and a
short snow run on it leaves no particle inside the model or below it. Spot with 30% of its faces wound
the other way: `check` counts the inconsistent edges and names one, and a surface emitter on it emits
no particle inside. Inside is decided here independently of blobsim: by the parity of a ray's
crossings with the OBJ's triangles, the majority of three rays (+x, +y, +z).

usage: models_test.py BLOBSIM MODELS_DIR       (exit 77, skipped, when MODELS_DIR is absent)"""
import json
import math
import os
import re
import struct
import subprocess
import sys
import tempfile


def read_obj(path):
    """Vertices and triangles (0-based, the file's winding, polygons as fans) of an OBJ."""
    vertices, faces = [], []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            part = line.split()
            if not part:
                continue
            if part[0] == "v":
                vertices.append(tuple(float(c) for c in part[1:4]))
            elif part[0] == "f":
                idx = []
                for ref in part[1:]:
                    i = int(ref.split("/")[0])
                    idx.append(i - 1 if i > 0 else len(vertices) + i)
                for k in range(1, len(idx) - 1):
                    faces.append((idx[0], idx[k], idx[k + 1]))
    return vertices, faces


def read_ply_records(path):
    """The property types ({name: type}) and the records ([{name: value}]) of a binary
    little-endian particles.ply, any numeric types as its header says (tests/precision_test.py too)."""
    data = open(path, "rb").read()
    end = data.index(b"end_header\n") + len(b"end_header\n")
    codes = {"char": "b", "uchar": "B", "short": "h", "ushort": "H", "int": "i", "uint": "I",
             "float": "f", "double": "d"}
    types, fmt, count = {}, "<", 0
    for line in data[:end].decode().splitlines():
        w = line.split()
        if w[:2] == ["element", "vertex"]:
            count = int(w[2])
        elif w and w[0] == "property":
            fmt += codes[w[1]]
            types[w[2]] = w[1]
    size = struct.calcsize(fmt)
    return types, [dict(zip(types, struct.unpack_from(fmt, data, end + k * size))) for k in range(count)]


def read_ply(path):
    """x, y, z, radius and state of every particle of a particles.ply."""
    return [(r["x"], r["y"], r["z"], r["radius"], r["state"]) for r in read_ply_records(path)[1]]


class Parity:
    """Inside by ray parity: per axis, the triangles binned by their box across the other two axes,
    so a ray along the axis meets only one bin."""

    BINS = 48

    def __init__(self, vertices, faces):
        self.tris = [(vertices[a], vertices[b], vertices[c]) for a, b, c in faces]
        self.lo = [min(v[i] for v in vertices) for i in range(3)]
        self.hi = [max(v[i] for v in vertices) for i in range(3)]
        self.bins = []
        for axis in range(3):
            u, w = (axis + 1) % 3, (axis + 2) % 3
            grid = {}
            for t in self.tris:
                for i in range(self.cell(min(p[u] for p in t), u), self.cell(max(p[u] for p in t), u) + 1):
                    for j in range(self.cell(min(p[w] for p in t), w), self.cell(max(p[w] for p in t), w) + 1):
                        grid.setdefault((i, j), []).append(t)
            self.bins.append(grid)

    def cell(self, x, axis):
        span = self.hi[axis] - self.lo[axis]
        return max(0, min(self.BINS - 1, int((x - self.lo[axis]) / span * self.BINS)))

    def crossings(self, p, axis):
        u, w = (axis + 1) % 3, (axis + 2) % 3
        n = 0
        for a, b, c in self.bins[axis].get((self.cell(p[u], u), self.cell(p[w], w)), []):
            # The ray p + s e_axis (s > 0) against the triangle: barycentric signs in the (u, w) plane.
            def edge(q, r):
                return (r[u] - q[u]) * (p[w] - q[w]) - (r[w] - q[w]) * (p[u] - q[u])
            e1, e2, e3 = edge(a, b), edge(b, c), edge(c, a)
            if not ((e1 > 0 and e2 > 0 and e3 > 0) or (e1 < 0 and e2 < 0 and e3 < 0)):
                continue
            s = e1 + e2 + e3
            hit = (e2 * a[axis] + e3 * b[axis] + e1 * c[axis]) / s
            n += hit > p[axis]
        return n

    def inside(self, p):
        if any(p[i] < self.lo[i] or p[i] > self.hi[i] for i in range(3)):
            return False
        return sum(self.crossings(p, axis) % 2 for axis in range(3)) >= 2


def run(cmd, what):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"FAIL: {what}: exit {r.returncode}\n{r.stdout}{r.stderr}")
    return r.stdout


def snow_config(obj, vertices, out):
    """A few hundred snow particles falling on the model, onto a ground plane at its lowest y."""
    lo = [min(v[i] for v in vertices) for i in range(3)]
    hi = [max(v[i] for v in vertices) for i in range(3)]
    size = max(hi[i] - lo[i] for i in range(3))
    return {
        "seed": 3,
        "environment": {"meshes": [{"file": obj}],
                        "planes": [{"point": [0, lo[1], 0], "normal": [0, 1, 0]}]},
        "particles": {"radius": 0.01 * size, "velocity": [0, -size, 0],
                      "emitters": [{"type": "random", "min": [lo[0], hi[1] + 0.05 * size, lo[2]],
                                    "max": [hi[0], hi[1] + 0.3 * size, hi[2]], "count": 300}]},
        "motion": {"steps": 40, "dt": 0.02, "gravity": [0, -9.81 * size, 0]},
        "collision": {"method": "exact", "response": "stick"},
        "output": {"directory": out},
    }


def check_particles(parity, ply, ymin, what):
    particles = read_ply(ply)
    inside = [p for p in particles if parity.inside(p[:3])]
    below = [p for p in particles if p[1] < ymin + p[3] * (1 - 1e-3)]
    if inside or below:
        sys.exit(f"FAIL: {what}: {len(inside)} of {len(particles)} particles inside the model "
                 f"(e.g. {inside[:2]}), {len(below)} below it (e.g. {below[:2]})")
    return particles


def corpus(blobsim, models, work):
    for name in sorted(os.listdir(models)):
        if not name.endswith(".obj"):
            continue
        obj = os.path.join(models, name)
        vertices, faces = read_obj(obj)
        parity = Parity(vertices, faces)
        config = os.path.join(work, name + ".json")
        out = os.path.join(work, name + "-out")
        json.dump(snow_config(obj, vertices, out), open(config, "w"))
        lines = run([blobsim, "check", config], f"check {name}").splitlines()
        edges = [l for l in lines if l.startswith(obj + ": ")]
        run([blobsim, "run", config, "--quiet"], f"run {name}")
        particles = check_particles(parity, os.path.join(out, "particles.ply"), parity.lo[1], f"snow on {name}")
        landed = sum(1 for p in particles if p[4] == 1)
        if landed < len(particles) // 4:
            sys.exit(f"FAIL: snow on {name}: only {landed} of {len(particles)} particles stuck (the run is too short)")
        print(f"{name}: {len(faces)} triangles, check: {edges[0] if edges else 'closed, consistently wound'}; "
              f"{len(particles)} snow particles, {landed} stuck, none inside or below")


def turned(k):
    return (k * 2654435761 >> 16) % 10 < 3


def flipped_spot(blobsim, models, work):
    """Spot with 3 faces in 10 wound the other way: check counts the inconsistent edges (counted here
    from the file's vertex numbers) and names one; a surface emitter emits none of its particles
    inside."""
    vertices, faces = read_obj(os.path.join(models, "spot.obj"))
    faces = [(a, c, b) if turned(k) else (a, b, c) for k, (a, b, c) in enumerate(faces)]
    flipped = sum(1 for k in range(len(faces)) if turned(k))
    obj = os.path.join(work, "spot-flipped.obj")
    with open(obj, "w") as f:
        f.writelines(f"v {x!r} {y!r} {z!r}\n" for x, y, z in vertices)
        f.writelines(f"f {a + 1} {b + 1} {c + 1}\n" for a, b, c in faces)
    runs = {}
    for a, b, c in faces:
        for p, q in ((a, b), (b, c), (c, a)):
            runs[(p, q)] = runs.get((p, q), 0) + 1
    inconsistent = {tuple(sorted(e)) for e, n in runs.items() if n == 2}
    out = os.path.join(work, "flipped-out")
    config = os.path.join(work, "flipped.json")
    json.dump({"seed": 1, "environment": {"meshes": [{"file": obj}]},
               "particles": {"radius": 0.005, "emitters": [{"type": "surface", "count": 2000}]},
               "motion": {"steps": 1, "dt": 1e-6}, "output": {"directory": out}}, open(config, "w"))
    text = run([blobsim, "check", config], "check the flipped Spot")
    m = re.search(re.escape(obj) + r": (\d+) edges wound inconsistently \(their two faces run them the same "
                  r"way, e.g. the edge of vertices (\d+) and (\d+)\), 0 boundary edges", text)
    if not m or int(m.group(1)) != len(inconsistent) or \
            tuple(sorted((int(m.group(2)) - 1, int(m.group(3)) - 1))) not in inconsistent:
        sys.exit(f"FAIL: check of the flipped Spot: expected {len(inconsistent)} inconsistent edges, one of "
                 f"them named by its vertices:\n{text}")
    text = run([blobsim, "run", config], "run the flipped Spot")
    said = f"particles.emitters[0]: {flipped} of {len(faces)} faces of {obj} are wound inward; emitting off their outside"
    if said not in text:
        sys.exit(f"FAIL: run of the flipped Spot does not say '{said}':\n{text}")
    parity = Parity(vertices, faces)
    particles = check_particles(parity, os.path.join(out, "particles.ply"), -math.inf, "surface emitter on the flipped Spot")
    print(f"spot, {flipped} of {len(faces)} faces flipped: {len(inconsistent)} inconsistent edges reported, "
          f"{len(particles)} surface particles, none inside", flush=True)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    blobsim, models = sys.argv[1], sys.argv[2]
    if not os.path.isdir(models):
        print(f"skipped: {models} is absent (the shared test models live beside the repository)")
        sys.exit(77)
    with tempfile.TemporaryDirectory() as work:
        if os.path.exists(os.path.join(models, "spot.obj")):
            flipped_spot(blobsim, models, work)
        corpus(blobsim, models, work)
    print("ok: models")


if __name__ == "__main__":
    main()
