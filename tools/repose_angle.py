#!/usr/bin/env python3
"""The angle of repose of the pile of configs/sand-pile.json, from a run's particles.ply.

usage: tools/repose_angle.py OUT/particles.ply [...]

Method: the pile's axis is the mean x, z of its particles (every particle not escaped, floor at y =
0). Particles are binned by their distance r from the axis into rings 2 R wide; the surface height of
a ring is the highest particle centre in it, minus R (the height of one layer on the floor). The
slope is the least-squares line h = a - b r over the rings between 20% of the pile's radius (past the
tip, which the falling stream keeps rounded) and the last ring whose surface stands higher than 1 R
(past that it is the single scattered layer around the pile); the angle of repose is atan(b). It
also prints the pile's height, its radius (the ring where that layer begins), the ratio of the two
(atan of which is the angle of a cone with the same height and foot) and the rings' heights."""
import math
import struct
import sys


# A record's fields by the header's property lines (blobsim's particles.ply: x y z radius vx vy vz
# state id, then wx wy wz when the particles spin; x y z may be doubles).
PLY_TYPES = {"float": "f", "double": "d", "uchar": "B", "uint": "I"}


def read(path):
	data = open(path, "rb").read()
	end = data.index(b"end_header\n") + len(b"end_header\n")
	header = data[:end].decode()
	count = int(header.split("element vertex ")[1].split("\n")[0])
	props = [line.split()[1:] for line in header.splitlines() if line.startswith("property ")]
	rec = struct.Struct("<" + "".join(PLY_TYPES[t] for t, _ in props))
	return [rec.unpack_from(data, end + k * rec.size) for k in range(count)]


def report(path):
	live = [p for p in read(path) if p[7] != 2]
	if not live:
		print(f"{path}: no particles")
		return
	r0 = live[0][3]
	cx = sum(p[0] for p in live) / len(live)
	cz = sum(p[2] for p in live) / len(live)
	width = 2 * r0
	top = {}
	for x, y, z, *_ in live:
		k = int(math.hypot(x - cx, z - cz) / width)
		top[k] = max(top.get(k, -1.0), y - r0)
	rings = sorted(top)
	edge = max((k for k in rings if top[k] > r0), default=0)
	height = max(top.values())
	fit = [((k + 0.5) * width, top[k]) for k in rings if 0.2 * (edge + 1) <= k <= edge]
	print(f"{path}: {len(live)} particles, R {r0:g}, pile height {height:.3f} ({height / r0:.1f} R), "
		f"radius {(edge + 1) * width:.3f} ({(edge + 1) * width / r0:.1f} R)")
	print(f"  height / radius {height / ((edge + 1) * width):.3f}: a cone of {math.degrees(math.atan(height / ((edge + 1) * width))):.1f} degrees")
	if len(fit) >= 2:
		n = len(fit)
		mr = sum(r for r, _ in fit) / n
		mh = sum(h for _, h in fit) / n
		sxx = sum((r - mr) ** 2 for r, _ in fit)
		b = -sum((r - mr) * (h - mh) for r, h in fit) / sxx
		res = math.sqrt(sum((h - (mh - b * (r - mr))) ** 2 for r, h in fit) / n)
		print(f"  fit of the surface over {n} rings: slope {b:.3f}, angle of repose {math.degrees(math.atan(b)):.1f} degrees, rms residual {res / r0:.2f} R")
	print("  ring surface heights / R: " + " ".join(f"{top[k] / r0:.1f}" for k in rings[:40]))


for p in sys.argv[1:]:
	report(p)
