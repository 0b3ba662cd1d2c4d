#!/usr/bin/env python3
"""How far the mud of configs/mud-slope.json has run and whether it still moves, from a run's frames.

usage: tools/mud_front.py OUT/frame_0001.pov OUT/frame_0002.pov ...   (a run with
       --set output.frame_every=40 and render.surface "blob": a frame a second)

For each frame: the front (the largest x of the blob components' centres: the slope runs along +x)
and the mean distance the components moved since the frame before (components follow particle order,
so the same index is the same particle)."""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from slime_drip import read_frame  # noqa: E402


def main(paths):
	previous = None
	for path in paths:
		points = read_frame(path)
		if not points:
			print(f"{path}: no components (the state before the first step)")
			continue
		front = max(p[0] for p in points)
		travel = ""
		if previous is not None and len(previous) == len(points):
			mean = sum(math.dist(a, b) for a, b in zip(previous, points)) / len(points)
			travel = f", mean travel since the last frame {mean:.2g} m"
		print(f"{path}: front x = {front:.4f} m{travel}")
		previous = points


main(sys.argv[1:])
