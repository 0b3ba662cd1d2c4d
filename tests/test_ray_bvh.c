// test_ray_bvh.c — the 8-wide ray tree (ray_bvh.h) against brute force: every ray's
// answer (result, t, triangle, normal, hit, every byte) is the list loop's (bsSweepList with
// bs_methodRay, its normal turned against the motion), from both copies of the runtime dispatch, and
// bsBvh_Ray's; rays along the axes, through vertices and edges, lying in a plane, of zero length,
// huge and invalid, on scenes with ties, deep chains, leaves of 1 to 16, one triangle and none.
#include "test.h"

#include "dispatch.h"
#include "ray_bvh.h"

#include "blobsim/bvh.h"
#include "blobsim/rng.h"
#include "procedural.h"

#include <stdlib.h>
#include <string.h>

// The list loop's answer (with the open edges of the tree's build) as a bsRayOutput, and its result.
static bsResult BruteRay(const bsBvh* bvh, const bsTriangle* tris, uint32_t count, const bsRayInput* ray,
	bsRayOutput* out)
{
	bsSweepInput in = {ray->c1, ray->c2, 0.0};
	bsSweepOutput s;
	uint8_t* open = malloc(count > 0 ? count : 1);
	if (open == NULL)
	{
		return bs_errOutOfMemory;
	}
	bsBvh_OpenEdges(bvh, open);
	bsResult r = bsSweepListOpen(bs_methodRay, tris, open, count, &in, &s);
	free(open);
	memset(out, 0, sizeof *out);
	out->t = 1.0;
	out->triangle = BS_NO_TRIANGLE;
	if (r == bs_ok && s.hit)
	{
		bsVec3 n = tris[s.triangle].n;
		out->t = s.t;
		out->triangle = s.triangle;
		out->hit = 1;
		out->normal = bsDot(n, bsSub(ray->c2, ray->c1)) > 0.0 ? bsNeg(n) : n;
	}
	return r;
}

typedef struct RayCounts
{
	uint64_t rays, hits;
	uint64_t offBox;     // the 8-wide walk missed a list contact outside its triangle's box (below)
	uint64_t offBoxOld;  // bsBvh_Ray did
} RayCounts;

// Whether point p lies outside the triangle's bounding box grown by `grow`.
static bool OutsideBox(const bsTriangle* t, bsVec3 p, double grow)
{
	bsVec3 lo = bsMin(t->p1, bsMin(t->p2, t->p3));
	bsVec3 hi = bsMax(t->p1, bsMax(t->p2, t->p3));
	return p.x < lo.x - grow || p.y < lo.y - grow || p.z < lo.z - grow || p.x > hi.x + grow ||
		p.y > hi.y + grow || p.z > hi.z + grow;
}

// A known difference of every BVH walk from the list loop, older than the 8-wide tree (bsBvh_Ray and
// bsBvh_Sweep's ray show it too): a segment nearly in a triangle's plane (one end's plane distance
// exactly 0, the other's ~1e-17) gets t = 0 from the plane distances while the watertight test asks
// whether its whole line passes through the triangle, so the list loop can report a contact at a
// point of the segment outside the triangle's box, which a walk that prunes boxes may not visit (and
// whether it does depends on the walk's order). Accepted only when exactly that is the case: the
// list's contact point lies outside its triangle's box and the walk's answer is a later contact or
// none, with the result the same.
static bool SameOrKnownDifference(const bsTriangle* tris, const bsRayInput* ray, bsResult re,
	const bsRayOutput* expect, bsResult rw, const bsRayOutput* walk, uint64_t* offBox)
{
	if (rw != re)
	{
		return false;
	}
	if (memcmp(walk, expect, sizeof *walk) == 0)
	{
		return true;
	}
	if (!expect->hit || (walk->hit && !(walk->t > expect->t)))
	{
		return false;
	}
	bsVec3 p = bsMulAdd(ray->c1, expect->t, bsSub(ray->c2, ray->c1));
	double grow = 1e-6 * (bsMaxAbsFinite(ray->c1) + bsMaxAbsFinite(ray->c2));
	*offBox += 1;
	return OutsideBox(tris + expect->triangle, p, grow);
}

// One ray through the 8-wide tree (both dispatch copies: the same bytes) and bsBvh_Ray against the
// list loop.
static int CheckRay(const bsBvh* bvh, const bsRayBvh* rb, const bsTriangle* tris, uint32_t count,
	bsRayInput ray, RayCounts* counts)
{
	bsRayOutput expect, a, b, c;
	bsResult re = BruteRay(bvh, tris, count, &ray, &expect);
	memset(&a, 0xA5, sizeof a);
	memset(&b, 0x5A, sizeof b);
	memset(&c, 0xC3, sizeof c);
	bsDispatch_SetMode(bs_dispatchDefault);
	bsResult ra = bsRayBvh_Ray(rb, &ray, &a, NULL);
	bsDispatch_SetMode(bs_dispatchBest);
	bsResult rbest = bsRayBvh_Ray(rb, &ray, &b, NULL);
	bsResult rc = bsBvh_Ray(bvh, &ray, &c);
	uint64_t off = 0, offOld = 0;
	if (ra != rbest || memcmp(&a, &b, sizeof a) != 0 ||
		!SameOrKnownDifference(tris, &ray, re, &expect, ra, &a, &off) ||
		!SameOrKnownDifference(tris, &ray, re, &expect, rc, &c, &offOld))
	{
		fprintf(stderr, "  ray (%.17g, %.17g, %.17g) -> (%.17g, %.17g, %.17g): brute %d hit %d t %.17g "
			"tri %u; default %d hit %d t %.17g tri %u; best %d hit %d t %.17g tri %u; bsBvh_Ray %d hit "
			"%d t %.17g tri %u\n", ray.c1.x, ray.c1.y, ray.c1.z, ray.c2.x, ray.c2.y, ray.c2.z, re,
			expect.hit, expect.t, expect.triangle, ra, a.hit, a.t, a.triangle, rbest, b.hit, b.t,
			b.triangle, rc, c.hit, c.t, c.triangle);
		return 1;
	}
	counts->rays += 1;
	counts->hits += expect.hit;
	counts->offBox += off;
	counts->offBoxOld += offOld;
	return 0;
}

// A segment through point p (exactly at its middle when d is exact) along d.
static bsRayInput Through(bsVec3 p, bsVec3 d)
{
	bsRayInput r = {bsSub(p, d), bsAdd(p, d)};
	return r;
}

static bsVec3 Axis(int axis, double s)
{
	return bsV3(axis == 0 ? s : 0.0, axis == 1 ? s : 0.0, axis == 2 ? s : 0.0);
}

// The rays of one scene: random segments (short and long, a tenth along an axis), segments through
// the vertices, edge midpoints and centroids of random triangles (along the normal, along an axis
// and in the triangle's plane), zero-length segments on and off the triangles, and huge ones.
static int CheckScene(const char* name, const bsTriangle* tris, uint32_t count,
	const bsBvhOptions* options, int rays, uint64_t seed)
{
	bsBvh bvh;
	ENSURE(bsBvh_Build(&bvh, tris, count, options) == bs_ok);
	bsRayBvh rb;
	ENSURE(bsRayBvh_Build(&rb, &bvh) == bs_ok);
	ENSURE(count == 0 || (rb.nodeCount > 0 && rb.depth >= 1 && rb.depth <= BS_BVH_MAX_DEPTH));
	ENSURE(bsRayBvh_Bytes(&rb) == (size_t)rb.nodeCount * sizeof(bsRayBvhNode));
	// Every triangle is in exactly one leaf, and every node but the root is some node's child.
	uint32_t* seen = calloc((size_t)count + rb.nodeCount + 1, sizeof *seen);
	ENSURE(seen != NULL);
	for (uint32_t i = 0; i < rb.nodeCount; ++i)
	{
		const bsRayBvhNode* n = rb.nodes + i;
		for (int s = 0; s < 8; ++s)
		{
			if (n->count[s] > 0)
			{
				for (uint32_t k = n->child[s]; k < n->child[s] + n->count[s]; ++k)
				{
					ENSURE(k < count);
					seen[k] += 1;
				}
			}
			else if (n->min[0][s] != INFINITY)
			{
				ENSURE(n->child[s] > i && n->child[s] < rb.nodeCount);
				seen[count + n->child[s]] += 1;
			}
		}
	}
	for (uint32_t k = 0; k < count; ++k)
	{
		ENSURE(seen[k] == 1);
	}
	for (uint32_t i = 1; i < rb.nodeCount; ++i)
	{
		ENSURE(seen[count + i] == 1);
	}
	free(seen);

	RayCounts counts = {0, 0, 0, 0};
	bsRng rng = bsMakeRng(seed);
	bsVec3 lo = bsV3(INFINITY, INFINITY, INFINITY), hi = bsV3(-INFINITY, -INFINITY, -INFINITY);
	for (uint32_t i = 0; i < count; ++i)
	{
		lo = bsMin(lo, bsMin(tris[i].p1, bsMin(tris[i].p2, tris[i].p3)));
		hi = bsMax(hi, bsMax(tris[i].p1, bsMax(tris[i].p2, tris[i].p3)));
	}
	if (count == 0)
	{
		lo = bsV3(0.0, 0.0, 0.0);
		hi = bsV3(1.0, 1.0, 1.0);
	}
	bsVec3 size = bsSub(hi, lo);
	double scale = bsMaxAbsFinite(size) > 0.0 ? bsMaxAbsFinite(size) : 1.0;
	for (int q = 0; q < rays; ++q)
	{
		bsVec3 p = bsV3(lo.x + size.x * bsRng_Range(&rng, -0.1, 1.1), lo.y + size.y * bsRng_Range(&rng,
			-0.1, 1.1), lo.z + size.z * bsRng_Range(&rng, -0.1, 1.1));
		double len = scale * (bsRng_Below(&rng, 2) == 0 ? bsRng_Range(&rng, 0.0, 0.05)
			: bsRng_Range(&rng, 0.0, 1.5));
		bsVec3 d = bsRng_Below(&rng, 10) == 0 ? Axis((int)bsRng_Below(&rng, 3), bsRng_Below(&rng, 2)
			? 1.0 : -1.0) : bsRng_UnitVector(&rng);
		bsRayInput r = {p, bsMulAdd(p, len, d)};
		ENSURE(CheckRay(&bvh, &rb, tris, count, r, &counts) == 0);
		if (count == 0)
		{
			continue;
		}
		// Through a feature of a random triangle.
		const bsTriangle* t = tris + bsRng_Below(&rng, count);
		bsVec3 at;
		switch (bsRng_Below(&rng, 4))
		{
			case 0:
				at = t->p1;
				break;
			case 1:
				at = bsScale(0.5, bsAdd(t->p2, t->p3));
				break;
			case 2:
				at = bsScale(1.0 / 3.0, bsAdd(t->p1, bsAdd(t->p2, t->p3)));
				break;
			default:
				at = t->p3;
				break;
		}
		double s = scale * bsRng_Range(&rng, 1e-4, 0.1);
		ENSURE(CheckRay(&bvh, &rb, tris, count, Through(at, bsScale(s, t->n)), &counts) == 0);
		ENSURE(CheckRay(&bvh, &rb, tris, count, Through(at, Axis((int)bsRng_Below(&rng, 3), s)),
			&counts) == 0);
		// Grazing: along an edge, in the triangle's plane.
		ENSURE(CheckRay(&bvh, &rb, tris, count, Through(at, bsScale(0.5, bsSub(t->p2, t->p1))),
			&counts) == 0);
		// Zero length, on the triangle and just off it.
		bsRayInput still = {at, at};
		ENSURE(CheckRay(&bvh, &rb, tris, count, still, &counts) == 0);
		bsVec3 off = bsMulAdd(at, 1e-9 * scale, t->n);
		bsRayInput stillOff = {off, off};
		ENSURE(CheckRay(&bvh, &rb, tris, count, stillOff, &counts) == 0);
	}
	// Beyond the float walk's range (a scan) and invalid inputs: the same answers and results.
	bsRayInput huge = {bsV3(-3e30, 0.5, 0.5), bsV3(3e30, 0.5, 0.5)};
	ENSURE(CheckRay(&bvh, &rb, tris, count, huge, &counts) == 0);
	bsRayInput overflow = {bsV3(-1e300, 0.0, 0.0), bsV3(1e300, 0.0, 0.0)};
	ENSURE(CheckRay(&bvh, &rb, tris, count, overflow, &counts) == 0);
	bsRayInput nan = {bsV3(NAN, 0.0, 0.0), bsV3(0.0, 0.0, 0.0)};
	ENSURE(CheckRay(&bvh, &rb, tris, count, nan, &counts) == 0);
	bsRayOutput out;
	ENSURE(bsRayBvh_Ray(NULL, &huge, &out, NULL) == bs_errInvalidArgument && out.hit == 0 &&
		out.t == 1.0 && out.triangle == BS_NO_TRIANGLE);
	ENSURE(bsRayBvh_Ray(&rb, NULL, &out, NULL) == bs_errInvalidArgument);
	ENSURE(bsRayBvh_Ray(&rb, &huge, NULL, NULL) == bs_errInvalidArgument);
	// The statistics count every call and the hits.
	bsQueryStats stats = {0, 0, 0, 0};
	bsRayInput down = {bsV3(0.5 * (lo.x + hi.x), hi.y + 1.0, 0.5 * (lo.z + hi.z)),
		bsV3(0.5 * (lo.x + hi.x), lo.y - 1.0, 0.5 * (lo.z + hi.z))};
	ENSURE(bsRayBvh_Ray(&rb, &down, &out, &stats) == bs_ok);
	ENSURE(stats.queries == 1 && stats.hits == out.hit && stats.nodesVisited + stats.trianglesTested >= (count > 0 ? 1u : 0u));
	printf("  %-12s %7u triangles, %6u nodes (depth %u, %.1f bytes a triangle): %llu rays, %llu hits, "
		"list contacts off their box missed: %llu (bsBvh_Ray %llu)\n", name, count, rb.nodeCount, rb.depth,
		count > 0 ? (double)bsRayBvh_Bytes(&rb) / count : 0.0, (unsigned long long)counts.rays,
		(unsigned long long)counts.hits, (unsigned long long)counts.offBox,
		(unsigned long long)counts.offBoxOld);
	bsRayBvh_Destroy(&rb);
	ENSURE(rb.nodes == NULL && rb.nodeCount == 0);
	bsRayBvh_Destroy(&rb);
	bsBvh_Destroy(&bvh);
	return 0;
}

// A flat n x n grid of unit squares in y = 0, two triangles each: axis rays through its vertices and
// edges hit shared features exactly.
static bsTriangle* MakeGrid(int n, uint32_t* outCount)
{
	bsTriangle* tris = malloc((size_t)(2 * n * n) * sizeof(bsTriangle));
	uint32_t k = 0;
	for (int i = 0; tris != NULL && i < n; ++i)
	{
		for (int j = 0; j < n; ++j)
		{
			bsVec3 a = bsV3(i, 0.0, j), b = bsV3(i + 1, 0.0, j), c = bsV3(i + 1, 0.0, j + 1),
				d = bsV3(i, 0.0, j + 1);
			k += bsMakeTriangle(a, c, b, tris + k) == bs_ok;
			k += bsMakeTriangle(a, d, c, tris + k) == bs_ok;
		}
	}
	*outCount = k;
	return tris;
}

// Axis rays at every vertex, edge midpoint and cell centre of the grid, and rays lying in its plane.
static int GridRays(void)
{
	uint32_t count = 0;
	int n = 12;
	bsTriangle* tris = MakeGrid(n, &count);
	ENSURE(tris != NULL && count == (uint32_t)(2 * n * n));
	bsBvh bvh;
	ENSURE(bsBvh_Build(&bvh, tris, count, NULL) == bs_ok);
	bsRayBvh rb;
	ENSURE(bsRayBvh_Build(&rb, &bvh) == bs_ok);
	RayCounts counts = {0, 0, 0, 0};
	for (int i = 0; i <= 2 * n; ++i)
	{
		for (int j = 0; j <= 2 * n; ++j)
		{
			bsVec3 p = bsV3(0.5 * i, 0.0, 0.5 * j);
			ENSURE(CheckRay(&bvh, &rb, tris, count, Through(p, bsV3(0.0, 0.25, 0.0)), &counts) == 0);
			bsRayInput down = {bsV3(p.x, 1.0, p.z), p};  // ends on the plane
			ENSURE(CheckRay(&bvh, &rb, tris, count, down, &counts) == 0);
			bsRayInput up = {p, bsV3(p.x, 1.0, p.z)};  // starts on it
			ENSURE(CheckRay(&bvh, &rb, tris, count, up, &counts) == 0);
			bsRayInput still = {p, p};
			ENSURE(CheckRay(&bvh, &rb, tris, count, still, &counts) == 0);
			ENSURE(CheckRay(&bvh, &rb, tris, count, Through(p, bsV3(0.3, 0.0, 0.0)), &counts) == 0);
			ENSURE(CheckRay(&bvh, &rb, tris, count, Through(p, bsV3(0.25, 0.0, 0.25)), &counts) == 0);
			ENSURE(CheckRay(&bvh, &rb, tris, count, Through(p, bsV3(0.5, 0.5, 0.5)), &counts) == 0);
		}
	}
	// In the plane across the whole grid, and parallel just above it (no hit).
	for (int i = 0; i <= n; ++i)
	{
		bsRayInput along = {bsV3(-1.0, 0.0, i), bsV3(n + 1.0, 0.0, i)};
		ENSURE(CheckRay(&bvh, &rb, tris, count, along, &counts) == 0);
		bsRayInput above = {bsV3(-1.0, 1e-12, i + 0.5), bsV3(n + 1.0, 1e-12, i + 0.5)};
		ENSURE(CheckRay(&bvh, &rb, tris, count, above, &counts) == 0);
	}
	ENSURE(counts.hits > counts.rays / 2 && counts.offBox == 0 && counts.offBoxOld == 0);
	printf("  %-12s %7u triangles, %6u nodes: %llu rays, %llu hits\n", "grid", count, rb.nodeCount,
		(unsigned long long)counts.rays, (unsigned long long)counts.hits);
	bsRayBvh_Destroy(&rb);
	bsBvh_Destroy(&bvh);
	free(tris);
	return 0;
}

// Triangles at distances growing by 3 (up to ~5e37) in a chain as deep as the depth limit allows.
static bsTriangle* MakeChain(uint32_t count, uint32_t* outCount)
{
	bsTriangle* tris = malloc((size_t)count * sizeof(bsTriangle));
	uint32_t n = 0;
	double s = 1.0;
	for (uint32_t i = 0; tris != NULL && i < count; ++i, s *= 3.0)
	{
		bsVec3 p = bsV3(s, 0.5 * s, 0.25 * s);
		n += bsMakeTriangle(p, bsAdd(p, bsV3(0.1 * s, 0.0, 0.0)), bsAdd(p, bsV3(0.0, 0.1 * s, 0.05 * s)),
			tris + n) == bs_ok;
	}
	*outCount = n;
	return tris;
}

// Two coincident triangles repeated (every hit a tie, the lowest index must win) in a soup.
static bsTriangle* MakeTies(uint32_t copies, uint32_t* outCount)
{
	bsTriangle* soup = NULL;
	uint32_t soupCount = 0;
	if (bsMakeTriangleSoup(5, 300, &soup, &soupCount) != bs_ok)
	{
		return NULL;
	}
	bsTriangle* tris = malloc((size_t)(copies + soupCount) * sizeof(bsTriangle));
	uint32_t n = 0;
	for (uint32_t i = 0; tris != NULL && i < copies; ++i)
	{
		n += bsMakeTriangle(bsV3(0.3, 0.4, 0.5), bsV3(0.6, 0.45, 0.5), bsV3(0.35, 0.7, 0.55),
			tris + n) == bs_ok;
	}
	for (uint32_t i = 0; tris != NULL && i < soupCount; ++i)
	{
		tris[n++] = soup[i];
	}
	free(soup);
	*outCount = n;
	return tris;
}

int RayBvhTest(void)
{
	bsTriangle* tris = NULL;
	uint32_t count = 0;
	ENSURE(bsMakeHeightfieldScene(3, 40, 12, &tris, &count) == bs_ok);
	ENSURE(CheckScene("heightfield", tris, count, NULL, 1000, 1) == 0);
	for (int leaf = 1; leaf <= 16; leaf *= 2)
	{
		bsBvhOptions options = bsDefaultBvhOptions();
		options.maxLeafSize = leaf;
		ENSURE(CheckScene(leaf == 1 ? "leaves 1" : leaf == 2 ? "leaves 2" : leaf == 4 ? "leaves 4" :
			leaf == 8 ? "leaves 8" : "leaves 16", tris, count, &options, 200, 10 + (uint64_t)leaf) == 0);
	}
	// The same scene far from the origin and tiny: the pad and the float origin at other scales.
	for (uint32_t i = 0; i < count; ++i)
	{
		bsTriangle* t = tris + i;
		bsVec3 o = bsV3(1e6, -2e6, 3e6);
		ENSURE(bsMakeTriangle(bsAdd(t->p1, o), bsAdd(t->p2, o), bsAdd(t->p3, o), t) == bs_ok);
	}
	ENSURE(CheckScene("offset 1e6", tris, count, NULL, 800, 2) == 0);
	free(tris);

	ENSURE(bsMakeTriangleSoup(9, 2000, &tris, &count) == bs_ok);
	ENSURE(CheckScene("soup", tris, count, NULL, 800, 3) == 0);
	for (uint32_t i = 0; i < count; ++i)
	{
		bsTriangle* t = tris + i;
		ENSURE(bsMakeTriangle(bsScale(1e-3, t->p1), bsScale(1e-3, t->p2), bsScale(1e-3, t->p3), t) ==
			bs_ok);
	}
	ENSURE(CheckScene("soup 1e-3", tris, count, NULL, 800, 4) == 0);
	free(tris);

	tris = MakeTies(40, &count);
	ENSURE(tris != NULL);
	ENSURE(CheckScene("ties", tris, count, NULL, 1000, 5) == 0);
	free(tris);

	tris = MakeChain(80, &count);
	ENSURE(tris != NULL);
	bsBvhOptions deep = {2, 1, 1.0, 1};
	ENSURE(CheckScene("deep chain", tris, count, &deep, 400, 6) == 0);
	ENSURE(CheckScene("one", tris, 1, NULL, 200, 7) == 0);
	ENSURE(CheckScene("none", tris, 0, NULL, 100, 8) == 0);
	free(tris);

	ENSURE(GridRays() == 0);

	bsRayBvh rb;
	ENSURE(bsRayBvh_Build(&rb, NULL) == bs_errInvalidArgument && rb.nodes == NULL);
	ENSURE(bsRayBvh_Build(NULL, NULL) == bs_errInvalidArgument);
	ENSURE(bsRayBvh_Bytes(NULL) == 0);
	bsRayBvh_Destroy(NULL);
	return 0;
}
