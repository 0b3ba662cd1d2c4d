"""Imports blobsim's outputs into Blender (written for Debian's Blender 3.4; uses bpy and numpy only).

    blender --python tools/blender/import_blobsim.py -- OUT_DIR [FILES...] [--frames] [--keep-axes]
                                                       [--no-points] [--save FILE.blend] [--summary FILE.json]
    blender -b --factory-startup --python-exit-code 1 --python tools/blender/import_blobsim.py -- out/slime \
        --save slime.blend

What it loads:
  particles.ply (or any PLY without faces)  a point cloud: a mesh of vertices only, named after the file,
      with every property of the file's vertices as a point attribute of the same name (radius, vx, vy,
      vz, state, id and whatever else the file holds; integer properties as INT attributes, the others
      as FLOAT), and `velocity`, a vector attribute of vx, vy, vz in Blender's axes. A Geometry Nodes
      modifier ("blobsim points") turns the vertices into points of their `radius`, so they render as
      spheres; Blender's own PLY importer keeps the positions only.
  NAME_surface.ply / NAME_surface.obj       the particles' surface mesh (render.surface "mesh" with
      render.surface_files): triangles with the file's per-vertex normals as custom normals. A folder
      gives scene_surface.ply, else scene_surface.obj.
  --frames                                  also every frame_NNNN_surface (PLY, else OBJ) of the folder,
      in a collection "blobsim frames", each object shown on Blender frame NNNN only (keyed visibility).

Properties are found by name, of any PLY numeric type (char ... double, also int8 ... float64), in ascii
or binary of either byte order, so double positions read as well as floats (Blender keeps floats).
blobsim's scenes are Y-up (POV-Ray's convention) and Blender's Z-up: positions, velocities and normals
are turned as Blender's OBJ importer turns a Y-up file, (x, y, z) -> (x, -z, y); --keep-axes keeps them.
The scalar attributes vx, vy, vz stay as the file has them.

--summary FILE.json writes what was imported (objects, counts, attributes; the values of point clouds
of up to 100,000 points), for tests.
"""

import json
import os
import re
import sys

import numpy as np

try:
    import bpy
except ImportError:  # the PLY and OBJ readers work without Blender
    bpy = None

_PLY_TYPES = {
    "char": "i1", "int8": "i1", "uchar": "u1", "uint8": "u1",
    "short": "i2", "int16": "i2", "ushort": "u2", "uint16": "u2",
    "int": "i4", "int32": "i4", "uint": "u4", "uint32": "u4",
    "float": "f4", "float32": "f4", "double": "f8", "float64": "f8",
}


class PlyError(Exception):
    pass


def _ply_header(data, path):
    end = data.find(b"end_header")
    if not data.startswith(b"ply") or end < 0:
        raise PlyError(f"{path}: not a PLY file")
    body = data.index(b"\n", end) + 1
    fmt, elements = None, []
    for number, line in enumerate(data[:end].decode("ascii", "replace").splitlines(), 1):
        t = line.split()
        if not t or t[0] in ("ply", "comment", "obj_info"):
            continue
        if t[0] == "format":
            fmt = t[1]
        elif t[0] == "element":
            elements.append({"name": t[1], "count": int(t[2]), "properties": []})
        elif t[0] == "property" and elements:
            if t[1] == "list":
                if t[2] not in _PLY_TYPES or t[3] not in _PLY_TYPES:
                    raise PlyError(f"{path}:{number}: unknown list type")
                elements[-1]["properties"].append((t[4], None, _PLY_TYPES[t[2]], _PLY_TYPES[t[3]]))
            elif t[1] in _PLY_TYPES:
                elements[-1]["properties"].append((t[2], _PLY_TYPES[t[1]], None, None))
            else:
                raise PlyError(f"{path}:{number}: unknown property type '{t[1]}'")
    if fmt not in ("ascii", "binary_little_endian", "binary_big_endian"):
        raise PlyError(f"{path}: unknown format '{fmt}'")
    return fmt, elements, body


def _read_binary_element(data, at, element, order):
    """An element's properties as {name: array} (lists: an (n, k) array when every list has k items)."""
    props, n = element["properties"], element["count"]
    if all(p[1] is not None for p in props):
        dtype = np.dtype([(p[0], order + p[1]) for p in props])
        table = np.frombuffer(data, dtype=dtype, count=n, offset=at)
        return {p[0]: table[p[0]].astype(p[1]) for p in props}, at + n * dtype.itemsize  # native order
    if len(props) == 1 and n > 0:
        # One list (the surface's faces): try records of one count and k items each.
        name, _, count_type, item_type = props[0]
        k = int(np.frombuffer(data, order + count_type, 1, at)[0])
        dtype = np.dtype([("n", order + count_type), ("i", order + item_type, (k,))])
        if at + n * dtype.itemsize <= len(data):
            table = np.frombuffer(data, dtype=dtype, count=n, offset=at)
            if np.all(table["n"] == k):
                return {name: table["i"].reshape(n, k).astype(item_type)}, at + n * dtype.itemsize
    # Walk the records.
    out = {p[0]: [] for p in props}
    for _ in range(n):
        for name, scalar, count_type, item_type in props:
            if scalar is not None:
                v = np.frombuffer(data, order + scalar, 1, at)[0]
                at += np.dtype(scalar).itemsize
            else:
                k = int(np.frombuffer(data, order + count_type, 1, at)[0])
                at += np.dtype(count_type).itemsize
                v = np.frombuffer(data, order + item_type, k, at)
                at += k * np.dtype(item_type).itemsize
            out[name].append(v)
    return {p[0]: out[p[0]] if p[1] is None else np.array(out[p[0]]) for p in props}, at


def _read_ascii_element(lines, element):
    props = element["properties"]
    out = {p[0]: [] for p in props}
    for _ in range(element["count"]):
        t = next(lines).split()
        i = 0
        for name, scalar, count_type, _item in props:
            if scalar is not None:
                out[name].append(float(t[i]) if scalar[0] == "f" else int(t[i]))
                i += 1
            else:
                k = int(t[i])
                out[name].append(np.array([int(x) for x in t[i + 1:i + 1 + k]], dtype=np.int64))
                i += 1 + k
    return {p[0]: out[p[0]] if p[1] is None else np.array(out[p[0]], dtype=p[1]) for p in props}


def read_ply(path):
    """{element name: {property name: numpy array}}, every element and property of the file."""
    with open(path, "rb") as f:
        data = f.read()
    fmt, elements, at = _ply_header(data, path)
    result = {}
    if fmt == "ascii":
        lines = iter(data[at:].decode("ascii").splitlines())
        for e in elements:
            result[e["name"]] = _read_ascii_element(lines, e)
        return result
    order = "<" if fmt == "binary_little_endian" else ">"
    for e in elements:
        try:
            result[e["name"]], at = _read_binary_element(data, at, e, order)
        except ValueError as error:
            raise PlyError(f"{path}: element {e['name']}: the file is too short ({error})")
    return result


def read_obj(path):
    """(positions (n, 3), normals (n, 3) or None, triangles (m, 3), 0-based): the surface's OBJ
    (`v`, `vn` one per `v`, `f a//a b//b c//c`; polygons are fanned)."""
    v, vn, faces = [], [], []
    with open(path) as f:
        for line in f:
            t = line.split()
            if not t:
                continue
            if t[0] == "v":
                v.append([float(x) for x in t[1:4]])
            elif t[0] == "vn":
                vn.append([float(x) for x in t[1:4]])
            elif t[0] == "f":
                idx = [int(x.split("/")[0]) for x in t[1:]]
                idx = [i - 1 if i > 0 else len(v) + i for i in idx]
                faces.extend([idx[0], idx[k], idx[k + 1]] for k in range(1, len(idx) - 1))
    positions = np.array(v, dtype=np.float64).reshape(-1, 3)
    normals = np.array(vn, dtype=np.float64).reshape(-1, 3) if len(vn) == len(v) and vn else None
    return positions, normals, np.array(faces, dtype=np.int64).reshape(-1, 3)


def to_blender_axes(xyz, keep_axes):
    """blobsim's Y-up (x, y, z) as Blender's Z-up (x, -z, y), as Blender's OBJ importer turns Y-up."""
    xyz = np.asarray(xyz, dtype=np.float64).reshape(-1, 3)
    return xyz.copy() if keep_axes else np.stack([xyz[:, 0], -xyz[:, 2], xyz[:, 1]], axis=1)


def _columns(vertex, names):
    return np.stack([np.asarray(vertex[n], dtype=np.float64) for n in names], axis=1)


# --- Blender ---

def _new_object(name, mesh, collection):
    obj = bpy.data.objects.new(name, mesh)
    collection.objects.link(obj)
    return obj


def _add_attribute(mesh, name, values, keep_int):
    values = np.asarray(values)
    if values.ndim == 2:
        a = mesh.attributes.new(name, "FLOAT_VECTOR", "POINT")
        a.data.foreach_set("vector", values.astype(np.float32).ravel())
    elif keep_int and values.dtype.kind in "iu" and (values.size == 0 or values.max() < 2**31):
        a = mesh.attributes.new(name, "INT", "POINT")
        a.data.foreach_set("value", values.astype(np.int32))
    else:
        a = mesh.attributes.new(name, "FLOAT", "POINT")
        a.data.foreach_set("value", values.astype(np.float32))


def _points_modifier(obj, has_radius):
    """Geometry Nodes: the vertices as points of their radius (Mesh to Points)."""
    tree = bpy.data.node_groups.new("blobsim points", "GeometryNodeTree")
    tree.inputs.new("NodeSocketGeometry", "Geometry")
    tree.outputs.new("NodeSocketGeometry", "Geometry")
    nodes, links = tree.nodes, tree.links
    source, sink = nodes.new("NodeGroupInput"), nodes.new("NodeGroupOutput")
    points = nodes.new("GeometryNodeMeshToPoints")
    links.new(source.outputs[0], points.inputs["Mesh"])
    links.new(points.outputs[0], sink.inputs[0])
    if has_radius:
        radius = nodes.new("GeometryNodeInputNamedAttribute")
        radius.data_type = "FLOAT"
        radius.inputs["Name"].default_value = "radius"
        links.new(radius.outputs["Attribute"], points.inputs["Radius"])
    modifier = obj.modifiers.new("blobsim points", "NODES")
    modifier.node_group = tree


def import_particles(path, keep_axes=False, points=True, collection=None):
    """particles.ply as a vertex-only mesh with every vertex property as a point attribute."""
    vertex = read_ply(path).get("vertex")
    if vertex is None or not all(k in vertex for k in "xyz"):
        raise PlyError(f"{path}: no vertex element with x, y, z")
    name = os.path.splitext(os.path.basename(path))[0]
    mesh = bpy.data.meshes.new(name)
    co = to_blender_axes(_columns(vertex, "xyz"), keep_axes)
    mesh.vertices.add(len(co))
    mesh.vertices.foreach_set("co", co.astype(np.float32).ravel())
    for key, values in vertex.items():
        if key not in ("x", "y", "z") and np.asarray(values).ndim == 1:
            _add_attribute(mesh, key, values, keep_int=True)
    if all(k in vertex for k in ("vx", "vy", "vz")):
        _add_attribute(mesh, "velocity", to_blender_axes(_columns(vertex, ("vx", "vy", "vz")), keep_axes), False)
    mesh.update()
    obj = _new_object(name, mesh, collection or bpy.context.scene.collection)
    if points:
        _points_modifier(obj, "radius" in vertex)
    return obj


def _surface_arrays(path):
    if path.lower().endswith(".obj"):
        return read_obj(path)
    ply = read_ply(path)
    vertex, face = ply.get("vertex", {}), ply.get("face", {})
    positions = _columns(vertex, "xyz") if vertex else np.zeros((0, 3))
    normals = _columns(vertex, ("nx", "ny", "nz")) if all(k in vertex for k in ("nx", "ny", "nz")) else None
    polygons = face.get("vertex_indices", face.get("vertex_index", []))
    if isinstance(polygons, np.ndarray):  # all of k vertices: fanned at once
        fans = [polygons[:, [0, k, k + 1]] for k in range(1, polygons.shape[1] - 1)]
        triangles = np.stack(fans, axis=1).reshape(-1, 3) if fans else np.zeros((0, 3), np.int64)
    else:
        triangles = np.array([[p[0], p[k], p[k + 1]] for p in polygons for k in range(1, len(p) - 1)],
                             dtype=np.int64).reshape(-1, 3)
    return positions, normals, triangles


def import_surface(path, keep_axes=False, collection=None, name=None):
    """A surface mesh (PLY with faces, or OBJ) with its per-vertex normals as custom normals."""
    positions, normals, triangles = _surface_arrays(path)
    name = name or os.path.splitext(os.path.basename(path))[0]
    mesh = bpy.data.meshes.new(name)
    co = to_blender_axes(positions, keep_axes)
    mesh.vertices.add(len(co))
    mesh.vertices.foreach_set("co", co.astype(np.float32).ravel())
    nt = len(triangles)
    mesh.loops.add(3 * nt)
    mesh.loops.foreach_set("vertex_index", triangles.astype(np.int32).ravel())
    mesh.polygons.add(nt)
    mesh.polygons.foreach_set("loop_start", np.arange(0, 3 * nt, 3, dtype=np.int32))
    mesh.polygons.foreach_set("loop_total", np.full(nt, 3, dtype=np.int32))
    mesh.polygons.foreach_set("use_smooth", np.ones(nt, dtype=bool))
    mesh.update(calc_edges=True)
    if normals is not None and nt > 0:
        n = to_blender_axes(normals, keep_axes)
        n /= np.maximum(np.linalg.norm(n, axis=1), 1e-30)[:, None]
        mesh.use_auto_smooth = True
        mesh.normals_split_custom_set_from_vertices([tuple(x) for x in n])
    return _new_object(name, mesh, collection or bpy.context.scene.collection)


def _surface_file(folder, stem):
    for ext in (".ply", ".obj"):
        path = os.path.join(folder, stem + ext)
        if os.path.isfile(path):
            return path
    return None


def import_frames(folder, keep_axes=False):
    """Every frame_NNNN_surface of a folder, each object shown on frame NNNN only."""
    matches = (re.match(r"(frame_\d+_surface)\.(ply|obj)$", f) for f in os.listdir(folder))
    stems = sorted({m.group(1) for m in matches if m})
    if not stems:
        return []
    collection = bpy.data.collections.new("blobsim frames")
    bpy.context.scene.collection.children.link(collection)
    objects = []
    for stem in stems:
        frame = int(stem.split("_")[1])
        obj = import_surface(_surface_file(folder, stem), keep_axes, collection)
        for f, hidden in ((frame - 1, True), (frame, False), (frame + 1, True)):
            obj.hide_viewport = obj.hide_render = hidden
            obj.keyframe_insert("hide_viewport", frame=f)
            obj.keyframe_insert("hide_render", frame=f)
        objects.append(obj)
    frames = [int(s.split("_")[1]) for s in stems]
    bpy.context.scene.frame_start, bpy.context.scene.frame_end = min(frames), max(frames)
    return objects


def _is_point_cloud(path):
    if not path.lower().endswith(".ply"):
        return False
    with open(path, "rb") as f:
        head = f.read(4096)
    return b"\nelement face " not in head.split(b"end_header")[0]


def import_paths(paths, frames=False, keep_axes=False, points=True):
    """Folders (particles.ply, scene_surface, and with frames every frame's surface) and files."""
    objects = []
    for path in paths:
        if os.path.isdir(path):
            particles = os.path.join(path, "particles.ply")
            if os.path.isfile(particles):
                objects.append(import_particles(particles, keep_axes, points))
            surface = _surface_file(path, "scene_surface")
            if surface:
                objects.append(import_surface(surface, keep_axes))
            if frames:
                objects.extend(import_frames(path, keep_axes))
        elif _is_point_cloud(path):
            objects.append(import_particles(path, keep_axes, points))
        else:
            objects.append(import_surface(path, keep_axes))
    return objects


def summary(objects, max_values=100000):
    out = []
    for obj in objects:
        mesh = obj.data
        entry = {"name": obj.name, "vertices": len(mesh.vertices), "faces": len(mesh.polygons),
                 "modifiers": [m.name for m in obj.modifiers], "attributes": {},
                 "collection": obj.users_collection[0].name if obj.users_collection else None,
                 "animated": obj.animation_data is not None and obj.animation_data.action is not None}
        small = len(mesh.polygons) == 0 and len(mesh.vertices) <= max_values
        if small:
            co = np.zeros(3 * len(mesh.vertices), dtype=np.float32)
            mesh.vertices.foreach_get("co", co)
            entry["co"] = co.tolist()
        for a in mesh.attributes:
            if a.name.startswith(".") or a.name == "position":
                continue
            info = {"type": a.data_type, "domain": a.domain}
            if small and a.domain == "POINT":
                width = 3 if a.data_type == "FLOAT_VECTOR" else 1
                kind = {"INT": np.int32, "FLOAT": np.float32, "FLOAT_VECTOR": np.float32}.get(a.data_type)
                if kind is not None:
                    values = np.zeros(width * len(mesh.vertices), dtype=kind)
                    a.data.foreach_get("vector" if width == 3 else "value", values)
                    info["values"] = values.tolist()
            entry["attributes"][a.name] = info
        out.append(entry)
    return out


def main(argv):
    import argparse
    parser = argparse.ArgumentParser(prog="import_blobsim.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+", help="an output folder of blobsim run, or its PLY/OBJ files")
    parser.add_argument("--frames", action="store_true", help="also every frame's surface, keyed to its frame")
    parser.add_argument("--keep-axes", action="store_true", help="keep blobsim's Y-up axes")
    parser.add_argument("--no-points", action="store_true", help="no Geometry Nodes points on the point cloud")
    parser.add_argument("--save", help="save the .blend file here")
    parser.add_argument("--summary", help="write what was imported as JSON (for tests)")
    args = parser.parse_args(argv)
    for path in args.paths:
        if not os.path.exists(path):
            parser.error(f"{path}: no such file or folder")
    objects = import_paths(args.paths, args.frames, args.keep_axes, not args.no_points)
    if not objects:
        parser.error("nothing to import (no particles.ply or surface files)")
    for obj in objects:
        names = [a.name for a in obj.data.attributes if not a.name.startswith(".") and a.name != "position"]
        print(f"import_blobsim: {obj.name}: {len(obj.data.vertices)} vertices, {len(obj.data.polygons)} faces"
              + (f", attributes {', '.join(names)}" if names else ""))
    if args.summary:
        with open(args.summary, "w") as f:
            json.dump(summary(objects), f)
    if args.save:
        bpy.ops.wm.save_as_mainfile(filepath=os.path.abspath(args.save))


if __name__ == "__main__" and bpy is not None:
    try:
        main(sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else [])
    except (PlyError, OSError, ValueError) as error:
        print(f"import_blobsim: {error}", file=sys.stderr)
        sys.exit(1)
