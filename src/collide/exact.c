// exact.c — exact time of first contact of a moving sphere with a triangle.
//
// The set of centre positions at distance <= R from the triangle is the triangle grown by R: a slab
// prism (the triangle offset by +-R along N), three cylinders around the edges and three spheres at
// the vertices. Its boundary points on the prism's sides lie inside the edge cylinders, so the first
// time the centre's path C(t) enters the grown triangle is the earliest of:
//   face    the entry into the slab |N . x + delta| <= R, where the touching point is inside T;
//   edge    the entry into an edge's infinite cylinder, where the axial parameter is on the edge;
//   vertex  the entry into a vertex's sphere.
// A sweep that starts in contact (closest point within R of C1) reports t = 0. Quadratics are solved
// in the cancellation-free form t = c / (-b + sqrt(b^2 - a c)).
#include "blobsim/collide.h"
#include "collide_internal.h"
#include "dispatch.h"

// Is the closest point of the triangle to C1 within R? The bounds first (bsTriangle_BoxNear): the
// start sphere cuts the plane of most neighbours of a contact, rarely the triangles themselves.
static bool bsExact_StartsInContact(const bsTriangle* tri, const bsSweep* s, int* index)
{
	if (!bsTriangle_BoxNear(tri, s->c1, s->radius))
	{
		return false;
	}
	bsFeature feature;
	bsVec3 q = bsTriangle_ClosestPoint(tri, s->c1, &feature, index);
	return bsDistanceSquared(q, s->c1) <= s->radius2;
}

// The exact test for a triangle whose bounds overlap the capsule's (compiled twice: dispatch.h).
static BS_ALWAYS_INLINE bool bsExact_OverlappingBody(const bsTriangle* tri, const bsSweep* s, double tmax,
	bsTriangleHit* hit)
{
	double radius = s->radius;
	double radius2 = s->radius2;
	double s1 = bsTriangle_PlaneDistance(tri, s->c1);
	double s2 = bsTriangle_PlaneDistance(tri, s->c2);

	// The whole capsule beyond R on one side of the plane: no contact.
	if ((s1 > radius && s2 > radius) || (s1 < -radius && s2 < -radius))
	{
		return false;
	}

	double faceTime = HUGE_VAL;  // an ill-conditioned face contact, checked against edges and vertices
	if (fabs(s1) <= radius)
	{
		// The start sphere cuts the plane: already in contact?
		int index;
		if (bsExact_StartsInContact(tri, s, &index))
		{
			if (!(0.0 < tmax))
			{
				return false;
			}
			hit->t = 0.0;
			hit->test = bs_testExact;
			hit->branch = bs_branchStart;
			hit->feature = (uint8_t)index;
			return true;
		}
	}
	else
	{
		// Outside the slab at t = 0: nothing can touch before the sphere reaches the plane at
		// distance R on the side it starts from, at tf = gap / approach. The answer must not depend
		// on tmax beyond the final filter (the list loop and the BVH visit triangles in different
		// orders and must agree), so the early exit allows for the rounding of s1 and s2; and when
		// the motion is so nearly parallel to the plane that tf is ill-conditioned, the face is not
		// trusted as the first contact on its own but competes with the edges and vertices.
		if (!bsSweep_ReachesSlabBefore(s, s1, s2, tmax))
		{
			return false;
		}
		double side = s1 > 0.0 ? 1.0 : -1.0;
		double gap = fabs(s1) - radius;
		double approach = side * (s1 - s2);
		double tf = gap / approach;
		tf = tf < 1.0 ? tf : 1.0;  // fmin, NaN included, without the call into libm
		bsVec3 touch = bsMulSub(bsMulAdd(s->c1, tf, s->d), side * radius, tri->n);
		if (bsTriangle_Contains(tri, touch))
		{
			if (approach > 1e9 * s->roundoff)
			{
				if (!(tf < tmax))
				{
					return false;
				}
				hit->t = tf;
				hit->test = bs_testExact;
				hit->branch = bs_branchFace;
				hit->feature = 0;
				return true;
			}
			faceTime = tf;
		}
	}

	if (!(s->len2 > 0.0))
	{
		return false;  // no motion and not in contact
	}

	double best = tmax < 2.0 ? tmax : 2.0;
	bsBranch branch = bs_branchNone;
	int feature = 0;
	if (faceTime < best)
	{
		best = faceTime;
		branch = bs_branchFace;
	}
	bsVec3 v[3] = {tri->p1, tri->p2, tri->p3};

	// Edges: |(C1 + t d - Pa) x e|^2 = R^2 |e|^2, i.e. |w + t u|^2 = R^2 |e|^2 with u = d x e,
	// w = m x e, m = C1 - Pa.
	for (int i = 0; i < 3; ++i)
	{
		bsVec3 pa = v[i];
		bsVec3 e = bsSub(v[i == 2 ? 0 : i + 1], pa);
		bsVec3 m = bsSub(s->c1, pa);
		bsVec3 u = bsCross(s->d, e);
		bsVec3 w = bsCross(m, e);
		double a = bsDot(u, u);
		double b = bsDot(u, w);
		double ee = bsDot(e, e);
		double c = bsDot(w, w) - radius2 * ee;
		// a == 0: moving along the edge, whose caps are the vertex spheres. c < 0: C1 is inside the
		// infinite cylinder but beyond the edge's ends, so its entry is through a vertex sphere.
		// b >= 0: moving away.
		if (a == 0.0 || c < 0.0 || b >= 0.0)
		{
			continue;
		}
		double disc = b * b - a * c;
		if (disc < 0.0)
		{
			continue;
		}
		double t = c / (-b + sqrt(disc));
		if (t > 1.0 || t >= best)
		{
			continue;
		}
		double axial = bsDot(bsMulAdd(m, t, s->d), e);
		if (axial < 0.0 || axial > ee)
		{
			continue;
		}
		best = t;
		branch = bs_branchEdge;
		feature = i;
	}

	// Vertices: |C1 + t d - P|^2 = R^2.
	for (int i = 0; i < 3; ++i)
	{
		bsVec3 m = bsSub(s->c1, v[i]);
		double b = bsDot(m, s->d);
		double c = bsDot(m, m) - radius2;
		if (b >= 0.0)
		{
			continue;
		}
		double disc = b * b - s->len2 * c;
		if (disc < 0.0)
		{
			continue;
		}
		double t = c / (-b + sqrt(disc));
		t = t > 0.0 ? t : 0.0;  // fmax(t, 0), NaN and -0 included
		if (t > 1.0 || t >= best)
		{
			continue;
		}
		best = t;
		branch = bs_branchVertex;
		feature = i;
	}

	if (branch == bs_branchNone)
	{
		return false;
	}
	hit->t = best;
	hit->test = bs_testExact;
	hit->branch = (uint8_t)branch;
	hit->feature = (uint8_t)feature;
	return true;
}

static BS_COLD_PATH bool bsExact_Overlapping(const bsTriangle* tri, const bsSweep* s, double tmax,
	bsTriangleHit* hit)
{
	return bsExact_OverlappingBody(tri, s, tmax, hit);
}

#if BS_DISPATCH_AVX2
static BS_COLD_PATH BS_TARGET_AVX2 bool bsExact_OverlappingAvx2(const bsTriangle* tri, const bsSweep* s,
	double tmax, bsTriangleHit* hit)
{
	return bsExact_OverlappingBody(tri, s, tmax, hit);
}
#endif

bool bsExactTriangle(const bsTriangle* tri, const bsSweep* s, double tmax, bsTriangleHit* hit)
{
	// The capsule's bounds and the triangle's are disjoint: no contact. Cheapest test first, before
	// the rest's register saves (BS_COLD_PATH); the dispatch is paid only past it.
	if (!bsSweep_BoxOverlaps(s, tri))
	{
		return false;
	}
#if BS_DISPATCH_AVX2
	if (bsDispatch_Avx2())
	{
		return bsExact_OverlappingAvx2(tri, s, tmax, hit);
	}
#endif
	return bsExact_Overlapping(tri, s, tmax, hit);
}
