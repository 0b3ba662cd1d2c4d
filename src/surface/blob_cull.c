// blob_cull.c — the blob components that cannot change the surface (surface.h, "Culling"), found by
// a conservative bound on octants of each component's cube.
//
// The neighbours. Components are sorted into a grid of cells of side 2 max R (+ the slack), so every
// component whose ball can meet i's lies in the 27 cells around i's.
//
// The test of one component. The others' field over its support (the ball of radius R_i + 2 slack:
// every point the written component reaches) must be >= need. A box that misses the ball shows
// nothing; otherwise either bound must reach need: the sum over the others of their least value on
// the box (at its farthest point from their centres, the distance grown and their radii shrunk by
// the slack), or the second-order bound around the box's centre (bsCull_Taylor). Else the box is cut
// in 8 and every part must pass, to `depth` levels. Exact shortcuts reject early: the first sum at a
// single point (what any box holding that point can show at most) below need at the component's
// centre, at probe points inside its ball (the rim first) or at a box's centre means no box holding
// the point can pass. Each level hands its parts only the others that reach the box.
#include "blob_cull.h"

#include "blobsim/base.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum
{
	bs_cullGridBits = 21,     // bits of a cell coordinate in a key
	bs_cullGrain = 64,        // components a parallel chunk of phase 1
	bs_cullProbeCount = 15,   // the centre and 14 directions
	bs_cullMaxOthers = 1024,  // others a test looks at, at most (any subset gives a lower bound)
	bs_cullBoxBudget = 20000, // boxes a test bounds at most; beyond, the component is kept
};

// A component as the test of another sees it: its centre, its radius shrunk by the slack.
typedef struct bsCullOther
{
	double c[3];
	double r, r2;
} bsCullOther;

typedef struct bsCullCell
{
	uint64_t key;
	uint32_t id;
} bsCullCell;

typedef struct bsCull
{
	const bsBlobCullDef* def;
	bsBlobCullBound bound;
	double need;         // the others' field every box of the support must show
	double origin[3];    // the grid's lower corner
	double cell;         // the grid's cell side
	bsCullCell* cells;   // every component by (key, id)
	uint8_t* state;      // phase 1: 1 a candidate, 0 kept, 2 out of memory; phase 2: keep
	const uint8_t* kept; // phase 2: the components still written (NULL in phase 1: all)
} bsCull;

// One test's work space: the others at each level of the octants.
typedef struct bsCullScratch
{
	bsCullOther* others;  // (depth + 1) x capacity
	size_t capacity;
	size_t count;         // at level 0
	bool sawDropped;      // the gathering skipped a component left out (phase 2)
	int boxes;            // boxes this test may still bound (bs_cullBoxBudget)
	double c[3];          // the tested component's centre
	double reach2;        // (R_i + 2 slack)^2
} bsCullScratch;

static double bsCull_Radius(const bsBlobCullDef* def, size_t i)
{
	return def->radii != NULL ? def->radii[i] : def->radius;
}

static double bsCull_Coord(bsVec3 v, int a)
{
	return a == 0 ? v.x : (a == 1 ? v.y : v.z);
}

static int bsCull_CompareCells(const void* a, const void* b)
{
	const bsCullCell* x = a;
	const bsCullCell* y = b;
	if (x->key != y->key)
	{
		return x->key < y->key ? -1 : 1;
	}
	return x->id < y->id ? -1 : (x->id > y->id ? 1 : 0);
}

// The cell coordinate of v on axis a (clamped: outside the grid only for a lookup's neighbour cell).
static int64_t bsCull_CellCoord(const bsCull* x, double v, int a)
{
	double k = floor((v - x->origin[a]) / x->cell);
	double top = (double)((1 << bs_cullGridBits) - 1);
	return (int64_t)(k < 0.0 ? 0.0 : (k > top ? top : k));
}

static uint64_t bsCull_Key(int64_t i, int64_t j, int64_t k)
{
	return (uint64_t)i | (uint64_t)j << bs_cullGridBits | (uint64_t)k << (2 * bs_cullGridBits);
}

// Sorts the components into the grid; false when out of memory.
static bool bsCull_BuildGrid(bsCull* x, double maxRadius)
{
	const bsBlobCullDef* def = x->def;
	double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
	for (size_t i = 0; i < def->count; ++i)
	{
		for (int a = 0; a < 3; ++a)
		{
			double v = bsCull_Coord(def->centers[i], a);
			lo[a] = v < lo[a] ? v : lo[a];
			hi[a] = v > hi[a] ? v : hi[a];
		}
	}
	// Neighbours lie within R_i + R_j + 3 slack < the cell; a wide spread takes larger cells so that
	// every coordinate fits its bits (more neighbours to look at, the same answer).
	x->cell = 2.0 * maxRadius + 4.0 * def->slack;
	double cells = (double)((1 << bs_cullGridBits) - 2);
	for (int a = 0; a < 3; ++a)
	{
		x->origin[a] = lo[a];
		double spread = hi[a] - lo[a];
		x->cell = spread / cells > x->cell ? spread / cells : x->cell;
	}
	x->cells = malloc((def->count + 1) * sizeof(bsCullCell));
	if (x->cells == NULL)
	{
		return false;
	}
	for (size_t i = 0; i < def->count; ++i)
	{
		bsVec3 c = def->centers[i];
		x->cells[i].key = bsCull_Key(bsCull_CellCoord(x, c.x, 0), bsCull_CellCoord(x, c.y, 1), bsCull_CellCoord(x, c.z, 2));
		x->cells[i].id = (uint32_t)i;
	}
	qsort(x->cells, def->count, sizeof(bsCullCell), bsCull_CompareCells);
	return true;
}

// The first cell entry whose key is >= key.
static size_t bsCull_LowerBound(const bsCull* x, uint64_t key)
{
	size_t lo = 0, hi = x->def->count;
	while (lo < hi)
	{
		size_t mid = lo + (hi - lo) / 2;
		if (x->cells[mid].key < key)
		{
			lo = mid + 1;
		}
		else
		{
			hi = mid;
		}
	}
	return lo;
}

static bool bsCull_Reserve(bsCullScratch* s, size_t need, int depth)
{
	if (need <= s->capacity)
	{
		return true;
	}
	size_t capacity = s->capacity * 2 > need ? s->capacity * 2 : need + 64;
	bsCullOther* others = malloc(capacity * (size_t)(depth + 1) * sizeof(bsCullOther));
	if (others == NULL)
	{
		return false;
	}
	if (s->count > 0)
	{
		memcpy(others, s->others, s->count * sizeof(bsCullOther));
	}
	free(s->others);
	s->others = others;
	s->capacity = capacity;
	return true;
}

// Adds component j to i's others when its ball may meet i's (and, in phase 2, it is still kept);
// false when out of memory.
static bool bsCull_Consider(const bsCull* x, size_t i, uint32_t j, bsCullScratch* s)
{
	const bsBlobCullDef* def = x->def;
	if (j == i)
	{
		return true;
	}
	if (x->kept != NULL && !x->kept[j])
	{
		s->sawDropped = true;
		return true;
	}
	bsVec3 cj = def->centers[j];
	double ri = bsCull_Radius(def, i), rj = bsCull_Radius(def, j);
	double r = rj - def->slack;
	double dx = cj.x - s->c[0], dy = cj.y - s->c[1], dz = cj.z - s->c[2];
	double far = ri + rj + 3.0 * def->slack;
	if (r <= 0.0 || dx * dx + dy * dy + dz * dz >= far * far)
	{
		return true;
	}
	if (!bsCull_Reserve(s, s->count + 1, def->depth))
	{
		return false;
	}
	bsCullOther* o = s->others + s->count++;
	o->c[0] = cj.x;
	o->c[1] = cj.y;
	o->c[2] = cj.z;
	o->r = r;
	o->r2 = r * r;
	return true;
}

// The components whose ball may meet i's (kept ones only in phase 2), in grid order, the first
// bs_cullMaxOthers of them (a crowd of coincident components costs no more than that); false when
// out of memory.
static bool bsCull_Gather(const bsCull* x, size_t i, bsCullScratch* s)
{
	const bsBlobCullDef* def = x->def;
	bsVec3 ci = def->centers[i];
	double ri = bsCull_Radius(def, i);
	s->count = 0;
	s->sawDropped = false;
	s->c[0] = ci.x;
	s->c[1] = ci.y;
	s->c[2] = ci.z;
	double reach = ri + 2.0 * def->slack;
	s->reach2 = reach * reach;
	int64_t k[3];
	for (int a = 0; a < 3; ++a)
	{
		k[a] = bsCull_CellCoord(x, s->c[a], a);
	}
	int64_t top = ((int64_t)1 << bs_cullGridBits) - 1;
	for (int64_t dz = -1; dz <= 1; ++dz)
	{
		for (int64_t dy = -1; dy <= 1; ++dy)
		{
			// The row's three cells (x in the key's low bits): one range of keys, one search.
			int64_t v = k[1] + dy, w = k[2] + dz;
			if (v < 0 || w < 0 || v > top || w > top)
			{
				continue;
			}
			uint64_t first = bsCull_Key(k[0] > 0 ? k[0] - 1 : 0, v, w);
			uint64_t last = bsCull_Key(k[0] < top ? k[0] + 1 : top, v, w);
			for (size_t e = bsCull_LowerBound(x, first);
				e < def->count && x->cells[e].key <= last && s->count < bs_cullMaxOthers; ++e)
			{
				if (!bsCull_Consider(x, i, x->cells[e].id, s))
				{
					return false;
				}
			}
		}
	}
	return true;
}

// The least value of one other's field on the box [lo, hi]: at the box's farthest point from its
// centre, that distance grown by the slack (the wrong rule: at the nearest point).
static double bsCull_Least(const bsCull* x, const bsCullOther* o, const double lo[3], const double hi[3])
{
	double d2 = 0.0;
	for (int a = 0; a < 3; ++a)
	{
		double e;
		if (x->bound == bs_cullFarthest)
		{
			double u = fabs(o->c[a] - lo[a]), v = fabs(o->c[a] - hi[a]);
			e = u > v ? u : v;
		}
		else
		{
			e = o->c[a] < lo[a] ? lo[a] - o->c[a] : (o->c[a] > hi[a] ? o->c[a] - hi[a] : 0.0);
		}
		d2 += e * e;
	}
	double d = sqrt(d2) + x->def->slack;
	if (d >= o->r)
	{
		return 0.0;
	}
	double q = 1.0 - d * d / o->r2;
	return x->def->strength * q * q;
}

// The same at a single point p (the box [p, p]): the most any box holding p can show.
static bool bsCull_PointPasses(const bsCull* x, const bsCullOther* others, size_t n, const double p[3])
{
	double sum = 0.0;
	for (size_t j = 0; j < n && sum < x->need; ++j)
	{
		sum += bsCull_Least(x, others + j, p, p);
	}
	return sum >= x->need;
}

static double bsCull_MinDistance2(const double c[3], const double lo[3], const double hi[3])
{
	double d2 = 0.0;
	for (int a = 0; a < 3; ++a)
	{
		double e = c[a] < lo[a] ? lo[a] - c[a] : (c[a] > hi[a] ? c[a] - hi[a] : 0.0);
		d2 += e * e;
	}
	return d2;
}

// The second-order bound of the others' field over the box, around its centre m: each component's
// field (of its radius shrunk by the slack, which is smaller everywhere) is C^1 with second
// derivatives >= -4 S / r^2 along any line (inside: 2 g'(u) + 4 g''(u) (d.v)^2 >= 2 g'(u) =
// -4 S (1 - u/r^2) / r^2 for u = d^2, 0 outside), so for a point p of the box and a centre moved by
// delta, |delta| <= slack: f(p - delta) >= f(m) + grad f(m).(p - m) - |grad f(m)| slack
// - 2 S / r^2 (|p - m| + slack)^2. Summed over the components that reach the box (the others add
// >= 0), the linear part's least value over the box is at a corner: sum_a |G_a| half_a.
static double bsCull_Taylor(const bsCull* x, const bsCullOther* others, size_t n, const double lo[3],
	const double hi[3], const double m[3])
{
	double s = x->def->slack, strength = x->def->strength;
	double value = 0.0, shifts = 0.0, curvature = 0.0, grad[3] = {0.0, 0.0, 0.0};
	for (size_t j = 0; j < n; ++j)
	{
		const bsCullOther* o = others + j;
		if (sqrt(bsCull_MinDistance2(o->c, lo, hi)) >= o->r + s)
		{
			continue;  // zero over the box whatever the shift
		}
		curvature += 4.0 * strength / o->r2;
		double d[3] = {m[0] - o->c[0], m[1] - o->c[1], m[2] - o->c[2]};
		double u = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
		if (u >= o->r2)
		{
			continue;
		}
		double w = 1.0 - u / o->r2;
		value += strength * w * w;
		double g = -4.0 * strength * w / o->r2;
		for (int a = 0; a < 3; ++a)
		{
			grad[a] += g * d[a];
		}
		shifts += fabs(g) * sqrt(u);
	}
	double half2 = 0.0, linear = 0.0;
	for (int a = 0; a < 3; ++a)
	{
		double h = 0.5 * (hi[a] - lo[a]);
		half2 += h * h;
		linear += fabs(grad[a]) * h;
	}
	double reach = sqrt(half2) + s;
	return value - linear - s * shifts - 0.5 * curvature * reach * reach;
}

// Does the others' field (others[0 .. n), at this level) reach need over the part of the box inside
// the support?
static bool bsCull_Box(const bsCull* x, bsCullScratch* s, const double lo[3], const double hi[3], int level,
	const bsCullOther* others, size_t n)
{
	if (bsCull_MinDistance2(s->c, lo, hi) >= s->reach2)
	{
		return true;  // the box misses the support
	}
	if (--s->boxes < 0)
	{
		return false;  // too much work: kept, which is always right
	}
	double sum = 0.0;
	for (size_t j = 0; j < n; ++j)
	{
		sum += bsCull_Least(x, others + j, lo, hi);
		if (sum >= x->need)
		{
			return true;
		}
	}
	double mid[3];
	for (int a = 0; a < 3; ++a)
	{
		mid[a] = 0.5 * (lo[a] + hi[a]);
	}
	if (bsCull_Taylor(x, others, n, lo, hi, mid) >= x->need)
	{
		return true;
	}
	if (level == x->def->depth)
	{
		return false;
	}
	if (bsCull_MinDistance2(s->c, mid, mid) < s->reach2 && !bsCull_PointPasses(x, others, n, mid))
	{
		return false;  // no part holding the centre can pass
	}
	// The parts see only the others that reach this box.
	bsCullOther* sub = s->others + (size_t)(level + 1) * s->capacity;
	size_t m = 0;
	for (size_t j = 0; j < n; ++j)
	{
		if (sqrt(bsCull_MinDistance2(others[j].c, lo, hi)) < others[j].r + x->def->slack)
		{
			sub[m++] = others[j];
		}
	}
	for (int octant = 0; octant < 8; ++octant)
	{
		double clo[3], chi[3];
		for (int a = 0; a < 3; ++a)
		{
			bool upper = (octant >> a) & 1;
			clo[a] = upper ? mid[a] : lo[a];
			chi[a] = upper ? hi[a] : mid[a];
		}
		if (!bsCull_Box(x, s, clo, chi, level + 1, sub, m))
		{
			return false;
		}
	}
	return true;
}

// Is component i redundant against the others gathered in s?
static bool bsCull_Redundant(const bsCull* x, size_t i, bsCullScratch* s)
{
	double r = bsCull_Radius(x->def, i);
	// Probes: the centre, the 6 axis points and the 8 diagonal points at 0.995 R and 0.9 R.
	static const double dirs[bs_cullProbeCount][3] = {{0, 0, 0}, {1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0},
		{0, 0, 1}, {0, 0, -1}, {0.57735026918962584, 0.57735026918962584, 0.57735026918962584},
		{-0.57735026918962584, 0.57735026918962584, 0.57735026918962584},
		{0.57735026918962584, -0.57735026918962584, 0.57735026918962584},
		{-0.57735026918962584, -0.57735026918962584, 0.57735026918962584},
		{0.57735026918962584, 0.57735026918962584, -0.57735026918962584},
		{-0.57735026918962584, 0.57735026918962584, -0.57735026918962584},
		{0.57735026918962584, -0.57735026918962584, -0.57735026918962584},
		{-0.57735026918962584, -0.57735026918962584, -0.57735026918962584}};
	// The rim first: where the others' field is least in a crowd smaller than the ball.
	for (int k = 0; k < 2 * bs_cullProbeCount; ++k)
	{
		int p = k % bs_cullProbeCount;
		double at = k < bs_cullProbeCount ? 0.995 * r : 0.9 * r;
		double q[3];
		for (int a = 0; a < 3; ++a)
		{
			q[a] = s->c[a] + at * dirs[p][a];
		}
		if (!bsCull_PointPasses(x, s->others, s->count, q))
		{
			return false;
		}
	}
	s->boxes = bs_cullBoxBudget;
	double reach = r + 2.0 * x->def->slack;
	double lo[3], hi[3];
	for (int a = 0; a < 3; ++a)
	{
		lo[a] = s->c[a] - reach;
		hi[a] = s->c[a] + reach;
	}
	return bsCull_Box(x, s, lo, hi, 0, s->others, s->count);
}

// Phase 1: is each component redundant against all the others?
static void bsCull_Phase1(void* context, size_t begin, size_t end, int worker)
{
	(void)worker;
	bsCull* x = context;
	bsCullScratch s;
	memset(&s, 0, sizeof(s));
	for (size_t i = begin; i < end; ++i)
	{
		if (!bsCull_Gather(x, i, &s))
		{
			x->state[i] = 2;
			continue;
		}
		x->state[i] = bsCull_Redundant(x, i, &s) ? 1 : 0;
	}
	free(s.others);
}

static bsResult bsCull_Check(const bsBlobCullDef* def, double* maxRadius)
{
	if (def == NULL || def->centers == NULL || !(def->strength > 0.0) || !(def->threshold > 0.0) ||
		!(def->threshold < def->strength) || !(def->slack >= 0.0) || def->depth < 0 ||
		def->depth > bs_blobCullMaxDepth || !isfinite(def->strength) || !isfinite(def->slack))
	{
		return bs_errInvalidArgument;
	}
	if (def->count >= ((size_t)1 << 32) - 1)
	{
		return bs_errTooLarge;
	}
	*maxRadius = def->radii == NULL ? def->radius : 0.0;
	for (size_t i = 0; i < def->count; ++i)
	{
		bsVec3 c = def->centers[i];
		double r = bsCull_Radius(def, i);
		if (!isfinite(c.x) || !isfinite(c.y) || !isfinite(c.z) || !isfinite(r))
		{
			return bs_errNonFinite;
		}
		if (!(r > 0.0))
		{
			return bs_errInvalidArgument;
		}
		*maxRadius = r > *maxRadius ? r : *maxRadius;
	}
	return bs_ok;
}

bsResult bsBlobCull_WithBound(const bsBlobCullDef* def, bsBlobCullBound bound, uint8_t* keep, size_t* dropped)
{
	*dropped = 0;
	if (keep == NULL)
	{
		return bs_errInvalidArgument;
	}
	double maxRadius = 0.0;
	bsResult result = bsCull_Check(def, &maxRadius);
	if (def != NULL)
	{
		memset(keep, 1, def->count);
	}
	if (result != bs_ok || def->count < 2)
	{
		return result;
	}
	bsCull x;
	memset(&x, 0, sizeof(x));
	x.def = def;
	x.bound = bound;
	x.need = def->threshold * (1.0 + 1e-6) + 1e-12 * def->strength;
	x.state = malloc(def->count);
	if (x.state == NULL || !bsCull_BuildGrid(&x, maxRadius))
	{
		free(x.state);
		free(x.cells);
		return bs_errOutOfMemory;
	}
	bsParallelFor(def->threads, def->count, bs_cullGrain, bsCull_Phase1, &x);
	// Phase 2, in index order against what is still kept.
	x.kept = keep;
	bsCullScratch s;
	memset(&s, 0, sizeof(s));
	for (size_t i = 0; i < def->count && result == bs_ok; ++i)
	{
		if (x.state[i] == 2)
		{
			result = bs_errOutOfMemory;
		}
		else if (x.state[i] == 1)
		{
			if (!bsCull_Gather(&x, i, &s))
			{
				result = bs_errOutOfMemory;
			}
			else if (!s.sawDropped || bsCull_Redundant(&x, i, &s))
			{
				keep[i] = 0;  // phase 1's answer stands when none of its others has left
				*dropped += 1;
			}
		}
	}
	free(s.others);
	free(x.state);
	free(x.cells);
	if (result != bs_ok)
	{
		memset(keep, 1, def->count);
		*dropped = 0;
	}
	return result;
}

bsResult bsBlobCull(const bsBlobCullDef* def, uint8_t* keep, size_t* dropped)
{
	return bsBlobCull_WithBound(def, bs_cullFarthest, keep, dropped);
}

bsBlobCullDef bsDefaultBlobCullDef(void)
{
	bsBlobCullDef d;
	memset(&d, 0, sizeof(d));
	d.strength = 1.0;
	d.threshold = 0.6;
	d.depth = 6;
	d.threads = 1;
	return d;
}
