// reference.c — the independent reference (see reference.h). Brute force on purpose: a distance
// function, a golden-section search and a bisection. Nothing here is shared with src/ except the
// vector helpers and the bsTriangle struct's three vertices.
#include "reference.h"

#include <float.h>
#include <math.h>

// The triangle as the reference sees it: its own edges and its own normal.
typedef struct refTri
{
	bsVec3 p[3];
	bsVec3 e[3];     // e[i] = p[i + 1] - p[i]
	double ee[3];    // |e[i]|^2
	bsVec3 n;        // unit normal, (p2 - p1) x (p3 - p1) direction
	double longest;  // longest edge length
	int apex;        // vertex opposite the longest edge
} refTri;

// a b - c d with one rounding (Kahan's algorithm on fma).
static double refDiffOfProducts(double a, double b, double c, double d)
{
	double w = c * d;
	double err = fma(-c, d, w);
	double f = fma(a, b, -w);
	return f + err;
}

static bsVec3 refAccurateCross(bsVec3 a, bsVec3 b)
{
	return bsV3(refDiffOfProducts(a.y, b.z, a.z, b.y), refDiffOfProducts(a.z, b.x, a.x, b.z),
		refDiffOfProducts(a.x, b.y, a.y, b.x));
}

static void refPrepare(bsVec3 p1, bsVec3 p2, bsVec3 p3, refTri* t)
{
	t->p[0] = p1;
	t->p[1] = p2;
	t->p[2] = p3;
	int longestEdge = 0;
	for (int i = 0; i < 3; ++i)
	{
		t->e[i] = bsSub(t->p[(i + 1) % 3], t->p[i]);
		t->ee[i] = bsLengthSquared(t->e[i]);
		if (t->ee[i] > t->ee[longestEdge])
		{
			longestEdge = i;
		}
	}
	t->longest = sqrt(t->ee[longestEdge]);
	// The two shortest edges meet at the vertex opposite the longest one; a cyclic relabelling keeps
	// the orientation, so (b - a) x (c - a) there points the same way as (p2 - p1) x (p3 - p1).
	int k = (longestEdge + 2) % 3;
	t->apex = k;
	bsVec3 a = t->p[k];
	bsVec3 b = t->p[(k + 1) % 3];
	bsVec3 c = t->p[(k + 2) % 3];
	t->n = bsNormalize(refAccurateCross(bsSub(b, a), bsSub(c, a)));
}

// Distance from q to the segment a -> a + e.
static double refSegmentDistance(bsVec3 a, bsVec3 e, double ee, bsVec3 q)
{
	bsVec3 aq = bsSub(q, a);
	double s = ee > 0.0 ? bsDot(aq, e) / ee : 0.0;
	s = s < 0.0 ? 0.0 : (s > 1.0 ? 1.0 : s);
	return bsLength(bsMulSub(aq, s, e));
}

static double refBoundaryDistance(const refTri* t, bsVec3 q)
{
	double d = refSegmentDistance(t->p[0], t->e[0], t->ee[0], q);
	d = fmin(d, refSegmentDistance(t->p[1], t->e[1], t->ee[1], q));
	d = fmin(d, refSegmentDistance(t->p[2], t->e[2], t->ee[2], q));
	return d;
}

// Does q project into the closed triangle? The sign of each edge's area with q, along n (the
// component of q along n drops out of (e x (q - p)) . n, so q need not be projected first).
static bool refProjectsInside(const refTri* t, bsVec3 q)
{
	for (int i = 0; i < 3; ++i)
	{
		if (bsDot(bsCross(t->e[i], bsSub(q, t->p[i])), t->n) < 0.0)
		{
			return false;
		}
	}
	return true;
}

static double refDistance(const refTri* t, bsVec3 q)
{
	if (refProjectsInside(t, q))
	{
		return fabs(bsDot(bsSub(q, t->p[t->apex]), t->n));
	}
	return refBoundaryDistance(t, q);
}

double refPointTriangleDistance(bsVec3 p1, bsVec3 p2, bsVec3 p3, bsVec3 q)
{
	refTri t;
	refPrepare(p1, p2, p3, &t);
	return refDistance(&t, q);
}

bsVec3 refClosestPoint(bsVec3 p1, bsVec3 p2, bsVec3 p3, bsVec3 q)
{
	refTri t;
	refPrepare(p1, p2, p3, &t);
	if (refProjectsInside(&t, q))
	{
		return bsMulSub(q, bsDot(bsSub(q, t.p[t.apex]), t.n), t.n);
	}
	// The nearest of the three edge points. Near a vertex the distance cannot tell the vertex from an
	// edge point a little way along (it changes only to second order), so on a near-tie the edge's
	// own foot point (not clamped to an end) wins: it is the true closest point then.
	bsVec3 best = t.p[0];
	double bestDist = HUGE_VAL;
	bool bestClamped = true;
	for (int i = 0; i < 3; ++i)
	{
		bsVec3 aq = bsSub(q, t.p[i]);
		double s = bsDot(aq, t.e[i]) / t.ee[i];
		bool clamped = !(s > 0.0 && s < 1.0);
		s = s < 0.0 ? 0.0 : (s > 1.0 ? 1.0 : s);
		bsVec3 x = bsMulAdd(t.p[i], s, t.e[i]);
		double d = bsDistance(q, x);
		double tol = 1e-14 * (fmin(d, bestDist) + t.longest);
		if (d < bestDist - tol || (d <= bestDist + tol && bestClamped && !clamped))
		{
			bestDist = d;
			best = x;
			bestClamped = clamped;
		}
	}
	return best;
}

static bsVec3 refAt(bsVec3 c1, bsVec3 c2, double t)
{
	return t == 1.0 ? c2 : bsLerp(c1, c2, t);
}

refContact refFirstContact(const bsTriangle* tri, bsVec3 c1, bsVec3 c2, double radius)
{
	refTri t;
	refPrepare(tri->p1, tri->p2, tri->p3, &t);

	refContact r;
	r.dist0 = refDistance(&t, c1);
	double f1End = refDistance(&t, c2);

	// Golden-section search for the minimum of the convex f on [0, 1]: 80 steps shrink the bracket
	// by 0.618^80 ~ 2e-17.
	const double g = 0.5 * (sqrt(5.0) - 1.0);
	double a = 0.0, b = 1.0;
	double x1 = b - g * (b - a), x2 = a + g * (b - a);
	double f1 = refDistance(&t, refAt(c1, c2, x1));
	double f2 = refDistance(&t, refAt(c1, c2, x2));
	for (int i = 0; i < 80; ++i)
	{
		if (f1 <= f2)
		{
			b = x2;
			x2 = x1;
			f2 = f1;
			x1 = b - g * (b - a);
			f1 = refDistance(&t, refAt(c1, c2, x1));
		}
		else
		{
			a = x1;
			x1 = x2;
			f1 = f2;
			x2 = a + g * (b - a);
			f2 = refDistance(&t, refAt(c1, c2, x2));
		}
	}
	r.minDist = r.dist0;
	r.tMin = 0.0;
	if (f1 < r.minDist)
	{
		r.minDist = f1;
		r.tMin = x1;
	}
	if (f2 < r.minDist)
	{
		r.minDist = f2;
		r.tMin = x2;
	}
	if (f1End < r.minDist)
	{
		r.minDist = f1End;
		r.tMin = 1.0;
	}

	if (r.dist0 <= radius)
	{
		r.hit = true;
		r.t = 0.0;
		return r;
	}
	if (r.minDist > radius)
	{
		r.hit = false;
		r.t = 1.0;
		return r;
	}

	// f is non-increasing on [0, tMin], f(0) > R >= f(tMin): bisect for the first f <= R.
	double lo = 0.0, hi = r.tMin;
	for (int i = 0; i < 200 && hi - lo > 1e-17; ++i)
	{
		double mid = 0.5 * (lo + hi);
		if (mid <= lo || mid >= hi)
		{
			break;
		}
		if (refDistance(&t, refAt(c1, c2, mid)) <= radius)
		{
			hi = mid;
		}
		else
		{
			lo = mid;
		}
	}
	r.hit = true;
	r.t = hi;
	return r;
}

static double refComponent(bsVec3 v, int axis)
{
	return axis == 0 ? v.x : (axis == 1 ? v.y : v.z);
}

// The least signed distance of q from the three edge lines, positive inside: >= 0 exactly when q
// projects into the closed triangle, and concave along any line.
static double refInsideDepth(const refTri* t, bsVec3 q)
{
	double g = HUGE_VAL;
	for (int i = 0; i < 3; ++i)
	{
		double s = bsDot(bsCross(t->e[i], bsSub(q, t->p[i])), t->n) / sqrt(t->ee[i]);
		g = fmin(g, s);
	}
	return g;
}

// A segment lying exactly in the triangle's plane (all five points share one coordinate, so the
// coplanarity is exact): golden-section search for the deepest point of the segment inside the
// triangle, then bisection for the first point inside.
static void refRayCoplanar(const refTri* t, bsVec3 c1, bsVec3 c2, double scale, refRay* r)
{
	const double g = 0.5 * (sqrt(5.0) - 1.0);
	double a = 0.0, b = 1.0;
	double x1 = b - g * (b - a), x2 = a + g * (b - a);
	double f1 = refInsideDepth(t, refAt(c1, c2, x1));
	double f2 = refInsideDepth(t, refAt(c1, c2, x2));
	for (int i = 0; i < 80; ++i)
	{
		if (f1 >= f2)
		{
			b = x2;
			x2 = x1;
			f2 = f1;
			x1 = b - g * (b - a);
			f1 = refInsideDepth(t, refAt(c1, c2, x1));
		}
		else
		{
			a = x1;
			x1 = x2;
			f1 = f2;
			x2 = a + g * (b - a);
			f2 = refInsideDepth(t, refAt(c1, c2, x2));
		}
	}
	double g0 = refInsideDepth(t, c1);
	double best = g0, tBest = 0.0;
	if (f1 > best)
	{
		best = f1;
		tBest = x1;
	}
	if (f2 > best)
	{
		best = f2;
		tBest = x2;
	}
	double g1 = refInsideDepth(t, c2);
	if (g1 > best)
	{
		best = g1;
		tBest = 1.0;
	}
	double tol = 1e-9 * t->longest;
	r->margin = fabs(best) / t->longest;
	if (best < -tol)
	{
		r->robust = true;  // at least |best| from the triangle all along
		return;
	}
	if (!(best > tol))
	{
		return;
	}
	r->robust = true;
	r->hit = true;
	if (g0 >= 0.0)
	{
		r->t = 0.0;
		r->tErr = g0 > 1e-12 * scale ? 0.0 : 1e-15 * scale / ((best - g0) / tBest);
		return;
	}
	double lo = 0.0, hi = tBest;
	for (int i = 0; i < 200 && hi - lo > 1e-17; ++i)
	{
		double mid = 0.5 * (lo + hi);
		if (mid <= lo || mid >= hi)
		{
			break;
		}
		if (refInsideDepth(t, refAt(c1, c2, mid)) >= 0.0)
		{
			hi = mid;
		}
		else
		{
			lo = mid;
		}
	}
	r->t = hi;
	// g is concave: its slope where it crosses zero is at least the secant slope to the maximum.
	r->tErr = 1e-15 * scale / ((best - g0) / tBest);
}

refRay refRayHit(const bsTriangle* tri, bsVec3 c1, bsVec3 c2)
{
	refTri t;
	refPrepare(tri->p1, tri->p2, tri->p3, &t);

	refRay r;
	r.hit = false;
	r.t = 1.0;
	r.margin = -1.0;
	r.tErr = 0.0;
	r.robust = false;

	double scale = 1.0 + fmax(fmax(bsMaxAbs(c1), bsMaxAbs(c2)),
		fmax(bsMaxAbs(t.p[0]), fmax(bsMaxAbs(t.p[1]), bsMaxAbs(t.p[2]))));
	bsVec3 origin = t.p[t.apex];
	double h1 = bsDot(bsSub(c1, origin), t.n);
	double h2 = bsDot(bsSub(c2, origin), t.n);
	double planeTol = 1e-12 * scale;  // an endpoint this near the plane is borderline
	double heightErr = 1e-15 * scale; // what rounding can do to a height

	if ((h1 > planeTol && h2 > planeTol) || (h1 < -planeTol && h2 < -planeTol))
	{
		r.robust = true;  // both ends clearly on one side
		return r;
	}
	for (int axis = 0; axis < 3; ++axis)
	{
		double k = refComponent(t.p[0], axis);
		if (refComponent(t.p[1], axis) == k && refComponent(t.p[2], axis) == k &&
			refComponent(c1, axis) == k && refComponent(c2, axis) == k)
		{
			refRayCoplanar(&t, c1, c2, scale, &r);
			return r;
		}
	}
	if (fabs(h1) <= planeTol || fabs(h2) <= planeTol || h1 == h2)
	{
		return r;  // an endpoint on the plane (or the whole segment in it): not robust
	}

	double tc = h1 / (h1 - h2);
	bsVec3 x = bsLerp(c1, c2, tc);
	double boundary = refBoundaryDistance(&t, x);
	r.margin = boundary / t.longest;
	r.tErr = 2.0 * heightErr / fabs(h1 - h2);
	double xErr = r.tErr * bsDistance(c1, c2) + heightErr;
	r.robust = boundary > 1e-9 * t.longest + 1e3 * xErr;
	if (refProjectsInside(&t, x))
	{
		r.hit = true;
		r.t = tc;
	}
	return r;
}

// Crossings of the ray from p along a fixed skew direction (no mesh here has an edge along it),
// Moeller-Trumbore: odd is inside a watertight mesh.
int refRayCrossings(const bsTriangle* tris, uint32_t count, bsVec3 p)
{
	bsVec3 d = bsNormalize(bsV3(0.5773, 0.6123, 0.5402));
	int crossings = 0;
	for (uint32_t t = 0; t < count; ++t)
	{
		bsVec3 e1 = bsSub(tris[t].p2, tris[t].p1), e2 = bsSub(tris[t].p3, tris[t].p1);
		bsVec3 s = bsCross(d, e2);
		double det = bsDot(e1, s);
		if (fabs(det) < 1e-300)
		{
			continue;
		}
		bsVec3 o = bsSub(p, tris[t].p1);
		double u = bsDot(o, s) / det;
		bsVec3 q = bsCross(o, e1);
		double v = bsDot(d, q) / det;
		double tt = bsDot(e2, q) / det;
		crossings += u >= 0.0 && v >= 0.0 && u + v <= 1.0 && tt > 0.0;
	}
	return crossings;
}
