"""render.motion_blur: each image the average, in linear light, of POV-Ray renders of the particles at
times spread over the shutter, which ends at the image's time (docs/rendering.md, "Motion blur").
  scene   tests/motion_blur/streak.json (one particle at 4 units/s, no gravity, 3 substeps a step, a
          360-degree shutter over 2-step frames, 4 samples): frame 2's sub-frame scenes hold the
          particle at x0 + v t_j with t_j = E - S (3 - j) / 3, so the streak spans speed x shutter time;
          180 degrees halves it. Under gravity each sample equals, digit for digit, the state of a run
          whose steps are the substeps (the simulation's own positions, no interpolation). The same
          bytes at 1 and 2 threads, and after a resume from a checkpoint. Shutter 0 writes the same
          files as no motion blur. Bad values name the JSON path and leave no output.
          tests/motion_blur/looks.json (two species, one with radius, colour and opacity ramps): each
          sample scene draws each species in its own blob and material, every component's colour,
          opacity and radius the ramps' at the particle's age at the sample's time; the same scenes
          after a resume.
  bodies  tests/motion_blur/bodies.json (a bar turning at 150 degrees/s, a deforming paddle, a
          dynamic one falling and spinning): each sample scene draws every body at the sample's time,
          the bar at its closed-form angle, all three as a run whose steps are the substeps draws them
          at those times (the dynamic body's integrated poses, the deforming one's shape); with every
          body still, each sample scene is the image's own scene, byte for byte; the kinematic bodies'
          samples the same after a resume.
  mesh    streak.json with render.surface "mesh": each sample scene includes its own surface files
          (.inc, .obj, .ply), the same bytes at 1 and 2 threads; under gravity each sample's surface is,
          byte for byte, the one a run whose steps are the substeps polygonizes at that time, and after
          a resume the same; its vertex colour is the over-life ramp's at the sample's time; with
          "auto" every sample of an image takes the image's choice (blobs or mesh).
  render  (POV-Ray; skipped, exit 77, without it) the blurred frame's lit extent is the unblurred one
          plus speed x shutter time in pixels (+-1.5); shutter 0 renders the unblurred image byte for
          byte; the average equals the test's own (numpy, from POV-Ray run here on the same scenes);
          `blobsim render DIR --force` remakes the same bytes; a sample scene POV-Ray cannot parse
          fails the image, names the sample, and leaves the previous image as it was. The turning
          bar's edge along a pixel row is blurred over its travel during the shutter in pixels (+-1.5),
          ending where the unblurred edge is, with intermediate values over that width; still bodies
          render the same pixels with and without blur. A moving drop drawn as a mesh is blurred over
          its travel along a pixel row, and `blobsim render DIR --force` remakes its images.
    /usr/bin/python3 tests/motion_blur_test.py BLOBSIM SOURCE_ROOT scene|bodies|mesh|render
"""
import filecmp
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from instances_test import fail, run  # noqa: E402  (the run helper and the failure report)

SKIP = 77
SPEED, X0, DT, EVERY, SUBSTEPS = 4.0, -0.9, 0.05, 2, 3
CENTER = re.compile(r"sphere \{ <([^>]*)>")


def plain_config(config, tmp):
    """The config without render.motion_blur."""
    c = json.load(open(config))
    del c["render"]["motion_blur"]
    path = os.path.join(tmp, "plain.json")
    json.dump(c, open(path, "w"))
    return path


def centers(path):
    return [tuple(float(v) for v in m.group(1).split(",")) for m in CENTER.finditer(open(path).read())]


def sphere_lines(path):
    return [m.group(0) for m in CENTER.finditer(open(path).read())]


def same_tree(a, b, names):
    for n in names:
        if not filecmp.cmp(os.path.join(a, n), os.path.join(b, n), shallow=False):
            fail(f"{n} differs between {a} and {b}")


def check_streak(out, angle):
    shutter = angle / 360.0 * EVERY * DT
    end = 2 * EVERY * DT  # frame 2
    xs = []
    for j in range(4):
        name = f"frame_0002_blur{j}.pov" if j < 3 else "frame_0002.pov"
        c = centers(os.path.join(out, name))
        if len(c) != 1:
            fail(f"{name}: {len(c)} particles, expected 1")
        t = end - shutter * (3 - j) / 3
        if abs(c[0][0] - (X0 + SPEED * t)) > 1e-7 or abs(c[0][1]) > 1e-12:
            fail(f"{name}: the particle at {c[0]}, expected x = {X0 + SPEED * t} (t = {t})")
        xs.append(c[0][0])
    if abs((xs[-1] - xs[0]) - SPEED * shutter) > 1e-7:
        fail(f"streak {xs[-1] - xs[0]}, expected speed x shutter = {SPEED * shutter}")
    return xs


MATRIX = re.compile(r"matrix <([^>]*)>")
VERTICES = re.compile(r"vertex_vectors\s*\{\s*\d+,([^}]*)\}")
BAR_SPEED = -150.0  # degrees/s about +z: tests/motion_blur/bodies.json's keys


def bodies_drawn(path):
    """The bodies' matrices (12 numbers each, in body order) and the deforming body's vertices."""
    text = open(path).read()
    matrices = [[float(v) for v in m.group(1).split(",")] for m in MATRIX.finditer(text)]
    vertices = [[float(v) for v in re.findall(r"-?[\d.]+(?:e-?\d+)?", m.group(1))] for m in VERTICES.finditer(text)]
    return matrices, vertices


def close(a, b, tol=1e-7):
    return len(a) == len(b) and all(len(x) == len(y) and all(abs(u - v) <= tol * (1 + abs(v)) for u, v in zip(x, y))
                                    for x, y in zip(a, b))


def check_resume(blobsim, config, tmp, label, *sets, stop=1, exts=(".pov",)):
    """A run stopped after frame `stop` and resumed from its checkpoint writes the uninterrupted run's
    scenes (the samples' particles, bodies, ages and looks; with exts, their surfaces too), the last,
    shorter frame (7 steps, frames every 2) included."""
    sets = (*sets, "output.checkpoint=1", "motion.steps=7")
    whole, resumed = os.path.join(tmp, label + "-whole"), os.path.join(tmp, label + "-resumed")
    run(blobsim, config, whole, *sets)
    run(blobsim, config, resumed, *sets, expect_ok=False, extra=["--stop-after-frame", str(stop)])
    p = subprocess.run([blobsim, "run", "--resume", resumed, "--quiet"], capture_output=True, text=True)
    if p.returncode != 0:
        fail(f"{label}: --resume: {p.stderr}")
    povs = sorted(n for n in os.listdir(whole) if n.endswith(exts))
    if povs != sorted(n for n in os.listdir(resumed) if n.endswith(exts)) or "frame_0004_blur0.pov" not in povs:
        fail(f"{label}: --resume wrote other scenes: {povs}")
    same_tree(whole, resumed, povs)


def still_config(root, tmp):
    """tests/motion_blur/bodies.json with every body still and no gravity (the particle rests)."""
    c = json.load(open(os.path.join(root, "tests", "motion_blur", "bodies.json")))
    for b in c["environment"]["bodies"]:
        b["keys"] = [{"time": 0, "translate": [b["keys"][-1].get("translate", [0, 0, 0])[0], -0.3, 0],
                      "rotate": {"axis": [0, 0, 1], "angle": -20}}]
        b.pop("deform", None)
        b.pop("dynamic", None)
        b["file"] = os.path.join(root, "tests", "motion_blur", b["file"])
    c["motion"]["gravity"] = [0, 0, 0]
    path = os.path.join(tmp, "still.json")
    json.dump(c, open(path, "w"))
    return path


def bodies_mode(blobsim, root, tmp):
    config = os.path.join(root, "tests", "motion_blur", "bodies.json")
    out, fine = os.path.join(tmp, "bodies"), os.path.join(tmp, "bodies-fine")
    run(blobsim, config, out)
    run(blobsim, config, fine, f"motion.dt={DT / SUBSTEPS!r}", "motion.substeps=1", f"motion.steps={4 * SUBSTEPS}",
        "output.frame_every=1")
    for j in range(3):
        step = 2 * EVERY * SUBSTEPS - 2 * (3 - j)  # the sample's time in fine steps
        name = f"frame_0002_blur{j}.pov"
        mine = bodies_drawn(os.path.join(out, name))
        theirs = bodies_drawn(os.path.join(fine, f"frame_{step:04d}.pov"))
        if len(mine[0]) != 3 or len(mine[1]) != 1 or not close(mine[0], theirs[0]) or not close(mine[1], theirs[1]):
            fail(f"{name}: the bodies {mine} are not the substep run's frame_{step:04d}.pov {theirs}")
        angle = math.radians(BAR_SPEED * step * DT / SUBSTEPS)
        if not close([mine[0][0][:2]], [[math.cos(angle), math.sin(angle)]]):
            fail(f"{name}: the bar's matrix {mine[0][0]}, expected a turn of {math.degrees(angle)} degrees")
    # The image's own scene keeps the bodies at its time.
    if not close(bodies_drawn(os.path.join(out, "frame_0002.pov"))[0], bodies_drawn(os.path.join(fine, "frame_0012.pov"))[0]):
        fail("frame_0002.pov: the bodies are not at the image's time")
    # Without the dynamic body (a checkpoint cannot hold one yet), stopped and resumed: the same scenes.
    c = json.load(open(config))
    c["environment"]["bodies"] = c["environment"]["bodies"][:2]
    for b in c["environment"]["bodies"]:
        b["file"] = os.path.join(root, "tests", "motion_blur", b["file"])
    json.dump(c, open(os.path.join(tmp, "kinematic.json"), "w"))
    check_resume(blobsim, os.path.join(tmp, "kinematic.json"), tmp, "bodies")
    still = os.path.join(tmp, "still")
    run(blobsim, still_config(root, tmp), still)
    # (Frame 1's first samples are before the particle's emission, in step 1.)
    for scene in ("frame_0000", "frame_0002", "scene"):
        for j in range(3):
            if not filecmp.cmp(os.path.join(still, f"{scene}_blur{j}.pov"), os.path.join(still, f"{scene}.pov"),
                               shallow=False):
                fail(f"still bodies: {scene}_blur{j}.pov differs from {scene}.pov")


RGBT = re.compile(r"^\tsphere \{ <([^>]*)>, ([^,]*), 1 texture \{ BlobsimParticleTexture pigment \{ rgbt <([^>]*)> \} \} \}$")
PLAIN = re.compile(r"^\tsphere \{ <([^>]*)>, ([^,]*), 1 \}$")


def check_looks(blobsim, root, tmp):
    """Several species and over-life ramps: each sample scene draws every species in its own blob with
    its material, and each water particle's component with the ramps' colour, opacity and radius at
    its age at the sample's time (its age in the image's cache less the time to the image), where its
    straight path puts it then."""
    from over_life_test import ramp, read_cache
    config = os.path.join(root, "tests", "motion_blur", "looks.json")
    c = json.load(open(config))
    water = c["particles"][1]["over_life"]
    out = os.path.join(tmp, "looks")
    run(blobsim, config, out)
    shutter = 300 / 360 * EVERY * DT
    end = 2 * EVERY * DT
    p = read_cache(os.path.join(out, "cache", "frame_0002.ply"))
    mine = p["species"] == 1
    textures = [line for line in open(os.path.join(out, "frame_0002.pov")) if line.startswith("\ttexture")]
    checked = 0
    for j in range(3):
        name = os.path.join(out, f"frame_0002_blur{j}.pov")
        back = shutter * (3 - j) / 3  # from the sample to the image
        lines = open(name).read().split("\n")
        if [x + "\n" for x in lines if x.startswith("\ttexture")] != textures:
            fail(f"{name}: the species' materials are not the image's {textures}")
        coloured = [RGBT.match(x) for x in lines if RGBT.match(x)]
        plain = [PLAIN.match(x) for x in lines if PLAIN.match(x)]
        born = np.count_nonzero(mine & (p["age"] - back > 0))
        if len(plain) != np.count_nonzero(~mine) or len(coloured) != born or born < 2:
            fail(f"{name}: {len(plain)} mud and {len(coloured)} water components, expected "
                 f"{np.count_nonzero(~mine)} and {born}")
        where = np.array([p["x"] - p["vx"] * back, p["y"], p["z"]]).T
        for m in coloured:
            at = np.array([float(v) for v in m.group(1).split(",")])
            i = int(np.argmin(np.where(mine, np.sum((where - at) ** 2, axis=1), np.inf)))
            age = p["age"][i] - back
            rgb, _ = ramp(water["color"], age)
            (alpha,), _ = ramp(water["opacity"], age)
            (grow,), _ = ramp(water["radius"], age)
            rgbt = [float(v) for v in m.group(3).split(",")]
            if np.abs(where[i] - at).max() > 1e-7 or any(abs(g - w) > 2e-6 for g, w in zip(rgbt, rgb + [1 - alpha])) \
                    or abs(float(m.group(2)) - p["radius"][i] * grow * 1.6) > 1e-8:
                fail(f"{name}: the component at {at}, radius {m.group(2)}, rgbt {rgbt}: particle {i} at age "
                     f"{age} is at {where[i]} with rgbt {rgb + [1 - alpha]}, radius {p['radius'][i] * grow * 1.6}")
            checked += 1
    check_resume(blobsim, config, tmp, "looks")
    return checked


def scene_mode(blobsim, root, tmp):
    check_looks(blobsim, root, tmp)
    config = os.path.join(root, "tests", "motion_blur", "streak.json")
    a, b = os.path.join(tmp, "a"), os.path.join(tmp, "b")
    run(blobsim, config, a, threads=1)
    run(blobsim, config, b, threads=2)
    names = sorted(n for n in os.listdir(a) if n.endswith(".pov"))
    expected = {f"frame_000{k}_blur{j}.pov" for k in range(3) for j in range(3)} | {f"scene_blur{j}.pov" for j in range(3)}
    if not expected <= set(names):
        fail(f"sub-frame scenes missing: {sorted(expected - set(names))}")
    same_tree(a, b, names)
    check_streak(a, 360)
    # scene.pov's samples are the last frame's.
    for j in range(3):
        if not filecmp.cmp(os.path.join(a, f"scene_blur{j}.pov"), os.path.join(a, f"frame_0002_blur{j}.pov"), shallow=False):
            fail(f"scene_blur{j}.pov differs from frame_0002_blur{j}.pov")
    half = os.path.join(tmp, "half")
    run(blobsim, config, half, "render.motion_blur.shutter_angle=180")
    check_streak(half, 180)
    summary = json.load(open(os.path.join(a, "summary.json")))
    if summary["render"].get("motion_blur") != {"shutter_angle": 360, "samples": 4}:
        fail(f"summary.json render.motion_blur: {summary['render'].get('motion_blur')}")

    # Shutter 0: the unblurred run's files, nothing more.
    zero, plain = os.path.join(tmp, "zero"), os.path.join(tmp, "plain")
    run(blobsim, config, zero, "render.motion_blur.shutter_angle=0")
    run(blobsim, plain_config(config, tmp), plain)
    zn = sorted(os.listdir(zero))
    if any("_blur" in n for n in zn) or zn != sorted(os.listdir(plain)):
        fail(f"shutter 0 wrote {zn}, no motion blur {sorted(os.listdir(plain))}")
    same_tree(zero, plain, [n for n in zn if n.endswith(".pov")])

    # Under gravity the samples are the substeps' own states: a run whose steps are the substeps
    # (dt / 3, 3x the steps, a frame every step) has the same particle at each sample time.
    g = "motion.gravity=[0, -9.81, 0]"
    fall, fine = os.path.join(tmp, "fall"), os.path.join(tmp, "fine")
    run(blobsim, config, fall, g)
    run(blobsim, config, fine, g, f"motion.dt={DT / SUBSTEPS!r}", "motion.substeps=1",
        f"motion.steps={4 * SUBSTEPS}", "output.frame_every=1")
    for j in range(3):
        step = 2 * EVERY * SUBSTEPS - 2 * (3 - j)  # the sample's time in fine steps: 2 apart, ending at 12
        mine = sphere_lines(os.path.join(fall, f"frame_0002_blur{j}.pov"))
        theirs = sphere_lines(os.path.join(fine, f"frame_{step:04d}.pov"))
        if mine != theirs:
            fail(f"frame_0002_blur{j}.pov {mine} != the substep run's frame_{step:04d}.pov {theirs}")

    check_resume(blobsim, config, tmp, "fall", g, stop=2)

    # Bad values: the JSON path, exit 1, no output folder.
    bad = [("render.motion_blur.shutter_angle=400", "render.motion_blur.shutter_angle"),
           ("render.motion_blur.shutter_angle=-1", "render.motion_blur.shutter_angle"),
           ('render.motion_blur.shutter_angle="wide"', "render.motion_blur.shutter_angle"),
           ("render.motion_blur.samples=1", "render.motion_blur.samples"),
           ("render.motion_blur.samples=65", "render.motion_blur.samples"),
           ("render.motion_blur.samples=2.5", "render.motion_blur.samples"),
           ("render.motion_blur.shutter=90", "render.motion_blur"),
           ("render.motion_blur=true", "render.motion_blur")]
    for k, (s, path) in enumerate(bad):
        out = os.path.join(tmp, f"bad{k}")
        p = run(blobsim, config, out, s, expect_ok=False)
        if p.returncode == 0:
            fail(f"--set {s}: accepted")
        # An unknown key is refused by --set itself, before the config is read: its message names --set.
        if path not in p.stderr or (config not in p.stderr and f"--set {s}" not in p.stderr):
            fail(f"--set {s}: {p.stderr.strip()!r} does not name {path!r} and {config}")
        if os.path.exists(out):
            fail(f"--set {s}: wrote {out}")


MESH = 'render.surface="mesh"'
SURFACE_FILES = (".pov", "_surface.inc", "_surface.obj", "_surface.ply")


def mesh_mode(blobsim, root, tmp):
    """render.surface "mesh" (and "auto") with motion blur: each sample scene includes its own surface,
    polygonized from the sample's particles with the image's settings (vertex colours at its time)."""
    config = os.path.join(root, "tests", "motion_blur", "streak.json")
    a, b = os.path.join(tmp, "ma"), os.path.join(tmp, "mb")
    files = 'render.surface_files=["obj", "ply"]'
    run(blobsim, config, a, MESH, files, threads=1)
    run(blobsim, config, b, MESH, files, threads=2)
    names = sorted(os.listdir(a))
    for k in range(3):
        for j in range(3):
            stem = f"frame_000{k}_blur{j}"
            for ext in SURFACE_FILES:
                if stem + ext not in names:
                    fail(f"mesh: {stem}{ext} missing: {names}")
            if f'"{stem}_surface.inc"' not in open(os.path.join(a, stem + ".pov")).read():
                fail(f"mesh: {stem}.pov does not include its own surface")
    if any(".tmp." in n for n in names) or names != sorted(os.listdir(b)):
        fail(f"mesh: 1 and 2 threads wrote other files: {names} / {sorted(os.listdir(b))}")
    same_tree(a, b, [n for n in names if n.endswith(SURFACE_FILES)])
    summary = json.load(open(os.path.join(a, "summary.json")))["surface"]
    if summary["scenes"] != 4 or summary["blur_scenes"] != 12:
        fail(f"mesh: summary.json surface {summary}")

    # Under gravity each sample's surface is the surface of a run whose steps are the substeps, at the
    # sample's time: the same particles, polygonized the same way, the same bytes.
    g = "motion.gravity=[0, -9.81, 0]"
    fall, fine = os.path.join(tmp, "mfall"), os.path.join(tmp, "mfine")
    run(blobsim, config, fall, MESH, g)
    run(blobsim, config, fine, MESH, g, f"motion.dt={DT / SUBSTEPS!r}", "motion.substeps=1",
        f"motion.steps={4 * SUBSTEPS}", "output.frame_every=1")
    for j in range(3):
        step = 2 * EVERY * SUBSTEPS - 2 * (3 - j)
        mine = os.path.join(fall, f"frame_0002_blur{j}_surface.inc")
        theirs = os.path.join(fine, f"frame_{step:04d}_surface.inc")
        if not filecmp.cmp(mine, theirs, shallow=False):
            fail(f"mesh: {mine} differs from the substep run's {theirs}")
    # The samples differ from each other and from the image's surface (the drop moves).
    incs = [open(os.path.join(fall, f"frame_0002{s}_surface.inc")).read() for s in ("_blur0", "_blur1", "_blur2", "")]
    if len(set(incs)) != 4:
        fail("mesh: a moving drop's sample surfaces are not all different")
    check_resume(blobsim, config, tmp, "mesh", MESH, g, stop=2, exts=SURFACE_FILES[:2])

    # Vertex colours: each sample's surface takes the colour ramp at the drop's age then (born at 0).
    ramp = 'particles.over_life={"color": [{"time": 0, "value": [1, 0, 0]}, {"time": 0.2, "value": [0, 0, 1]}]}'
    col = os.path.join(tmp, "mcolour")
    run(blobsim, config, col, MESH, ramp)
    shutter = EVERY * DT
    for j in range(4):
        stem = f"frame_0002_blur{j}" if j < 3 else "frame_0002"
        t = 2 * EVERY * DT - shutter * (3 - j) / 3
        m = re.search(r"pigment \{ rgbt <([^>]*)>", open(os.path.join(col, stem + "_surface.inc")).read())
        got = [float(v) for v in m.group(1).split(",")] if m else []
        want = [1 - t / 0.2, 0, t / 0.2, 0]
        if len(got) != 4 or max(abs(g - w) for g, w in zip(got, want)) > 0.5 / 255 + 1e-6:
            fail(f"mesh: {stem}_surface.inc's colour {got}, expected the ramp at t = {t}: {want}")

    # Auto: the image's choice applies to all its samples (never blobs and meshes mixed in one image).
    # Frame 0 (no particle yet) is blobs, then the drop a mesh; at the coarsest spacing all blobs.
    choices = set()
    for k, sets in enumerate([(), ("render.surface_spacing=0.05",)]):
        out = os.path.join(tmp, f"auto{k}")
        run(blobsim, config, out, 'render.surface="auto"', *sets)
        made = set(os.listdir(out))
        for frame in ("frame_0000", "frame_0001", "frame_0002", "scene"):
            has = f"{frame}_surface.inc" in made
            choices.add(has)
            if any((f"{frame}_blur{j}_surface.inc" in made) != has for j in range(3)):
                fail(f"auto: {frame}'s samples do not all follow its choice (mesh {has}): {sorted(made)}")
    if choices != {True, False}:
        fail(f"auto: the images chose only {'meshes' if True in choices else 'blobs'}")


def render_mesh(blobsim, root, tmp):
    """A drop drawn as a mesh is blurred along its motion: its row of pixels spans its travel during
    the shutter, with intermediate values over it; `blobsim render DIR --force` makes the same bytes."""
    config = os.path.join(root, "tests", "motion_blur", "streak.json")
    blur, plain = os.path.join(tmp, "mrblur"), os.path.join(tmp, "mrplain")
    run(blobsim, config, blur, MESH, extra=["--render"])
    run(blobsim, config, plain, MESH, "render.motion_blur.shutter_angle=0", extra=["--render"])
    pixel = 2 * 3 * math.tan(math.radians(20)) / 64
    travel = SPEED * EVERY * DT / pixel
    check_row_blur(blur, plain, 24, travel, "mesh render: the drop")
    if any(".tmp." in n for n in os.listdir(blur)):
        fail(f"mesh render left {os.listdir(blur)}")
    again = os.path.join(tmp, "mragain")
    shutil.copytree(blur, again)
    p = subprocess.run([blobsim, "render", again, "--force", "--quiet"], capture_output=True, text=True)
    if p.returncode != 0:
        fail(f"mesh render --force: {p.stderr}")
    for n in ("frame_0001.png", "frame_0002.png", "scene.png"):
        if not filecmp.cmp(os.path.join(blur, n), os.path.join(again, n), shallow=False):
            fail(f"mesh render --force: {n} differs from run --render's")


def lit_extent(path):
    """The first and last pixel columns brighter than the background (black) by more than 2/255."""
    import numpy as np
    import matplotlib.image as mpimg
    a = mpimg.imread(path)[..., :3]
    cols = np.nonzero((a.max(axis=2) > 2.5 / 255).any(axis=0))[0]
    if len(cols) == 0:
        fail(f"{path}: nothing lit")
    return cols[0], cols[-1]


def render_mode(blobsim, root, tmp):
    if shutil.which("povray") is None:
        print("SKIP: povray is not installed")
        sys.exit(SKIP)
    import numpy as np
    import matplotlib.image as mpimg
    config = os.path.join(root, "tests", "motion_blur", "streak.json")
    blur, plain, zero = (os.path.join(tmp, n) for n in ("blur", "plain", "zero"))
    run(blobsim, config, blur, extra=["--render"])
    run(blobsim, plain_config(config, tmp), plain, extra=["--render"])
    run(blobsim, config, zero, "render.motion_blur.shutter_angle=0", extra=["--render"])
    # Streak length: speed x shutter time in pixels (horizontal field of view 40 degrees at distance 3).
    pixel = 2 * 3 * math.tan(math.radians(20)) / 64
    b0, b1 = lit_extent(os.path.join(blur, "frame_0002.png"))
    p0, p1 = lit_extent(os.path.join(plain, "frame_0002.png"))
    grown = (b1 - b0) - (p1 - p0)
    expected = SPEED * EVERY * DT / pixel
    if abs(grown - expected) > 1.5 or p1 != b1:
        fail(f"the blurred frame spans columns {b0}-{b1}, the unblurred {p0}-{p1}: grown by {grown} px, "
             f"expected {expected:.1f} ending at the same column")
    # POV-Ray's own PNGs carry the render's date, so the pixels are compared.
    if not np.array_equal(mpimg.imread(os.path.join(zero, "frame_0002.png")), mpimg.imread(os.path.join(plain, "frame_0002.png"))):
        fail("shutter 0's frame_0002.png differs from the unblurred one")
    # The average against this test's own: POV-Ray run here on the four scenes of frame 2, the images
    # decoded from sRGB, averaged and encoded again with numpy (none of blobsim's code).
    renders = []
    for j, name in enumerate(["frame_0002_blur0", "frame_0002_blur1", "frame_0002_blur2", "frame_0002"]):
        subprocess.run(["povray", f"+I{name}.pov", f"+O{tmp}/own{j}.png", "+W64", "+H48", "-A", "+FN", "-D", "-P",
                        "-V"], cwd=blur, capture_output=True, check=True)
        renders.append(np.round(mpimg.imread(f"{tmp}/own{j}.png")[..., :3] * 255) / 255)
    linear = np.mean([np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4) for v in renders], axis=0)
    mine = np.floor(np.where(linear <= 0.0031308, linear * 12.92, 1.055 * linear ** (1 / 2.4) - 0.055) * 255 + 0.5)
    theirs = np.round(mpimg.imread(os.path.join(blur, "frame_0002.png"))[..., :3] * 255)
    if np.abs(mine - theirs).max() > 1:
        fail(f"frame_0002.png differs from the test's own linear-light average by {np.abs(mine - theirs).max()} levels")
    # blobsim render DIR makes the same bytes again.
    again = os.path.join(tmp, "again")
    shutil.copytree(blur, again)
    p = subprocess.run([blobsim, "render", again, "--force", "--quiet", "--threads", "2"], capture_output=True, text=True)
    if p.returncode != 0:
        fail(f"render --force: {p.stderr}")
    for n in ("frame_0001.png", "frame_0002.png", "scene.png"):
        if not filecmp.cmp(os.path.join(blur, n), os.path.join(again, n), shallow=False):
            fail(f"render --force: {n} differs from run --render's")
    # A sample POV-Ray cannot parse: the image fails, named with its sample, and stays as it was.
    before = open(os.path.join(again, "frame_0002.png"), "rb").read()
    with open(os.path.join(again, "frame_0002_blur1.pov"), "a") as f:
        f.write("\nsphere { <0, 0, 0> \n")
    p = subprocess.run([blobsim, "render", again, "--frames", "2", "--quiet"], capture_output=True, text=True)
    if p.returncode == 0 or "frame_0002_blur1.pov" not in p.stderr or "sample 2 of 4" not in p.stderr:
        fail(f"a broken sample: exit {p.returncode}, {p.stderr.strip()!r}")
    if open(os.path.join(again, "frame_0002.png"), "rb").read() != before:
        fail("a broken sample changed frame_0002.png")
    leftovers = [n for n in os.listdir(again) if ".tmp." in n]
    if leftovers:
        fail(f"a broken sample left {leftovers}")
    render_bodies(blobsim, root, tmp)
    render_mesh(blobsim, root, tmp)


def check_row_blur(blur, plain, row, travel, what):
    """Along pixel row `row` of frame_0002.png the blurred image's lit span is the unblurred one's grown
    by `travel` pixels (+-1.5), ending at the same column, with intermediate values over that width."""
    import numpy as np
    import matplotlib.image as mpimg
    a = mpimg.imread(os.path.join(blur, "frame_0002.png"))[row, :, :3].max(axis=1)
    b = mpimg.imread(os.path.join(plain, "frame_0002.png"))[row, :, :3].max(axis=1)
    lit_a, lit_b = np.nonzero(a > 2.5 / 255)[0], np.nonzero(b > 2.5 / 255)[0]
    if len(lit_b) == 0 or len(lit_a) == 0:
        fail(f"{what} does not show on row {row}")
    grown = (lit_a[-1] - lit_a[0]) - (lit_b[-1] - lit_b[0])
    between = np.count_nonzero((a > 2.5 / 255) & (a < 0.9 * b[lit_b].min()))
    if abs(grown - travel) > 1.5 or lit_a[-1] != lit_b[-1] or between < travel - 1.5:
        fail(f"row {row}: {what} blurred spans columns {lit_a[0]}-{lit_a[-1]} ({between} intermediate), the "
             f"unblurred {lit_b[0]}-{lit_b[-1]}: grown by {grown} px, expected its travel {travel:.1f}")


def bar_left(angle, y):
    """The turning bar's left edge (its -x side, 0.04 off its axis) along the row at height y."""
    a = math.radians(angle)
    return (-0.04 - y * math.sin(a)) / math.cos(a)


def render_bodies(blobsim, root, tmp):
    import numpy as np
    import matplotlib.image as mpimg
    config = os.path.join(root, "tests", "motion_blur", "bodies.json")
    blur, plain = os.path.join(tmp, "bblur"), os.path.join(tmp, "bplain")
    run(blobsim, config, blur, "render.motion_blur.samples=8", extra=["--render"])
    c = json.load(open(config))
    del c["render"]["motion_blur"]
    for b in c["environment"]["bodies"]:
        b["file"] = os.path.join(root, "tests", "motion_blur", b["file"])
    json.dump(c, open(os.path.join(tmp, "bplain.json"), "w"))
    run(blobsim, os.path.join(tmp, "bplain.json"), plain, extra=["--render"])
    # Row 15 of 120, at the bar's front face (z = -0.04, 2.96 from the camera): y = 44.5 pixels up.
    pixel = 2 * 2.96 * math.tan(math.radians(20)) / 160
    row, y = 15, (60 - 15 - 0.5) * pixel
    end = 2 * EVERY * DT
    travel = (bar_left(BAR_SPEED * end, y) - bar_left(BAR_SPEED * (end - EVERY * DT), y)) / pixel
    check_row_blur(blur, plain, row, travel, "the bar's edge")
    # Still bodies: the same pixels with and without blur.
    still = still_config(root, tmp)
    sblur, splain = os.path.join(tmp, "sblur"), os.path.join(tmp, "splain")
    run(blobsim, still, sblur, extra=["--render"])
    run(blobsim, still, splain, 'render.motion_blur.shutter_angle=0', extra=["--render"])
    for n in ("frame_0002.png", "scene.png"):
        if not np.array_equal(mpimg.imread(os.path.join(sblur, n)), mpimg.imread(os.path.join(splain, n))):
            fail(f"still bodies: {n} differs with motion blur")


def main():
    blobsim, root, mode = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3]
    tmp = tempfile.mkdtemp(prefix="blobsim-blur-")
    try:
        {"scene": scene_mode, "bodies": bodies_mode, "render": render_mode, "mesh": mesh_mode}[mode](blobsim, root, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"motion blur {mode}: ok")


if __name__ == "__main__":
    main()
