"""Other tools open blobsim's outputs: a mesh-mode run of the tiny scene (tests/run/) with OBJ and PLY
surface files, then, by the mode given (each skipped, exit 77, when its tool is absent):
  assimp   `assimp info --raw` reads particles.ply and every non-empty surface OBJ and PLY with the right
           vertex and face counts, and `assimp info` (with its validation) loads every surface;
  meshio   Python's meshio reads particles.ply with every property (positions, radius, velocity, state,
           id) equal to the file's, and every surface OBJ and PLY with its vertices, normals and triangles;
  blender  tools/blender/import_blobsim.py, run headless in Blender, loads particles.ply as a point cloud
           with every property as an attribute, and the scene's and every frame's surface;
  reader   the import script's PLY reader alone (no Blender): float and double properties by name,
           ascii and both binary byte orders.
The file's values come from a reader of this test's own (binary PLY, properties by name and type).
    /usr/bin/python3 tests/interop_test.py BLOBSIM TESTS_RUN_DIR SOURCE_ROOT assimp|meshio|blender|reader
"""
import glob
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

SKIP = 77
TYPES = {"char": "b", "int8": "b", "uchar": "B", "uint8": "B", "short": "h", "int16": "h", "ushort": "H",
         "uint16": "H", "int": "i", "int32": "i", "uint": "I", "uint32": "I", "float": "f", "float32": "f",
         "double": "d", "float64": "d"}


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def read_ply(path):
    """(vertex properties {name: list}, vertex count, face count) of a binary little-endian PLY whose
    vertex element has scalar properties only."""
    data = open(path, "rb").read()
    end = data.index(b"end_header\n") + len(b"end_header\n")
    header = data[:end].decode().splitlines()
    assert "format binary_little_endian 1.0" in header, header
    counts, names, codes, element = {}, [], "", None
    for line in header:
        t = line.split()
        if t[0] == "element":
            element = t[1]
            counts[element] = int(t[2])
        elif t[0] == "property" and element == "vertex":
            names.append(t[2])
            codes += TYPES[t[1]]
    records = struct.iter_unpack("<" + codes, data[end:end + counts["vertex"] * struct.calcsize("<" + codes)])
    columns = list(zip(*records)) or [()] * len(names)
    return {n: list(c) for n, c in zip(names, columns)}, counts["vertex"], counts.get("face", 0)


def read_obj_counts(path):
    v = vn = f = 0
    for line in open(path):
        v += line.startswith("v ")
        vn += line.startswith("vn ")
        f += line.startswith("f ")
    return v, vn, f


def run_blobsim(blobsim, run_dir, out):
    subprocess.run([blobsim, "run", os.path.join(run_dir, "tiny.json"), "-o", out, "--quiet",
                    "--set", 'render.surface="mesh"', "--set", 'render.surface_files=["obj", "ply"]'], check=True)
    surfaces = sorted(glob.glob(os.path.join(out, "*_surface.obj")) + glob.glob(os.path.join(out, "*_surface.ply")))
    if len(surfaces) != 8:
        fail(f"expected 4 OBJ and 4 PLY surfaces, got {surfaces}")
    return surfaces


def surface_counts(path):
    """(vertices, triangles) by the file's own text or header."""
    if path.endswith(".obj"):
        v, vn, f = read_obj_counts(path)
        if vn != v:
            fail(f"{path}: {v} vertices but {vn} normals")
        return v, f
    _, v, f = read_ply(path)
    return v, f


def assimp_counts(path, raw):
    result = subprocess.run(["assimp", "info", path] + (["--raw"] if raw else []), capture_output=True, text=True)
    text = result.stdout + result.stderr
    found = {k: int(v) for k, v in re.findall(r"^(Vertices|Faces):\s+(\d+)", text, re.M)}
    if result.returncode != 0 or "Vertices" not in found or "ERROR" in text:
        fail(f"assimp cannot read {path}: {text[-600:]}")
    return found["Vertices"], found["Faces"]


def check_assimp(out, surfaces):
    if shutil.which("assimp") is None:
        print("skipped: assimp is not installed (Debian: assimp-utils)")
        sys.exit(SKIP)
    particles, n, _ = read_ply(os.path.join(out, "particles.ply"))
    if assimp_counts(os.path.join(out, "particles.ply"), raw=True) != (n, 0):
        fail(f"assimp reads particles.ply as {assimp_counts(os.path.join(out, 'particles.ply'), True)}, not {n} points")
    checked = 0
    for path in surfaces:
        v, t = surface_counts(path)
        if t == 0:
            print(f"{os.path.basename(path)}: no triangles, which assimp refuses to load (no mesh): not checked")
            continue
        rv, rt = assimp_counts(path, raw=True)
        # assimp's OBJ importer gives every face corner its own vertex; its PLY importer keeps the file's.
        expected = (3 * t if path.endswith(".obj") else v, t)
        if (rv, rt) != expected:
            fail(f"assimp reads {path} as {rv} vertices, {rt} faces; expected {expected}")
        if assimp_counts(path, raw=False)[1] != t:
            fail(f"assimp's validated import of {path} has another face count")
        checked += 1
    print(f"assimp read particles.ply ({n} points) and {checked} surfaces with the right counts")


def check_meshio(out, surfaces):
    try:
        import meshio
        import numpy as np
    except ImportError:
        print("skipped: Python's meshio is not installed (Debian: python3-meshio, for /usr/bin/python3)")
        sys.exit(SKIP)
    props, n, _ = read_ply(os.path.join(out, "particles.ply"))
    m = meshio.read(os.path.join(out, "particles.ply"))
    if len(m.points) != n or not np.array_equal(m.points, np.array([props["x"], props["y"], props["z"]]).T):
        fail("meshio's particle positions differ from the file's")
    for name, values in props.items():
        if name in "xyz":
            continue
        if name not in m.point_data:
            fail(f"meshio dropped the particles' {name} (it has {sorted(m.point_data)})")
        if not np.array_equal(np.asarray(m.point_data[name], dtype=np.float64), np.asarray(values, dtype=np.float64)):
            fail(f"meshio's particle {name} differs from the file's")
    for required in ("radius", "vx", "vy", "vz", "state", "id"):
        if required not in props:
            fail(f"particles.ply has no {required}")
    meshes = {}
    for path in surfaces:
        v, t = surface_counts(path)
        m = meshio.read(path)
        triangles = sum(len(c.data) for c in m.cells if c.type == "triangle")
        normals = m.point_data.get("obj:vn") if path.endswith(".obj") else (
            np.stack([m.point_data[k] for k in ("nx", "ny", "nz")], axis=1) if "nx" in m.point_data else None)
        if len(m.points) != v or triangles != t or (v > 0 and (normals is None or len(normals) != v)):
            fail(f"meshio reads {path} as {len(m.points)} vertices, {triangles} triangles, normals "
                 f"{None if normals is None else len(normals)}; expected {v}, {t}")
        meshes[path] = m
    for path in surfaces:
        if path.endswith(".obj") and len(meshes[path].points) > 0:
            # The OBJ's fixed-point positions are the PLY's to the OBJ's decimals (at most 1e-4 here).
            ply = meshes[path[:-4] + ".ply"]
            if np.abs(meshes[path].points - ply.points).max() > 1e-4:
                fail(f"{path}'s positions differ from its PLY's")
    print(f"meshio read particles.ply ({n} points, {', '.join(p for p in props if p not in 'xyz')}) and "
          f"{len(surfaces)} surfaces")


def check_blender(out, surfaces, source_root, work):
    blender = shutil.which("blender")
    if blender is None:
        print("skipped: Blender is not installed (Debian: blender)")
        sys.exit(SKIP)
    script = os.path.join(source_root, "tools", "blender", "import_blobsim.py")
    summary_path = os.path.join(work, "summary.json")
    result = subprocess.run([blender, "-b", "--factory-startup", "--python-exit-code", "1", "--python", script,
                             "--", out, "--frames", "--summary", summary_path, "--save",
                             os.path.join(work, "scene.blend")], capture_output=True, text=True)
    if result.returncode != 0 or not os.path.isfile(summary_path):
        fail(f"Blender's import failed ({result.returncode}): {(result.stdout + result.stderr)[-1500:]}")
    objects = {o["name"]: o for o in json.load(open(summary_path))}
    props, n, _ = read_ply(os.path.join(out, "particles.ply"))
    p = objects.get("particles")
    if p is None or p["vertices"] != n or p["faces"] != 0:
        fail(f"no point cloud of {n} particles: {list(objects)}")
    # Positions turned Y-up to Blender's Z-up: (x, y, z) -> (x, -z, y).
    expected = [c for x, y, z in zip(props["x"], props["y"], props["z"]) for c in (x, -z, y)]
    if any(abs(a - b) > 1e-6 * (1 + abs(b)) for a, b in zip(p["co"], expected)):
        fail("the point cloud's positions are not the file's, turned to Z-up")
    for name, values in props.items():
        if name in "xyz":
            continue
        got = p["attributes"].get(name)
        if got is None or len(got.get("values", [])) != n:
            fail(f"the point cloud has no attribute {name} of {n} values: {sorted(p['attributes'])}")
        if any(abs(a - b) > 1e-6 * (1 + abs(b)) for a, b in zip(got["values"], values)):
            fail(f"the point cloud's {name} differs from the file's")
    for name, kind in (("state", "INT"), ("id", "INT"), ("radius", "FLOAT"), ("velocity", "FLOAT_VECTOR")):
        if p["attributes"].get(name, {}).get("type") != kind:
            fail(f"the point cloud's {name} is not an {kind} attribute: {p['attributes'].get(name)}")
    velocity = [c for x, y, z in zip(props["vx"], props["vy"], props["vz"]) for c in (x, -z, y)]
    if any(abs(a - b) > 1e-6 * (1 + abs(b)) for a, b in zip(p["attributes"]["velocity"]["values"], velocity)):
        fail("the point cloud's velocity is not vx, vy, vz turned to Z-up")
    if "blobsim points" not in p["modifiers"]:
        fail("the point cloud has no points modifier")
    for stem in ("scene_surface", "frame_0000_surface", "frame_0001_surface", "frame_0002_surface"):
        v, t = surface_counts(os.path.join(out, stem + ".ply"))
        o = objects.get(stem)
        if o is None or (o["vertices"], o["faces"]) != (v, t):
            fail(f"{stem}: expected {v} vertices and {t} faces in Blender, got {o and (o['vertices'], o['faces'])}")
        if stem.startswith("frame") and not (o["collection"] == "blobsim frames" and o["animated"]):
            fail(f"{stem} is not a keyed frame of the collection 'blobsim frames': {o}")
    print(f"Blender imported {n} particles with {', '.join(sorted(p['attributes']))} and 4 surfaces")


def check_reader(source_root):
    """The import script's PLY reader without Blender: properties by name, float or double, in ascii and
    both binary byte orders, lists skipped past or read (the surface's faces)."""
    try:
        import numpy as np
    except ImportError:
        print("skipped: numpy is not installed (Debian: python3-numpy, for /usr/bin/python3)")
        sys.exit(SKIP)
    sys.path.insert(0, os.path.join(source_root, "tools", "blender"))
    import import_blobsim
    points = [(583456.125, 0.5, 5812345.0625, 7, 4000000000), (-1.25, 2.0, 3.5, 2, 1)]
    header = ("ply\nformat {fmt} 1.0\nelement vertex 2\nproperty double x\nproperty float y\n"
              "property double z\nproperty uchar state\nproperty uint id\nelement face 1\n"
              "property list uchar int vertex_indices\nend_header\n")
    files = {"ascii": "".join(f"{x!r} {y!r} {z!r} {s} {i}\n" for x, y, z, s, i in points).encode() + b"3 0 1 0\n"}
    for fmt, order in (("binary_little_endian", "<"), ("binary_big_endian", ">")):
        files[fmt] = b"".join(struct.pack(order + "dfdBI", *p) for p in points) + struct.pack(order + "B3i", 3, 0, 1, 0)
    with tempfile.TemporaryDirectory() as work:
        for fmt, body in files.items():
            path = os.path.join(work, fmt + ".ply")
            open(path, "wb").write(header.format(fmt=fmt).encode() + body)
            ply = import_blobsim.read_ply(path)
            vertex = ply["vertex"]
            for k, name in enumerate(("x", "y", "z", "state", "id")):
                if [float(v) for v in vertex[name]] != [float(p[k]) for p in points]:
                    fail(f"the import script's reader, {fmt}: {name} is {list(vertex[name])}")
            if vertex["x"].dtype != np.float64 or np.asarray(ply["face"]["vertex_indices"]).tolist() != [[0, 1, 0]]:
                fail(f"the import script's reader, {fmt}: doubles narrowed or faces lost: {ply}")
    print("the import script's reader takes float and double properties by name, ascii and binary")


def main():
    blobsim, run_dir, source_root, mode = sys.argv[1:5]
    if mode == "reader":
        check_reader(source_root)
        print("ok")
        return
    work = tempfile.mkdtemp()
    try:
        out = os.path.join(work, "out")
        surfaces = run_blobsim(os.path.abspath(blobsim), run_dir, out)
        if mode == "assimp":
            check_assimp(out, surfaces)
        elif mode == "meshio":
            check_meshio(out, surfaces)
        elif mode == "blender":
            check_blender(out, surfaces, source_root, work)
        else:
            fail(f"unknown mode {mode}")
    finally:
        shutil.rmtree(work)
    print("ok")


if __name__ == "__main__":
    main()
