#!/usr/bin/env python3
"""The letters configs never let one body into the other (issue 27, item 4).

Usage: letters_test.py BLOBSIM LETTERS_WRITER REPO [--print] [--set key=value ...] [CONFIG ...]

Makes the letter models with LETTERS_WRITER (blobsim-letters, as tools/letters/make does), runs each
of configs/letters-T.json, letters-MV.json, letters-W.json and senin-fig2.json (the paper's Fig. 2:
both letters deforming and dynamic) (or the named ones) with a frame every
step, reads every frame's bodies back from the POV-Ray scenes (a mesh2 in the body's include or inline,
placed by its `matrix`) and counts the vertices of each body inside the other by ray parity: a ray from
the vertex crosses a closed mesh an odd number of times when the vertex is inside. The count is
computed here, with numpy, independently of the engine's distance code. Any vertex inside on any
frame fails the test. --print prints every frame's counts (the issue's figures: W frames 10 and 12).

Needs numpy (the system python3 has it); without it the test is skipped (exit 77).
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

try:
    import numpy as np
except ImportError:
    print("SKIP: numpy is not installed")
    sys.exit(77)

CONFIGS = ["letters-T.json", "letters-MV.json", "letters-W.json", "senin-fig2.json"]
NUMBER = r"[-+0-9.eE]+"
VECTOR = re.compile(r"<\s*(" + NUMBER + r")\s*,\s*(" + NUMBER + r")\s*,\s*(" + NUMBER + r")\s*>")


def read_mesh2(text):
    """The vertices (n x 3) and faces (m x 3) of the first mesh2 in text."""
    start = text.index("vertex_vectors")
    body = text[text.index("{", start) + 1:text.index("}", start)]
    count = int(body.split(",", 1)[0])
    vertices = np.array([[float(x) for x in m] for m in VECTOR.findall(body)], dtype=float)
    assert len(vertices) == count, "vertex_vectors: %d of %d read" % (len(vertices), count)
    start = text.index("face_indices", start)
    body = text[text.index("{", start) + 1:text.index("}", start)]
    count = int(body.split(",", 1)[0])
    faces = np.array([[int(float(x)) for x in m] for m in VECTOR.findall(body)], dtype=np.int64)
    assert len(faces) == count, "face_indices: %d of %d read" % (len(faces), count)
    return vertices, faces


def place_vertices(vertices, matrix):
    """Vertices moved by a POV-Ray `matrix` (its 12 numbers: a point p maps to p M, M 4 x 3)."""
    a = [float(x) for x in matrix.split(",")]
    return vertices @ np.array(a[0:9]).reshape(3, 3) + np.array(a[9:12])


def frame_bodies(path, includes):
    """Each body of a frame in the world: [(vertices, faces)], in the scene's order."""
    text = open(path).read()
    bodies = []
    # A rigid body: `object { BlobsimBodyN matrix <...> }`; a deforming one: its mesh2 inline.
    for m in re.finditer(r"object\s*\{\s*(BlobsimBody\d+)\s*matrix\s*<([^>]*)>", text):
        vertices, faces = includes[m.group(1)]
        bodies.append((m.start(), place_vertices(vertices, m.group(2)), faces))
    for m in re.finditer(r"mesh2\s*\{", text):
        vertices, faces = read_mesh2(text[m.start():])
        # The inline mesh's own placement follows its faces: `matrix <...>` before its texture.
        after = text[text.index("face_indices", m.start()):]
        place = re.search(r"\}\s*matrix\s*<([^>]*)>", after)
        if place is not None:
            vertices = place_vertices(vertices, place.group(1))
        bodies.append((m.start(), vertices, faces))
    bodies.sort(key=lambda b: b[0])
    return [(v, f) for _, v, f in bodies]


def inside_count(points, vertices, faces):
    """How many points are inside the closed mesh, by the parity of a ray's crossings."""
    lo, hi = vertices.min(axis=0), vertices.max(axis=0)
    candidates = points[np.all((points >= lo) & (points <= hi), axis=1)]
    if len(candidates) == 0:
        return 0
    # A direction off every axis, so that no ray runs along an edge of the lattice-made meshes.
    d = np.array([1.0, 0.0123456789, 0.0371234567])
    d /= np.linalg.norm(d)
    p0, p1, p2 = vertices[faces[:, 0]], vertices[faces[:, 1]], vertices[faces[:, 2]]
    e1, e2 = p1 - p0, p2 - p0
    h = np.cross(d, e2)
    det = np.einsum("ij,ij->i", e1, h)
    keep = np.abs(det) > 1e-300
    p0, e1, e2, h, det = p0[keep], e1[keep], e2[keep], h[keep], det[keep]
    inv = 1.0 / det
    count = 0
    for p in candidates:
        s = p - p0
        u = np.einsum("ij,ij->i", s, h) * inv
        q = np.cross(s, e1)
        v = (q @ d) * inv
        t = np.einsum("ij,ij->i", e2, q) * inv
        hits = np.count_nonzero((u >= 0) & (v >= 0) & (u + v <= 1) & (t > 0))
        count += hits % 2
    return count


def run_config(blobsim, repo, letters, name, work, sets, verbose):
    config = json.load(open(os.path.join(repo, "configs", name)))
    for body in config["environment"]["bodies"]:
        body["file"] = os.path.join(letters, os.path.basename(body["file"]))
    path = os.path.join(work, name)
    json.dump(config, open(path, "w"))
    out = os.path.join(work, name[:-5])
    args = [blobsim, "run", path, "-o", out, "--quiet", "--set", "output.frame_every=1"]
    for s in sets:
        args += ["--set", s]
    subprocess.run(args, check=True)
    includes = {}
    for f in os.listdir(out):
        if f.startswith("body_") and f.endswith(".inc"):
            text = open(os.path.join(out, f)).read()
            declared = re.search(r"#declare\s+(BlobsimBody\d+)", text).group(1)
            includes[declared] = read_mesh2(text)
    frames = sorted(f for f in os.listdir(out) if re.fullmatch(r"frame_\d+\.pov", f))
    worst = 0
    failed = []
    for f in frames:
        (va, fa), (vb, fb) = frame_bodies(os.path.join(out, f), includes)
        ab, ba = inside_count(va, vb, fb), inside_count(vb, va, fa)
        if verbose:
            print("%s %s: %d of %d vertices of the first body inside the second, %d of %d the other way"
                  % (name, f, ab, len(va), ba, len(vb)))
        worst = max(worst, ab, ba)
        if ab or ba:
            failed.append("%s (%d, %d)" % (f, ab, ba))
    print("%s: %d frames, most vertices inside the other body on a frame: %d" % (name, len(frames), worst))
    if failed:
        print("  %s: vertices inside on %s" % (name, ", ".join(failed)))
    return not failed


def main():
    argv = sys.argv[1:]
    verbose = "--print" in argv
    argv = [a for a in argv if a != "--print"]
    sets = []
    while "--set" in argv:
        i = argv.index("--set")
        sets.append(argv[i + 1])
        del argv[i:i + 2]
    blobsim, writer, repo = (os.path.abspath(a) for a in argv[:3])
    names = argv[3:] or CONFIGS
    work = tempfile.mkdtemp(prefix="blobsim-letters-")
    try:
        letters = os.path.join(work, "letters")
        os.mkdir(letters)
        subprocess.run([writer, letters], check=True, stdout=subprocess.DEVNULL)
        ok = True
        for name in names:
            ok = run_config(blobsim, repo, letters, name, work, sets, verbose) and ok
    finally:
        shutil.rmtree(work)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
