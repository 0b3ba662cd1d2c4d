"""particles.over_life end to end, read back without blobsim's code: a run of tests/resume/resume.json
(particles poured over time, with a lifetime, so their ages differ) with radius, colour and opacity ramps.
  - every frame's cache has red green blue alpha equal to the ramps at the particle's age, worked out
    here from the keys in closed form (linear between keys, held before the first and after the last),
    with ages landing both on keys and between them;
  - every frame_NNNN.pov has one blob component a drawn particle, whose rgbt is that colour with
    transmit 1 - opacity and whose radius is the collision radius x the radius ramp x
    render.blob.radius_scale;
  - with render.surface "mesh", every vertex of the surface has the particles' colours blended by their
    share of the blob field there; with render.blob.cull, the components kept keep their colours;
  - the scenes and caches are the same bytes at 1, 2 and 3 threads, and a run stopped after a frame and
    resumed gives the uninterrupted run's files;
  - bad ramps are refused with the JSON path of the bad value.
    /usr/bin/python3 tests/over_life_test.py BLOBSIM SOURCE_ROOT
"""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cache_test import fail, read_ply  # noqa: E402
from instances_test import run  # noqa: E402

RAMPS = {
    "radius": [{"time": 0, "value": 0.5}, {"time": 0.2, "value": 1.5}],
    "color": [{"time": 0, "value": [1, 0.5, 0]}, {"time": 0.1, "value": [0, 0, 1]},
              {"time": 0.3, "value": [0.2, 0.9, 0.3]}],
    "opacity": [{"time": 0.04, "value": 1}, {"time": 0.3, "value": 0.25}],
}
COMPONENT = re.compile(r"^\tsphere \{ <([^>]*)>, ([^,]*), [^ ]* texture \{ BlobsimParticleTexture "
                       r"pigment \{ rgbt <([^>]*)> \} \} \}$")


def ramp(keys, t):
    """The ramp's value at t (a list), and whether t is on a key (else between keys or outside them)."""
    values = [k["value"] if isinstance(k["value"], list) else [k["value"]] for k in keys]
    if t <= keys[0]["time"]:
        return values[0], abs(t - keys[0]["time"]) < 1e-12
    for a, b, va, vb in zip(keys, keys[1:], values, values[1:]):
        if t < b["time"]:
            u = (t - a["time"]) / (b["time"] - a["time"])
            return [x + u * (y - x) for x, y in zip(va, vb)], abs(t - a["time"]) < 1e-12
    return values[-1], abs(t - keys[-1]["time"]) < 1e-12


def read_cache(path):
    """The cache's properties as numpy arrays (cache_test.py's struct parser)."""
    _, props, _ = read_ply(path)
    return {n: np.array(v) for n, v in props.items()}


def check_components(scene, p, looks, every):
    """Each blob component of scene is a particle of the cache p (the nearest centre) drawn with its look
    (looks[i]: rgb, opacity, component radius); every: one component for each particle not escaped."""
    components = [COMPONENT.match(line) for line in open(scene) if line.startswith("\tsphere {")]
    if any(m is None for m in components):
        fail(f"{scene}: a component without its own colour")
    alive = [i for i in range(len(p["state"])) if p["state"][i] != 2]
    if len(components) != len(alive) if every else not 0 < len(components) <= len(alive):
        fail(f"{scene}: {len(components)} components, {len(alive)} particles not escaped")
    centres = np.array([[p["x"][i], p["y"][i], p["z"][i]] for i in alive])
    for m in components:
        c = np.array([float(v) for v in m.group(1).split(",")])
        i = alive[int(np.argmin(np.sum((centres - c) ** 2, axis=1)))]
        rgb, alpha, radius = looks[i]
        rgbt = [float(v) for v in m.group(3).split(",")]
        if any(abs(g - w) > 2e-6 for g, w in zip(rgbt, rgb + [1 - alpha])):
            fail(f"{scene}: particle {i}'s rgbt {rgbt}, the ramps give {rgb + [1 - alpha]}")
        if abs(float(m.group(2)) - radius) > 1e-8 * radius:
            fail(f"{scene}: particle {i}'s component radius {m.group(2)}, expected {radius}")
    return len(components)


def check_frames(out, config):
    frames = sorted(glob.glob(os.path.join(out, "cache", "frame_*.ply")))
    scale = config["render"].get("blob", {}).get("radius_scale", 1.6)
    on_key = between = drawn = 0
    for path in frames:
        p = read_cache(path)
        for name in ("red", "green", "blue", "alpha"):
            if name not in p:
                fail(f"{path}: no {name} property")
        looks = {}
        for i, age in enumerate(p["age"]):
            rgb, key_c = ramp(RAMPS["color"], age)
            (alpha,), key_a = ramp(RAMPS["opacity"], age)
            (grow,), key_r = ramp(RAMPS["radius"], age)
            on_key += key_c + key_a + key_r
            between += 3 - key_c - key_a - key_r
            got = [p["red"][i], p["green"][i], p["blue"][i], p["alpha"][i]]
            if any(abs(g - w) > 1e-6 for g, w in zip(got, rgb + [alpha])):
                fail(f"{path}: particle {i} of age {age}: colour {got}, the ramps give {rgb + [alpha]}")
            looks[i] = (rgb, alpha, p["radius"][i] * grow * scale)
        scene = os.path.join(out, os.path.basename(path).replace(".ply", ".pov"))
        drawn += check_components(scene, p, looks, every=True)
    if on_key == 0 or between == 0:
        fail(f"the ramps were read {on_key} times at a key and {between} between: both should happen")
    print(f"{len(frames)} frames: {drawn} components and every cached particle's colour are the ramps at "
          f"its age ({on_key} reads at a key, {between} between keys)")
    return frames


def read_surface(path):
    """(vertex positions, palette rgbt, each vertex's palette index) of a mesh2 surface include, read as
    text: vertex_vectors, texture_list and face_indices with a texture index a corner."""
    text = open(path).read()
    vectors = text[text.index("vertex_vectors"):text.index("normal_vectors")]
    positions = np.array([[float(v) for v in m.split(",")] for m in re.findall(r"<([^>]*)>", vectors)])
    palette = np.array([[float(v) for v in m.split(",")] for m in
                        re.findall(r"pigment \{ rgbt <([^>]*)> \}", text[text.index("texture_list"):])])
    faces = text[text.index("face_indices"):]
    vertex_color = {}
    for m in re.finditer(r"<(\d+),(\d+),(\d+)>,(\d+),(\d+),(\d+)", faces):
        for c in range(3):
            vertex_color[int(m.group(1 + c))] = int(m.group(4 + c))
    return positions, palette, vertex_color


def check_mesh(blobsim, config_path, config, work, sets):
    """render.surface "mesh": every vertex's colour is the particles' colours blended by their share of the
    blob field there, S (1 - (d/R)^2)^2, to the 1/255 the palette keeps."""
    out = os.path.join(work, "mesh")
    run(blobsim, config_path, out, *sets, "render.surface=mesh", "output.frame_every=10", threads=2)
    scale = config["render"].get("blob", {}).get("radius_scale", 1.6)
    checked, worst = 0, 0.0
    for path in sorted(glob.glob(os.path.join(out, "cache", "frame_*.ply")))[1:]:
        p = read_cache(path)
        alive = p["state"] != 2
        centres = np.array([p["x"], p["y"], p["z"]]).T[alive]
        ages = p["age"][alive]
        colours = np.array([ramp(RAMPS["color"], a)[0] + ramp(RAMPS["opacity"], a)[0] for a in ages])
        radii = p["radius"][alive] * scale * np.array([ramp(RAMPS["radius"], a)[0][0] for a in ages])
        include = os.path.join(out, os.path.basename(path).replace(".ply", "_surface.inc"))
        positions, palette, vertex_color = read_surface(include)
        for v, k in vertex_color.items():
            q = np.sum((centres - positions[v]) ** 2, axis=1) / radii ** 2
            w = np.where(q < 1, (1 - q) ** 2, 0.0)
            want = w @ colours / np.sum(w)
            want[3] = 1 - want[3]
            # The file's positions are rounded to the grid's decimals: a near-zero weight may move.
            worst = max(worst, np.max(np.abs(palette[k] - want)))
            if np.max(np.abs(palette[k] - want)) > 3 / 255:
                fail(f"{include}: vertex {v}'s rgbt {palette[k]}, the blend of the particles gives {want}")
            checked += 1
    if checked == 0:
        fail(f"{out}: no coloured vertex")
    print(f"render.surface mesh: {checked} vertices coloured as the particles' field-weighted blend (within {worst:.2g})")


def check_cull(blobsim, config_path, work, sets):
    """render.blob.cull leaves components out: those kept keep their own colours."""
    out = os.path.join(work, "cull")
    scale = 3.2  # components that overlap enough for some to be buried
    run(blobsim, config_path, out, *sets, "render.blob.cull=true", f"render.blob.radius_scale={scale}", threads=2)
    p = read_cache(sorted(glob.glob(os.path.join(out, "cache", "frame_*.ply")))[-1])
    looks = {i: (ramp(RAMPS["color"], a)[0], ramp(RAMPS["opacity"], a)[0][0],
                 p["radius"][i] * ramp(RAMPS["radius"], a)[0][0] * scale) for i, a in enumerate(p["age"])}
    kept = check_components(os.path.join(out, "scene.pov"), p, looks, every=False)
    alive = int(np.sum(p["state"] != 2))
    if kept >= alive:
        fail(f"render.blob.cull left out none of {alive} components: the test needs some left out")
    print(f"render.blob.cull: the {kept} components kept of {alive} carry their own particles' colours")


def same_files(a, b, what):
    names = sorted(os.path.relpath(f, a) for f in glob.glob(os.path.join(a, "**", "*.p*"), recursive=True))
    for name in names:
        if open(os.path.join(a, name), "rb").read() != open(os.path.join(b, name), "rb").read():
            fail(f"{what}: {name} differs")
    return len(names)


def check_errors(blobsim, config, work):
    cases = [
        ('particles.over_life.opacity=[{"time":0,"value":1},{"time":0.1,"value":2}]',
         "particles.over_life.opacity[1].value: expected a number from 0 to 1, got 2"),
        ('particles.over_life.color=[{"time":0,"value":[1,-1,0]}]',
         "particles.over_life.color[0].value[1]: expected a number >= 0, got -1"),
        ('particles.over_life.radius=[{"time":0.2,"value":1},{"time":0.1,"value":2}]',
         "particles.over_life.radius[1].time: times must increase from key to key"),
        ("particles.over_life.radius=0", "particles.over_life.radius: expected a number > 0"),
        ("particles.over_life.color=[1,2]", "particles.over_life.color: expected 3 numbers"),
        ('particles.over_life={"size":1}', "particles.over_life.size"),
    ]
    refused(blobsim, config, work, [([o], m) for o, m in cases], "ramps")


def refused(blobsim, config, work, cases, what):
    """Each (overrides, message) of cases refused: exit 1, the message, no output folder."""
    for sets, message in cases:
        result = run(blobsim, config, os.path.join(work, "bad"), *sets, expect_ok=False)
        if result.returncode != 1 or message not in result.stderr:
            fail(f"--set {sets}: exit {result.returncode}, expected 1 and '{message}' in: {result.stderr}")
        if os.path.exists(os.path.join(work, "bad")):
            fail(f"--set {sets}: the refused run left an output folder")
    print(f"{len(cases)} bad {what} refused, each naming its JSON path")


def same_everywhere(blobsim, config_path, work, sets, stop):
    """Runs at 1, 2 and 3 threads and one stopped after frame `stop` and resumed at 2: every scene and cache
    the same bytes. Returns the 1-thread run's folder."""
    outs = []
    for threads in (1, 2, 3):
        outs.append(os.path.join(work, f"t{threads}"))
        run(blobsim, config_path, outs[-1], *sets, threads=threads)
    n = same_files(outs[0], outs[1], "2 threads") + same_files(outs[0], outs[2], "3 threads")
    stopped = os.path.join(work, "stopped")
    result = run(blobsim, config_path, stopped, *sets, extra=("--stop-after-frame", str(stop)), expect_ok=False)
    if f"stopped after frame {stop}" not in result.stderr:
        fail(f"--stop-after-frame {stop}: {result.stderr}")
    resumed = subprocess.run([blobsim, "run", "--resume", stopped, "--quiet", "--threads", "2"],
                             capture_output=True, text=True)
    if resumed.returncode != 0:
        fail(f"--resume failed: {resumed.stderr}")
    n += same_files(outs[0], stopped, f"stopped after frame {stop} and resumed")
    print(f"{n} scenes and caches the same bytes at 1, 2 and 3 threads and after a resume")
    return outs[0]


def main():
    blobsim, source_root = sys.argv[1:3]
    config_path = os.path.join(source_root, "tests", "resume", "resume.json")
    config = json.load(open(config_path))
    ramps = "particles.over_life=" + json.dumps(RAMPS)
    sets = [ramps, "output.frame_every=1", "motion.steps=20"]
    with tempfile.TemporaryDirectory() as work:
        first = same_everywhere(blobsim, config_path, work, sets, 7)
        check_frames(first, config)
        check_mesh(blobsim, config_path, config, work, [ramps, "motion.steps=20"])
        check_cull(blobsim, config_path, work, [ramps, "motion.steps=20"])
        check_errors(blobsim, config_path, work)


if __name__ == "__main__":
    main()
