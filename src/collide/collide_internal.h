// collide_internal.h — the sweep of one sphere against one primitive, under the queries of collide.h:
// the cheap rejections on bounds, the paper's tests and the exact and ray ones a triangle at a time,
// the sweep against a plane or a static sphere, and the helpers that complete an answer. src/bvh's
// walks, the step's colliders and the distance grid share them with the list loops (sweep.c,
// closest.c), so every route gives the same answer bit for bit; a program asks bsSweepList,
// bsBvh_Sweep or bsWorld_Sweep.
#pragma once

#include "blobsim/collide.h"
#include "core.h"  // BS_COLD_PATH

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

// Cheap rejections shared by the capsule tests, on the triangle's bounds. "Every vertex below a
// bound on an axis" is "the largest coordinate below it", so the SSE2 versions take the bounds with
// minpd/maxpd (x and y in one register, z in the low lane of another) and compare them once: the
// same comparisons of the same doubles for finite vertices (bsMakeTriangle's), a quarter of the
// instructions of 18 scalar comparisons.
#if defined(__SSE2__)
typedef struct bsTriangleBounds
{
	__m128d lo, hi;      // x, y
	__m128d loz, hiz;    // z in the low lane, 0 in the high one
} bsTriangleBounds;

static inline bsTriangleBounds bsTriangle_Bounds(const bsTriangle* t)
{
	__m128d a = _mm_loadu_pd(&t->p1.x);
	__m128d b = _mm_loadu_pd(&t->p2.x);
	__m128d c = _mm_loadu_pd(&t->p3.x);
	__m128d az = _mm_load_sd(&t->p1.z);
	__m128d bz = _mm_load_sd(&t->p2.z);
	__m128d cz = _mm_load_sd(&t->p3.z);
	bsTriangleBounds r;
	r.hi = _mm_max_pd(_mm_max_pd(a, b), c);
	r.lo = _mm_min_pd(_mm_min_pd(a, b), c);
	r.hiz = _mm_max_sd(_mm_max_sd(az, bz), cz);
	r.loz = _mm_min_sd(_mm_min_sd(az, bz), cz);
	return r;
}

// Is the box [lo, hi] (x and y in one register, z in the low lane of another) disjoint from the
// triangle's bounds? Only the low lane of the z comparisons counts.
static inline bool bsTriangleBounds_Outside(const bsTriangleBounds* r, __m128d lo, __m128d hi,
	__m128d loz, __m128d hiz)
{
	__m128d out = _mm_or_pd(_mm_cmplt_pd(r->hi, lo), _mm_cmpgt_pd(r->lo, hi));
	__m128d outz = _mm_or_pd(_mm_cmplt_sd(r->hiz, loz), _mm_cmpgt_sd(r->loz, hiz));
	return (_mm_movemask_pd(out) | (_mm_movemask_pd(outz) & 1)) != 0;
}

// False when the triangle's bounds and the capsule's are disjoint, so no contact is possible.
// Changes no answer. Most random pairs end here (Table 1: 93%).
static inline bool bsSweep_BoxOverlaps(const bsSweep* s, const bsTriangle* t)
{
	bsTriangleBounds r = bsTriangle_Bounds(t);
	return !bsTriangleBounds_Outside(&r, _mm_loadu_pd(&s->boxMin.x), _mm_loadu_pd(&s->boxMax.x),
		_mm_load_sd(&s->boxMin.z), _mm_load_sd(&s->boxMax.z));
}

// False when the triangle is, on some axis, farther than R from c by a margin, 1e-8 (1 + R + the
// largest coordinate of c and of the triangle): then the sphere/triangle steps (bsSphereTriangle)
// and the exact start test (bsTriangle_ClosestPoint and its squared distance <= R^2) find no
// contact, whatever their rounding. Each of them accepts only a computed point within R of c (up to
// a relative 1e-16 of R^2) that lies on the triangle up to a few ulps of the coordinates: a vertex,
// c's projection found inside by the edge functions, a point of an edge, a convex combination of
// the vertices. Such a point is within R + 1e-15 (R + size) of c, so the triangle's bounds are too.
// The sweeps' start and end spheres cut the plane of most neighbours of a contact: this replaces
// their ~50-300 instructions by ~25.
static inline bool bsTriangle_BoxNear(const bsTriangle* t, bsVec3 c, double radius)
{
	bsTriangleBounds r = bsTriangle_Bounds(t);
	__m128d cxy = _mm_loadu_pd(&c.x);
	__m128d cz = _mm_load_sd(&c.z);
	__m128d sign = _mm_set1_pd(-0.0);
	__m128d big = _mm_max_pd(_mm_max_pd(_mm_andnot_pd(sign, r.lo), _mm_andnot_pd(sign, r.hi)),
		_mm_andnot_pd(sign, cxy));
	__m128d bigz = _mm_max_sd(_mm_max_sd(_mm_andnot_pd(sign, r.loz), _mm_andnot_pd(sign, r.hiz)),
		_mm_andnot_pd(sign, cz));
	big = _mm_max_sd(_mm_max_pd(big, bigz), _mm_unpackhi_pd(big, big));
	double reach = radius + 1e-8 * (1.0 + radius + _mm_cvtsd_f64(big));
	__m128d grow = _mm_set1_pd(reach);
	return !bsTriangleBounds_Outside(&r, _mm_sub_pd(cxy, grow), _mm_add_pd(cxy, grow),
		_mm_sub_sd(cz, grow), _mm_add_sd(cz, grow));
}
#else
static inline bool bsSweep_BoxOverlaps(const bsSweep* s, const bsTriangle* t)
{
	bool below = (t->p1.x < s->boxMin.x) & (t->p2.x < s->boxMin.x) & (t->p3.x < s->boxMin.x);
	below |= (t->p1.y < s->boxMin.y) & (t->p2.y < s->boxMin.y) & (t->p3.y < s->boxMin.y);
	below |= (t->p1.z < s->boxMin.z) & (t->p2.z < s->boxMin.z) & (t->p3.z < s->boxMin.z);
	bool above = (t->p1.x > s->boxMax.x) & (t->p2.x > s->boxMax.x) & (t->p3.x > s->boxMax.x);
	above |= (t->p1.y > s->boxMax.y) & (t->p2.y > s->boxMax.y) & (t->p3.y > s->boxMax.y);
	above |= (t->p1.z > s->boxMax.z) & (t->p2.z > s->boxMax.z) & (t->p3.z > s->boxMax.z);
	return !(below | above);
}

static inline bool bsTriangle_BoxNear(const bsTriangle* t, bsVec3 c, double radius)
{
	bsVec3 lo = bsTriangle_Min(t);
	bsVec3 hi = bsTriangle_Max(t);
	double big = fmax(bsMaxAbs(c), fmax(bsMaxAbs(lo), bsMaxAbs(hi)));
	double reach = radius + 1e-8 * (1.0 + radius + big);
	return !(hi.x < c.x - reach || hi.y < c.y - reach || hi.z < c.z - reach ||
		lo.x > c.x + reach || lo.y > c.y + reach || lo.z > c.z + reach);
}
#endif

// A contact with one triangle, before the output is completed.
typedef struct bsTriangleHit
{
	double t;
	uint8_t test;
	uint8_t branch;
	uint8_t feature;
} bsTriangleHit;

// Can the sphere, starting outside the slab |N.x + delta| <= R (plane distances s1 at C1, s2 at C2,
// on the same side), reach it before tmax? It reaches it at (|s1| - R) / (side (s1 - s2)); no
// contact of any method comes earlier. Allows for the rounding of s1 and s2 so that it never says no
// wrongly: the answers of the list loop and the BVH must not depend on the order of triangles.
static inline bool bsSweep_ReachesSlabBefore(const bsSweep* s, double s1, double s2, double tmax)
{
	double side = s1 > 0.0 ? 1.0 : -1.0;
	double gap = fabs(s1) - s->radius;
	double approach = side * (s1 - s2);
	return !(gap - s->roundoff > tmax * (approach + s->roundoff));
}

// --- The paper's tests (karabassi.c) ---

// Sphere/triangle, Steps 1-4 with the section 3.1 sphere/edge test. Exact: true iff the closed
// sphere and the closed triangle intersect. Reports the step that decided and the vertex/edge index.
bool bsSphereTriangle(const bsTriangle* tri, bsVec3 center, double radius, double radius2,
	bsTriangleHit* hit);

// Cylinder/triangle, Steps 1-3 then Par4-Par8 or Int4-Int6. The cylinder has no caps; when it
// returns false, contacts may remain for the spherical caps. On true, hit->t is the paper's
// intersection estimate on the axis. Requires sweep->len2 > 0.
bool bsCylinderTriangle(const bsTriangle* tri, const bsSweep* sweep, bsTriangleHit* hit);

// The combined capsule/triangle test: the sphere at C1 (blobsim checks it; the paper assumes the
// start position is free), then the cylinder, else the sphere at C2 (t = 1). Reports only t < tmax
// (pass 2.0 for no bound): a nearer contact already known lets it skip triangles whose plane the
// sphere reaches only later. tmax filters; it never changes the estimate.
bool bsKarabassiTriangle(const bsTriangle* tri, const bsSweep* sweep, double tmax, bsTriangleHit* hit);

// --- Beyond the paper ---

// Exact time of first contact (exact.c). Reports only contacts with t < tmax (pass 1 + anything
// above 1, e.g. 2.0, for no bound).
bool bsExactTriangle(const bsTriangle* tri, const bsSweep* sweep, double tmax, bsTriangleHit* hit);

// bsExactTriangle four triangles at a time (exact.c), on x86-64 (meson defines BS_LANES_X86): the
// triangles tris[0, count), count <= 4, triangle i with the bound tmax[i]. Returns bit i set when
// triangle i has a contact, and then hits[i] holds what bsExactTriangle(tris[i], s, tmax[i], ...)
// writes, bit for bit (t, test, branch, feature); it returns the same yes or no. A lone triangle
// past the box test is handed to the scalar test.
#if defined(BS_LANES_X86) && defined(__GNUC__) && defined(__SSE2__)
#define BS_EXACT4 1
unsigned bsExactTriangle4(const bsTriangle* const tris[4], uint32_t count, const bsSweep* s,
	const double tmax[4], bsTriangleHit hits[4]);

// The lanes alone, even for one triangle (the tests compare them with the scalar test): the
// triangles whose bit is set in `live` (nonzero, below 1 << count), which must pass
// bsSweep_BoxOverlaps.
unsigned bsExactTriangle4Lanes(const bsTriangle* const tris[4], uint32_t count, unsigned live,
	const bsSweep* s, const double tmax[4], bsTriangleHit hits[4]);
#else
#define BS_EXACT4 0
#endif

// Segment C1 -> C2 against the triangle, radius ignored (ray.c). Reports only t < tmax. Watertight:
// a segment crossing exactly through an edge or vertex shared by triangles of a closed mesh is
// reported by exactly one of them (one tie rule for every triangle, docs/algorithm.md), so a lone
// triangle's boundary is half-open here: it has some of its edges and vertices, not all (unless its
// open edges are given, bsRayTriangleOpen).
bool bsRayTriangle(const bsTriangle* tri, const bsSweep* sweep, double tmax, bsTriangleHit* hit);

// The same with the triangle's open edges (bit k: edge k has no neighbour, bsFindOpenEdges), which
// take every crossing exactly on them.
bool bsRayTriangleOpen(const bsTriangle* tri, const bsSweep* sweep, double tmax, unsigned open,
	bsTriangleHit* hit);

// --- One triangle by method, and the answer of a query (sweep.c) ---

// One triangle by method; only contacts with t < tmax. Inline: the BVH and the list loop call it
// once per triangle.
static inline bool bsSweepTriangle(bsMethod method, const bsTriangle* tri, const bsSweep* sweep,
	double tmax, bsTriangleHit* hit)
{
	switch (method)
	{
		case bs_methodKarabassi:
			return bsKarabassiTriangle(tri, sweep, tmax, hit);
		case bs_methodExact:
			return bsExactTriangle(tri, sweep, tmax, hit);
		case bs_methodRay:
			return bsRayTriangle(tri, sweep, tmax, hit);
		case bs_methodCount:
			break;
	}
	return false;
}

// Fills out from the winning hit: centre, contact point (the triangle's point nearest the centre),
// normal and the sub-test fields; returns where on the triangle the point lies. The normal points
// from the surface to the centre (bsTriangle_NormalTowards): the face normal on the centre's side
// when the point is on the face, (centre - point) / |centre - point| on an edge or vertex. When the
// centre is on the surface (within 1e-12 (1 + max |centre_i|): the ray method, karabassi's Int4) the
// face normal on the side the motion comes from (for motion along the plane, C1's side).
bsFeature bsSweep_Finish(const bsSweep* sweep, const bsTriangle* tri, uint32_t triangleIndex,
	const bsTriangleHit* hit, bsSweepOutput* out);

// Is the contact point worth looking up on the whole mesh? When the stop centre may be nearer the
// surface than R (karabassi's estimate overlaps it; exact at t = 0 starts in contact) and the
// winning triangle's point is on an edge or vertex: a neighbour sharing that edge can be nearer the
// centre (two triangles reach the same t, up to rounding, and the earlier or lower index wins), and
// the neighbour's point gives the normal of the contact geometry rather than of the tie. Otherwise
// exact stops touching, where the winner's point is the mesh's nearest up to rounding, and ray stops
// on the triangle its segment crosses.
static inline bool bsSweep_RefinesContact(bsMethod method, double t, bsFeature feature)
{
	bool overlaps = method == bs_methodKarabassi || (method == bs_methodExact && t == 0.0);
	return overlaps && feature != bs_featureFace;
}

// Fills out for a sweep that hits nothing (t = 1, centre C2).
void bsSweep_Miss(const bsSweep* sweep, bsSweepOutput* out);

// --- Planes (plane.c) ---

// First contact of the sweep with the (two-sided) plane, t < tmax. For the sphere methods
// (karabassi and exact alike: the paper's tests are for triangles) the exact time: t = 0 when the
// sphere starts within R of the plane, else RTR's eq. 16.61, t = (s_c - r) / (s_c - s_e) on the side
// it starts from. For ray the radius is ignored. hit->test is bs_testPlane, branch start or face.
bool bsPlaneSweep(const bsPlane* plane, const bsSweep* sweep, bsMethod method, double tmax,
	bsTriangleHit* hit);

// --- Spheres (sphere.c) ---

// A moving sphere against a static one: the dynamic sphere/sphere test of Real-Time
// Rendering (3rd ed., section 16.18.2), the companion of the sphere/plane test (above). Stuck and
// sleeping particles are such spheres (the stuck collider of world.h).

// First contact of the sweep's sphere, of radius `movingRadius` (the sweep's radius, or 0 for a point
// as the ray method has it), with the static sphere (center, radius), for t < tmax (pass 2.0 for no
// bound). Contact means |C(t) - center| <= movingRadius + radius (closed: a graze is a contact).
// t = 0 when the spheres overlap at C1 (branch start), as the triangle tests report a sweep that
// starts in contact; otherwise the exact entry time (branch face). hit->test is bs_testSphere.
//
// Solved along the sweep's unit axis in length units, so that no product of a tiny or huge motion
// with itself under- or overflows, and with no cancellation: the distance h of the centre from the
// line gives the half chord sqrt((R - h)(R + h)), and the entry distance is
// (|m| - R)(|m| + R) / (-m.u + half chord), m = C1 - center, R the sum of the radii.
bool bsSphereSweep(const bsSweep* sweep, double movingRadius, bsVec3 center, double radius, double tmax,
	bsTriangleHit* hit);

// --- Closest points (closest.c) ---

// Squared distance from q to the closed triangle (one triangle of a query; the BVH and the list
// loop both use it, so their answers agree to the bit).
static inline double bsTriangle_Distance2(const bsTriangle* t, bsVec3 q)
{
	return bsDistanceSquared(q, bsTriangle_ClosestPoint(t, q, NULL, NULL));
}

// Does a triangle at squared distance d2 and caller's index i beat the best so far (bestD2, best
// index; found false when there is none yet), within maxDistance?
static inline bool bsClosestPoint_Better(double d2, uint32_t i, bool found, double bestD2,
	uint32_t bestIndex, double maxDistance)
{
	if (found && !(d2 < bestD2 || (d2 == bestD2 && i < bestIndex)))
	{
		return false;
	}
	return sqrt(d2) <= maxDistance;
}

// Fills out for triangle `tri` (caller's index `index`) as the nearest to q.
void bsClosestPoint_Finish(const bsTriangle* tri, uint32_t index, bsVec3 q, bsClosestPointOutput* out);

// Fills out for a query with no triangle within maxDistance (point q, or the origin when q is not
// finite).
void bsClosestPoint_Miss(bsVec3 q, bsClosestPointOutput* out);

// Replaces a sweep's contact point and normal by the mesh's point nearest its stop centre (a
// bsClosestPointList / bsBvh_ClosestPoint answer within the hit triangle's distance, so never
// farther than it): the normal from that point, or, when the centre is on the surface there, the
// face normal on the side the motion comes from. The other fields (t, centre, triangle, test)
// still describe the hit.
void bsSweep_UseMeshContact(const bsSweep* sweep, const bsClosestPointOutput* contact,
	bsSweepOutput* out);
