"""The measures of the fluid validation (docs/validation.md), on plain arrays: readers of blobsim's
outputs, the quantity each case measures, and the reference each is compared with. Nothing here runs
blobsim or draws; tools/validation/test_measures.py checks every function on synthetic data.

Units are SI (blobsim's scene units are metres here). Positions are (N, 3) arrays, y up."""
import math
import re

import numpy as np

# ---- blobsim's outputs ----------------------------------------------------------------------------

_PLY_TYPES = {"char": "i1", "int8": "i1", "uchar": "u1", "uint8": "u1", "short": "i2", "int16": "i2",
	"ushort": "u2", "uint16": "u2", "int": "i4", "int32": "i4", "uint": "u4", "uint32": "u4",
	"float": "f4", "float32": "f4", "double": "f8", "float64": "f8"}


def read_ply(path):
	"""A binary little-endian PLY of particles (blobsim's particles.ply: x y z radius vx vy vz state id):
	a dict of arrays, one per property, plus "pos" (N, 3) and "vel" (N, 3) when present."""
	with open(path, "rb") as f:
		data = f.read()
	end = data.index(b"end_header\n") + len(b"end_header\n")
	header = data[:end].decode("ascii").splitlines()
	if "format binary_little_endian 1.0" not in header:
		raise ValueError(f"{path}: only binary_little_endian PLY is read here")
	count, fields, in_vertex = 0, [], False
	for line in header:
		words = line.split()
		if words[:2] == ["element", "vertex"]:
			count, in_vertex = int(words[2]), True
		elif words[:1] == ["element"]:
			in_vertex = False
		elif words[:1] == ["property"] and in_vertex:
			fields.append((words[2], "<" + _PLY_TYPES[words[1]]))
	rec = np.frombuffer(data, dtype=np.dtype(fields), count=count, offset=end)
	out = {name: rec[name].astype(np.float64) for name, _ in fields}
	out["pos"] = np.stack([out["x"], out["y"], out["z"]], axis=1) if count else np.zeros((0, 3))
	if "vx" in out:
		out["vel"] = np.stack([out["vx"], out["vy"], out["vz"]], axis=1) if count else np.zeros((0, 3))
	return out


def write_ply(path, pos, radius):
	"""Particles at pos (N, 3) of one radius as a binary PLY (x y z radius), for a `file` emitter."""
	pos = np.asarray(pos, dtype="<f4")
	rec = np.zeros(len(pos), dtype=[("x", "<f4"), ("y", "<f4"), ("z", "<f4"), ("radius", "<f4")])
	rec["x"], rec["y"], rec["z"], rec["radius"] = pos[:, 0], pos[:, 1], pos[:, 2], radius
	head = ("ply\nformat binary_little_endian 1.0\ncomment tools/validate\nelement vertex %d\n"
		"property float x\nproperty float y\nproperty float z\nproperty float radius\nend_header\n" % len(pos))
	with open(path, "wb") as f:
		f.write(head.encode("ascii"))
		f.write(rec.tobytes())


_NUM = r"([-+0-9.eE]+)"
_COMPONENT = re.compile(r"sphere\s*\{\s*<\s*" + _NUM + r"\s*,\s*" + _NUM + r"\s*,\s*" + _NUM + r"\s*>\s*,\s*" + _NUM)


def read_pov_components(path):
	"""The blob components of a blobsim scene or frame (`sphere { <x, y, z>, R, S }`, one per rendered
	particle: escaped ones are not rendered): their centres (N, 3) and radii (render.blob.radius_scale x
	the particle's). A scene split into tiles repeats components; the validation configs keep one blob."""
	with open(path) as f:
		values = np.array(_COMPONENT.findall(f.read()), dtype=np.float64).reshape(-1, 4)
	return values[:, :3], values[:, 3]


def summary_value(summary, dotted, default=None):
	"""summary.json's value at a dotted path ("interaction.density_error_mean"), or default."""
	v = summary
	for key in dotted.split("."):
		if not isinstance(v, dict) or key not in v:
			return default
		v = v[key]
	return v


# ---- dam break (Martin & Moyce 1952) --------------------------------------------------------------

# Martin & Moyce (1952), Phil. Trans. R. Soc. Lond. A 244, 312-324, n^2 = 2 (a column twice as high as
# wide) and a = 2.25 in, as Table 2 (the surge front Z = z / a against T = t sqrt(2 g / a)) and Table 6
# (the residual column's height H = h / (n^2 a) against tau = t sqrt(g / a)) print them, transcribed in
# Ocellaris (TormodLandet/Ocellaris, scripts/plot_dam_break.py, commit 44fd559f). Table 2 times the
# front's arrival at marks 0.25 in, then every 0.5 in, from the column's foot, Table 6 the column's top
# at steps of 0.25 in (test_measures.py checks both grids). PySPH's digitization of their Fig. 3
# (pypr/pysph, pysph/examples/db_exp_data.py, get_martin_moyce_2: T 0.832, 1.219, 1.997, 2.547, 3.345 at
# Z 1.217, 1.474, 2.292, 2.995, 4.134), the reference until 2026-11-28, is the same series to within
# 2.5% in Z (the table interpolated at its T); the table adds the points between and the first mark,
# T = 0.41.
MARTIN_MOYCE_T = np.array([0.41, 0.84, 1.19, 1.43, 1.63, 1.83, 1.98, 2.20, 2.32, 2.51, 2.65, 2.83, 2.98, 3.11, 3.33])
MARTIN_MOYCE_Z = np.array([1.11, 1.22, 1.44, 1.67, 1.89, 2.11, 2.33, 2.56, 2.78, 3.00, 3.22, 3.44, 3.67, 3.89, 4.11])
MARTIN_MOYCE_TAU = np.array([0.56, 0.77, 0.93, 1.08, 1.28, 1.46, 1.66, 1.84, 2.00, 2.21, 2.45, 2.70, 3.06, 3.44, 4.20,
	5.25, 7.40])
MARTIN_MOYCE_H = np.array([0.94, 0.89, 0.83, 0.78, 0.72, 0.67, 0.61, 0.56, 0.50, 0.44, 0.39, 0.33, 0.28, 0.22, 0.17,
	0.11, 0.06])


def surge_front(pos, radius, spacing, floor=0.0, wall=0.0, layers=2.0, gap=2.0, skip=2):
	"""The surge front's distance from the back wall (x = wall), fluid moving towards +x: the leading
	edge (centre + radius) of the particles within `layers` spacings of the floor. Robust to spray: from
	the front backwards, a particle more than `gap` spacings ahead of the next is detached and dropped,
	then the `skip` foremost of the rest are ignored too. NaN when no particle touches the floor."""
	near = pos[pos[:, 1] - floor <= layers * spacing]
	if len(near) == 0:
		return math.nan
	x = np.sort(near[:, 0])[::-1]
	lead = 0
	while lead + 1 < len(x) and x[lead] - x[lead + 1] > gap * spacing:
		lead += 1
	lead = min(lead + skip, len(x) - 1)
	return float(x[lead] + radius - wall)


def column_height(pos, radius, spacing, floor=0.0, wall=0.0, layers=2.0, skip=2):
	"""The residual column's height above the floor (y = floor) at the back wall (x = wall): the top
	(centre + radius) of the particles within `layers` spacings of the wall, the `skip` highest ignored
	(a drop thrown up). NaN when no particle is that close to the wall."""
	near = pos[pos[:, 0] - wall <= layers * spacing]
	if len(near) == 0:
		return math.nan
	y = np.sort(near[:, 1])[::-1]
	return float(y[min(skip, len(y) - 1)] + radius - floor)


def front_lead(t_ref, z_ref, t_sim, z_sim):
	"""How much earlier the simulated front reached each reference position: t_ref - the first time the
	simulated series (linear between its samples) reaches z_ref; NaN for a position it never reaches."""
	t_sim, z_sim = np.asarray(t_sim, dtype=np.float64), np.asarray(z_sim, dtype=np.float64)
	out = []
	for t, z in zip(np.asarray(t_ref, dtype=np.float64), np.asarray(z_ref, dtype=np.float64)):
		k = np.nonzero(z_sim >= z)[0]
		if len(k) == 0:
			out.append(math.nan)
		elif k[0] == 0:
			out.append(t - t_sim[0])
		else:
			i = k[0]
			f = (z - z_sim[i - 1]) / (z_sim[i] - z_sim[i - 1])
			out.append(t - (t_sim[i - 1] + f * (t_sim[i] - t_sim[i - 1])))
	return np.array(out)


def best_shift(t_ref, z_ref, t_sim, z_sim, shifts):
	"""The delay d among `shifts` that brings the simulated series closest to the reference (the
	largest relative error of z_sim(t_ref - d) against z_ref, over the reference points the shifted
	series covers): (d, that error)."""
	t_ref, z_ref = np.asarray(t_ref, dtype=np.float64), np.asarray(z_ref, dtype=np.float64)
	best = (math.nan, math.inf)
	for d in shifts:
		keep = (t_ref - d >= np.min(t_sim)) & (t_ref - d <= np.max(t_sim))
		if not np.any(keep):
			continue
		err = np.max(np.abs(np.interp(t_ref[keep] - d, t_sim, z_sim) / z_ref[keep] - 1.0))
		if err < best[1]:
			best = (float(d), float(err))
	return best


def compare_series(t_ref, z_ref, t_sim, z_sim, t_max):
	"""The simulated series at the reference's times up to t_max (linear interpolation; a reference
	point beyond the simulated times is left out): (t, reference, simulated, relative error) arrays."""
	t_ref, z_ref = np.asarray(t_ref), np.asarray(z_ref)
	keep = (t_ref <= t_max) & (t_ref >= np.min(t_sim)) & (t_ref <= np.max(t_sim))
	sim = np.interp(t_ref[keep], t_sim, z_sim)
	return t_ref[keep], z_ref[keep], sim, (sim - z_ref[keep]) / z_ref[keep]


# ---- hydrostatic column ---------------------------------------------------------------------------

def density_profile(y, spacing, area, heights, sigma=None):
	"""The column's density over rest density at each height: the particles' number density, smoothed
	along y by a Gaussian of width sigma (default one spacing, which blurs a lattice's layers to within
	1e-8), times the volume of a particle (spacing^3), over the cross-section `area` that the column fills
	(a box's inner area: each particle stands for spacing^2 of it). Valid farther than 3 sigma from the
	floor and the surface."""
	sigma = spacing if sigma is None else sigma
	d = (np.asarray(heights)[:, None] - np.asarray(y)[None, :]) / sigma
	number = np.exp(-0.5 * d * d).sum(axis=1) / (sigma * math.sqrt(2.0 * math.pi))
	return number * spacing ** 3 / area


def weight_above(y, spacing, area, heights, rho0, g, sigma=None):
	"""The pressure that holds a settled column at each height: the weight of the fluid above it per unit
	area, m g (particles above) / area with m = rho0 spacing^3. Counted sharply (sigma None: each
	particle by half at its own height) it is a staircase of one step a layer, which departs from the
	line rho0 g h by up to half a layer's weight between its steps (1.25% of rho0 g H in a 40-layer
	column at rest); with sigma, each particle counts by the Gaussian's smooth step, Phi((y - h) /
	sigma), which at sigma = one spacing makes the staircase of a lattice a line (to 2.3e-4 of a layer's
	weight 3 sigma from the floor or the surface, less farther in: the density profile's smoothing). Equal to rho0 g h, h = H_rest - y, when the column is at its rest
	density throughout; a compression eps makes it fall short by about eps rho0 g y. With sigma, valid
	farther than 3 sigma from the floor and the surface."""
	y = np.asarray(y)
	h = np.asarray(heights)[:, None]
	if sigma is None:
		above = (y[None, :] > h).sum(axis=1) + 0.5 * (y[None, :] == h).sum(axis=1)
	else:
		z = (y[None, :] - h) / (sigma * math.sqrt(2.0))
		above = 0.5 * (1.0 + np.vectorize(math.erf)(z)).sum(axis=1)
	return rho0 * spacing ** 3 * g * above / area


def rest_height(count, spacing, area, floor=0.0):
	"""The height of the free surface of `count` particles at rest density over `area`."""
	return floor + count * spacing ** 3 / area


# ---- Poiseuille flow between plates ---------------------------------------------------------------

def poiseuille_startup(x, t, g, nu, width, terms=200):
	"""The velocity along the channel of a flow between plates at x = 0 and x = width, driven by the
	body force g along it and started from rest at t = 0 (no-slip walls; the start-up solution as a
	Fourier series; t = inf gives the parabola g x (width - x) / (2 nu))."""
	x = np.asarray(x, dtype=np.float64)
	u = g * x * (width - x) / (2.0 * nu)
	if math.isinf(t):
		return u
	for n in range(1, 2 * terms, 2):
		decay = math.exp(-(n * math.pi) ** 2 * nu * t / width ** 2)
		if decay < 1e-16:
			break
		u = u - 4.0 * g * width ** 2 / (nu * math.pi ** 3 * n ** 3) * np.sin(n * math.pi * x / width) * decay
	return u


def channel_profile(pos, speed, width, spacing, along=1, across=0, span=2, trim=2.0):
	"""The velocity profile across the gap in the middle of a slug of fluid between plates at
	x[across] = 0 and width: the particles in the middle third of the slug along the channel (axis
	`along`) and farther than `trim` spacings from its free sides (axis `span`), binned by their
	distance from a plate into bins one spacing wide. Returns (bin centres' mean position, mean speed,
	particle count) over the bins that hold particles."""
	lo, hi = np.quantile(pos[:, along], [0.0, 1.0])
	third = (hi - lo) / 3.0
	s_lo, s_hi = np.min(pos[:, span]), np.max(pos[:, span])
	keep = (pos[:, along] >= lo + third) & (pos[:, along] <= hi - third)
	slack = trim - 0.5  # half a spacing of slack: a lattice's rows sit at whole spacings, give or take rounding
	keep &= (pos[:, span] >= s_lo + slack * spacing) & (pos[:, span] <= s_hi - slack * spacing)
	x = pos[keep, across]
	bins = np.clip(np.floor(x / spacing).astype(int), 0, max(int(round(width / spacing)) - 1, 0))
	centres, means, counts = [], [], []
	for b in np.unique(bins):
		sel = bins == b
		centres.append(float(np.mean(x[sel])))
		means.append(float(np.mean(speed[keep][sel])))
		counts.append(int(np.sum(sel)))
	return np.array(centres), np.array(means), np.array(counts)


# ---- Bingham slump (Pashias et al. 1996) ----------------------------------------------------------

def pashias_slump(tau):
	"""Pashias, Boger, Summers & Glenister (1996), J. Rheol. 40, 1179: the dimensionless slump of a
	cylinder of a Bingham material, s' = 1 - 2 tau' (1 - ln 2 tau'), tau' = tau_y / (rho g H); 0 from
	tau' = 0.5 (nothing yields)."""
	tau = np.asarray(tau, dtype=np.float64)
	two = np.clip(2.0 * tau, 1e-300, 1.0)
	return np.where(tau >= 0.5, 0.0, 1.0 - two * (1.0 - np.log(two)))


def cylinder_lattice(height, radius, spacing, floor=0.0):
	"""The centres of the lattice cells (spacing wide, from the floor up) whose centre lies in the
	cylinder about the y axis: the particles of a cylinder of fluid."""
	n = int(math.ceil(radius / spacing))
	c = (np.arange(-n, n) + 0.5) * spacing
	ys = floor + (np.arange(int(round(height / spacing))) + 0.5) * spacing
	gx, gy, gz = np.meshgrid(c, ys, c, indexing="ij")
	pos = np.stack([gx.ravel(), gy.ravel(), gz.ravel()], axis=1)
	return pos[pos[:, 0] ** 2 + pos[:, 2] ** 2 <= radius ** 2]


def heap_height(pos, radius, axis_radius, floor=0.0, skip=2):
	"""The height of a slumped heap at its axis (the mean x, z of the particles): the top (centre +
	radius) of the particles within axis_radius of the axis, ignoring the `skip` highest (spray)."""
	axis = pos[:, [0, 2]].mean(axis=0)
	near = pos[np.hypot(pos[:, 0] - axis[0], pos[:, 2] - axis[1]) <= axis_radius]
	if len(near) == 0:
		return math.nan
	y = np.sort(near[:, 1])[::-1]
	return float(y[min(skip, len(y) - 1)] + radius - floor)


# ---- free droplet ---------------------------------------------------------------------------------

def directions(count=256):
	"""Unit vectors spread over the half sphere (a Fibonacci lattice), with the 3 axes, the 4 body
	diagonals and the 6 face diagonals of the cube among them."""
	k = np.arange(count) + 0.5
	phi = np.arccos(1.0 - k / count)  # upper half only: a direction and its opposite give one width
	theta = math.pi * (1.0 + 5.0 ** 0.5) * k
	fib = np.stack([np.cos(theta) * np.sin(phi), np.cos(phi), np.sin(theta) * np.sin(phi)], axis=1)
	cube = [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1], [1, 1, -1], [1, -1, 1], [-1, 1, 1], [1, 1, 0],
		[1, -1, 0], [1, 0, 1], [1, 0, -1], [0, 1, 1], [0, 1, -1]]
	cube = np.array(cube, dtype=np.float64)
	cube /= np.linalg.norm(cube, axis=1)[:, None]
	return np.concatenate([cube, fib])


def extent_ratio(pos, radius, skip=2):
	"""The droplet's aspect ratio: its largest width over its smallest, a width being the extent of the
	particles along a direction (max - min of the projections, each end ignoring the `skip` outermost,
	+ 2 radius), over many directions. A cube gives sqrt(3); a sphere 1. (The principal extents from the
	second moments cannot tell a cube from a sphere: a cube's inertia is isotropic.)"""
	proj = np.sort(pos @ directions().T, axis=0)
	k = min(skip, (len(pos) - 1) // 2)
	widths = proj[len(pos) - 1 - k] - proj[k] + 2.0 * radius
	return float(widths.max() / widths.min())


def moment_ratio(pos):
	"""The ratio of the largest to the smallest principal extent from the second moments (square roots
	of the covariance's eigenvalues): 1 for any shape with isotropic inertia, a cube included."""
	ev = np.linalg.eigvalsh(np.cov((pos - pos.mean(axis=0)).T))
	return float(math.sqrt(max(ev.max(), 0.0) / max(ev.min(), 1e-300)))
