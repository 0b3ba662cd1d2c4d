#!/usr/bin/env python3
"""A body's own grid from a config (environment.bodies[i].field; issue 27, item 5).

    tests/body_field_test.py BLOBSIM

  posed     An ellipsoid moving as a keyframed body (turning about z and translating) carries its grid;
            600 particles round it, 0.015 to 0.07 out, get one step of the field's spring. The same particles beside a
            static mesh of the ellipsoid moved to the body's pose at the step (the world grid of
            that mesh) get the same change of velocity within the two grids' own error: the spring's
            strength x dt x the sum of the two grids' cell sizes (a distance off by up to a cell in
            each, or the normal by as much over the spring's distance). The static grid of the
            ellipsoid where the body is not (its rest place) is far off: the pose makes them agree.
  errors    Bad settings on a body's grid are refused with the JSON path: a resolution not above
            twice the margin, cell and resolution both, an unknown key, a grid without the `field`
            block's rules, a grid on a deforming body.
"""
import json
import math
import os
import shutil
import struct
import subprocess
import sys
import tempfile

BIN = os.path.abspath(sys.argv[1])
WORK = tempfile.mkdtemp(prefix="blobsim-body-field-")
SEMI = (0.3, 0.18, 0.22)       # the ellipsoid's semi-axes
POSE = ((0.2, 0.1, -0.1), 25.0)  # the body's translation and its turn about z (degrees) at time 0
SPRING = {"strength": 400, "distance": 0.1}
DT = 1e-4
RESOLUTION = 96
MARGIN = 12
BUILD = {"resolution": RESOLUTION, "margin": MARGIN, "band": 6, "blur_radius": 1, "blur_rounds": 2}


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


def icosphere(levels):
    """A closed unit sphere, counter-clockwise seen from outside: vertices and faces."""
    t = (1 + 5 ** 0.5) / 2
    verts = [(-1, t, 0), (1, t, 0), (-1, -t, 0), (1, -t, 0), (0, -1, t), (0, 1, t), (0, -1, -t), (0, 1, -t),
             (t, 0, -1), (t, 0, 1), (-t, 0, -1), (-t, 0, 1)]
    verts = [tuple(c / math.sqrt(sum(x * x for x in v)) for c in v) for v in verts]
    faces = [(0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11), (1, 5, 9), (5, 11, 4), (11, 10, 2),
             (10, 7, 6), (7, 1, 8), (3, 9, 4), (3, 4, 2), (3, 2, 6), (3, 6, 8), (3, 8, 9), (4, 9, 5), (2, 4, 11),
             (6, 2, 10), (8, 6, 7), (9, 8, 1)]
    for _ in range(levels):
        mids = {}

        def mid(a, b):
            key = (min(a, b), max(a, b))
            if key not in mids:
                m = [(verts[a][k] + verts[b][k]) / 2 for k in range(3)]
                n = math.sqrt(sum(x * x for x in m))
                verts.append(tuple(x / n for x in m))
                mids[key] = len(verts) - 1
            return mids[key]

        new = []
        for a, b, c in faces:
            ab, bc, ca = mid(a, b), mid(b, c), mid(c, a)
            new += [(a, ab, ca), (b, bc, ab), (c, ca, bc), (ab, bc, ca)]
        faces = new
    return verts, faces


def posed(p, translate, degrees):
    a = math.radians(degrees)
    x, y, z = p
    return (x * math.cos(a) - y * math.sin(a) + translate[0], x * math.sin(a) + y * math.cos(a) + translate[1],
            z + translate[2])


def write_obj(path, verts, faces):
    with open(path, "w") as f:
        for v in verts:
            f.write("v %.17g %.17g %.17g\n" % v)
        for a, b, c in faces:
            f.write("f %d %d %d\n" % (a + 1, b + 1, c + 1))


def read_ply(path):
    """(position, velocity) of each particle, by id, from particles.ply."""
    data = open(path, "rb").read()
    end = data.index(b"end_header\n") + len(b"end_header\n")
    header = data[:end].decode()
    count = int(header.split("element vertex ")[1].split()[0])
    record = struct.Struct("<7fBI")
    out = {}
    for k in range(count):
        x, y, z, r, vx, vy, vz, state, pid = record.unpack_from(data, end + k * record.size)
        out[pid] = ((x, y, z), (vx, vy, vz))
    return out


def write_particles(path, count):
    """count particles round the posed ellipsoid, each 0.015 .. 0.07 out from it along its normal (so
    clear of it and within the spring's distance), in an ASCII PLY for a file emitter."""
    lines = []
    golden = math.pi * (3 - 5 ** 0.5)
    for k in range(count):
        y = 1 - 2 * (k + 0.5) / count
        r = math.sqrt(1 - y * y)
        u = (r * math.cos(golden * k), y, r * math.sin(golden * k))
        p = [SEMI[i] * u[i] for i in range(3)]
        n = [p[i] / SEMI[i] ** 2 for i in range(3)]
        length = math.sqrt(sum(x * x for x in n))
        gap = 0.015 + 0.055 * ((k * 0.618034) % 1.0)
        lines.append("%.9g %.9g %.9g" % posed([p[i] + gap * n[i] / length for i in range(3)], *POSE))
    with open(path, "w") as f:
        f.write("ply\nformat ascii 1.0\nelement vertex %d\nproperty float x\nproperty float y\n"
                "property float z\nend_header\n%s\n" % (count, "\n".join(lines)))


def config(environment, field=True):
    c = {
        "seed": 7,
        "environment": environment,
        "particles": {"radius": 0.01, "emitters": [{"type": "file", "file": "particles.ply"}]},
        "motion": {"steps": 1, "dt": DT},
        "collision": {"method": "exact", "response": "slide"},
        "output": {"directory": "out"},
    }
    if field:
        c["field"] = {"build": BUILD, "lookup": "trilinear", "spring": SPRING}
    return c


def run(name, c, expect=0):
    path = os.path.join(WORK, name + ".json")
    json.dump(c, open(path, "w"))
    out = os.path.join(WORK, name)
    r = subprocess.run([BIN, "run", path, "-o", out, "--quiet"], capture_output=True, text=True,
                       env=dict(os.environ, BLOBSIM_CACHE=os.path.join(WORK, "cache")))
    check(r.returncode == expect, "%s: exit %d, expected %d: %s" % (name, r.returncode, expect, r.stderr.strip()))
    return out if expect == 0 else r.stderr.strip()


def cell(semi_extent):
    """The cell of a grid of RESOLUTION cells along the longest extent (margin cells included)."""
    return 2 * semi_extent / (RESOLUTION - 2 * MARGIN)


def test_posed():
    verts, faces = icosphere(3)
    rest = [(v[0] * SEMI[0], v[1] * SEMI[1], v[2] * SEMI[2]) for v in verts]
    write_obj(os.path.join(WORK, "ellipsoid.obj"), rest, faces)
    write_obj(os.path.join(WORK, "ellipsoid-posed.obj"), [posed(p, *POSE) for p in rest], faces)
    write_particles(os.path.join(WORK, "particles.ply"), 600)
    # A speck far away: the world grid of the `field` block around it reaches no particle.
    write_obj(os.path.join(WORK, "speck.obj"), [(v[0] * 0.05 + 20, v[1] * 0.05, v[2] * 0.05) for v in verts], faces)
    # The body turns by 10 degrees a second about z and moves along x at 0.5 units/s.
    (tx, ty, tz), angle = POSE
    body = {"file": "ellipsoid.obj", "field": {"build": BUILD},
            "keys": [{"time": 0, "translate": [tx, ty, tz], "rotate": {"axis": [0, 0, 1], "angle": angle}},
                     {"time": 1, "translate": [tx + 0.5, ty, tz], "rotate": {"axis": [0, 0, 1], "angle": angle + 10}}]}
    moving = run("moving", config({"meshes": [{"file": "speck.obj"}], "bodies": [body]}))
    static = run("static", config({"meshes": [{"file": "ellipsoid-posed.obj"}]}))
    elsewhere = run("elsewhere", config({"meshes": [{"file": "ellipsoid.obj"}]}))
    none = run("none", config({"meshes": [{"file": "speck.obj"}]}, field=False))
    # Without any mesh (a floor plane far below, an environment needs one collider) the field block
    # builds no grid of its own: the body's grid acts alone, and the speck's far-away grid changed nothing.
    alone = run("alone", config({"planes": [{"point": [0, -50, 0], "normal": [0, 1, 0]}], "bodies": [body]}))
    source = json.load(open(os.path.join(alone, "summary.json")))["field"]["source"]
    check(source == "none", "a field with only the bodies' grids: summary.json's field.source is %r" % source)
    check(open(os.path.join(alone, "particles.ply"), "rb").read() ==
          open(os.path.join(moving, "particles.ply"), "rb").read(), "the body's grid alone moved other particles")
    a, b, c, z = (read_ply(os.path.join(d, "particles.ply")) for d in (moving, static, elsewhere, none))
    check(len(a) == 600 and a.keys() == b.keys() == c.keys() == z.keys(), "the runs emitted other particles")
    # The body's grid spans its rest mesh (cells of its longest extent); the static grid the posed one.
    xs = [p[0] for p in (posed(q, *POSE) for q in rest)]
    ys = [p[1] for p in (posed(q, *POSE) for q in rest)]
    posed_extent = max(max(xs) - min(xs), max(ys) - min(ys), 2 * SEMI[2]) / 2
    tolerance = SPRING["strength"] * DT * (cell(max(SEMI)) + cell(posed_extent))
    worst = worst_elsewhere = 0.0
    pushed = 0
    for pid in a:
        base = z[pid][1]
        dv = [[p[pid][1][k] - base[k] for k in range(3)] for p in (a, b, c)]
        worst = max(worst, math.dist(dv[0], dv[1]))
        worst_elsewhere = max(worst_elsewhere, math.dist(dv[2], dv[1]))
        pushed += math.hypot(*dv[1]) > tolerance
    print("posed: %d of %d particles pushed by the spring; the body's grid against the static grid of the posed "
          "mesh: %.3g (tolerance %.3g); the static grid of the rest mesh: %.3g"
          % (pushed, len(a), worst, tolerance, worst_elsewhere))
    check(pushed > 300, "too few particles within the spring's reach (%d): the test would not tell" % pushed)
    check(worst <= tolerance, "the body's grid differs from the posed mesh's by %.3g > %.3g" % (worst, tolerance))
    check(worst_elsewhere > 5 * tolerance, "the rest place's grid agrees too (%.3g)" % worst_elsewhere)


def test_errors():
    body = {"file": "ellipsoid.obj"}
    env = {"meshes": [{"file": "speck.obj"}], "bodies": [body]}
    cases = [
        ({"build": {"resolution": 10, "margin": 5}}, True,
         "environment.bodies[0].field.build.resolution: the resolution (10) must be more than twice the margin (5)"),
        ({"build": {"cell": 0.05, "resolution": 40}}, True,
         "environment.bodies[0].field.build.resolution: give cell or resolution, not both"),
        ({"build": {"cells": 4}}, True, "environment.bodies[0].field.build"),
        ({"grid": "x.dng"}, True, "environment.bodies[0].field"),
        ({"build": {"band": 0}}, True, "environment.bodies[0].field.build.band"),
        ({"build": {}}, False, "environment.bodies[0].field: the grid's rules come from the `field` block"),
    ]
    for k, (field, world, expected) in enumerate(cases):
        body["field"] = field
        message = run("bad%d" % k, config(env, field=world), expect=1)
        check(expected in message, "bad field %s: %r does not name %r" % (json.dumps(field), message, expected))
    deforming = dict(body, field={"build": {}},
                     deform={"support": 0.5, "times": [0, 1], "controls": [{"point": [0, 0, 0],
                                                                            "displacements": [[0, 0, 0], [0, 0.1, 0]]}]})
    message = run("deforming", config({"meshes": [{"file": "speck.obj"}], "bodies": [deforming]}), expect=1)
    check("environment.bodies[0].field: a deforming body" in message, "deforming: %r" % message)
    print("errors: %d bad settings refused with their JSON path" % (len(cases) + 1))


def main():
    try:
        test_posed()
        test_errors()
    except Failure as e:
        print("FAIL:", e)
        return 1
    finally:
        shutil.rmtree(WORK, ignore_errors=True)
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
