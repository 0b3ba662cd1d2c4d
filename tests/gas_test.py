"""render.gas and motion.buoyancy: the particles drawn as a density grid of POV-Ray media.
  scene   a run of tests/gas/gas.json (two emitters, so two ages; growth, fading and buoyancy on) with
          output.cache: the df3 file the scene names is read back (its own parser: three big-endian
          sizes, then big-endian 16-bit fractions of the peak) and checked against this test's own splat
          of the cached particles (numpy: puff radius radius_scale r (1 + growth age), density
          density exp(-age / fade), d (1 - |x - c| / r) summed at the cells' centres) within the
          file's rounding; the particles rise; the same bytes at 1 and 2 threads; bad values fail
          naming the JSON path and leave no output. With render.motion_blur each sample scene's
          grid is the same splat of the particles at the sample's step (a per-step cache).
  render  the run rendered by POV-Ray at 64x48 with --render (skipped, exit 77, without povray): no
          parse error or warning, and the gas changes pixels of the scene rendered without it.
    /usr/bin/python3 tests/gas_test.py BLOBSIM SOURCE_ROOT scene|render
"""
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

import numpy as np

from instances_test import read_ply  # a PLY reader of the tests' own, not blobsim's

SKIP = 77
NUMBER = r"(-?[0-9.]+(?:e[-+]?[0-9]+)?)"


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def read_df3(path):
    data = open(path, "rb").read()
    nx, ny, nz = struct.unpack(">HHH", data[:6])
    if len(data) != 6 + 2 * nx * ny * nz:
        fail(f"{path}: {len(data)} bytes for {nx} x {ny} x {nz} 16-bit cells")
    values = np.frombuffer(data[6:], dtype=">u2").astype(np.float64) / 65535.0
    return values.reshape(nz, ny, nx)


def run(blobsim, config, out, *sets, threads=1, extra=()):
    args = [blobsim, "run", config, "-o", out, "--quiet", "--threads", str(threads), *extra]
    for s in sets:
        args += ["--set", s]
    return subprocess.run(args, capture_output=True, text=True)


def gas_box(scene):
    """(file, peak, lo, size) of the scene's gas box."""
    m = re.search(r'#declare BlobsimGasPeak = ' + NUMBER + r';.*?density_file df3 "([^"]+)".*?scale <([^>]*)>\s*'
                  r'translate <([^>]*)>', scene, re.S)
    if m is None:
        fail("no gas box in the scene")
    size = np.array([float(x) for x in m.group(3).split(",")])
    lo = np.array([float(x) for x in m.group(4).split(",")])
    return m.group(2), float(m.group(1)), lo, size


def splat(p, gas, lo, cell, shape):
    """The test's own density grid of the cached particles p on cells of side cell from lo."""
    nz, ny, nx = shape
    xs = lo[0] + (np.arange(nx) + 0.5) * cell
    ys = lo[1] + (np.arange(ny) + 0.5) * cell
    zs = lo[2] + (np.arange(nz) + 0.5) * cell
    Z, Y, X = np.meshgrid(zs, ys, xs, indexing="ij")
    grid = np.zeros(shape)
    for i in range(len(p["x"])):
        if p["state"][i] == 2:  # escaped: not drawn
            continue
        age = max(p["age"][i], 0.0)
        r = gas["radius_scale"] * p["radius"][i] * (1 + gas["growth"] * age)
        d = gas["density"] * np.exp(-age / gas["fade"])
        dist = np.sqrt((X - p["x"][i]) ** 2 + (Y - p["y"][i]) ** 2 + (Z - p["z"][i]) ** 2)
        grid += d * np.maximum(0.0, 1.0 - dist / r)
    return grid


def check_scene(blobsim, root, work):
    import json
    config = os.path.join(root, "tests", "gas", "gas.json")
    gas = json.load(open(config))["render"]["gas"]
    outs = []
    for threads in (1, 2):
        out = os.path.join(work, f"t{threads}")
        r = run(blobsim, config, out, "output.cache=true", threads=threads)
        if r.returncode != 0:
            fail(f"run at {threads} threads: {r.stderr}")
        outs.append(out)
    for name in sorted(os.listdir(outs[0])):
        a, b = os.path.join(outs[0], name), os.path.join(outs[1], name)
        if name.endswith((".pov", ".df3", ".ply")) and open(a, "rb").read() != open(b, "rb").read():
            fail(f"{name} differs between 1 and 2 threads")
    out = outs[0]
    frames = sorted(f for f in os.listdir(os.path.join(out, "cache")))
    p = read_ply(os.path.join(out, "cache", frames[-1]))
    if len(set(np.round(p["age"], 9))) < 2:
        fail(f"the particles have one age: {set(p['age'])}")
    if not np.all(p["vy"] > 0):
        fail(f"not every particle rises: vy {p['vy'].min()}")
    scene = open(os.path.join(out, "scene.pov")).read()
    name, peak, lo, size = gas_box(scene)
    if not re.fullmatch(r"gas_[0-9a-f]{16}\.df3", name) or name not in open(os.path.join(out, "outputs.txt")).read():
        fail(f"{name}: not a listed gas_HASH.df3")
    values = read_df3(os.path.join(out, name)) * peak
    cell = size[0] / values.shape[2]
    if np.max(np.abs(size - cell * np.array(values.shape[::-1]))) > 1e-6 * cell:
        fail(f"the box {size} is not {values.shape[::-1]} cubic cells of {cell}")
    want = splat(p, gas, lo, cell, values.shape)
    error = np.max(np.abs(values - want))
    # The file's rounding (half a 1/65535 of the peak) plus the scene's rounding of the box (9 digits).
    if error > peak / 65535 * 0.5 + 1e-6 * peak:
        fail(f"the grid differs from the particles' puffs by {error} (peak {peak})")
    if abs(want.max() - peak) > 1e-6 * peak:
        fail(f"peak {peak}, the splat's largest {want.max()}")
    # Each frame names its own grid; frame 0 has no particles yet... or some: every frame's file exists.
    for f in sorted(os.listdir(out)):
        if f.startswith("frame_") and f.endswith(".pov"):
            m = re.search(r'density_file df3 "([^"]+)"', open(os.path.join(out, f)).read())
            if m is not None and not os.path.isfile(os.path.join(out, m.group(1))):
                fail(f"{f} names {m.group(1)}, which is not there")
    bad = [
        ("render.gas.density=-1", "render.gas.density"),
        ("render.gas.resolution=4", "render.gas.resolution"),
        ('render.gas.colour=[1, 0, 0]', "render.gas.colour"),
        ('render.gas.color=[1, 2, 0]', "render.gas.color"),
        ('render.instances={"object": "leaf"}', "render.gas"),
        ('render.surface="mesh"', "render.gas"),
        ("motion.buoyancy.decay=-1", "motion.buoyancy.decay"),
        ('motion.buoyancy={"decay": 1}', "motion.buoyancy: missing required key 'acceleration'"),
        ('particles.over_life={"radius": 2}', "render.gas: draws one set of particles in one material: "
         "it cannot go with particles.over_life"),
    ]
    for s, path in bad:
        target = os.path.join(work, "bad")
        r = run(blobsim, config, target, s)
        if r.returncode == 0 or path not in r.stderr:
            fail(f"--set {s}: exit {r.returncode}, expected an error naming {path}: {r.stderr}")
        if os.path.exists(target) and os.listdir(target):
            fail(f"--set {s}: left {os.listdir(target)}")
    print(f"scene: {values.size} cells, largest difference {error:.3g} of peak {peak:.4g}; 1 and 2 threads the same")
    check_blur(blobsim, config, gas, work)


def check_grid(out, scene_name, p, gas):
    """The df3 grid scene_name names against the test's own splat of the particles p; the largest
    difference and the peak."""
    name, peak, lo, size = gas_box(open(os.path.join(out, scene_name)).read())
    values = read_df3(os.path.join(out, name)) * peak
    want = splat(p, gas, lo, size[0] / values.shape[2], values.shape)
    error = np.max(np.abs(values - want))
    if error > peak / 65535 * 0.5 + 1e-6 * peak:
        fail(f"{scene_name}: the grid differs from the particles' puffs by {error} (peak {peak})")
    return name


def check_blur(blobsim, config, gas, work):
    """render.gas with render.motion_blur (a 360-degree shutter over 5-step frames, 6 samples: one a
    step): each sample scene names its own grid, the puffs of the particles where they are and as old
    as they are at its step, as the per-step cache of the same run (without blur) has them."""
    blur, steps = os.path.join(work, "blur"), os.path.join(work, "steps")
    for out, sets in ((blur, ['render.motion_blur={"shutter_angle": 360, "samples": 6}']),
                      (steps, ["output.frame_every=1", "output.cache=true"])):
        r = run(blobsim, config, out, *sets)
        if r.returncode != 0:
            fail(f"run {sets}: {r.stderr}")
    names = set()
    for j in range(5):
        p = read_ply(os.path.join(steps, "cache", f"frame_{5 + j:04d}.ply"))
        names.add(check_grid(blur, f"frame_0002_blur{j}.pov", p, gas))
    if len(names) != 5:
        fail(f"the samples share grids: {sorted(names)}")
    print("motion blur: each sample's grid is the particles' puffs at its step")


def check_render(blobsim, root, work):
    if shutil.which("povray") is None:
        print("povray not found: skipped")
        sys.exit(SKIP)
    config = os.path.join(root, "tests", "gas", "gas.json")
    images = []
    for label, sets in (("gas", []), ("none", ["particles.emitters=[]"])):
        out = os.path.join(work, label)
        r = run(blobsim, config, out, "render.width=64", "render.height=48", *sets, extra=["--render"])
        log_path = os.path.join(out, "render.log")
        log = open(log_path).read() if os.path.exists(log_path) else ""
        if r.returncode != 0 or "Parse Error" in log or re.search(r"\bWarning:", log):
            fail(f"the {label} run and render ({r.returncode}): {r.stderr} {log[-2000:]}")
        images.append(open(os.path.join(out, "scene.png"), "rb").read())
    if images[0] == images[1]:
        fail("the gas changes no pixel")
    print("render: parsed and traced without warnings; the gas shows")


def main():
    if len(sys.argv) != 4 or sys.argv[3] not in ("scene", "render"):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    blobsim, root, mode = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3]
    with tempfile.TemporaryDirectory() as work:
        (check_scene if mode == "scene" else check_render)(blobsim, root, work)


if __name__ == "__main__":
    main()
