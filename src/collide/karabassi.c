// karabassi.c — the tests of Karabassi, Papaioannou & Theoharis, "Intersection Test for Collision
// Detection in Particle Systems", JGT 4(1), 1999, step by step and named as in the paper:
//   section 3    sphere/triangle, Steps 1-4, with the section 3.1 sphere/edge test;
//   section 4    cylinder/triangle, Steps 1-3, then Par4-Par8 (axis parallel to the plane) or
//                Int4-Int6 (axis meets the plane), with the section 4.1 closest point between a line
//                and a segment;
//   section 2    the combination: cylinder test, else the spherical cap at the final position.
// docs/algorithm.md explains what each estimate guarantees and where blobsim reads the text.
#include "blobsim/collide.h"
#include "collide_internal.h"
#include "dispatch.h"

#include <float.h>

// The paper's operation counts are for these exact expressions; keep them readable rather than
// clever. Vertices are copied into an array so the steps can loop over them as the paper does.
static inline void bsVertices(const bsTriangle* tri, bsVec3 v[3])
{
	v[0] = tri->p1;
	v[1] = tri->p2;
	v[2] = tri->p3;
}

static inline void bsSetHit(bsTriangleHit* hit, double t, bsTest test, bsBranch branch, int feature)
{
	hit->t = t;
	hit->test = (uint8_t)test;
	hit->branch = (uint8_t)branch;
	hit->feature = (uint8_t)feature;
}

bool bsSphereTriangle(const bsTriangle* tri, bsVec3 c, double radius, double radius2,
	bsTriangleHit* hit)
{
	// Step 1: does the triangle's plane cut the sphere? dist = T.N . C + T.delta
	double dist = bsTriangle_PlaneDistance(tri, c);
	if (fabs(dist) > radius)
	{
		return false;
	}

	// Step 2: is a vertex inside the sphere? d^2 against R^2.
	bsVec3 v[3];
	bsVertices(tri, v);
	for (int i = 0; i < 3; ++i)
	{
		if (bsDistanceSquared(v[i], c) <= radius2)
		{
			bsSetHit(hit, 0.0, bs_testNone, bs_branchStep2, i);
			return true;
		}
	}

	// Step 3: project the centre onto the plane, C_proj = C - dist T.N; inside the triangle?
	bsVec3 proj = bsMulSub(c, dist, tri->n);
	if (bsTriangle_Contains(tri, proj))
	{
		bsSetHit(hit, 0.0, bs_testNone, bs_branchStep3, 0);
		return true;
	}

	// Step 4: does the sphere cross an edge? Section 3.1: Q = P1 + t N with
	// t = (N . C - N . P1) / (N . N); an intersection when 0 <= t <= 1 and |C - Q|^2 <= R^2.
	// When t falls outside [0, 1] the nearest point is an end point, already tested in Step 2.
	for (int i = 0; i < 3; ++i)
	{
		bsVec3 p1 = v[i];
		bsVec3 n = bsSub(v[i == 2 ? 0 : i + 1], p1);
		double t = bsDot(n, bsSub(c, p1)) / bsDot(n, n);
		if (t >= 0.0 && t <= 1.0)
		{
			bsVec3 q = bsMulAdd(p1, t, n);
			if (bsDistanceSquared(c, q) <= radius2)
			{
				bsSetHit(hit, 0.0, bs_testNone, bs_branchStep4, i);
				return true;
			}
		}
	}
	return false;
}

// Par4-Par8: the axis is parallel to the triangle's plane (T.N . (C2 - C1) == 0).
// h[i] is the distance of vertex i along the axis from the cap plane through C1.
static BS_ALWAYS_INLINE bool bsCylinderParallel(const bsTriangle* tri, const bsSweep* s, const bsVec3 v[3],
	const double h[3], bsTriangleHit* hit)
{
	double radius = s->radius;
	double len = s->len;

	// Par4: the distance of the axis from the plane; farther than R, no intersection.
	double dist = bsTriangle_PlaneDistance(tri, s->c1);
	if (fabs(dist) > radius)
	{
		return false;
	}

	// Par5: a vertex inside the cylinder sets Q to its projection on the axis, the one nearest C1.
	// The paper says "set", not "return": Par7 may still find an earlier point, and the nearer one
	// is kept (docs/algorithm.md).
	double best = HUGE_VAL;
	bsBranch branch = bs_branchNone;
	int feature = 0;
	for (int i = 0; i < 3; ++i)
	{
		if (h[i] >= 0.0 && h[i] <= len && h[i] < best)
		{
			bsVec3 radial = bsMulSub(bsSub(v[i], s->c1), h[i], s->axis);
			if (bsLengthSquared(radial) <= s->radius2)
			{
				best = h[i];
				branch = bs_branchPar5;
				feature = i;
			}
		}
	}

	// Par6: project C1C2 onto the plane; when C1' lies inside T, C1 is the intersection point.
	bsVec3 c1p = bsMulSub(s->c1, dist, tri->n);
	if (bsTriangle_Contains(tri, c1p))
	{
		bsSetHit(hit, 0.0, bs_testCylinder, bs_branchPar6, 0);
		return true;
	}

	// Par7: intersect C1'C2' with the edges; the intersection Q' nearest C1' projects back onto the
	// axis at the same parameter. Both lines lie in the plane: solve C1' + u d = Pa + w e with
	// cross products taken along T.N.
	for (int i = 0; i < 3; ++i)
	{
		bsVec3 a = v[i];
		bsVec3 e = bsSub(v[i == 2 ? 0 : i + 1], a);
		double denom = bsDot(bsCross(s->d, e), tri->n);
		if (denom == 0.0)
		{
			continue;  // edge parallel to the axis: its end points are Par5's or the caps' business
		}
		bsVec3 w = bsSub(a, c1p);
		double u = bsDot(bsCross(w, e), tri->n) / denom;
		double we = bsDot(bsCross(w, s->d), tri->n) / denom;
		if (u >= 0.0 && u <= 1.0 && we >= 0.0 && we <= 1.0 && u * len < best)
		{
			best = u * len;
			branch = bs_branchPar7;
			feature = i;
		}
	}

	// Par8: nothing found here; the spherical-cap test decides.
	if (branch == bs_branchNone)
	{
		return false;
	}
	bsSetHit(hit, best / len, bs_testCylinder, branch, feature);
	return true;
}

// Does the whole triangle lie farther than R from the axis line, with a margin, across an edge whose
// line separates it from Q, the axis's point on the plane (ef[i] < 0: Q outside that edge)? In the
// plane, the cylinder's section is an ellipse about Q of largest radius R / |cos theta|
// (cos theta = T.N . A = nd / L): a point of the plane at distance D from Q is at least D |cos theta|
// from the axis, and every point of T's projection is at least D_i = |ef[i]| / |e_i'| >= |ef[i]| /
// |e_i| from Q (e_i' the edge projected onto the plane; the edge function sees only projections).
// The vertices lie off the stored plane by at most their plane distances, so T's points are at least
// D_i |cos theta| - deviation from the axis. When that exceeds R + 1e-8 (1 + size), every S_i Int5
// computes (a point of an edge, to rounding) has d_i > R even after rounding, and Int5-Int6 return
// false: the cull is the branches' own answer, earlier. (The errors of Q, of ef and of the squares are
// relative 1e-16 of the coordinates, R and |s1|: Q's error along the axis moves no distance from it,
// and its error times |cos theta| is that of s1.) Most triangles near a figure's sweep that miss the
// cylinder end here (docs/performance-history.md).
static BS_ALWAYS_INLINE bool bsCylinder_AxisClear(const bsTriangle* tri, const bsSweep* s, const bsVec3 v[3],
	const double ef[3], double nd)
{
	int outside = -1;
	for (int i = 0; i < 3; ++i)
	{
		// The most negative edge function is the only one tried; -inf (an overflow) is not.
		if (ef[i] < 0.0 && ef[i] >= -DBL_MAX && (outside < 0 || ef[i] < ef[outside]))
		{
			outside = i;
		}
	}
	if (outside < 0)
	{
		return false;
	}
	// Farther than R alone first (the bound below is larger): the deviation is paid only then.
	double x = ef[outside] * nd;
	double e2 = bsDistanceSquared(v[outside == 2 ? 0 : outside + 1], v[outside]);
	double reach = s->len2 * e2;
	if (!(x * x > s->radius2 * reach))
	{
		return false;
	}
	double deviation = 0.0;
	double size = s->len + bsMaxAbsFinite(s->c1) + s->radius;
	for (int i = 0; i < 3; ++i)
	{
		double d = fabs(bsTriangle_PlaneDistance(tri, v[i]));
		double m = bsMaxAbsFinite(v[i]);
		deviation = d > deviation ? d : deviation;
		size = m > size ? m : size;
	}
	double bound = s->radius + deviation + 1e-8 * (1.0 + size);
	return x * x > bound * bound * reach;
}

// Int4-Int6: the axis meets the triangle's plane.
static BS_ALWAYS_INLINE bool bsCylinderIntersecting(const bsTriangle* tri, const bsSweep* s, const bsVec3 v[3],
	const double h[3], double nd, bsTriangleHit* hit)
{
	double len = s->len;

	// Int4: the axis meets the plane at Q = C1 + t (C2 - C1), t = -T.N . (C1 - T.P1) / T.N . (C2 - C1)
	// (T.delta stands for -T.N . T.P1). Q between C1 and C2 and inside T is the intersection point.
	// The edge functions are bsTriangle_Contains's, all three kept for the cull below.
	double t = -bsTriangle_PlaneDistance(tri, s->c1) / nd;
	if (t >= 0.0 && t <= 1.0)
	{
		bsVec3 q = bsMulAdd(s->c1, t, s->d);
		double ef[3];
		for (int i = 0; i < 3; ++i)
		{
			ef[i] = bsTriangle_EdgeFunction(tri, v[i], v[i == 2 ? 0 : i + 1], q);
		}
		if (ef[0] >= 0.0 && ef[1] >= 0.0 && ef[2] >= 0.0)
		{
			bsSetHit(hit, t, bs_testCylinder, bs_branchInt4, 0);
			return true;
		}
		if (bsCylinder_AxisClear(tri, s, v, ef, nd))
		{
			return false;  // no point of T within R of the axis: Int5 would find every d_i > R
		}
	}

	// Int5: the closest point S_i of each edge PaPb to the infinite axis, by section 4.1:
	// t = (da^2 - db^2 + s^2) / (2 s^2), where da, db are the distances of Pa, Pb from the axis and
	// s is the distance between Pb and Pa' = Pa + (tb - ta)(C2 - C1); t clamped to the edge.
	// Int6: among the S_i inside the cylinder (distance <= R, between the caps), the one whose
	// projection on the axis is nearest C1 gives the intersection point.
	double best = HUGE_VAL;
	int feature = 0;
	for (int i = 0; i < 3; ++i)
	{
		int j = i == 2 ? 0 : i + 1;
		if ((h[i] < 0.0 && h[j] < 0.0) || (h[i] > len && h[j] > len))
		{
			continue;  // h is linear along the edge: S would lie beyond the same cap
		}
		bsVec3 pa = v[i];
		bsVec3 pb = v[j];
		double ta = h[i] / len;  // normalised distances from C1 to the projections Qa, Qb
		double tb = h[j] / len;
		double da2 = bsDistanceSquared(pa, bsMulAdd(s->c1, ta, s->d));
		double db2 = bsDistanceSquared(pb, bsMulAdd(s->c1, tb, s->d));
		bsVec3 paPrime = bsMulAdd(pa, tb - ta, s->d);
		double s2 = bsDistanceSquared(pb, paPrime);

		bsVec3 sPoint;
		if (s2 > 0.0)
		{
			double u = (da2 - db2 + s2) / (2.0 * s2);
			sPoint = u <= 0.0 ? pa : (u >= 1.0 ? pb : bsLerp(pa, pb, u));
		}
		else
		{
			// The edge is parallel to the axis: all its points are equally close; take Pa.
			sPoint = pa;
		}

		double hs = bsDot(s->axis, bsSub(sPoint, s->c1));
		if (hs < 0.0 || hs > len || hs >= best)
		{
			continue;  // outside the caps: the spherical caps cover it
		}
		bsVec3 radial = bsMulSub(bsSub(sPoint, s->c1), hs, s->axis);
		if (bsLengthSquared(radial) <= s->radius2)
		{
			best = hs;
			feature = i;
		}
	}
	if (best == HUGE_VAL)
	{
		return false;  // Int5 (all d_i > R) or Int6's else: the spherical caps decide
	}
	bsSetHit(hit, best / len, bs_testCylinder, bs_branchInt6, feature);
	return true;
}

// Is every point of the triangle farther than hmax along the axis from the cap plane through C1, with
// a margin? Every cylinder branch returns t with t len = the axial distance of a point of the
// triangle (Par5, Par7, Int6: a vertex or an edge point; Par6: C1's projection, at 0) or of a point
// of its projection along N onto the stored plane (Int4), which moves a vertex by its distance
// from that plane. So then the cylinder's t is at least hmax / len. The margin covers that distance
// and, generously (relative 1e-8), the rounding of h and of the branches' t. Called only when
// every h[i] > hmax already: rare in Table 1's random pairs, but most triangles a BVH query tests
// after its first contact.
// Compiled twice (dispatch.h).
static BS_ALWAYS_INLINE bool bsCylinder_AllBeyondBody(const bsTriangle* tri, const bsSweep* s,
	const bsVec3 v[3], const double h[3], double hmax)
{
	double deviation = 0.0;
	double size = s->len + bsMaxAbs(s->c1);
	for (int i = 0; i < 3; ++i)
	{
		// Comparisons rather than fmax, a call into libm: the operands are finite.
		double d = fabs(bsTriangle_PlaneDistance(tri, v[i]));
		double m = fabs(v[i].x) > fabs(v[i].y) ? fabs(v[i].x) : fabs(v[i].y);
		m = m > fabs(v[i].z) ? m : fabs(v[i].z);
		deviation = d > deviation ? d : deviation;
		size = m > size ? m : size;
	}
	double bound = hmax + deviation + 1e-8 * (1.0 + size);
	return h[0] > bound && h[1] > bound && h[2] > bound;
}

static BS_COLD_PATH bool bsCylinder_AllBeyondDefault(const bsTriangle* tri, const bsSweep* s,
	const bsVec3 v[3], const double h[3], double hmax)
{
	return bsCylinder_AllBeyondBody(tri, s, v, h, hmax);
}

#if BS_DISPATCH_AVX2
static BS_COLD_PATH BS_TARGET_AVX2 bool bsCylinder_AllBeyondAvx2(const bsTriangle* tri, const bsSweep* s,
	const bsVec3 v[3], const double h[3], double hmax)
{
	return bsCylinder_AllBeyondBody(tri, s, v, h, hmax);
}
#endif

static inline bool bsCylinder_AllBeyond(const bsTriangle* tri, const bsSweep* s, const bsVec3 v[3],
	const double h[3], double hmax)
{
#if BS_DISPATCH_AVX2
	if (bsDispatch_Avx2())
	{
		return bsCylinder_AllBeyondAvx2(tri, s, v, h, hmax);
	}
#endif
	return bsCylinder_AllBeyondDefault(tri, s, v, h, hmax);
}

// Step 3 on, for a triangle that Step 2 keeps. Out of line for the bare cylinder test (Table 1's
// random pairs mostly end at Step 2); inlined into the combined test, where the triangles a BVH query
// reaches mostly get here (every one on the snow and slime figures' sweeps: docs/performance-history.md).
// Compiled twice (dispatch.h).
static BS_ALWAYS_INLINE bool bsCylinder_BranchesBody(const bsTriangle* tri, const bsSweep* s,
	const double h[3], bsTriangleHit* hit)
{
	bsVec3 v[3];
	bsVertices(tri, v);
	// Step 3: parallel or not? Decided on T.N . (C2 - C1), the quantity Int4 divides by.
	double nd = bsDot(tri->n, s->d);
	if (nd == 0.0)
	{
		return bsCylinderParallel(tri, s, v, h, hit);
	}
	return bsCylinderIntersecting(tri, s, v, h, nd, hit);
}

static BS_COLD_PATH bool bsCylinder_BranchesDefault(const bsTriangle* tri, const bsSweep* s,
	const double h[3], bsTriangleHit* hit)
{
	return bsCylinder_BranchesBody(tri, s, h, hit);
}

#if BS_DISPATCH_AVX2
static BS_COLD_PATH BS_TARGET_AVX2 bool bsCylinder_BranchesAvx2(const bsTriangle* tri, const bsSweep* s,
	const double h[3], bsTriangleHit* hit)
{
	return bsCylinder_BranchesBody(tri, s, h, hit);
}
#endif

static inline bool bsCylinder_Branches(const bsTriangle* tri, const bsSweep* s, const double h[3],
	bsTriangleHit* hit)
{
#if BS_DISPATCH_AVX2
	if (bsDispatch_Avx2())
	{
		return bsCylinder_BranchesAvx2(tri, s, h, hit);
	}
#endif
	return bsCylinder_BranchesDefault(tri, s, h, hit);
}

// The cylinder test, told that only t < tmax matters: when the whole triangle lies beyond
// C(tmax)'s cap plane (bsCylinder_AllBeyond) it returns false at Step 2 instead of running the
// branches whose t could only be >= tmax. Otherwise exactly bsCylinderTriangle. inlineBranches: the
// branches in line (the combined test) or through their out-of-line copy (the bare test).
static BS_ALWAYS_INLINE bool bsCylinderTriangleBefore(const bsTriangle* tri, const bsSweep* s, double tmax,
	bool inlineBranches, bsTriangleHit* hit)
{
	// Step 1: the unit axis A. The paper points it from C2 to C1; blobsim points it from C1 to C2,
	// which flips signs in Step 2 and changes no outcome.
	if (!(s->len2 > 0.0))
	{
		return false;
	}

	// Step 2: each vertex's signed distance from the cap planes (pi_a) through C1 and (pi_b) through
	// C2 is h and h - L. All vertices beyond the same cap: no intersection with the cylinder.
	bsVec3 v[3];
	bsVertices(tri, v);
	double h[3];
	for (int i = 0; i < 3; ++i)
	{
		h[i] = bsDot(s->axis, bsSub(v[i], s->c1));
	}
	double len = s->len;
	if ((h[0] < 0.0 && h[1] < 0.0 && h[2] < 0.0) || (h[0] > len && h[1] > len && h[2] > len))
	{
		return false;
	}
	double hmax = tmax * len;
	if (h[0] > hmax && h[1] > hmax && h[2] > hmax && bsCylinder_AllBeyond(tri, s, v, h, hmax))
	{
		return false;
	}

	return inlineBranches ? bsCylinder_BranchesBody(tri, s, h, hit) : bsCylinder_Branches(tri, s, h, hit);
}

bool bsCylinderTriangle(const bsTriangle* tri, const bsSweep* s, bsTriangleHit* hit)
{
	return bsCylinderTriangleBefore(tri, s, HUGE_VAL, false, hit);
}

// The combination. tmax only skips work whose t could not be below it, so the caller's filter
// t < tmax gives the same answer: the cylinder skips a triangle wholly beyond C(tmax)'s cap plane
// (its hit at t >= tmax would end here and be filtered; the end sphere's t = 1 is filtered too
// when tmax <= 1, and with tmax > 1 the skip never happens: it needs every vertex beyond the far
// cap, where Step 2 already rejects), and the end sphere is skipped when tmax <= 1.
static BS_ALWAYS_INLINE bool bsKarabassiCapsule(const bsTriangle* tri, const bsSweep* s, double s1, double s2,
	double tmax, bsTriangleHit* hit)
{
	double radius = s->radius;

	// The sphere at C1. The paper skips it: the start is the previous step's final position, assumed
	// free. blobsim checks it, so that a sweep starting in contact stops at t = 0 instead of sinking.
	if (fabs(s1) <= radius && bsTriangle_BoxNear(tri, s->c1, radius) &&
		bsSphereTriangle(tri, s->c1, radius, s->radius2, hit))
	{
		hit->t = 0.0;
		hit->test = bs_testStartSphere;
		return true;
	}

	// The trace: cylinder/triangle.
	if (bsCylinderTriangleBefore(tri, s, tmax, true, hit))
	{
		return true;
	}

	// The spherical cap at the final position: the sphere stays at C2, where it touches. Its t = 1
	// would be filtered when tmax <= 1: not worth testing.
	if (tmax > 1.0 && fabs(s2) <= radius && bsTriangle_BoxNear(tri, s->c2, radius) &&
		bsSphereTriangle(tri, s->c2, radius, s->radius2, hit))
	{
		hit->t = 1.0;
		hit->test = bs_testEndSphere;
		return true;
	}
	return false;
}

// The combined test for a triangle whose bounds overlap the capsule's (compiled twice: dispatch.h).
static BS_ALWAYS_INLINE bool bsKarabassi_OverlappingBody(const bsTriangle* tri, const bsSweep* s, double tmax,
	bsTriangleHit* hit)
{
	double radius = s->radius;
	double s1 = bsTriangle_PlaneDistance(tri, s->c1);
	double s2 = bsTriangle_PlaneDistance(tri, s->c2);

	// Step 1 of both sphere tests at once: when both end spheres lie beyond R on the same side of the
	// plane, so does the whole capsule (their convex hull) and no sub-test can find anything.
	if ((s1 > radius && s2 > radius) || (s1 < -radius && s2 < -radius))
	{
		return false;
	}
	// A nearer contact is known and this triangle's plane is reached only after it: the estimate,
	// never earlier than the exact first contact, cannot be nearer.
	if (fabs(s1) > radius && !bsSweep_ReachesSlabBefore(s, s1, s2, tmax))
	{
		return false;
	}
	return bsKarabassiCapsule(tri, s, s1, s2, tmax, hit) && hit->t < tmax;
}

static BS_COLD_PATH bool bsKarabassi_Overlapping(const bsTriangle* tri, const bsSweep* s, double tmax,
	bsTriangleHit* hit)
{
	return bsKarabassi_OverlappingBody(tri, s, tmax, hit);
}

#if BS_DISPATCH_AVX2
static BS_COLD_PATH BS_TARGET_AVX2 bool bsKarabassi_OverlappingAvx2(const bsTriangle* tri,
	const bsSweep* s, double tmax, bsTriangleHit* hit)
{
	return bsKarabassi_OverlappingBody(tri, s, tmax, hit);
}
#endif

bool bsKarabassiTriangle(const bsTriangle* tri, const bsSweep* s, double tmax, bsTriangleHit* hit)
{
	// The capsule's bounds and the triangle's are disjoint: nothing to find. Cheapest test first,
	// before the rest's register saves (BS_COLD_PATH); the dispatch is paid only past it.
	if (!bsSweep_BoxOverlaps(s, tri))
	{
		return false;
	}
#if BS_DISPATCH_AVX2
	if (bsDispatch_Avx2())
	{
		return bsKarabassi_OverlappingAvx2(tri, s, tmax, hit);
	}
#endif
	return bsKarabassi_Overlapping(tri, s, tmax, hit);
}
