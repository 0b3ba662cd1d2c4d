#!/usr/bin/env python3
"""Where the slime of configs/slime-pour.json is, from a run's particles.ply.

usage: tools/slime_drip.py OUT/particles.ply [...]
       tools/slime_drip.py OUT/frame_0004.pov [...]   (frames of a run with render.surface "blob":
                                                      the counts only, from the blob components)

The grate of scenes/grid.obj spans |x|, |z| < 0.975 with its bars between y = 1.0 and 1.06 over a
floor at y = 0. Each live particle (not escaped) is counted as above the grate (y >= 1.0: on or over
the bars, or hanging in a gap between them), hanging under it (0.6 <= y < 1.0: a drip on its way
down, or a strand from the bars), or on the floor (y < 0.6); and, for those on the floor, how many
are in clumps of touching particles (centres within 2.2 R) of at least 5 (drops that arrived whole)."""
import re
import struct
import sys


def read(path):
	data = open(path, "rb").read()
	end = data.index(b"end_header\n") + len(b"end_header\n")
	header = data[:end].decode()
	count = int(header.split("element vertex ")[1].split("\n")[0])
	fmt = "<7fBI" if "property uint id" in header else "<7fB"
	rec = struct.Struct(fmt)
	return [rec.unpack_from(data, end + k * rec.size) for k in range(count)]


def clumps(points, reach):
	"""Sizes of the connected groups of points within reach of one another (a hash grid)."""
	cell = {}
	for i, (x, y, z) in enumerate(points):
		cell.setdefault((int(x // reach), int(y // reach), int(z // reach)), []).append(i)
	parent = list(range(len(points)))

	def root(i):
		while parent[i] != i:
			parent[i] = parent[parent[i]]
			i = parent[i]
		return i

	for (cx, cy, cz), members in cell.items():
		for dx in (-1, 0, 1):
			for dy in (-1, 0, 1):
				for dz in (-1, 0, 1):
					for j in cell.get((cx + dx, cy + dy, cz + dz), ()):
						for i in members:
							if i < j and sum((a - b) ** 2 for a, b in zip(points[i], points[j])) < reach * reach:
								parent[root(i)] = root(j)
	sizes = {}
	for i in range(len(points)):
		sizes[root(i)] = sizes.get(root(i), 0) + 1
	return sorted(sizes.values(), reverse=True)


def read_frame(path):
	"""The blob components' centres of a frame (blobsim writes one component a live particle), as
	records (x, y, z) without radius or state."""
	text = open(path).read()
	number = r"([-+0-9.eE]+)"
	pattern = r"sphere\s*\{\s*<\s*" + number + r"\s*,\s*" + number + r"\s*,\s*" + number + r"\s*>"
	return [tuple(float(v) for v in m.groups()) for m in re.finditer(pattern, text)]


def report_frame(path):
	ys = [p[1] for p in read_frame(path)]
	print(f"{path}: {len(ys)} components: {sum(y >= 1.0 for y in ys)} on or in the grate (y >= 1), "
		f"{sum(0.6 <= y < 1.0 for y in ys)} hanging under it (0.6 <= y < 1), {sum(y < 0.6 for y in ys)} "
		"on the floor or falling (y < 0.6)")


def report(path):
	if path.endswith(".pov"):
		report_frame(path)
		return
	particles = [p for p in read(path) if p[7] != 2]
	above = [p for p in particles if p[1] >= 1.0]
	hanging = [p for p in particles if 0.6 <= p[1] < 1.0]
	floor = [p for p in particles if p[1] < 0.6]
	print(f"{path}: {len(particles)} live particles: {len(above)} on or in the grate (y >= 1), "
		f"{len(hanging)} hanging under it (0.6 <= y < 1), {len(floor)} on the floor or falling (y < 0.6)")
	if floor:
		r = floor[0][3]
		sizes = clumps([p[:3] for p in floor], 2.2 * r)
		big = sum(s for s in sizes if s >= 5)
		print(f"  below y = 0.6: {len(sizes)} clumps, largest {sizes[:5]}, {big} particles in clumps of 5 or more")


if __name__ == "__main__":
	for p in sys.argv[1:]:
		report(p)
