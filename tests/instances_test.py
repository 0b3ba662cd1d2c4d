"""render.instances: each particle drawn as an object, scaled by its radius and turned along its velocity.
  scene   a run of tests/instances/instances.json with a built-in (leaf), an include's object (Twig) and
          an OBJ (leaf.obj, written once into instance_HASH.inc): every object's transform in scene.pov is
          checked against particles.ply with this test's own math (numpy: the shortest-arc rotation by
          Rodrigues' formula, none of blobsim's code): scale = scale x radius, the rotation's rows
          orthonormal with determinant 1 and equal to Rodrigues' matrix taking the axis to the velocity,
          the translation the centre. The same run at 1 and 2 threads, and again, gives the same bytes.
          Bad values (an unknown object, an include that does not declare it, a missing include or OBJ,
          a bad axis, both object and obj, a mesh surface with instances) fail naming the JSON path and
          the file, and leave no output. With orient "rotation" (particles spinning) every frame's objects
          are turned by the quaternions of the frame's cache (qw qx qy qz, this test's own matrix), the
          same bytes at 1 and 2 threads and after a resume from a checkpoint; it is refused without particle rotation and with motion blur.
  render  the first three looks rendered by POV-Ray (skipped, exit 77, without povray): no parse error
          or warning, and the instances change pixels of the scene rendered with the particles out of
          sight.
    /usr/bin/python3 tests/instances_test.py BLOBSIM SOURCE_ROOT scene|render
"""
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

import numpy as np

SKIP = 77
TYPES = {"uchar": "B", "uint": "I", "float": "f", "double": "d", "int": "i", "ushort": "H", "short": "h",
         "char": "b"}
AXES = {"+x": (1, 0, 0), "-x": (-1, 0, 0), "+y": (0, 1, 0), "-y": (0, -1, 0), "+z": (0, 0, 1), "-z": (0, 0, -1)}
STILL = 1e-9
NUMBER = r"(-?[0-9.]+(?:e[-+]?[0-9]+)?)"


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def read_ply(path):
    """{property: array} of a binary little-endian PLY's vertices."""
    data = open(path, "rb").read()
    end = data.index(b"end_header\n") + len(b"end_header\n")
    header = data[:end].decode("ascii").splitlines()
    count, names, codes = 0, [], ""
    for line in header:
        t = line.split()
        if t[0] == "element" and t[1] == "vertex":
            count = int(t[2])
        elif t[0] == "property":
            names.append(t[2])
            codes += TYPES[t[1]]
    rows = list(struct.iter_unpack("<" + codes, data[end:end + count * struct.calcsize("<" + codes)]))
    return {n: np.array([r[k] for r in rows], dtype=np.float64) for k, n in enumerate(names)}


def rodrigues(a, v):
    """The rotation matrix (column convention: R @ a = v / |v|) of the shortest arc from unit a to v."""
    speed = np.linalg.norm(v)
    if speed <= STILL:
        return np.eye(3)
    b = v / speed
    k = np.cross(a, b)
    s, c = np.linalg.norm(k), float(np.dot(a, b))
    if s < 1e-12 and c < 0:
        # Exactly opposite: a half turn about the axis the documentation names.
        e = np.eye(3)[int(np.argmin(np.abs(a)))]
        u = np.cross(a, e)
        u /= np.linalg.norm(u)
        return 2 * np.outer(u, u) - np.eye(3)
    if s == 0:
        return np.eye(3)
    k /= s
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + s * K + (1 - c) * K @ K


def run(blobsim, config, out, *sets, threads=1, expect_ok=True, extra=()):
    args = [blobsim, "run", config, "-o", out, "--quiet", "--threads", str(threads), *extra]
    for s in sets:
        args += ["--set", s]
    result = subprocess.run(args, capture_output=True, text=True)
    if expect_ok and result.returncode != 0:
        fail(f"blobsim run {' '.join(sets)} failed ({result.returncode}): {result.stderr}")
    return result


def instances(scene):
    """[(name, scale, 3x3 rows, translation)] of the scene's instance objects."""
    found = []
    pattern = re.compile(r"object \{ (\w+) scale " + NUMBER + r" (?:matrix <([^>]*)>|translate <([^>]*)>)")
    for m in pattern.finditer(scene):
        if m.group(3) is not None:
            n = [float(x) for x in m.group(3).split(",")]
            found.append((m.group(1), float(m.group(2)), np.array(n[:9]).reshape(3, 3), np.array(n[9:])))
        else:
            found.append((m.group(1), float(m.group(2)), np.eye(3), np.array([float(x) for x in m.group(4).split(",")])))
    return found


def check_scene(out, name, scale, axis, oriented):
    scene = open(os.path.join(out, "scene.pov")).read()
    p = read_ply(os.path.join(out, "particles.ply"))
    got = instances(scene)
    if len(got) != len(p["x"]) or len(got) < 2:
        fail(f"{out}: {len(got)} instances for {len(p['x'])} particles")
    a = np.array(AXES[axis], dtype=np.float64)
    worst = 0.0
    for i, (obj, s, rows, t) in enumerate(got):
        if obj != name:
            fail(f"{out}: instance {i} draws {obj}, expected {name}")
        if abs(s - scale * p["radius"][i]) > 1e-6 * s:
            fail(f"{out}: instance {i}: scale {s}, expected {scale} x radius {p['radius'][i]}")
        centre = np.array([p["x"][i], p["y"][i], p["z"][i]])
        if np.max(np.abs(t - centre)) > p["radius"][i] / 2048 + 1e-12:
            fail(f"{out}: instance {i} at {t}, its particle at {centre}")
        v = np.array([p["vx"][i], p["vy"][i], p["vz"][i]])
        expected = rodrigues(a, v) if oriented else np.eye(3)
        # POV-Ray's matrix rows are the images of x, y, z: the transpose of the column matrix.
        if np.max(np.abs(rows @ rows.T - np.eye(3))) > 1e-7 or abs(np.linalg.det(rows) - 1) > 1e-7:
            fail(f"{out}: instance {i}: not a rotation: {rows}")
        error = np.max(np.abs(rows.T - expected))
        worst = max(worst, error)
        # particles.ply holds the velocity as floats: its direction to about 1e-7.
        if error > 1e-5:
            fail(f"{out}: instance {i}: rotation {rows.T.tolist()}, expected {expected.tolist()} for velocity {v}")
        if oriented and np.linalg.norm(v) > STILL and np.linalg.norm(rows.T @ a - v / np.linalg.norm(v)) > 1e-5:
            fail(f"{out}: instance {i}'s axis is not along its velocity")
    return len(got), worst


LOOKS = [
    # (sets, the object drawn, scale, axis, oriented)
    ([], "BlobsimLeaf", 1.5, "+z", True),
    (['render.instances={"object": "Twig", "include": "branch.inc", "scale": 2, "axis": "-y"}'], "Twig", 2.0, "-y", True),
    (['render.instances={"obj": "leaf.obj", "scale": 1.2}'], "BlobsimInstance", 1.2, "+z", True),
    (['render.instances={"object": "cube", "orient": "none"}'], "BlobsimCube", 1.0, "+z", False),
]

BAD = [
    ('render.instances={"object": "leav"}', ["render.instances.object", "unknown object \"leav\"", "\"leaf\""]),
    ('render.instances={"object": "Branch", "include": "branch.inc"}',
     ["render.instances.object", "unknown object \"Branch\"", "branch.inc does not #declare it"]),
    ('render.instances={"object": "Commented", "include": "branch.inc"}', ["render.instances.object", "Commented"]),
    ('render.instances={"object": "Twig", "include": "nowhere.inc"}', ["render.instances.include", "nowhere.inc", "No such file"]),
    ('render.instances={"obj": "missing.obj"}', ["render.instances.obj", "missing.obj", "no such file"]),
    ('render.instances={"obj": "bad.obj"}', ["instances.json: render.instances.obj", "bad.obj:2:", "face has 2 vertices"]),
    ('render.instances={"object": "leaf", "axis": "z+"}', ["render.instances.axis", "\"+z\"", "got \"z+\""]),
    ('render.instances={"object": "leaf", "obj": "leaf.obj"}', ["render.instances", "not both"]),
    ('render.instances={"object": "leaf", "orient": "spin"}', ["render.instances.orient", "\"velocity\""]),
    ('render.instances={"object": "leaf", "scale": 0}', ["render.instances.scale", "> 0"]),
    ('render.surface=mesh', ["render.instances", "render.surface \"mesh\""]),
]


def check_scenes(blobsim, config, work):
    for k, (sets, name, scale, axis, oriented) in enumerate(LOOKS):
        out = os.path.join(work, f"look{k}")
        run(blobsim, config, out, *sets)
        n, worst = check_scene(out, name, scale, axis, oriented)
        again = os.path.join(work, f"look{k}-again")
        run(blobsim, config, again, *sets, threads=2)
        for f in os.listdir(out):
            if f.endswith(".pov") or f.endswith(".inc"):
                if open(os.path.join(out, f), "rb").read() != open(os.path.join(again, f), "rb").read():
                    fail(f"{f} differs between runs at 1 and 2 threads ({name})")
        includes = [f for f in os.listdir(out) if f.startswith("instance_")]
        if (name == "BlobsimInstance") != (len(includes) == 1):
            fail(f"{out}: instance includes {includes}")
        if includes and includes[0] not in open(os.path.join(out, "outputs.txt")).read():
            fail(f"{includes[0]} is not listed in outputs.txt")
        print(f"{name}: {n} instances match particles.ply (rotation within {worst:.1e}); same bytes at 2 threads")
    # The OBJ's mesh2: the leaf's 5 vertices and 8 faces, declared once.
    inc = [f for f in os.listdir(os.path.join(work, "look2")) if f.startswith("instance_")][0]
    text = open(os.path.join(work, "look2", inc)).read()
    if not re.search(r"#declare BlobsimInstance =\s*mesh2", text) or "vertex_vectors" not in text or not re.search(r"face_indices\s*\{\s*8", text):
        fail(f"{inc} is not the leaf's mesh2: {text[:300]}")
    with open(os.path.join(os.path.dirname(config), "bad.obj"), "w") as f:
        f.write("v 0 0 0\nf 1 1\n")
    try:
        for s, words in BAD:
            out = os.path.join(work, "bad")
            extra = [s] if s.startswith("render.instances") else [s, 'render.instances={"object": "leaf"}']
            result = run(blobsim, config, out, *extra, expect_ok=False)
            if result.returncode == 0 or any(w not in result.stderr for w in words):
                fail(f"--set {s}: exit {result.returncode}, message {result.stderr!r}; expected {words}")
            if os.path.exists(out):
                fail(f"--set {s}: left {out} behind")
            print(f"refused: {result.stderr.strip()}")
    finally:
        os.remove(os.path.join(os.path.dirname(config), "bad.obj"))


def quat_matrix(w, x, y, z):
    """The rotation matrix (column convention) of the unit quaternion w + xi + yj + zk."""
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


SPIN = ['particles.interaction={"type": "granular", "rotation": true}', "output.frame_every=3", "output.cache=true"]
TURNED = 'render.instances={"object": "leaf", "orient": "rotation"}'


def axis_angle(w, angle):
    """The unit quaternion turning by angle (radians) about w."""
    n = np.linalg.norm(w)
    return np.array([np.cos(angle / 2), *(np.sin(angle / 2) * w / n)])


def quat_mul(a, b):
    w1, x1, y1, z1 = a
    w2, x2, y2, z2 = b
    return np.array([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2, w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                     w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2, w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2])


def check_rotation_blur(blobsim, config, work):
    """orient "rotation" with render.motion_blur: each sample's objects are turned as their particles were
    at the sample's time. A particle in free flight over the shutter (its sample centre on the parabola
    back from the image's position and velocity, to the chord's 1 mm) spins at a constant rate, so its
    orientation then is the image's turned back by its spin over the time to the image."""
    out = os.path.join(work, "turned-blur")
    run(blobsim, config, out, *SPIN, TURNED, 'render.motion_blur={"samples": 4, "shutter_angle": 360}')
    p = read_ply(os.path.join(out, "cache", "frame_0002.ply"))
    drawn = [i for i in range(len(p["x"])) if p["state"][i] != 2]
    dt, every, g = 0.02, 3, np.array([0.0, -9.81, 0.0])
    free = turned = 0
    worst = 0.0
    for j in range(3):
        tau = every * dt * (3 - j) / 3  # from the sample to the image
        got = instances(open(os.path.join(out, f"frame_0002_blur{j}.pov")).read())
        if len(got) != len(drawn):
            fail(f"frame_0002_blur{j}.pov: {len(got)} instances for {len(drawn)} drawn particles")
        for (obj, scale, rows, t), i in zip(got, drawn):
            x = np.array([p["x"][i], p["y"][i], p["z"][i]])
            v = np.array([p["vx"][i], p["vy"][i], p["vz"][i]])
            w = np.array([p["wx"][i], p["wy"][i], p["wz"][i]])
            if np.abs(x - v * tau + 0.5 * g * tau * tau - t).max() > 1e-3 or np.linalg.norm(w) < 1.0:
                continue  # touched something during the shutter, or hardly spins
            q = quat_mul(axis_angle(w, -np.linalg.norm(w) * tau), [p["qw"][i], p["qx"][i], p["qy"][i], p["qz"][i]])
            error = np.max(np.abs(rows.T - quat_matrix(*q)))
            worst = max(worst, error)
            if error > 1e-6:
                fail(f"frame_0002_blur{j}.pov: particle {i} in free flight: rotation {rows.T.tolist()}, its spin "
                     f"{w.tolist()} back from the image's {q.tolist()} gives {quat_matrix(*q).tolist()}")
            free += 1
            turned += np.linalg.norm(w) * tau > 0.1
    if free < 10 or turned < 5:
        fail(f"motion blur: only {free} objects in free flight over the shutter, {turned} turned by 0.1 rad")
    print(f"rotation with motion blur: {free} free-flying objects of the samples turned back by their spin "
          f"(within {worst:.1e}), {turned} by more than 0.1 rad")


def check_rotation(blobsim, config, work):
    """orient "rotation": each frame's objects turned by the cache's quaternions (qw qx qy qz, this test's
    own matrix), the same bytes at 1 and 2 threads; refused without particle rotation. With motion blur
    the samples' objects are turned as at their times (check_rotation_blur)."""
    out, again = os.path.join(work, "turned"), os.path.join(work, "turned-again")
    run(blobsim, config, out, *SPIN, TURNED)
    run(blobsim, config, again, *SPIN, TURNED, threads=2)
    turned, worst = 0, 0.0
    for frame in range(3):
        name = f"frame_{frame:04d}"
        for f in (f"{name}.pov", os.path.join("cache", f"{name}.ply")):
            if open(os.path.join(out, f), "rb").read() != open(os.path.join(again, f), "rb").read():
                fail(f"orient rotation: {f} differs between runs at 1 and 2 threads")
        p = read_ply(os.path.join(out, "cache", f"{name}.ply"))
        drawn = [i for i in range(len(p["x"])) if p["state"][i] != 2]
        got = instances(open(os.path.join(out, f"{name}.pov")).read())
        if len(got) != len(drawn) or (frame == 2 and not drawn):
            fail(f"{name}: {len(got)} instances for {len(drawn)} drawn particles")
        for (obj, s, rows, t), i in zip(got, drawn):
            q = np.array([p["qw"][i], p["qx"][i], p["qy"][i], p["qz"][i]])
            if abs(np.linalg.norm(q) - 1) > 1e-12:
                fail(f"{name}: particle {i}: orientation {q} is not a unit quaternion")
            error = np.max(np.abs(rows.T - quat_matrix(*q)))
            worst = max(worst, error)
            if error > 1e-8:
                fail(f"{name}: instance of particle {i}: rotation {rows.T.tolist()}, its quaternion {q.tolist()}")
            turned += frame == 2 and abs(q[0]) < 0.99
    if turned < 5:
        fail(f"orient rotation: only {turned} objects turned by more than 16 degrees in the last frame")
    print(f"rotation: every frame's objects match the cache's quaternions (within {worst:.1e}), "
          f"{turned} turned past 16 degrees; same bytes at 2 threads")
    # Stopped after frame 1 and resumed from its checkpoint: the same last frame and cache, to the byte.
    resumed = os.path.join(work, "turned-resumed")
    run(blobsim, config, resumed, *SPIN, TURNED, "output.checkpoint=1", expect_ok=False, extra=["--stop-after-frame", "1"])
    result = subprocess.run([blobsim, "run", "--resume", resumed, "--quiet"], capture_output=True, text=True)
    if result.returncode != 0:
        fail(f"orient rotation: --resume: {result.stderr}")
    for f in ("frame_0002.pov", os.path.join("cache", "frame_0002.ply")):
        if open(os.path.join(out, f), "rb").read() != open(os.path.join(resumed, f), "rb").read():
            fail(f"orient rotation: {f} differs after a resume")
    print("rotation: the last frame and its cache the same bytes after a resume")
    check_rotation_blur(blobsim, config, work)
    for sets, words in (([TURNED], ["render.instances.orient", "particles.interaction.rotation"]),):
        bad = os.path.join(work, "bad")
        result = run(blobsim, config, bad, *sets, expect_ok=False)
        if result.returncode == 0 or any(w not in result.stderr for w in words) or os.path.exists(bad):
            fail(f"--set {sets}: exit {result.returncode}, message {result.stderr!r}; expected {words}")
        print(f"refused: {result.stderr.strip()}")


def check_render(blobsim, config, work):
    if shutil.which("povray") is None:
        print("skipped: POV-Ray is not installed")
        sys.exit(SKIP)
    import matplotlib.image
    size = ["render.width=96", "render.height=72"]
    # The same scene with the particles out of sight (far below the floor): what the instances cover.
    empty = os.path.join(work, "empty")
    run(blobsim, config, empty, *size, "particles.emitters.0.center=[0, -50, 0]", extra=["--render"])
    background = matplotlib.image.imread(os.path.join(empty, "scene.png"))
    for k, (sets, name, _, _, _) in enumerate(LOOKS[:3]):
        out = os.path.join(work, f"render{k}")
        args = [blobsim, "run", config, "-o", out, "--quiet", "--render"]
        for s in sets + size:
            args += ["--set", s]
        result = subprocess.run(args, capture_output=True, text=True)
        log = open(os.path.join(out, "render.log")).read() if os.path.exists(os.path.join(out, "render.log")) else ""
        if result.returncode != 0 or not os.path.getsize(os.path.join(out, "scene.png")):
            fail(f"{name}: the render failed ({result.returncode}): {result.stderr} {log[-800:]}")
        if "Parse Error" in log or "Warning:" in log:
            fail(f"{name}: POV-Ray complained: {log[-800:]}")
        image = matplotlib.image.imread(os.path.join(out, "scene.png"))
        covered = int(np.sum(np.any(np.abs(image - background) > 0.02, axis=2)))
        if covered < 50:
            fail(f"{name}: the instances change only {covered} pixels of the empty scene")
        print(f"{name}: rendered; the instances change {covered} of {image.shape[0] * image.shape[1]} pixels")


def main():
    blobsim, source_root, mode = sys.argv[1:4]
    config = os.path.join(source_root, "tests", "instances", "instances.json")
    with tempfile.TemporaryDirectory() as work:
        if mode == "scene":
            check_scenes(blobsim, config, work)
            check_rotation(blobsim, config, work)
        else:
            check_render(blobsim, config, work)


if __name__ == "__main__":
    main()
