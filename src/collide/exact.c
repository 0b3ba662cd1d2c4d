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

// --- Four triangles at a time (collide_internal.h: bsExactTriangle4) ---
//
// The test above on four triangles in the lanes of one vector of doubles: the same operations on
// the same doubles in the same order (dot products as bsDot sums them, x + y then + z; no
// multiply-add: -ffp-contract=off and no "fma" target; sqrt and division are the correctly
// rounded sqrtpd and divpd), so every lane rounds as the scalar test does. Where the scalar test
// branches, the lanes compute both sides and select, by the same comparisons (a NaN compares as
// it does there). Two parts stay per lane, in the scalar code itself: the box rejection
// (bsSweep_BoxOverlaps, already SSE2) and the start-in-contact test of a lane whose start sphere
// cuts its plane (bsTriangle_ClosestPoint's cascade of cases). The vector type is GCC's generic
// one: two SSE2 registers in the default copy, one AVX register in the AVX2 copy (dispatch.h).
#if BS_EXACT4

// The 32-byte vectors are passed only between always-inline functions of this file.
#pragma GCC diagnostic ignored "-Wpsabi"

typedef double bsLanes __attribute__((vector_size(32)));
typedef int64_t bsLaneMask __attribute__((vector_size(32)));  // a comparison: -1 or 0 a lane

typedef struct bsLaneVec
{
	bsLanes x, y, z;
} bsLaneVec;

static BS_ALWAYS_INLINE bsLanes bsLanes_Set(double v)
{
	return (bsLanes){v, v, v, v};
}

// a where m, else b.
static BS_ALWAYS_INLINE bsLanes bsLanes_Select(bsLaneMask m, bsLanes a, bsLanes b)
{
	return (bsLanes)(((bsLaneMask)a & m) | ((bsLaneMask)b & ~m));
}

static BS_ALWAYS_INLINE bsLaneMask bsLaneMask_Select(bsLaneMask m, bsLaneMask a, bsLaneMask b)
{
	return (a & m) | (b & ~m);
}

// Bit i set when lane i of m is.
static BS_ALWAYS_INLINE unsigned bsLaneMask_Bits(bsLaneMask m)
{
	return (unsigned)((m[0] & 1) | (m[1] & 2) | (m[2] & 4) | (m[3] & 8));
}

// Lane i all ones when bit i is set.
static BS_ALWAYS_INLINE bsLaneMask bsLaneMask_FromBits(unsigned bits)
{
	return (bsLaneMask){-(int64_t)(bits & 1u), -(int64_t)((bits >> 1) & 1u), -(int64_t)((bits >> 2) & 1u),
		-(int64_t)((bits >> 3) & 1u)};
}

static BS_ALWAYS_INLINE bsLanes bsLanes_Abs(bsLanes v)
{
	bsLaneMask magnitude = {INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX};
	return (bsLanes)((bsLaneMask)v & magnitude);
}

// sqrtpd on each half: correctly rounded, as sqrt() is.
static BS_ALWAYS_INLINE bsLanes bsLanes_Sqrt(bsLanes v)
{
	__m128d lo = _mm_sqrt_pd(_mm_set_pd(v[1], v[0]));
	__m128d hi = _mm_sqrt_pd(_mm_set_pd(v[3], v[2]));
	return (bsLanes){_mm_cvtsd_f64(lo), _mm_cvtsd_f64(_mm_unpackhi_pd(lo, lo)), _mm_cvtsd_f64(hi),
		_mm_cvtsd_f64(_mm_unpackhi_pd(hi, hi))};
}

static BS_ALWAYS_INLINE bsLaneVec bsLaneVec_Set(bsVec3 v)
{
	return (bsLaneVec){bsLanes_Set(v.x), bsLanes_Set(v.y), bsLanes_Set(v.z)};
}

static BS_ALWAYS_INLINE bsLaneVec bsLaneVec_Sub(bsLaneVec a, bsLaneVec b)
{
	return (bsLaneVec){a.x - b.x, a.y - b.y, a.z - b.z};
}

// a + s b, as bsMulAdd.
static BS_ALWAYS_INLINE bsLaneVec bsLaneVec_MulAdd(bsLaneVec a, bsLanes s, bsLaneVec b)
{
	return (bsLaneVec){a.x + s * b.x, a.y + s * b.y, a.z + s * b.z};
}

// a - s b, as bsMulSub.
static BS_ALWAYS_INLINE bsLaneVec bsLaneVec_MulSub(bsLaneVec a, bsLanes s, bsLaneVec b)
{
	return (bsLaneVec){a.x - s * b.x, a.y - s * b.y, a.z - s * b.z};
}

static BS_ALWAYS_INLINE bsLanes bsLaneVec_Dot(bsLaneVec a, bsLaneVec b)
{
	return a.x * b.x + a.y * b.y + a.z * b.z;
}

static BS_ALWAYS_INLINE bsLaneVec bsLaneVec_Cross(bsLaneVec a, bsLaneVec b)
{
	return (bsLaneVec){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}

// The four triangles' records in lanes.
typedef struct bsLaneTriangle
{
	bsLaneVec v[3];
	bsLaneVec n;
	bsLanes delta;
} bsLaneTriangle;

#define BS_GATHER(t, f) ((bsLanes){(t)[0]->f, (t)[1]->f, (t)[2]->f, (t)[3]->f})

static BS_ALWAYS_INLINE bsLaneTriangle bsLaneTriangle_Gather(const bsTriangle* const t[4])
{
	bsLaneTriangle r;
	r.v[0] = (bsLaneVec){BS_GATHER(t, p1.x), BS_GATHER(t, p1.y), BS_GATHER(t, p1.z)};
	r.v[1] = (bsLaneVec){BS_GATHER(t, p2.x), BS_GATHER(t, p2.y), BS_GATHER(t, p2.z)};
	r.v[2] = (bsLaneVec){BS_GATHER(t, p3.x), BS_GATHER(t, p3.y), BS_GATHER(t, p3.z)};
	r.n = (bsLaneVec){BS_GATHER(t, n.x), BS_GATHER(t, n.y), BS_GATHER(t, n.z)};
	r.delta = BS_GATHER(t, delta);
	return r;
}

// bsTriangle_EdgeFunction: ((b - a) x (q - a)) . n.
static BS_ALWAYS_INLINE bsLanes bsLaneTriangle_EdgeFunction(const bsLaneTriangle* t, int i, bsLaneVec q)
{
	bsLaneVec a = t->v[i];
	bsLaneVec b = t->v[i == 2 ? 0 : i + 1];
	return bsLaneVec_Dot(bsLaneVec_Cross(bsLaneVec_Sub(b, a), bsLaneVec_Sub(q, a)), t->n);
}

static BS_ALWAYS_INLINE void bsExact4_Hit(bsTriangleHit* hit, double t, int branch, int feature)
{
	hit->t = t;
	hit->test = bs_testExact;
	hit->branch = (uint8_t)branch;
	hit->feature = (uint8_t)feature;
}

// The lanes' winners so far among the edges and vertices (bsExact_OverlappingBody's best, branch
// and feature).
typedef struct bsLaneBest
{
	bsLanes t;
	bsLaneMask branch, feature;
} bsLaneBest;

static BS_ALWAYS_INLINE void bsLaneBest_Take(bsLaneBest* b, bsLaneMask take, bsLanes t, int branch,
	int feature)
{
	b->t = bsLanes_Select(take, t, b->t);
	b->branch = bsLaneMask_Select(take, (bsLaneMask){branch, branch, branch, branch}, b->branch);
	b->feature = bsLaneMask_Select(take, (bsLaneMask){feature, feature, feature, feature}, b->feature);
}

// The edges' cylinders, as the scalar loop (its lines mirrored one for one on purpose: the same
// operations in the same order are what makes the lanes bit-identical): every comparison that skips
// an edge there masks the lane here, and so do the lanes already decided (dead); when every lane
// skips an edge before its square root, the edge is skipped.
// The sweep's values the edges and vertices read, in every lane.
typedef struct bsLaneSweep
{
	bsLaneVec c1, d;
	bsLanes radius2, len2, zero, one;
} bsLaneSweep;

static BS_ALWAYS_INLINE bsLaneSweep bsMakeLaneSweep(const bsSweep* s)
{
	bsLaneSweep l = {bsLaneVec_Set(s->c1), bsLaneVec_Set(s->d), bsLanes_Set(s->radius2),
		bsLanes_Set(s->len2), bsLanes_Set(0.0), bsLanes_Set(1.0)};
	return l;
}

static BS_ALWAYS_INLINE void bsExact4_Edges(const bsLaneTriangle* tri, const bsLaneSweep* l, bsLaneMask dead,
	bsLaneBest* best)
{
	for (int i = 0; i < 3; ++i)
	{
		bsLaneVec pa = tri->v[i];
		bsLaneVec e = bsLaneVec_Sub(tri->v[i == 2 ? 0 : i + 1], pa);
		bsLaneVec m = bsLaneVec_Sub(l->c1, pa);
		bsLaneVec u = bsLaneVec_Cross(l->d, e);
		bsLaneVec w = bsLaneVec_Cross(m, e);
		bsLanes a = bsLaneVec_Dot(u, u);
		bsLanes b = bsLaneVec_Dot(u, w);
		bsLanes ee = bsLaneVec_Dot(e, e);
		bsLanes c = bsLaneVec_Dot(w, w) - l->radius2 * ee;
		bsLaneMask skip = dead | (a == l->zero) | (c < l->zero) | (b >= l->zero);
		bsLanes disc = b * b - a * c;
		skip |= disc < l->zero;
		if (bsLaneMask_Bits(skip) == 15u)
		{
			continue;  // no lane needs the square root and the division
		}
		bsLanes t = c / (-b + bsLanes_Sqrt(disc));
		skip |= (t > l->one) | (t >= best->t);
		bsLanes axial = bsLaneVec_Dot(bsLaneVec_MulAdd(m, t, l->d), e);
		skip |= (axial < l->zero) | (axial > ee);
		bsLaneBest_Take(best, ~skip, t, bs_branchEdge, i);
	}
}

// The vertices' spheres.
static BS_ALWAYS_INLINE void bsExact4_Vertices(const bsLaneTriangle* tri, const bsLaneSweep* l,
	bsLaneMask dead, bsLaneBest* best)
{
	for (int i = 0; i < 3; ++i)
	{
		bsLaneVec m = bsLaneVec_Sub(l->c1, tri->v[i]);
		bsLanes b = bsLaneVec_Dot(m, l->d);
		bsLanes c = bsLaneVec_Dot(m, m) - l->radius2;
		bsLaneMask skip = dead | (b >= l->zero);
		bsLanes disc = b * b - l->len2 * c;
		skip |= disc < l->zero;
		if (bsLaneMask_Bits(skip) == 15u)
		{
			continue;
		}
		bsLanes t = c / (-b + bsLanes_Sqrt(disc));
		t = bsLanes_Select(t > l->zero, t, l->zero);
		skip |= (t > l->one) | (t >= best->t);
		bsLaneBest_Take(best, ~skip, t, bs_branchVertex, i);
	}
}

// bsExact_OverlappingBody on the lanes in `live` (whose bounds overlap the capsule's; every lane's
// pointer valid). Returns the lanes with a contact, their hits filled.
static BS_ALWAYS_INLINE unsigned bsExact4_Body(const bsTriangle* const lane[4], unsigned live,
	const bsSweep* s, const double tmaxIn[4], bsTriangleHit hits[4])
{
	unsigned found = 0;
	bsLaneTriangle tri = bsLaneTriangle_Gather(lane);
	bsLanes tmax = {tmaxIn[0], tmaxIn[1], tmaxIn[2], tmaxIn[3]};
	bsLanes radius = bsLanes_Set(s->radius);
	bsLanes negRadius = bsLanes_Set(-s->radius);
	bsLanes zero = bsLanes_Set(0.0);
	bsLanes one = bsLanes_Set(1.0);
	bsLaneVec c1 = bsLaneVec_Set(s->c1);
	bsLanes s1 = bsLaneVec_Dot(tri.n, c1) + tri.delta;
	bsLanes s2 = bsLaneVec_Dot(tri.n, bsLaneVec_Set(s->c2)) + tri.delta;

	// The whole capsule beyond R on one side of the plane.
	live &= ~bsLaneMask_Bits(((s1 > radius) & (s2 > radius)) | ((s1 < negRadius) & (s2 < negRadius)));
	if (live == 0)
	{
		return 0;
	}

	bsLanes abs1 = bsLanes_Abs(s1);
	unsigned inSlab = live & bsLaneMask_Bits(abs1 <= radius);
	for (unsigned m = inSlab; m != 0; m &= m - 1)
	{
		int i = __builtin_ctz(m);
		int index;
		if (bsExact_StartsInContact(lane[i], s, &index))
		{
			live &= ~(1u << i);
			if (0.0 < tmaxIn[i])
			{
				bsExact4_Hit(hits + i, 0.0, bs_branchStart, index);
				found |= 1u << i;
			}
		}
	}

	bsLanes faceTime = bsLanes_Set(HUGE_VAL);
	unsigned outside = live & ~inSlab;
	if (outside != 0)
	{
		// bsSweep_ReachesSlabBefore, then the face's touching point.
		bsLanes side = bsLanes_Select(s1 > zero, one, -one);
		bsLanes gap = abs1 - radius;
		bsLanes approach = side * (s1 - s2);
		bsLanes roundoff = bsLanes_Set(s->roundoff);
		unsigned late = outside & bsLaneMask_Bits(gap - roundoff > tmax * (approach + roundoff));
		live &= ~late;
		outside &= ~late;
		bsLanes tf = gap / approach;
		tf = bsLanes_Select(tf < one, tf, one);
		bsLaneVec touch = bsLaneVec_MulSub(bsLaneVec_MulAdd(c1, tf, bsLaneVec_Set(s->d)), side * radius,
			tri.n);
		bsLaneMask contains = (bsLaneTriangle_EdgeFunction(&tri, 0, touch) >= zero) &
			(bsLaneTriangle_EdgeFunction(&tri, 1, touch) >= zero) &
			(bsLaneTriangle_EdgeFunction(&tri, 2, touch) >= zero);
		bsLaneMask steep = approach > bsLanes_Set(1e9 * s->roundoff);
		unsigned face = outside & bsLaneMask_Bits(contains & steep);
		unsigned early = face & bsLaneMask_Bits(tf < tmax);
		for (unsigned m = early; m != 0; m &= m - 1)
		{
			int i = __builtin_ctz(m);
			bsExact4_Hit(hits + i, tf[i], bs_branchFace, 0);
		}
		found |= early;
		live &= ~face;
		faceTime = bsLanes_Select(bsLaneMask_FromBits(outside) & contains & ~steep, tf, faceTime);
	}

	if (live == 0 || !(s->len2 > 0.0))
	{
		return found;  // no motion and not in contact
	}

	bsLanes two = bsLanes_Set(2.0);
	bsLaneBest best = {bsLanes_Select(tmax < two, tmax, two), (bsLaneMask){0, 0, 0, 0},
		(bsLaneMask){0, 0, 0, 0}};
	bsLaneBest_Take(&best, faceTime < best.t, faceTime, bs_branchFace, 0);
	bsLaneMask dead = ~bsLaneMask_FromBits(live);
	bsLaneSweep lanes = bsMakeLaneSweep(s);
	bsExact4_Edges(&tri, &lanes, dead, &best);
	bsExact4_Vertices(&tri, &lanes, dead, &best);
	unsigned won = live & ~bsLaneMask_Bits(best.branch == (bsLaneMask){0, 0, 0, 0});
	for (unsigned m = won; m != 0; m &= m - 1)
	{
		int i = __builtin_ctz(m);
		bsExact4_Hit(hits + i, best.t[i], (int)best.branch[i], (int)best.feature[i]);
	}
	return found | won;
}

static unsigned bsExact4_Lanes(const bsTriangle* const lane[4], unsigned live, const bsSweep* s,
	const double tmax[4], bsTriangleHit hits[4])
{
	return bsExact4_Body(lane, live, s, tmax, hits);
}

#if BS_DISPATCH_AVX2
static BS_TARGET_AVX2 unsigned bsExact4_LanesAvx2(const bsTriangle* const lane[4], unsigned live,
	const bsSweep* s, const double tmax[4], bsTriangleHit hits[4])
{
	return bsExact4_Body(lane, live, s, tmax, hits);
}
#endif

unsigned bsExactTriangle4Lanes(const bsTriangle* const tris[4], uint32_t count, unsigned live,
	const bsSweep* s, const double tmax[4], bsTriangleHit hits[4])
{
	// Lanes not live repeat a live triangle and its bound (their answers are never read).
	const bsTriangle* lane[4];
	double bound[4];
	int first = __builtin_ctz(live);
	for (uint32_t i = 0; i < 4; ++i)
	{
		bool on = i < count && ((live >> i) & 1u);
		lane[i] = on ? tris[i] : tris[first];
		bound[i] = on ? tmax[i] : tmax[first];
	}
#if BS_DISPATCH_AVX2
	if (bsDispatch_Avx2())
	{
		return bsExact4_LanesAvx2(lane, live, s, bound, hits);
	}
#endif
	return bsExact4_Lanes(lane, live, s, bound, hits);
}

unsigned bsExactTriangle4(const bsTriangle* const tris[4], uint32_t count, const bsSweep* s,
	const double tmax[4], bsTriangleHit hits[4])
{
	unsigned live = 0;
	for (uint32_t i = 0; i < count; ++i)
	{
		live |= bsSweep_BoxOverlaps(s, tris[i]) ? 1u << i : 0u;
	}
	if (live == 0)
	{
		return 0;
	}
	if ((live & (live - 1)) == 0)
	{
		// One lane: the scalar test costs less than the four.
		int i = __builtin_ctz(live);
#if BS_DISPATCH_AVX2
		if (bsDispatch_Avx2())
		{
			return bsExact_OverlappingAvx2(tris[i], s, tmax[i], hits + i) ? live : 0u;
		}
#endif
		return bsExact_Overlapping(tris[i], s, tmax[i], hits + i) ? live : 0u;
	}
	return bsExactTriangle4Lanes(tris, count, live, s, tmax, hits);
}

#endif
