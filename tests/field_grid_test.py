#!/usr/bin/env python3
"""The field's grid against hostile or oversized inputs (docs/config.md, "The grid cache").

    tests/field_grid_test.py BLOBSIM TESTS_RUN_DIR

  memory    --max-memory bounds the grid before it is built or inflated: a thin slab at
            field.build.resolution 600 (5 million cells, 450 MB to build) and a valid .dng of 285 KB
            whose cells inflate to 256 MiB are refused under --max-memory 64M with a message naming
            the grid's size, before the build or the inflation (the messages differ from the cap's
            after-the-fact one, which is what an unbounded build or inflation would reach)
  cache     a cached grid whose header was changed (origin shifted, dimensions swapped, each with a
            valid checksum) is not used: the run builds the grid again and restores the file
  hash      summary.json's grid_hash covers the header: the same cells at another origin hash
            differently
"""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

BIN, SRC = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
WORK = tempfile.mkdtemp(prefix="blobsim-field-")
FIELD = {"impact": {"beta": 0.7, "threshold": 0.05}}


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


def run(out, *args, env=None, expect=0):
    r = subprocess.run([BIN, "run", os.path.join(SRC, "tiny.json"), "-o", out, "--quiet",
                        "--set", "output.frame_every=0", *args],
                       capture_output=True, text=True, env=env, timeout=120)
    check(r.returncode == expect, f"run {out} {args}: exit {r.returncode}, expected {expect}\n{r.stderr}")
    return r


def field(**kw):
    return "field=" + json.dumps({**FIELD, **kw})


def rewrite_header(path, out, change):
    """Copies the .dng at path to out with change(header bytearray) applied and its checksum redone."""
    data = bytearray(open(path, "rb").read())
    change(data)
    data[124:128] = struct.pack("<I", zlib.crc32(bytes(data[:124])))
    with open(out, "wb") as f:
        f.write(data)


def big_dng(path, nx, ny, nz):
    """A valid compressed .dng of nx ny nz cells (distance 1, normal +x), written in pieces."""
    cell = struct.pack("<4f", 1.0, 1.0, 0.0, 0.0)
    row = cell * nx
    z = zlib.compressobj(9)
    parts, crc = [], 0
    for _ in range(ny * nz):
        crc = zlib.crc32(row, crc)
        parts.append(z.compress(row))
    parts.append(z.flush())
    payload = b"".join(parts)
    h = bytearray(128)
    h[0:8] = b"\x89DNG\r\n\x1a\n"
    struct.pack_into("<II3IIIIIIII", h, 8, 1, 128, nx, ny, nz, 0, 3, 3, 4, 0, 1, 0)
    struct.pack_into("<d3dQQI", h, 56, 0.01, 0.0, 0.0, 0.0, 0, len(payload), crc)
    h[124:128] = struct.pack("<I", zlib.crc32(bytes(h[:124])))
    with open(path, "wb") as f:
        f.write(h + payload)


def mode_memory():
    # A slab 2 x 0.01 x 2: 600 cells along x and z, a few along y.
    slab = os.path.join(WORK, "slab.obj")
    with open(slab, "w") as f:
        f.write("v -1 0 -1\nv 1 0 -1\nv 1 0 1\nv -1 0 1\nv -1 0.01 -1\nv 1 0.01 -1\nv 1 0.01 1\nv -1 0.01 1\n"
                "f 1 2 3 4\nf 8 7 6 5\nf 1 5 6 2\nf 2 6 7 3\nf 3 7 8 4\nf 4 8 5 1\n")
    env = dict(os.environ, BLOBSIM_CACHE=os.path.join(WORK, "cache-slab"))
    r = run(os.path.join(WORK, "slab"), "--max-memory", "64M", "--set", 'environment.meshes=' + json.dumps([{"file": slab}]),
            "--set", field(build={"resolution": 600}), env=env, expect=1)
    check("field.build: building the grid of 600 x " in r.stderr and "more than the" in r.stderr,
          f"slab at resolution 600 under 64M: {r.stderr}")
    check(not os.path.exists(os.path.join(WORK, "cache-slab")), "the refused grid was built and cached")
    # 16,777,216 cells (256 MiB) in a file of about 285 KB.
    dng = os.path.join(WORK, "big.dng")
    big_dng(dng, 256, 256, 256)
    check(os.path.getsize(dng) < 1 << 20, f"the big grid file is {os.path.getsize(dng)} bytes")
    r = run(os.path.join(WORK, "big"), "--max-memory", "64M", "--set", field(grid=dng), expect=1)
    check(f"{dng}: loading the grid needs about " in r.stderr and "more than the" in r.stderr,
          f"a .dng inflating to 256 MiB under 64M: {r.stderr}")


def mode_cache():
    cache = os.path.join(WORK, "cache")
    env = dict(os.environ, BLOBSIM_CACHE=cache)
    setting = field(build={"resolution": 40})
    run(os.path.join(WORK, "a"), "--set", setting, env=env)
    files = os.listdir(cache)
    check(len(files) == 1, f"cache: {files}")
    cached = os.path.join(cache, files[0])
    good = open(cached, "rb").read()
    nx, ny, nz = struct.unpack_from("<3I", good, 16)
    check(nx != ny, f"the test needs a grid with nx != ny: {nx} {ny} {nz}")

    def shift(h):
        x, = struct.unpack_from("<d", h, 64)
        struct.pack_into("<d", h, 64, x + 0.25)

    def swap(h):
        struct.pack_into("<3I", h, 16, ny, nx, nz)

    for name, change in (("shifted origin", shift), ("swapped dimensions", swap)):
        rewrite_header(cached, cached, change)
        out = os.path.join(WORK, name.replace(" ", "-"))
        run(out, "--set", setting, env=env)
        s = json.load(open(os.path.join(out, "summary.json")))["field"]
        check(s["source"] == "built", f"a cached grid with a {name} was used: {s}")
        check(open(cached, "rb").read() == good, f"the cached grid with a {name} was not rebuilt")
        a = open(os.path.join(WORK, "a", "particles.ply"), "rb").read()
        check(open(os.path.join(out, "particles.ply"), "rb").read() == a, f"{name}: the run differs")


def mode_hash():
    grid = os.path.join(WORK, "g.dng")
    subprocess.run([BIN, "grid", "build", os.path.join(SRC, "tiny.obj"), "-o", grid, "--resolution", "30",
                    "--quiet"], check=True)
    moved = os.path.join(WORK, "moved.dng")
    rewrite_header(grid, moved, lambda h: struct.pack_into("<d", h, 72, struct.unpack_from("<d", h, 72)[0] + 1.0))
    hashes = {}
    for name, path in (("g", grid), ("moved", moved)):
        run(os.path.join(WORK, name), "--set", field(grid=path))
        hashes[name] = json.load(open(os.path.join(WORK, name, "summary.json")))["field"]["grid_hash"]
    check(hashes["g"] != hashes["moved"], f"the same cells at another origin have the same grid_hash: {hashes}")


try:
    for mode in (sys.argv[3:] or ["memory", "cache", "hash"]):
        {"memory": mode_memory, "cache": mode_cache, "hash": mode_hash}[mode]()
        print("ok: " + mode)
except Failure as e:
    print(f"FAIL: {e}", file=sys.stderr)
    sys.exit(1)
finally:
    shutil.rmtree(WORK, ignore_errors=True)
