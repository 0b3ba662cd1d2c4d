#!/usr/bin/env python3
"""Snow on roofs of six pitches: the scene and its measurement (issue 25, item 3).

usage: tools/snow_roofs.py obj [scenes/snow-roofs.obj] [--pitches P,P,...]
       tools/snow_roofs.py measure OUT/particles.ply [--json] [--pitches P,P,...]

The scene (scenes/snow-roofs.obj, written by `obj`; the ground is the config's plane y = 0): six
mono-pitch roofs in a row along x, at 0, 15, 30, 45, 60 and 70 degrees, each a closed wedge on the
ground whose roof face covers L x D in plan (x from X0 + k * PITCH, z from -D/2 to D/2), its low eave
EAVE high on the -x side, rising along +x; past the last roof, a patch of open ground of the same plan.
`--pitches` lays out other pitches the same way (scenes/snow-roofs-small.obj is `--pitches 0,45,70`,
for the suite's quick test); `measure` must be given the same.

`measure` reads a run's particles.ply (binary, any properties in any order, as blobsim writes it)
and prints, for each roof and the ground, over a window of the plan kept MARGIN radii clear of the
edges, with all particles (stuck, sleeping or free) whose centre lies over the window and above the
surface:
- load: the particles' volume per unit area of plan (the snow's solid depth), in radii; its ratio to
  the flat roof's (the shape of EN 1991-1-3's roof snow-load coefficient mu1, normalised by the flat
  roof) and to the ground's (normalised by the ground load s_k);
- depth: the mean over cells of 2 R of the highest particle's top above the surface (vertically),
  in radii (a bare cell counts 0);
- roughness: the standard deviation of those cells' depths over windows of 10 R x 10 R, averaged
  over the windows at every cell offset (so every cell counts), in radii; and `plane`, the same about
  each window's least-squares plane (what stays of it once a window's overall tilt, e.g. the slump at
  the plan's edges, is taken out);
- packing: the load over the depth (the solid fraction of the layer), reported for the flat roof
  and the ground;
- overhang (cornices), for each roof's low eave (-x) and high end (+x): the grains at rest (slower
  than REST) whose centres lie more than a radius past the edge's vertical plane (so they touch no
  face of the roof: they hang from the snow by their contacts, not resting on the roof) and no more
  than HANG radii below the edge, within the roof's width and OVER radii past the edge: their count
  and the snow's extent past the edge (the farthest grain's outer side), in radii.
`--json` prints the same as one JSON object. Exit status 1 when the file cannot be read."""
import json
import math
import struct
import sys

PITCHES = [0.0, 15.0, 30.0, 45.0, 60.0, 70.0]  # degrees
L, D = 0.4, 0.4  # each roof's plan, m (x along the slope, z along the eave)
X0, PITCH = -2.0, 0.6  # the first roof's low eave at x = X0; roof k starts at X0 + k * PITCH
EAVE = 0.5  # the low eave's height, m (above the snow that slides off and drifts against the wall)
MARGIN = 3.0  # the window's clearance from the plan's edges, radii
CELL = 2.0  # the top-surface cells' edge, radii
WINDOW = 10.0  # the roughness windows' edge, radii
REST = 0.05  # overhang: a grain slower than this (m/s) is at rest
HANG = 5.0  # overhang: how far below the edge a hanging grain is counted, radii
OVER = 7.5  # overhang: how far past the edge, radii (the next roof's low eave is 10 R past a high end)


def patches(pitches=PITCHES):
    """(name, x0, slope tan, base height) for each roof and the ground patch."""
    out = [(f"roof {p:g}", X0 + k * PITCH, math.tan(math.radians(p)), EAVE) for k, p in enumerate(pitches)]
    out.append(("ground", X0 + len(pitches) * PITCH, 0.0, 0.0))
    return out


def write_obj(path, pitches=PITCHES):
    if pitches == PITCHES:
        lines = ["# scenes/snow-roofs.obj: written by tools/snow_roofs.py obj (six mono-pitch roofs, 0..70 degrees)"]
    else:
        listed = ",".join(f"{p:g}" for p in pitches)
        lines = [f"# written by tools/snow_roofs.py obj --pitches {listed} (mono-pitch roofs)"]
    count = 0
    for k, (name, x0, slope, base) in enumerate(patches(pitches)[:-1]):
        top = base + slope * L
        z0, z1 = -D / 2, D / 2
        # a wedge: floor rectangle (y = 0), the roof face from (x0, base) to (x0 + L, top)
        v = [(x0, 0, z0), (x0 + L, 0, z0), (x0 + L, 0, z1), (x0, 0, z1),
             (x0, base, z0), (x0 + L, top, z0), (x0 + L, top, z1), (x0, base, z1)]
        lines.append(f"g roof{int(pitches[k])}")
        lines += [f"v {x:.6f} {y:.6f} {z:.6f}" for x, y, z in v]
        quads = [(0, 3, 2, 1), (4, 5, 6, 7), (0, 1, 5, 4), (3, 7, 6, 2), (0, 4, 7, 3), (1, 2, 6, 5)]
        for q in quads:
            i = [count + 1 + a for a in q]
            lines.append(f"f {i[0]} {i[1]} {i[2]}")
            lines.append(f"f {i[0]} {i[2]} {i[3]}")
        count += 8
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def read_ply(path):
    data = open(path, "rb").read()
    end = data.index(b"end_header\n") + len(b"end_header\n")
    header = data[:end].decode("ascii").splitlines()
    if "format binary_little_endian 1.0" not in header:
        raise ValueError(f"{path}: not a binary little-endian PLY")
    count, props = 0, []
    codes = {"float": "f", "uchar": "B", "uint": "I", "int": "i", "double": "d"}
    for line in header:
        w = line.split()
        if w[:2] == ["element", "vertex"]:
            count = int(w[2])
        elif w[:1] == ["property"]:
            props.append((w[2], codes[w[1]]))
    rec = struct.Struct("<" + "".join(c for _, c in props))
    names = [n for n, _ in props]
    return [dict(zip(names, rec.unpack_from(data, end + k * rec.size))) for k in range(count)]


def plane_residual(cells, mean, centre):
    """The RMS of heights (i, j, h) about their least-squares plane over a square window of cells
    (i, j symmetric about centre, so the slopes separate)."""
    sii = sum((i - centre) ** 2 for i, _, _ in cells)
    sjj = sum((j - centre) ** 2 for _, j, _ in cells)
    gi = sum((i - centre) * (h - mean) for i, _, h in cells) / sii if sii > 0 else 0.0
    gj = sum((j - centre) * (h - mean) for _, j, h in cells) / sjj if sjj > 0 else 0.0
    res = [h - mean - gi * (i - centre) - gj * (j - centre) for i, j, h in cells]
    return math.sqrt(sum(v * v for v in res) / len(res))


def measure_patch(particles, x0, slope, base, r):
    lo_x, hi_x = x0 + MARGIN * r, x0 + L - MARGIN * r
    lo_z, hi_z = -D / 2 + MARGIN * r, D / 2 - MARGIN * r
    cell = CELL * r
    nx, nz = int((hi_x - lo_x) / cell), int((hi_z - lo_z) / cell)
    hi_x, hi_z = lo_x + nx * cell, lo_z + nz * cell
    tops = [[0.0] * nz for _ in range(nx)]
    volume = 0.0
    for p in particles:
        x, y, z = p["x"], p["y"], p["z"]
        if not (lo_x <= x < hi_x and lo_z <= z < hi_z):
            continue
        surface = base + slope * (x - x0)
        if y < surface - 0.5 * p["radius"]:
            continue
        volume += 4.0 / 3.0 * math.pi * p["radius"] ** 3
        i, j = int((x - lo_x) / cell), int((z - lo_z) / cell)
        cx = lo_x + (i + 0.5) * cell
        tops[i][j] = max(tops[i][j], y + p["radius"] - (base + slope * (cx - x0)))
    area = (hi_x - lo_x) * (hi_z - lo_z)
    load = volume / area
    depth = sum(map(sum, tops)) / (nx * nz)
    w = max(1, int(round(WINDOW / CELL)))
    stds, planes = [], []
    for a in range(0, nx - w + 1):
        for b in range(0, nz - w + 1):
            cells = [(i - a, j - b, tops[i][j]) for i in range(a, a + w) for j in range(b, b + w)]
            m = sum(h for _, _, h in cells) / len(cells)
            stds.append(math.sqrt(sum((h - m) ** 2 for _, _, h in cells) / len(cells)))
            planes.append(plane_residual(cells, m, (w - 1) / 2.0))
    rough = sum(stds) / len(stds) if stds else 0.0
    plane = sum(planes) / len(planes) if planes else 0.0
    return {"load": load / r, "depth": depth / r, "roughness": rough / r, "roughness_plane": plane / r,
            "packing": load / depth if depth > 0 else 0.0}


def overhang(particles, x0, slope, base, r):
    """The grains hanging past a roof's low eave (at x0, height base) and past its high end (x0 + L):
    {"low": {"grains": n, "extent": R}, "high": {...}} (module docstring)."""
    edges = {"low": (x0, -1.0, base), "high": (x0 + L, 1.0, base + slope * L)}
    out = {}
    for name, (edge, side, height) in edges.items():
        grains, extent = 0, 0.0
        for p in particles:
            past = side * (p["x"] - edge)
            speed = math.sqrt(p.get("vx", 0.0) ** 2 + p.get("vy", 0.0) ** 2 + p.get("vz", 0.0) ** 2)
            if (p["radius"] < past <= OVER * r and abs(p["z"]) < D / 2 and p["y"] >= height - HANG * r
                    and speed < REST):
                grains += 1
                extent = max(extent, (past + p["radius"]) / r)
        out[name] = {"grains": grains, "extent": extent}
    return out


def measure(path, pitches=PITCHES):
    particles = read_ply(path)
    if not particles:
        raise ValueError(f"{path}: no particles")
    r = particles[0]["radius"]
    out = {name: measure_patch(particles, x0, slope, base, r) for name, x0, slope, base in patches(pitches)}
    for name, x0, slope, base in patches(pitches)[:-1]:
        out[name]["overhang"] = overhang(particles, x0, slope, base, r)
    flat, ground = out["roof 0"]["load"], out["ground"]["load"]
    for v in out.values():
        v["ratio_flat_roof"] = v["load"] / flat if flat > 0 else 0.0
        v["ratio_ground"] = v["load"] / ground if ground > 0 else 0.0
    return out


def mu1_shape(pitch):
    """EN 1991-1-3's mu1 over its flat-roof value 0.8: 1 up to 30 degrees, 0 from 60."""
    return 1.0 if pitch <= 30 else max(0.0, (60.0 - pitch) / 30.0)


def print_report(path, out):
    print(f"{path}: loads and depths in radii (R = particle radius)")
    print(f"  {'patch':10} {'load/R':>7} {'/flat roof':>10} {'/ground':>8} {'EN mu1':>7} {'depth/R':>8} {'rough/R':>8}"
          f" {'plane/R':>8} {'packing':>8}")
    for name, v in out.items():
        en = f"{mu1_shape(float(name.split()[1])):.2f}" if name.startswith("roof") else ""
        print(f"  {name:10} {v['load']:7.2f} {v['ratio_flat_roof']:10.2f} {v['ratio_ground']:8.2f} {en:>7}"
              f" {v['depth']:8.2f} {v['roughness']:8.2f} {v['roughness_plane']:8.2f} {v['packing']:8.3f}")
    print("  overhang past the edges (grains at rest touching no roof face): grains, extent / R")
    for name, v in out.items():
        if "overhang" in v:
            low, high = v["overhang"]["low"], v["overhang"]["high"]
            print(f"  {name:10} low eave {low['grains']:4d} {low['extent']:6.2f}   high end {high['grains']:4d} {high['extent']:6.2f}")


def measure_command(tool, path, measure_fn, report_fn, flags):
    """`measure PATH [--json]` of a tool: measure_fn(path) printed by report_fn(path, out) or as JSON;
    status 1 (the message on stderr, prefixed by tool) when the file cannot be read."""
    try:
        out = measure_fn(path)
    except (OSError, ValueError, KeyError, struct.error) as e:
        print(f"{tool}: {e}", file=sys.stderr)
        return 1
    if "--json" in flags:
        print(json.dumps(out, indent=1, sort_keys=True))
    else:
        report_fn(path, out)
    return 0


def parse_pitches(argv):
    """The --pitches list (degrees, 0 first: the ratios are to the flat roof) and argv without it."""
    if "--pitches" not in argv:
        return PITCHES, argv
    k = argv.index("--pitches")
    if k + 1 >= len(argv):
        raise ValueError("--pitches: expected a comma-separated list of degrees")
    try:
        pitches = [float(v) for v in argv[k + 1].split(",")]
    except ValueError:
        raise ValueError(f"--pitches: {argv[k + 1]!r} is not a comma-separated list of degrees")
    if not pitches or pitches[0] != 0.0 or any(not 0.0 <= p < 90.0 for p in pitches):
        raise ValueError(f"--pitches: {argv[k + 1]!r}: expected degrees in [0, 90), the first 0 (the flat roof)")
    return pitches, argv[:k] + argv[k + 2:]


def main(argv):
    try:
        pitches, argv = parse_pitches(argv)
    except ValueError as e:
        print(f"snow_roofs: {e}", file=sys.stderr)
        return 2
    if len(argv) >= 1 and argv[0] == "obj":
        write_obj(argv[1] if len(argv) > 1 else "scenes/snow-roofs.obj", pitches)
        return 0
    if len(argv) >= 2 and argv[0] == "measure":
        return measure_command("snow_roofs", argv[1], lambda path: measure(path, pitches), print_report, argv[2:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
