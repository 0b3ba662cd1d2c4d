#!/usr/bin/env python3
"""Unit tests of tools/validation/measures.py on synthetic data (the test suite runs them: meson test
validation-measures). Exit 77 (skipped) when numpy is missing.

usage: /usr/bin/python3 tools/validation/test_measures.py [BLOBSIM]
With BLOBSIM, also reads a particles.ply and a frame that blobsim writes for a small known lattice."""
import math
import os
import subprocess
import sys
import tempfile
import unittest

try:
	import numpy as np
except ImportError:
	print("numpy is missing (Debian: python3-numpy): skipped")
	sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import measures as m  # noqa: E402

BLOBSIM = None


def lattice(nx, ny, nz, spacing, origin=(0.0, 0.0, 0.0)):
	g = np.meshgrid(*[(np.arange(n) + 0.5) * spacing for n in (nx, ny, nz)], indexing="ij")
	return np.stack([a.ravel() for a in g], axis=1) + np.asarray(origin)


class Readers(unittest.TestCase):
	def test_ply_round_trip(self):
		pos = np.array([[0.0, 1.0, 2.0], [3.5, -1.25, 0.5]])
		with tempfile.TemporaryDirectory() as d:
			m.write_ply(os.path.join(d, "a.ply"), pos, 0.25)
			p = m.read_ply(os.path.join(d, "a.ply"))
		np.testing.assert_array_equal(p["pos"], pos)
		np.testing.assert_array_equal(p["radius"], [0.25, 0.25])

	def test_pov_components(self):
		text = "blob {\n threshold 0.6\n\tsphere { <0.005,0.00500000601,-1e-3>, 0.008, 1 }\n" \
			"\tsphere { <1,2,3>, 0.5, 1 }\n}\nsphere { <9, 9, 9>, 2 }\n"
		with tempfile.TemporaryDirectory() as d:
			with open(os.path.join(d, "f.pov"), "w") as f:
				f.write(text)
			c, r = m.read_pov_components(os.path.join(d, "f.pov"))
		np.testing.assert_allclose(c, [[0.005, 0.00500000601, -1e-3], [1, 2, 3], [9, 9, 9]])
		np.testing.assert_allclose(r, [0.008, 0.5, 2])

	def test_summary_value(self):
		s = {"interaction": {"density_error_mean": 1e-4}}
		self.assertEqual(m.summary_value(s, "interaction.density_error_mean"), 1e-4)
		self.assertIsNone(m.summary_value(s, "interaction.density_error_max"))

	def test_blobsim_outputs(self):
		exe = BLOBSIM or os.environ.get("BLOBSIM")
		if not exe:
			self.skipTest("no blobsim given")
		cfg = ('{"environment": {"planes": [{"point": [0, -5, 0]}]}, "particles": {"radius": 0.1,'
			' "velocity": [1, 0, 0], "emitters": [{"type": "grid", "min": [0, 0, 0], "max": [0.8, 0.6, 0.4],'
			' "count": [4, 3, 2]}]}, "motion": {"steps": 2, "dt": 0.5}, "output": {"directory": "o",'
			' "frame_every": 1}}')
		with tempfile.TemporaryDirectory() as d:
			with open(os.path.join(d, "c.json"), "w") as f:
				f.write(cfg)
			subprocess.run([exe, "run", os.path.join(d, "c.json"), "--quiet"], check=True)
			p = m.read_ply(os.path.join(d, "o", "particles.ply"))
			f0, _ = m.read_pov_components(os.path.join(d, "o", "frame_0000.pov"))
			f1, r1 = m.read_pov_components(os.path.join(d, "o", "frame_0001.pov"))
			f2, _ = m.read_pov_components(os.path.join(d, "o", "frame_0002.pov"))
		want = lattice(4, 3, 2, 0.2)
		order = np.lexsort(want.T[::-1])
		self.assertEqual(len(f0), 0)  # frame 0 is the state before the first step, which emits them
		np.testing.assert_allclose(f1[np.lexsort(f1.T[::-1])], want[order] + [0.5, 0, 0], atol=1e-6)
		np.testing.assert_allclose(f2[np.lexsort(f2.T[::-1])], want[order] + [1, 0, 0], atol=1e-5)
		np.testing.assert_allclose(p["pos"][np.lexsort(p["pos"].T[::-1])], want[order] + [1, 0, 0], atol=1e-5)
		np.testing.assert_allclose(p["vel"], np.tile([1.0, 0, 0], (24, 1)))
		np.testing.assert_allclose(r1, 1.6 * 0.1)


class DamBreak(unittest.TestCase):
	def test_front_ignores_spray(self):
		s = 0.01
		body = lattice(30, 3, 2, s)  # x up to 0.295, on the floor
		spray = np.array([[0.5, 0.005, 0.005], [0.31, 0.5, 0.005]])  # a lone drop ahead, one in the air
		front = m.surge_front(np.concatenate([body, spray]), 0.005, s, skip=0)
		self.assertAlmostEqual(front, 0.3)
		stragglers = np.array([[0.305, 0.005, 0.005], [0.31, 0.005, 0.005]])  # attached, but only two
		self.assertAlmostEqual(m.surge_front(np.concatenate([body, stragglers]), 0.005, s, skip=2), 0.3)
		self.assertTrue(math.isnan(m.surge_front(body + [0, 1, 0], 0.005, s)))

	def test_compare_series(self):
		t = np.linspace(0, 4, 41)
		t_ref, z_ref, sim, err = m.compare_series([0.5, 1.0, 3.5], [2.0, 4.0, 1.0], t, 1.1 * 4 * t, 3.0)
		np.testing.assert_allclose(t_ref, [0.5, 1.0])
		np.testing.assert_allclose(err, [0.1, 0.1])

	def test_reference_data(self):
		self.assertEqual(len(m.MARTIN_MOYCE_T), len(m.MARTIN_MOYCE_Z))
		self.assertTrue(np.all(np.diff(m.MARTIN_MOYCE_T) > 0) and np.all(np.diff(m.MARTIN_MOYCE_Z) > 0))
		self.assertEqual(len(m.MARTIN_MOYCE_TAU), len(m.MARTIN_MOYCE_H))
		self.assertTrue(np.all(np.diff(m.MARTIN_MOYCE_TAU) > 0) and np.all(np.diff(m.MARTIN_MOYCE_H) < 0))
		# Table 2's marks: 0.25 in, then every 0.5 in from the foot of a column a = 2.25 in wide; Table 6's
		# heights: steps of 0.25 in down from 2a = 4.5 in (both printed to 2 decimals: 0.005 of a or 2a).
		marks = (m.MARTIN_MOYCE_Z - 1.0) * 2.25
		np.testing.assert_allclose(marks, [0.25] + [0.5 * k for k in range(1, len(marks))], atol=0.005 * 2.25)
		drops = (1.0 - m.MARTIN_MOYCE_H) * 4.5
		np.testing.assert_allclose(drops, [0.25 * k for k in range(1, len(drops) + 1)], atol=0.005 * 4.5)

	def test_column_height(self):
		s, r = 0.01, 0.005
		column = lattice(3, 20, 2, s)  # against the wall x = 0, 0.2 high
		puddle = lattice(30, 2, 2, s, origin=(0.05, 0.0, 0.0))  # lower, away from the wall
		drops = np.array([[0.005, 0.5, 0.005], [0.015, 0.45, 0.005]])  # thrown up at the wall: ignored
		self.assertAlmostEqual(m.column_height(np.concatenate([column, puddle, drops]), r, s), 0.2)
		self.assertAlmostEqual(m.column_height(np.concatenate([column, puddle]), r, s, skip=0), 0.2)
		self.assertAlmostEqual(m.column_height(column + [0, 0.1, 0], r, s, floor=0.1, skip=0), 0.2)
		self.assertTrue(math.isnan(m.column_height(puddle, r, s)))

	def test_front_lead_and_best_shift(self):
		def front(t):
			return 1.0 + 0.5 * t + 0.25 * t * t
		t = np.arange(0.0, 4.0, 0.01)
		t_ref = np.array([0.4, 0.8, 1.5, 2.5, 3.5])
		delay = 0.26  # the reference is the simulation, later by this
		lead = m.front_lead(t_ref, front(t_ref - delay), t, front(t))
		np.testing.assert_allclose(lead, delay, atol=1e-3)
		self.assertTrue(math.isnan(m.front_lead([1.0], [99.0], t, front(t))[0]))
		d, err = m.best_shift(t_ref, front(t_ref - delay), t, front(t), np.arange(0.0, 0.6, 0.01))
		self.assertAlmostEqual(d, delay)
		self.assertLess(err, 1e-4)
		d, err = m.best_shift(t_ref, 1.1 * front(t_ref), t, front(t), [0.0])
		self.assertAlmostEqual(err, 1.0 - 1.0 / 1.1)


class Hydrostatic(unittest.TestCase):
	def test_rest_lattice(self):
		s, n, layers = 0.01, 10, 30
		pos = lattice(n, layers, n, s)
		area = (n * s) ** 2
		h = np.linspace(0.05, 0.25, 21)
		np.testing.assert_allclose(m.density_profile(pos[:, 1], s, area, h), 1.0, atol=1e-7)
		top = m.rest_height(len(pos), s, area)
		self.assertAlmostEqual(top, 0.3)
		mid = (np.arange(1, layers) * s)  # between layers: exactly the weight of the layers above
		np.testing.assert_allclose(m.weight_above(pos[:, 1], s, area, mid, 1000, 9.81), 1000 * 9.81 * (top - mid))
		# At a layer's own height the sharp count is half a layer off the line; smoothed by one spacing,
		# the weight is the line at any height 3 spacings from the ends.
		at = np.arange(3, layers - 3) * s + 0.5 * s
		sharp = m.weight_above(pos[:, 1], s, area, at, 1000, 9.81)
		self.assertAlmostEqual(float(np.max(np.abs(sharp - 1000 * 9.81 * (top - at)))), 1000 * 9.81 * s / 2, places=6)
		anywhere = np.linspace(3 * s, top - 3 * s, 97)
		smooth = m.weight_above(pos[:, 1], s, area, anywhere, 1000, 9.81, sigma=s)
		# (3 spacings from the floor the Gaussian misses the layers below it: Phi(-3.5) of a layer)
		np.testing.assert_allclose(smooth, 1000 * 9.81 * (top - anywhere), atol=1e-5 * 1000 * 9.81 * top)

	def test_compressed(self):
		s, n, layers, eps = 0.01, 10, 30, 0.01
		pos = lattice(n, layers, n, s) * [1, 1 - eps, 1]  # 1% closer layers: 1% denser
		area = (n * s) ** 2
		np.testing.assert_allclose(m.density_profile(pos[:, 1], s, area, [0.1, 0.15]), 1 / (1 - eps), rtol=1e-6)


class Poiseuille(unittest.TestCase):
	def test_startup(self):
		x = np.linspace(0, 0.02, 11)
		steady = m.poiseuille_startup(x, math.inf, 9.81, 0.01, 0.02)
		self.assertAlmostEqual(steady.max(), 9.81 * 0.02 ** 2 / (8 * 0.01))
		np.testing.assert_allclose(m.poiseuille_startup(x, 0.0, 9.81, 0.01, 0.02), 0.0, atol=1e-6 * steady.max())
		np.testing.assert_allclose(m.poiseuille_startup(x, 10.0, 9.81, 0.01, 0.02), steady)
		# early on the middle moves as in free fall, u = g t
		self.assertAlmostEqual(m.poiseuille_startup([0.01], 1e-4, 9.81, 0.01, 0.02)[0], 9.81e-4, places=7)

	def test_profile(self):
		s, w = 0.002, 0.02
		pos = lattice(10, 60, 8, s)
		u = m.poiseuille_startup(pos[:, 0], math.inf, 9.81, 0.01, w)
		u[pos[:, 1] < 0.02] = 0.0  # a disturbed end outside the middle third
		x, mean, count = m.channel_profile(pos, u, w, s)
		np.testing.assert_allclose(x, (np.arange(10) + 0.5) * s)
		np.testing.assert_allclose(mean, m.poiseuille_startup(x, math.inf, 9.81, 0.01, w))
		self.assertTrue(np.all(count == 20 * 4))


class Slump(unittest.TestCase):
	def test_pashias(self):
		np.testing.assert_allclose(m.pashias_slump([0.05, 0.5, 0.7]), [1 - 0.1 * (1 - math.log(0.1)), 0, 0])
		s = m.pashias_slump(np.linspace(0.01, 0.49, 50))
		self.assertTrue(np.all(np.diff(s) < 0))

	def test_cylinder_and_height(self):
		s = 0.005
		pos = m.cylinder_lattice(0.06, 0.03, s)
		self.assertAlmostEqual(len(pos) / (0.06 / s), math.pi * (0.03 / s) ** 2, delta=0.05 * len(pos) / 12)
		self.assertTrue(np.all(np.hypot(pos[:, 0], pos[:, 2]) <= 0.03))
		self.assertAlmostEqual(m.heap_height(pos, s / 2, 0.01, skip=0), 0.06)
		spray = np.concatenate([pos, [[0, 0.2, 0], [0, 0.3, 0]]])
		self.assertAlmostEqual(m.heap_height(spray, s / 2, 0.01, skip=2), 0.06)


class Droplet(unittest.TestCase):
	def test_cube_and_sphere(self):
		s = 0.002
		cube = lattice(12, 12, 12, s)
		# the body diagonal from corner centre to corner centre, + 2r, over the face width
		self.assertAlmostEqual(m.extent_ratio(cube, s / 2, skip=0), (11 * math.sqrt(3) + 1) / 12, places=6)
		self.assertAlmostEqual(m.moment_ratio(cube), 1.0, places=6)
		rng = np.random.default_rng(1)
		v = rng.normal(size=(20000, 3))
		ball = v / np.linalg.norm(v, axis=1)[:, None] * rng.random(20000)[:, None] ** (1 / 3) * 0.01
		self.assertLess(m.extent_ratio(ball, s / 2), 1.02)
		self.assertAlmostEqual(m.extent_ratio(ball * [1.2, 1, 1], s / 2), 1.2, delta=0.03)


if __name__ == "__main__":
	if len(sys.argv) > 1 and not sys.argv[1].startswith("-"):
		BLOBSIM = sys.argv.pop(1)
	unittest.main(verbosity=1)
