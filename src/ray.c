// ray.c — the point-particle baseline of the paper's Fig. 8c: the segment C1 -> C2 against the
// closed triangle, the particle's radius ignored. As in flipcode's "moving point against a polygon":
// the signed distances d1, d2 of the end points from the plane; no crossing when they share a sign;
// otherwise the crossing point at d1 / (d1 - d2) and a point-in-triangle test. A segment lying in the
// plane is clipped against the three edge half-planes.
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

bool bsRayTriangle(const bsTriangle* tri, const bsSweep* s, double tmax, bsTriangleHit* hit)
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
	if (!bsTriangle_Contains(tri, bsMulAdd(s->c1, t, s->d)))
	{
		return false;
	}
	hit->t = t;
	hit->test = bs_testRay;
	hit->branch = t == 0.0 ? bs_branchStart : bs_branchFace;
	hit->feature = 0;
	return true;
}
