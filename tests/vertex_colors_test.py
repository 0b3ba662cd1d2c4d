#!/usr/bin/env python3
"""Vertex colours (`v x y z r g b`) reach the scene where the material asks for them.

    tests/vertex_colors_test.py BLOBSIM

A quad red on its left edge and blue on its right, seen from above:
- with {"vertex_colors": true, "finish": ...} the scene's mesh2 has a texture_list of the two colours
  (as written when within [0, 1]; over 255 when a file writes 0-255) and three texture indices a
  face, and the render (when POV-Ray and ImageMagick are here) is red at the left, blue at the right,
  purple between;
- with a plain material the same file's colours are ignored: no texture_list, one texture.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

BIN = os.path.abspath(sys.argv[1])
QUAD = "v -1 0 -1 {a}\nv 1 0 -1 {b}\nv 1 0 1 {b}\nv -1 0 1 {a}\nf 1 4 3 2\n"
CONFIG = """{{
  "environment": {{"meshes": [{{"file": "quad.obj", "material": {material}}}]}},
  "particles": {{"radius": 0.02, "emitters": [{{"type": "random", "min": [-0.1, 1, 0.8], "max": [0.1, 1.1, 0.9], "count": 2}}]}},
  "motion": {{"steps": 1, "dt": 0.01, "gravity": [0, -9.81, 0]}},
  "render": {{"width": 80, "height": 60, "antialias": 0,
             "camera": {{"location": [0, 2.2, -0.001], "look_at": [0, 0, 0], "angle": 60}}}},
  "output": {{"directory": "out"}}
}}
"""


def run(work, colors, material, render):
    with open(os.path.join(work, "quad.obj"), "w") as f:
        f.write(QUAD.format(a=colors[0], b=colors[1]))
    with open(os.path.join(work, "quad.json"), "w") as f:
        f.write(CONFIG.format(material=material))
    shutil.rmtree(os.path.join(work, "out"), ignore_errors=True)
    cmd = [BIN, "run", "quad.json", "--quiet"] + (["--render"] if render else [])
    r = subprocess.run(cmd, cwd=work, capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        raise SystemExit(f"FAIL: {material}: exit {r.returncode}: {r.stderr}")
    return open(os.path.join(work, "out", "scene.pov")).read()


def pixel(png, x, y):
    """The (r, g, b) of one pixel, 0-255, by ImageMagick."""
    out = subprocess.run(["convert", png, "-crop", f"1x1+{x}+{y}", "-depth", "8", "txt:-"],
                         capture_output=True, text=True, check=True).stdout
    m = re.search(r"\((\d+),(\d+),(\d+)", out)
    return tuple(int(v) for v in m.groups())


def main():
    render = shutil.which("povray") is not None and shutil.which("convert") is not None
    work = tempfile.mkdtemp(prefix="blobsim-vcolors-")
    try:
        looked = '{"vertex_colors": true, "finish": "ambient 0.6 diffuse 0.4"}'
        for colors in (("1 0 0", "0 0 1"), ("255 0 0", "0 0 255")):
            pov = run(work, colors, looked, render)
            want = ["texture { pigment { color rgb <1, 0, 0> } finish { ambient 0.6 diffuse 0.4 } }",
                    "texture { pigment { color rgb <0, 0, 1> } finish { ambient 0.6 diffuse 0.4 } }"]
            if "texture_list" not in pov or not all(w in pov for w in want):
                print(f"FAIL: colours {colors}: the scene has no texture_list of red and blue:\n{pov[-900:]}")
                return 1
            faces = re.findall(r"<\d+,\d+,\d+>, (\d+), (\d+), (\d+)", pov)
            if len(faces) != 2:
                print(f"FAIL: colours {colors}: faces with texture indices: {faces}")
                return 1
        if render:
            png = os.path.join(work, "out", "scene.png")
            left, middle, right = pixel(png, 14, 30), pixel(png, 40, 30), pixel(png, 66, 30)
            if not (left[0] > 2 * left[2] and right[2] > 2 * right[0] and middle[0] > 40 and middle[2] > 40):
                print(f"FAIL: render: left {left}, middle {middle}, right {right}: not red to blue")
                return 1
            print(f"ok: rendered left {left}, middle {middle}, right {right}")
        else:
            print("SKIP part: POV-Ray or ImageMagick missing: the render's colours not checked")
        pov = run(work, ("1 0 0", "0 0 1"), '"white"', False)
        if "texture_list" in pov:
            print("FAIL: a plain material took the vertex colours")
            return 1
        print("ok: the scene's vertex colours (0-1 and 0-255), and none for a plain material")
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


sys.exit(main())
