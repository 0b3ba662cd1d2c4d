"""output.cache read back by other programs: a run of tests/resume/resume.json (granular particles poured
over time, with a lifetime, onto a floor and a deforming paddle), then, by the mode given:
  reader   this test's own parser (struct, nothing of blobsim's): every frame's cache/frame_NNNN.ply has
           the documented header (frame, time, the properties in order) and one record per particle;
           the last frame equals particles.ply (the run's final state: ids and states exactly, the
           rest to particles.ply's float precision); each particle's age is the time since the step
           that emitted it, worked out here from the config's emitters; the same with rotation (epsd2),
           whose caches have the spins wx wy wz after vz in every frame (0 in frame 0);
  meshio   Python's meshio reads every cache (of both runs) with every property equal to the parser's
           (skipped, exit 77, without meshio);
  blender  tools/blender/import_blobsim.py, headless in Blender, imports a cache as a point cloud with
           every property as an attribute (skipped, exit 77, without Blender).
    /usr/bin/python3 tests/cache_test.py BLOBSIM SOURCE_ROOT reader|meshio|blender
"""
import glob
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

SKIP = 77
TYPES = {"uchar": "B", "uint": "I", "float": "f", "double": "d"}
PROPERTIES = [("double", n) for n in ("x", "y", "z", "vx", "vy", "vz", "radius", "age")] + [
    ("uchar", "species"), ("uint", "id"), ("uchar", "state")]
SPIN_PROPERTIES = PROPERTIES[:6] + [("double", n) for n in ("wx", "wy", "wz")] + PROPERTIES[6:]
ROTATION = ["--set", "particles.interaction.rotation=true", "--set", "particles.interaction.rolling_friction=0.1",
            "--set", "particles.interaction.rolling_model=epsd2"]


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def read_ply(path):
    """(header lines, {property: values}, count) of a binary little-endian PLY of scalar vertex
    properties."""
    data = open(path, "rb").read()
    end = data.index(b"end_header\n") + len(b"end_header\n")
    header = data[:end].decode("ascii").splitlines()
    if header[:2] != ["ply", "format binary_little_endian 1.0"]:
        fail(f"{path}: not a binary little-endian PLY: {header[:2]}")
    count, names, codes = 0, [], ""
    for line in header:
        t = line.split()
        if t[0] == "element":
            count = int(t[2])
        elif t[0] == "property":
            names.append(t[2])
            codes += TYPES[t[1]]
    size = struct.calcsize("<" + codes)
    if len(data) != end + count * size:
        fail(f"{path}: {len(data) - end} bytes of records, expected {count} x {size}")
    columns = list(zip(*struct.iter_unpack("<" + codes, data[end:]))) or [()] * len(names)
    return header, {n: list(c) for n, c in zip(names, columns)}, count


def run(blobsim, source_root, out, sets=()):
    config = os.path.join(source_root, "tests", "resume", "resume.json")
    result = subprocess.run([blobsim, "run", config, "-o", out, "--quiet", "--threads", "2", *sets],
                            capture_output=True, text=True)
    if result.returncode != 0:
        fail(f"blobsim run failed ({result.returncode}): {result.stderr}")
    return json.load(open(config))


def birth_times(config, count):
    """Each particle's birth time from the config's emitters, as the world emits them: step after step
    (dt), in each step every emitter in order; a rate emitter's floor(rate (t - start)) born by t, an
    at-once emitter all in the step holding its start (0 here)."""
    dt = config["motion"]["dt"]
    emitters = config["particles"]["emitters"]
    born = [0] * len(emitters)
    births = []
    step = 0
    while len(births) < count:
        t0, t1 = step * dt, (step + 1) * dt
        for k, e in enumerate(emitters):
            if "rate" in e:
                total = int(e["rate"] * (min(t1, e["stop"]) - e.get("start", 0)) + 1e-9)
            else:
                total = e["count"][0] * e["count"][1] * e["count"][2] if step == 0 else born[k]
            births += [t0] * (total - born[k])
            born[k] = total
        step += 1
    return births


def check_reader(out, config, spin=False):
    frames = sorted(glob.glob(os.path.join(out, "cache", "frame_*.ply")))
    steps, every, dt = config["motion"]["steps"], config["output"]["frame_every"], config["motion"]["dt"]
    if len(frames) != steps // every + 1:
        fail(f"{len(frames)} caches, expected {steps // every + 1}: {frames}")
    for f, path in enumerate(frames):
        header, props, n = read_ply(path)
        if f"comment frame {f}" not in header:
            fail(f"{path}: no 'comment frame {f}': {header}")
        time = float([h for h in header if h.startswith("comment time ")][0].split()[2])
        if abs(time - f * every * dt) > 1e-12:
            fail(f"{path}: time {time}, expected {f * every * dt}")
        declared = [tuple(h.split()[1:]) for h in header if h.startswith("property")]
        expected = SPIN_PROPERTIES if spin else PROPERTIES
        if declared != expected:
            fail(f"{path}: properties {declared}, expected {expected}")
        births = birth_times(config, n)
        for i in range(n):
            if props["id"][i] != i or props["species"][i] != 0 or props["state"][i] > 3:
                fail(f"{path}: particle {i}: id {props['id'][i]}, species {props['species'][i]}, "
                     f"state {props['state'][i]}")
            if abs(props["age"][i] - (time - births[i])) > 1e-9:
                fail(f"{path}: particle {i}: age {props['age'][i]}, expected {time - births[i]}")
    # The last frame is the final state: particles.ply's values, which are floats but for x, y, z.
    _, last, n = read_ply(frames[-1])
    _, final, m = read_ply(os.path.join(out, "particles.ply"))
    if n != m:
        fail(f"the last cache has {n} particles, particles.ply {m}")
    for name, values in final.items():
        for i, (a, b) in enumerate(zip(last[name], values)):
            if (struct.unpack("f", struct.pack("f", a))[0] if isinstance(b, float) else a) != b:
                fail(f"particle {i}'s {name}: the cache's {a} is not particles.ply's {b}")
    if spin:
        _, first, _ = read_ply(frames[0])
        if any(w != 0.0 for k in ("wx", "wy", "wz") for w in first[k]):
            fail(f"{frames[0]}: a spin before the first step")
        fastest = max(abs(w) for k in ("wx", "wy", "wz") for w in last[k])
        if not fastest > 1.0 or "wx" not in final:
            fail(f"{frames[-1]}: the particles hardly spin ({fastest} rad/s) or particles.ply has no wx")
    states = sorted(set(last["state"]))
    print(f"{len(frames)} caches of up to {n} particles (states {states}{', spinning' if spin else ''}) read by "
          f"struct; the last is particles.ply; every age is the time since the particle's emission")
    return frames


def check_meshio(frames):
    try:
        import meshio
        import numpy as np
    except ImportError:
        print("skipped: Python's meshio is not installed (Debian: python3-meshio, for /usr/bin/python3)")
        sys.exit(SKIP)
    for path in frames:
        _, props, n = read_ply(path)
        m = meshio.read(path)
        if len(m.points) != n or not np.array_equal(m.points, np.array([props["x"], props["y"], props["z"]]).T):
            fail(f"{path}: meshio's positions differ from the file's")
        for name, values in props.items():
            if name in "xyz":
                continue
            if name not in m.point_data:
                fail(f"{path}: meshio dropped {name} (it has {sorted(m.point_data)})")
            if not np.array_equal(np.asarray(m.point_data[name], dtype=np.float64), np.asarray(values, np.float64)):
                fail(f"{path}: meshio's {name} differs from the file's")
    print(f"meshio read {len(frames)} caches with every property")


def check_blender(out, frames, source_root, work):
    blender = shutil.which("blender")
    if blender is None:
        print("skipped: Blender is not installed (Debian: blender)")
        sys.exit(SKIP)
    script = os.path.join(source_root, "tools", "blender", "import_blobsim.py")
    path = frames[len(frames) // 2]
    summary_path = os.path.join(work, "summary.json")
    result = subprocess.run([blender, "-b", "--factory-startup", "--python-exit-code", "1", "--python", script,
                             "--", out, path, "--no-points", "--keep-axes", "--summary", summary_path],
                            capture_output=True, text=True)
    if result.returncode != 0 or not os.path.isfile(summary_path):
        fail(f"Blender's import failed ({result.returncode}): {(result.stdout + result.stderr)[-1500:]}")
    _, props, n = read_ply(path)
    clouds = [o for o in json.load(open(summary_path)) if o.get("vertices") == n and o.get("faces") == 0]
    if len(clouds) != 1:
        fail(f"no point cloud of {n} particles in Blender's import: {summary_path}")
    p = clouds[0]
    expected = [c for xyz in zip(props["x"], props["y"], props["z"]) for c in xyz]
    if any(abs(a - b) > 1e-6 * (1 + abs(b)) for a, b in zip(p["co"], expected)):
        fail("the point cloud's positions are not the cache's")
    for name, values in props.items():
        if name in "xyz":
            continue
        got = p["attributes"].get(name)
        if got is None or any(abs(a - b) > 1e-6 * (1 + abs(b)) for a, b in zip(got.get("values", []), values)):
            fail(f"the point cloud's {name} is not the cache's: {sorted(p['attributes'])}")
    print(f"Blender imported {os.path.basename(path)}: {n} points with {', '.join(sorted(p['attributes']))}")


def main():
    blobsim, source_root, mode = sys.argv[1:4]
    with tempfile.TemporaryDirectory() as work:
        out = os.path.join(work, "out")
        config = run(blobsim, source_root, out)
        frames = check_reader(out, config)
        if mode in ("reader", "meshio"):
            spin_out = os.path.join(work, "spin")
            run(blobsim, source_root, spin_out, ROTATION)
            frames += check_reader(spin_out, config, spin=True)
        if mode == "meshio":
            check_meshio(frames)
        elif mode == "blender":
            check_blender(out, frames, source_root, work)


if __name__ == "__main__":
    main()
