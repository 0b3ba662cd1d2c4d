// ray.c — the point-particle baseline of the paper's Fig. 8c: the segment C1 -> C2 against the
// triangle, the particle's radius ignored. As in flipcode's "moving point against a polygon":
// the signed distances of the end points from the plane, then a watertight test of the crossing
// (ray_test.h, where the test itself is, inline for the BVH's ray walk).
#include "ray_test.h"

#include <float.h>

bool bsRay_Coplanar(const bsTriangle* tri, const bsRayFrame* s, double tmax, bsTriangleHit* hit)
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

// The shear of Woop et al.: z is the axis along which the segment moves most, x and y the next two
// in cyclic order (the projection itself is bsRay_Project, ray_test.h). The frame is made once per
// segment, so a walk over many triangles divides once, not six times per triangle; the points are
// the same doubles either way.
void bsRayFrame_Shear(bsRayFrame* f)
{
	double d[3] = {f->d.x, f->d.y, f->d.z};
	int kz = 0;
	if (fabs(d[1]) > fabs(d[kz]))
	{
		kz = 1;
	}
	if (fabs(d[2]) > fabs(d[kz]))
	{
		kz = 2;
	}
	f->kx = kz == 2 ? 0 : kz + 1;
	f->ky = f->kx == 2 ? 0 : f->kx + 1;
	f->kz = kz;
	// A zero-length segment never reaches the projection (it crosses no plane): no 0 / 0.
	f->sx = d[kz] != 0.0 ? d[f->kx] / d[kz] : 0.0;
	f->sy = d[kz] != 0.0 ? d[f->ky] / d[kz] : 0.0;
}

// Kahan's algorithm with fma, whose relative error is at most 2 ulp (Jeannerod, Louvet & Muller
// 2013), so a nonzero result has the right sign and zero is exact. Exact barring underflow
// (coordinates below ~1e-150).
int bsRay_OrientClose(bsRayPoint a, bsRayPoint b, double r)
{
	double e = fma(-a.y, b.x, r);       // r - a.y b.x, exactly
	double f = fma(a.x, b.y, -r);       // a.x b.y - r, rounded once
	double kahan = f + e;
	return kahan > 0.0 ? 1 : (kahan < 0.0 ? -1 : 0);
}

bool bsRayTriangle(const bsTriangle* tri, const bsSweep* s, double tmax, bsTriangleHit* hit)
{
	return bsRayTriangleOpen(tri, s, tmax, 0, hit);
}

bool bsRayTriangleOpen(const bsTriangle* tri, const bsSweep* s, double tmax, unsigned open,
	bsTriangleHit* hit)
{
	bsRayFrame frame;
	bsMakeRayFrame(&frame, s->c1, s->c2);
	return bsRay_Triangle(tri, &frame, tmax, open, hit);
}

// The L1 length of P - C1: bounds the projected point's coordinates and their rounding.
static double bsRay_Reach(const bsRayFrame* f, bsVec3 p)
{
	return fabs(p.x - f->c1.x) + fabs(p.y - f->c1.y) + fabs(p.z - f->c1.z);
}

// The crossing test with open edges taking their ties (ray_test.h). Each projected coordinate is off
// the exact projection (of the exact point on the exact segment's line) by at most ~6 ulp of the
// point's reach R = |P - C1|_1 (subtracting C1, the shear's quotient of two rounded differences, its
// product and difference), so an edge function a x b by at most ~24 eps R_a R_b. Within these bounds
// (kept 4 times larger) the segment's line may pass exactly through the edge or the vertex:
// - an end of an open edge whose projection is within 32 eps R of the origin: the line may pass
//   through that border vertex, and the triangle takes it (whatever the neighbours around the vertex,
//   which may all be folded away in projection, as at the corner where two walls meet the rim);
// - an open edge whose edge function is within 64 eps R_a R_b of zero: its sign is 0 (it agrees with
//   anything); the other edges keep the shared rule, and the triangle is crossed when the nonzero
//   signs agree.
bool bsRay_CrossesOpen(const bsTriangle* tri, const bsRayFrame* f, const bsRayPoint p[3],
	unsigned open)
{
	const bsVec3 v[3] = {tri->p1, tri->p2, tri->p3};
	double reach[3];
	unsigned ends = open | (open << 1) | (open >> 2);  // corner k ends edge k and edge k - 1
	for (int k = 0; k < 3; ++k)
	{
		reach[k] = bsRay_Reach(f, v[k]);
		double near = 32.0 * DBL_EPSILON * reach[k];
		if (((ends >> k) & 1u) && fabs(p[k].x) <= near && fabs(p[k].y) <= near)
		{
			return true;
		}
	}
	int sign = 0;
	for (int k = 0; k < 3; ++k)
	{
		int next = k == 2 ? 0 : k + 1;
		int side;
		if ((open >> k) & 1u)
		{
			double det = p[k].x * p[next].y - p[k].y * p[next].x;
			double bound = 64.0 * DBL_EPSILON * reach[k] * reach[next];
			side = fabs(det) <= bound ? 0 : bsRay_Orient(p[k], p[next]);
		}
		else
		{
			side = bsRay_EdgeSide(p[k], p[next]);
			if (side == 0)
			{
				return false;  // the edge's ends project to one point
			}
		}
		if (side != 0 && sign != 0 && side != sign)
		{
			return false;
		}
		sign = side != 0 ? side : sign;
	}
	return true;
}
