// ray.c — the point-particle baseline of the paper's Fig. 8c: the segment C1 -> C2 against the
// triangle, the particle's radius ignored. As in flipcode's "moving point against a polygon":
// the signed distances d1, d2 of the end points from the plane; no crossing when they share a sign;
// otherwise the crossing at t = d1 / (d1 - d2). Whether the crossing is inside the triangle is
// decided watertight (Woop, Benthin & Wald, "Watertight ray/triangle intersection", JCGT 2013): the
// vertices are projected along the segment onto a 2D frame in which the segment's line is the
// origin, and the origin is tested against the three projected edges with exact signs and one
// tie rule for all triangles. A segment lying in the plane is clipped against the three edge
// half-planes.
#include "blobsim/collide.h"

static bool bsRayCoplanar(const bsTriangle* tri, const bsSweep* s, double tmax, bsTriangleHit* hit)
{
	// Inside means every edge function f_i(t) = ((P_i+1 - P_i) x (C(t) - P_i)) . N >= 0, each
	// linear in t: keep the interval where all three hold.
	bsVec3 v[3] = {tri->p1, tri->p2, tri->p3};
	double lo = 0.0;
	double hi = 1.0;
	for (int i = 0; i < 3; ++i)
	{
		bsVec3 e = bsSub(v[i == 2 ? 0 : i + 1], v[i]);
		double f0 = bsDot(bsCross(e, bsSub(s->c1, v[i])), tri->n);
		double fd = bsDot(bsCross(e, s->d), tri->n);
		if (fd == 0.0)
		{
			if (f0 < 0.0)
			{
				return false;
			}
		}
		else if (fd > 0.0)
		{
			lo = fmax(lo, -f0 / fd);
		}
		else
		{
			hi = fmin(hi, -f0 / fd);
		}
	}
	lo = lo > 0.0 ? lo : 0.0;  // no -0.0
	if (lo > hi || !(lo < tmax))
	{
		return false;
	}
	hit->t = lo;
	hit->test = bs_testRay;
	hit->branch = lo == 0.0 ? bs_branchStart : bs_branchFace;
	hit->feature = 0;
	return true;
}

// A vertex in the segment's frame: x, y across the segment, the segment's line at (0, 0).
typedef struct bsRayPoint
{
	double x, y;
} bsRayPoint;

// The shear of Woop et al.: z is the axis along which the segment moves most, x and y the next two
// in cyclic order, and a point P maps to (P - C1) minus the multiple of the direction that brings its
// z to 0. The map depends only on the segment and the vertex, so a vertex shared by several
// triangles lands on the same 2D point, bit for bit, in each of them: that is what makes the test
// watertight. The frame is made once per segment (bsMakeRayFrame), so a walk over many triangles
// divides once, not six times per triangle; the points are the same doubles either way.
bsRayFrame bsMakeRayFrame(const bsSweep* s)
{
	double d[3] = {s->d.x, s->d.y, s->d.z};
	int kz = 0;
	if (fabs(d[1]) > fabs(d[kz]))
	{
		kz = 1;
	}
	if (fabs(d[2]) > fabs(d[kz]))
	{
		kz = 2;
	}
	bsRayFrame f;
	f.kx = kz == 2 ? 0 : kz + 1;
	f.ky = f.kx == 2 ? 0 : f.kx + 1;
	f.kz = kz;
	// A zero-length segment never reaches the projection (it crosses no plane): no 0 / 0.
	f.sx = d[kz] != 0.0 ? d[f.kx] / d[kz] : 0.0;
	f.sy = d[kz] != 0.0 ? d[f.ky] / d[kz] : 0.0;
	return f;
}

static bsRayPoint bsRay_Project(const bsSweep* s, const bsRayFrame* f, bsVec3 p)
{
	double a[3] = {p.x - s->c1.x, p.y - s->c1.y, p.z - s->c1.z};
	bsRayPoint q;
	q.x = a[f->kx] - f->sx * a[f->kz];
	q.y = a[f->ky] - f->sy * a[f->kz];
	return q;
}

// The exact sign of a.x b.y - a.y b.x (twice the signed area of 0, a, b). A plain evaluation decides
// when it is clear of its rounding bound (Shewchuk's orient2d filter); otherwise Kahan's algorithm
// with fma, whose relative error is at most 2 ulp (Jeannerod, Louvet & Muller 2013), so a nonzero
// result has the right sign and zero is exact. Exact barring underflow (coordinates below ~1e-150).
static int bsRay_Orient(bsRayPoint a, bsRayPoint b)
{
	double l = a.x * b.y;
	double r = a.y * b.x;
	double det = l - r;
	double bound = 3.3306690738754716e-16 * (fabs(l) + fabs(r));  // (3 + 16 eps) eps
	if (!(fabs(det) <= bound))
	{
		return det > 0.0 ? 1 : -1;
	}
	double e = fma(-a.y, b.x, r);       // r - a.y b.x, exactly
	double f = fma(a.x, b.y, -r);       // a.x b.y - r, rounded once
	double kahan = f + e;
	return kahan > 0.0 ? 1 : (kahan < 0.0 ? -1 : 0);
}

// Which side of the edge a -> b the segment's line passes: the sign of the edge function at the
// origin, cross(a, b). When the line passes exactly through the edge's line (sign 0), the origin is
// moved by (e, e^2) for an infinitesimal e (simulation of simplicity): the sign becomes that of
// -(b.y - a.y), or of b.x - a.x when the edge is horizontal. The same moved point for every triangle
// gives one consistent rule: an edge shared by two triangles on its two sides, or a vertex shared by
// a fan around it, belongs to exactly one of them. Differences of doubles have exact signs.
static int bsRay_EdgeSide(bsRayPoint a, bsRayPoint b)
{
	int side = bsRay_Orient(a, b);
	if (side != 0)
	{
		return side;
	}
	if (b.y != a.y)
	{
		return b.y < a.y ? 1 : -1;
	}
	return b.x > a.x ? 1 : (b.x < a.x ? -1 : 0);
}

// Does the segment's line pass through the closed triangle (ties by the rule above)? Either
// orientation counts: the three sides must agree.
static bool bsRay_Crosses(const bsTriangle* tri, const bsSweep* s, const bsRayFrame* f)
{
	bsRayPoint a = bsRay_Project(s, f, tri->p1);
	bsRayPoint b = bsRay_Project(s, f, tri->p2);
	bsRayPoint c = bsRay_Project(s, f, tri->p3);
	int ab = bsRay_EdgeSide(a, b);
	int bc = bsRay_EdgeSide(b, c);
	int ca = bsRay_EdgeSide(c, a);
	return ab != 0 && ab == bc && bc == ca;
}

bool bsRayTriangleFramed(const bsTriangle* tri, const bsSweep* s, const bsRayFrame* frame, double tmax,
	bsTriangleHit* hit)
{
	double d1 = bsTriangle_PlaneDistance(tri, s->c1);
	double d2 = bsTriangle_PlaneDistance(tri, s->c2);
	if ((d1 > 0.0 && d2 > 0.0) || (d1 < 0.0 && d2 < 0.0))
	{
		return false;
	}
	if (d1 == d2)
	{
		return bsRayCoplanar(tri, s, tmax, hit);  // both zero: the segment lies in the plane
	}
	double t = d1 == 0.0 ? 0.0 : d1 / (d1 - d2);  // no -0.0 when starting on the plane
	if (!(t < tmax))
	{
		return false;
	}
	if (!bsRay_Crosses(tri, s, frame))
	{
		return false;
	}
	hit->t = t;
	hit->test = bs_testRay;
	hit->branch = t == 0.0 ? bs_branchStart : bs_branchFace;
	hit->feature = 0;
	return true;
}

bool bsRayTriangle(const bsTriangle* tri, const bsSweep* s, double tmax, bsTriangleHit* hit)
{
	bsRayFrame frame = bsMakeRayFrame(s);
	return bsRayTriangleFramed(tri, s, &frame, tmax, hit);
}
