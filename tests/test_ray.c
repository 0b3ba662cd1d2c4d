// test_ray.c — the ray method is watertight: a segment that crosses a closed surface exactly through
// a shared edge or vertex hits exactly one of the triangles that share it, and a segment from inside
// a closed convex mesh to outside hits exactly one triangle, however near an edge or vertex it
// passes. Hits are counted triangle by triangle, as the list loop sees them. The crossings are built
// exact in floating point: dyadic vertices, and segments whose midpoint is the vertex or edge point.
#include "collide_internal.h"
#include "test.h"

#include "obj.h"
#include "procedural.h"

#include "blobsim/bvh.h"
#include "blobsim/collide.h"
#include "blobsim/rng.h"
#include "core.h"

#include <stdlib.h>
#include <string.h>

typedef struct RayCounts
{
	long segments;
	long leaks;    // no triangle hit
	long doubles;  // more than one hit
} RayCounts;

// How many triangles report a hit for the segment c1 -> c2 (-1 when the sweep is rejected), with
// their open edges as the BVH tests them (open NULL: none, as the list loop of bsSweepList).
static int CountHitsOpen(const bsTriangle* tris, const uint8_t* open, uint32_t count, bsVec3 c1,
	bsVec3 c2)
{
	bsSweepInput in = {c1, c2, 0.0};
	bsSweep s;
	if (bsMakeSweep(&in, &s) != bs_ok)
	{
		return -1;
	}
	int hits = 0;
	for (uint32_t i = 0; i < count; ++i)
	{
		bsTriangleHit h;
		// The box test changes no answer; it only skips triangles far from the segment.
		if (bsSweep_BoxOverlaps(&s, tris + i) &&
			bsRayTriangleOpen(tris + i, &s, 2.0, open != NULL ? open[i] : 0u, &h))
		{
			++hits;
		}
	}
	return hits;
}

static int CountHits(const bsTriangle* tris, uint32_t count, bsVec3 c1, bsVec3 c2)
{
	return CountHitsOpen(tris, NULL, count, c1, c2);
}

static void Tally(RayCounts* c, int hits)
{
	c->segments += 1;
	c->leaks += hits == 0;
	c->doubles += hits > 1;
}

// Signed distance of q from the closed convex mesh's surface, positive outside (the largest
// outward plane distance; the mesh surrounds the origin).
static double ConvexSide(const bsTriangle* tris, uint32_t count, bsVec3 q)
{
	double side = -HUGE_VAL;
	for (uint32_t i = 0; i < count; ++i)
	{
		double outward = bsTriangle_PlaneDistance(tris + i, bsV3(0.0, 0.0, 0.0)) > 0.0 ? -1.0 : 1.0;
		side = fmax(side, outward * bsTriangle_PlaneDistance(tris + i, q));
	}
	return side;
}

// A random dyadic number k / 2^bits with |k| <= limit.
static double Dyadic(bsRng* rng, int limit, int bits)
{
	int k = (int)bsRng_Below(rng, (uint32_t)(2 * limit + 1)) - limit;
	return ldexp((double)k, -bits);
}

// Is a + b exact in every coordinate (Knuth's two-sum error is zero)? Then (a + b) / 2 is the exact
// midpoint of the edge a b.
static bool ExactSum(bsVec3 a, bsVec3 b)
{
	double p[3] = {a.x, a.y, a.z};
	double q[3] = {b.x, b.y, b.z};
	for (int i = 0; i < 3; ++i)
	{
		double s = p[i] + q[i];
		double bb = s - p[i];
		if ((p[i] - (s - bb)) + (q[i] - bb) != 0.0)
		{
			return false;
		}
	}
	return true;
}

// Segments X - w -> X + w through the exact point X of a convex mesh around the origin: w is X
// scaled by a power of two (radial, exact) plus a small dyadic tilt, so X is the exact midpoint of
// the segment. Only segments whose ends are 1e-3 inside and outside the mesh are counted: each
// crosses the surface once, exactly at X.
static int ThroughPoint(const bsTriangle* tris, uint32_t count, bsVec3 x, bsRng* rng, int tries,
	RayCounts* counts)
{
	for (int k = 0; k < tries; ++k)
	{
		bsVec3 w = bsScale(ldexp(1.0, -(int)bsRng_Below(rng, 3) - 1), x);  // x/2, x/4 or x/8
		if (k > 0)
		{
			w = bsAdd(w, bsV3(Dyadic(rng, 16, 6), Dyadic(rng, 16, 6), Dyadic(rng, 16, 6)));
		}
		bsVec3 c1 = bsSub(x, w);
		bsVec3 c2 = bsAdd(x, w);
		ENSURE(ExactSum(c1, c2) && bsAdd(c1, c2).x == 2.0 * x.x && bsAdd(c1, c2).y == 2.0 * x.y &&
			bsAdd(c1, c2).z == 2.0 * x.z);
		if (!(ConvexSide(tris, count, c1) < -1e-3 && ConvexSide(tris, count, c2) > 1e-3))
		{
			continue;
		}
		int hits = CountHits(tris, count, c1, c2);
		ENSURE(hits >= 0);
		Tally(counts, hits);
	}
	return 0;
}

// Every vertex of the mesh is on or inside every triangle's plane: the mesh is convex.
static int EnsureConvex(const bsTriangle* tris, uint32_t count)
{
	for (uint32_t i = 0; i < count; ++i)
	{
		const bsVec3* v = &tris[i].p1;
		for (int k = 0; k < 3; ++k)
		{
			ENSURE(ConvexSide(tris, count, v[k]) <= 1e-12);
		}
	}
	return 0;
}

// Segments through every vertex and every edge midpoint of the mesh (each once per triangle that
// has it).
static int ExactCrossings(const char* name, const bsTriangle* tris, uint32_t count, uint64_t seed,
	RayCounts* vertices, RayCounts* edges)
{
	RUN_SUBTEST(EnsureConvex(tris, count));
	bsRng rng = bsMakeRng(seed);
	for (uint32_t i = 0; i < count; ++i)
	{
		const bsVec3* v = &tris[i].p1;
		for (int k = 0; k < 3; ++k)
		{
			RUN_SUBTEST(ThroughPoint(tris, count, v[k], &rng, 4, vertices));
			bsVec3 a = v[k], b = v[k == 2 ? 0 : k + 1];
			ENSURE(ExactSum(a, b));
			RUN_SUBTEST(ThroughPoint(tris, count, bsScale(0.5, bsAdd(a, b)), &rng, 4, edges));
		}
	}
	(void)name;
	return 0;
}

// A fan of k triangles around the dyadic vertex v: a ring at random angles and radii 1/2..1, heights
// within 1/16 (so the fan is a graph over the xy-plane with slope below 1/2), each triangle with a
// random winding and a random first vertex. A segment through v or through a spoke's midpoint whose
// direction (a, b, +-1) has |a|, |b| <= 1/2 crosses the fan exactly once.
static int FanCrossings(bsRng* rng, RayCounts* vertices, RayCounts* edges)
{
	const double twoPi = 2.0 * BS_PI;
	for (int fan = 0; fan < 2000; ++fan)
	{
		int k = 3 + (int)bsRng_Below(rng, 10);
		double weight[16];
		double total = 0.0;
		for (int i = 0; i < k; ++i)
		{
			weight[i] = bsRng_Range(rng, 0.5, 1.5);
			total += weight[i];
		}
		// Gaps below pi keep every triangle proper and the ring around v.
		bool ok = true;
		for (int i = 0; i < k; ++i)
		{
			ok = ok && weight[i] * twoPi / total < 3.0;
		}
		if (!ok)
		{
			continue;
		}
		bsVec3 v = bsV3(Dyadic(rng, 64, 4), Dyadic(rng, 64, 4), Dyadic(rng, 64, 4));
		bsVec3 ring[16];
		// Sometimes the first spoke along +x exactly: a horizontal edge in the segment's frame.
		bool level = bsRng_Below(rng, 4) == 0;
		double angle = level ? 0.0 : bsRng_Range(rng, 0.0, twoPi);
		for (int i = 0; i < k; ++i)
		{
			double r = bsRng_Range(rng, 0.5, 1.0);
			double dx = ldexp(nearbyint(ldexp(r * cos(angle), 10)), -10);
			double dy = level && i == 0 ? 0.0 : ldexp(nearbyint(ldexp(r * sin(angle), 10)), -10);
			ring[i] = bsAdd(v, bsV3(dx, dy, Dyadic(rng, 64, 10)));
			angle += weight[i] * twoPi / total;
		}
		bsTriangle tris[16];
		uint32_t count = 0;
		for (int i = 0; i < k; ++i)
		{
			bsVec3 p[3] = {v, ring[i], ring[(i + 1) % k]};
			if (bsRng_Below(rng, 2) == 0)
			{
				bsVec3 t = p[1];
				p[1] = p[2];
				p[2] = t;
			}
			int r = (int)bsRng_Below(rng, 3);
			if (bsMakeTriangle(p[r], p[(r + 1) % 3], p[(r + 2) % 3], tris + count) != bs_ok)
			{
				ok = false;
				break;
			}
			++count;
		}
		if (!ok)
		{
			continue;
		}
		for (int i = 0; i <= k; ++i)
		{
			// i == k: the centre vertex; else the midpoint of spoke i.
			bsVec3 x = v;
			if (i < k)
			{
				ENSURE(ExactSum(v, ring[i]));
				x = bsScale(0.5, bsAdd(v, ring[i]));
			}
			for (int d = 0; d < 3; ++d)
			{
				double a = d == 0 ? 0.0 : Dyadic(rng, 32, 6);
				double b = d == 0 ? 0.0 : Dyadic(rng, 32, 6);
				double z = bsRng_Below(rng, 2) == 0 ? 1.0 : -1.0;
				bsVec3 w = bsV3(a, b, z);
				int hits = CountHits(tris, count, bsSub(x, w), bsAdd(x, w));
				ENSURE(hits >= 0);
				Tally(i == k ? vertices : edges, hits);
			}
		}
	}
	return 0;
}

// Random segments from inside convex closed meshes to outside, aimed at a vertex, at a point of an
// edge (rounded, so within an ulp or two of it) or inside a face: exactly one triangle hits.
static int RandomCrossings(const bsTriangle* tris, uint32_t count, long segments, uint64_t seed,
	RayCounts* counts)
{
	bsRng rng = bsMakeRng(seed);
	for (long n = 0; n < segments; ++n)
	{
		// Inside: a ball of radius 0.4 around the origin lies inside every mesh used.
		bsVec3 c1 = bsScale(0.4 * cbrt(bsRng_Uniform(&rng)), bsRng_UnitVector(&rng));
		const bsTriangle* t = tris + bsRng_Below(&rng, count);
		const bsVec3* v = &t->p1;
		int k = (int)bsRng_Below(&rng, 3);
		bsVec3 x;
		switch (bsRng_Below(&rng, 3))
		{
			case 0:
				x = v[k];
				break;
			case 1:
				x = bsLerp(v[k], v[k == 2 ? 0 : k + 1], bsRng_Uniform(&rng));
				break;
			default:
			{
				double a = bsRng_Uniform(&rng), b = bsRng_Uniform(&rng);
				if (a + b > 1.0)
				{
					a = 1.0 - a;
					b = 1.0 - b;
				}
				x = bsAdd(v[0], bsAdd(bsScale(a, bsSub(v[1], v[0])), bsScale(b, bsSub(v[2], v[0]))));
				break;
			}
		}
		// Beyond x by at least 1e-3 of the way: outside the convex mesh.
		bsVec3 c2 = bsMulAdd(c1, bsRng_Range(&rng, 1.001, 2.0), bsSub(x, c1));
		int hits = CountHits(tris, count, c1, c2);
		ENSURE(hits >= 0);
		Tally(counts, hits);
	}
	return 0;
}

typedef struct ClosedMesh
{
	const char* name;
	bsTriangle* tris;
	uint32_t count;
} ClosedMesh;

static void FreeMeshes(ClosedMesh* m, int n)
{
	for (int i = 0; i < n; ++i)
	{
		free(m[i].tris);
		m[i].tris = NULL;
	}
}

// The repro of ../shared/repros/ray-crease: a point 1e-4 above the crease of a 90-degree trough
// falls through it in one step. The segment passes exactly through the crease line.
static int CreaseRepro(void)
{
	const double c = 0.70710678118654746, s = 0.70710678118654757;
	bsVec3 v[6] = {{0, 0, -1}, {0, 0, 1}, {c, s, 1}, {c, s, -1}, {-c, s, -1}, {-c, s, 1}};
	int f[4][3] = {{0, 1, 2}, {0, 2, 3}, {0, 4, 5}, {0, 5, 1}};
	bsTriangle tris[4];
	for (int i = 0; i < 4; ++i)
	{
		ENSURE(bsMakeTriangle(v[f[i][0]], v[f[i][1]], v[f[i][2]], tris + i) == bs_ok);
	}
	ENSURE(CountHits(tris, 4, bsV3(0.0, 1e-4, 0.0), bsV3(0.0, -0.000881, 0.0)) == 1);
	bsSweepInput in = {bsV3(0.0, 1e-4, 0.0), bsV3(0.0, -0.000881, 0.0), 0.02};
	bsSweepOutput out;
	ENSURE(bsSweepList(bs_methodRay, tris, 4, &in, &out) == bs_ok);
	ENSURE(out.hit == 1);
	ENSURE_SMALL(out.center.y, 1e-15);
	return 0;
}

static void PrintCounts(const char* what, const RayCounts* c)
{
	printf("  ray %-28s %9ld segments, %ld leaks (no hit), %ld double hits\n", what, c->segments,
		c->leaks, c->doubles);
}

static int EnsureTight(const RayCounts* c)
{
	ENSURE(c->segments > 0);
	ENSURE(c->leaks == 0);
	ENSURE(c->doubles == 0);
	return 0;
}

// --- Open meshes: a crossing exactly on a border edge or vertex is hit ---

// A dyadic multiple of 2^-bits nearest x.
static double DyadicNear(double x, int bits)
{
	return ldexp(nearbyint(ldexp(x, bits)), -bits);
}

typedef struct OpenCounts
{
	RayCounts with;     // open edges taking their ties
	RayCounts without;  // the shared rule alone (the list loop, the ray test before open edges)
	long skipped;       // segments whose ends are not exact
	long bvhMisses;     // segments bsBvh_Ray reports no hit for
} OpenCounts;

// Segments X - w -> X + w through the point X of the mesh, w along the triangle's normal n tilted by a
// small dyadic vector (both rounded to dyadics), kept when X - w and X + w are exact (X their exact
// midpoint); the independent reference is the construction: every segment passes through X, so
// every one must hit.
static void ThroughOpenPoint(const bsTriangle* tris, const uint8_t* open, uint32_t count,
	const bsBvh* bvh, bsVec3 x, bsVec3 n, bsRng* rng, OpenCounts* c)
{
	for (int k = 0; k < 4; ++k)
	{
		double scale = ldexp(1.0, -2 - (int)bsRng_Below(rng, 3));
		bsVec3 w = bsScale(scale, n);
		if (k > 0)
		{
			w = bsAdd(w, bsScale(scale, bsV3(Dyadic(rng, 16, 6), Dyadic(rng, 16, 6), Dyadic(rng, 16, 6))));
		}
		w = bsV3(DyadicNear(w.x, 12), DyadicNear(w.y, 12), DyadicNear(w.z, 12));
		bsVec3 c1 = bsSub(x, w), c2 = bsAdd(x, w);
		bsVec3 back1 = bsAdd(c1, w), back2 = bsSub(c2, w);
		if (!ExactSum(x, bsNeg(w)) || !ExactSum(x, w) || back1.x != x.x || back1.y != x.y ||
			back1.z != x.z || back2.x != x.x || back2.y != x.y || back2.z != x.z)
		{
			c->skipped += 1;
			continue;
		}
		Tally(&c->with, CountHitsOpen(tris, open, count, c1, c2));
		Tally(&c->without, CountHitsOpen(tris, NULL, count, c1, c2));
		bsRayInput ray = {c1, c2};
		bsRayOutput out;
		c->bvhMisses += bsBvh_Ray(bvh, &ray, &out) != bs_ok || !out.hit;
	}
}

// Segments through every open edge's midpoint (when exact) and both its ends.
static int OpenCrossings(const char* name, const bsTriangle* tris, uint32_t count, uint32_t openEdges,
	uint64_t seed, OpenCounts* total)
{
	uint8_t* open = malloc(count);
	bsBvh bvh;
	ENSURE(open != NULL && bsFindOpenEdges(tris, count, open) == bs_ok);
	ENSURE(bsBvh_Build(&bvh, tris, count, NULL) == bs_ok);
	uint32_t found = 0;
	OpenCounts c = {{0, 0, 0}, {0, 0, 0}, 0, 0};
	bsRng rng = bsMakeRng(seed);
	for (uint32_t i = 0; i < count; ++i)
	{
		const bsVec3* v = &tris[i].p1;
		for (int k = 0; k < 3; ++k)
		{
			if (!((open[i] >> k) & 1u))
			{
				continue;
			}
			++found;
			bsVec3 a = v[k], b = v[k == 2 ? 0 : k + 1];
			ThroughOpenPoint(tris, open, count, &bvh, a, tris[i].n, &rng, &c);
			ThroughOpenPoint(tris, open, count, &bvh, b, tris[i].n, &rng, &c);
			if (ExactSum(a, b))
			{
				ThroughOpenPoint(tris, open, count, &bvh, bsScale(0.5, bsAdd(a, b)), tris[i].n, &rng, &c);
			}
		}
	}
	bsBvh_Destroy(&bvh);
	free(open);
	printf("  ray open %-14s %5u triangles, %4u open edges: %6ld segments (%ld not exact, skipped), "
		"%ld leaks (%ld by the shared rule alone), %ld double hits, bsBvh_Ray %ld misses\n", name, count,
		found, c.with.segments, c.skipped, c.with.leaks, c.without.leaks, c.with.doubles, c.bvhMisses);
	ENSURE(openEdges == UINT32_MAX || found == openEdges);
	ENSURE(c.with.segments > 0 && c.with.leaks == 0 && c.bvhMisses == 0);
	total->with.segments += c.with.segments;
	total->without.leaks += c.without.leaks;
	return 0;
}

// Open meshes: a triangle, a square of two, a box without its top, and the Utah teapot (open spout,
// unwelded patches) when ../shared/models is there (BLOBSIM_MODELS names the folder).
static int OpenMeshes(void)
{
	bsTriangle tris[2];
	OpenCounts total = {{0, 0, 0}, {0, 0, 0}, 0, 0};
	ENSURE(bsMakeTriangle(bsV3(0.25, 0.5, 0.125), bsV3(1.5, 0.25, 0.375), bsV3(0.5, 1.25, 0.75), tris) ==
		bs_ok);
	RUN_SUBTEST(OpenCrossings("triangle", tris, 1, 3, 301, &total));
	ENSURE(bsMakeTriangle(bsV3(0, 0, 0), bsV3(1, 0, 0), bsV3(1, 1, 0), tris) == bs_ok);
	ENSURE(bsMakeTriangle(bsV3(0, 0, 0), bsV3(1, 1, 0), bsV3(0, 1, 0), tris + 1) == bs_ok);
	RUN_SUBTEST(OpenCrossings("square", tris, 2, 4, 302, &total));

	bsTriangle* box = NULL;
	uint32_t boxCount = 0;
	ENSURE(bsMakeBoxMesh(bsV3(-1, -1, -0.75), bsV3(1.5, 1, 1), 4, false, &box, &boxCount) == bs_ok);
	uint8_t* open = malloc(boxCount);
	int closed = open != NULL && bsFindOpenEdges(box, boxCount, open) == bs_ok;
	for (uint32_t i = 0; closed && i < boxCount; ++i)
	{
		closed = open[i] == 0;
	}
	free(open);
	uint32_t kept = 0;
	for (uint32_t i = 0; i < boxCount; ++i)  // the top face's 32 triangles dropped
	{
		if (!(box[i].p1.z == 1.0 && box[i].p2.z == 1.0 && box[i].p3.z == 1.0))
		{
			box[kept++] = box[i];
		}
	}
	int failed = !closed || kept != boxCount - 32 || OpenCrossings("open box", box, kept, 16, 303, &total);
	free(box);
	ENSURE(failed == 0);

	const char* models = getenv("BLOBSIM_MODELS");
	char path[4096];
	bsObjMesh mesh;
	if (models == NULL || snprintf(path, sizeof path, "%s/teapot.obj", models) >= (int)sizeof path ||
		bsObj_Load(path, &mesh, NULL) != bs_ok)
	{
		printf("  ray open teapot: skipped (no %s/teapot.obj)\n", models != NULL ? models : "$BLOBSIM_MODELS");
	}
	else
	{
		bsTriangle* teapot = malloc((size_t)mesh.triangleCount * sizeof(bsTriangle));
		uint32_t n = 0;
		for (uint32_t i = 0; teapot != NULL && i < mesh.triangleCount; ++i)
		{
			const uint32_t* t = mesh.triangles[i];
			n += bsMakeTriangle(mesh.vertices[t[0]], mesh.vertices[t[1]], mesh.vertices[t[2]], teapot + n) ==
				bs_ok;
		}
		bsObj_Free(&mesh);
		failed = teapot == NULL || OpenCrossings("teapot", teapot, n, UINT32_MAX, 304, &total);
		free(teapot);
		ENSURE(failed == 0);
	}
	// The test can fail: the shared rule alone loses some of these crossings.
	ENSURE(total.without.leaks > 0);
	return 0;
}

static bool SamePoint(bsVec3 a, bsVec3 b)
{
	return a.x == b.x && a.y == b.y && a.z == b.z;
}

// The edges of no other triangle, by brute force: every edge against every other.
static uint8_t BruteOpen(const bsTriangle* tris, uint32_t count, uint32_t i)
{
	uint8_t open = 0;
	for (int k = 0; k < 3; ++k)
	{
		const bsVec3* v = &tris[i].p1;
		bsVec3 a = v[k], b = v[(k + 1) % 3];
		bool shared = false;
		for (uint32_t j = 0; j < count && !shared; ++j)
		{
			const bsVec3* w = &tris[j].p1;
			for (int m = 0; m < 3 && j != i; ++m)
			{
				bsVec3 c = w[m], d = w[(m + 1) % 3];
				shared |= (SamePoint(a, c) && SamePoint(b, d)) || (SamePoint(a, d) && SamePoint(b, c));
			}
		}
		open |= (uint8_t)(shared ? 0u : 1u << k);
	}
	return open;
}

// bsFindOpenEdges against brute force: closed and open boxes, a soup (every edge open, the table
// grows), and a fin of three triangles on one edge (paired in order: the third is open there).
static int OpenEdgesTest(void)
{
	bsTriangle* tris[3] = {NULL, NULL, NULL};
	uint32_t count[3] = {0, 0, 0};
	ENSURE(bsMakeBoxMesh(bsV3(-1, -1, -1), bsV3(1, 1, 1), 8, false, &tris[0], &count[0]) == bs_ok);
	ENSURE(bsMakeBoxMesh(bsV3(-1, -1, -1), bsV3(1, 1, 1), 4, true, &tris[1], &count[1]) == bs_ok);
	ENSURE(bsMakeTriangleSoup(11, 3000, &tris[2], &count[2]) == bs_ok);
	count[1] -= 20;  // a box with a hole: some of its triangles dropped
	int failed = 0;
	long open = 0;
	for (int m = 0; m < 3; ++m)
	{
		uint8_t* mask = malloc(count[m]);
		failed |= mask == NULL || bsFindOpenEdges(tris[m], count[m], mask) != bs_ok;
		for (uint32_t i = 0; failed == 0 && i < count[m]; ++i)
		{
			failed |= mask[i] != BruteOpen(tris[m], count[m], i);
			open += __builtin_popcount(mask[i]);
		}
		failed |= m == 0 && open != 0;
		free(mask);
		free(tris[m]);
	}
	ENSURE(failed == 0 && open > 9000);
	bsTriangle fin[3];
	uint8_t mask[3];
	ENSURE(bsMakeTriangle(bsV3(0, 0, 0), bsV3(1, 0, 0), bsV3(0, 1, 0), fin) == bs_ok);
	ENSURE(bsMakeTriangle(bsV3(1, 0, 0), bsV3(0, 0, 0), bsV3(0, -1, 0), fin + 1) == bs_ok);
	ENSURE(bsMakeTriangle(bsV3(0, 0, 0), bsV3(1, 0, 0), bsV3(0, 0, 1), fin + 2) == bs_ok);
	ENSURE(bsFindOpenEdges(fin, 3, mask) == bs_ok);
	ENSURE(mask[0] == 6 && mask[1] == 6 && mask[2] == 7);
	ENSURE(bsFindOpenEdges(NULL, 1, mask) == bs_errInvalidArgument && bsFindOpenEdges(NULL, 0, NULL) == bs_ok);
	return 0;
}

int RayTest(void)
{
	RUN_SUBTEST(CreaseRepro());
	RUN_SUBTEST(OpenEdgesTest());
	RUN_SUBTEST(OpenMeshes());

	// Convex closed meshes with dyadic vertices, in both windings.
	enum
	{
		meshCount = 8
	};
	ClosedMesh m[meshCount];
	memset(m, 0, sizeof m);
	bsVec3 unitLo = bsV3(-1.0, -1.0, -1.0), unitHi = bsV3(1.0, 1.0, 1.0);
	bsVec3 gridLo = bsV3(-1.0, -1.0, -0.75), gridHi = bsV3(1.5, 1.0, 1.0);
	bool ok = true;
	for (int w = 0; w < 2; ++w)
	{
		bool inward = w == 1;
		ClosedMesh* g = m + 4 * w;
		g[0].name = "box";
		ok = ok && bsMakeBoxMesh(unitLo, unitHi, 1, inward, &g[0].tris, &g[0].count) == bs_ok;
		g[1].name = "grid box";
		ok = ok && bsMakeBoxMesh(gridLo, gridHi, 8, inward, &g[1].tris, &g[1].count) == bs_ok;
		g[2].name = "icosphere 2";
		ok = ok && bsMakeIcosphere(2, 1.0, ldexp(1.0, -12), inward, &g[2].tris, &g[2].count) == bs_ok;
		g[3].name = "icosphere 3";
		ok = ok && bsMakeIcosphere(3, 1.0, ldexp(1.0, -14), inward, &g[3].tris, &g[3].count) == bs_ok;
	}
	if (!ok)
	{
		FreeMeshes(m, meshCount);
		ENSURE(ok);
	}
	RayCounts vertices = {0, 0, 0}, edges = {0, 0, 0};
	int failed = 0;
	for (int i = 0; i < meshCount && failed == 0; ++i)
	{
		failed = ExactCrossings(m[i].name, m[i].tris, m[i].count, 100 + (uint64_t)i, &vertices, &edges);
	}
	FreeMeshes(m, meshCount);
	ENSURE(failed == 0);

	RayCounts fanVertices = {0, 0, 0}, fanEdges = {0, 0, 0};
	bsRng rng = bsMakeRng(7);
	RUN_SUBTEST(FanCrossings(&rng, &fanVertices, &fanEdges));

	// Random segments: non-dyadic icospheres and the boxes, 1,000,000 in all.
	ClosedMesh r[4];
	memset(r, 0, sizeof r);
	ok = bsMakeIcosphere(1, 1.0, 0.0, false, &r[0].tris, &r[0].count) == bs_ok &&
		bsMakeIcosphere(3, 1.0, 0.0, true, &r[1].tris, &r[1].count) == bs_ok &&
		bsMakeBoxMesh(unitLo, unitHi, 1, true, &r[2].tris, &r[2].count) == bs_ok &&
		bsMakeBoxMesh(gridLo, gridHi, 8, false, &r[3].tris, &r[3].count) == bs_ok;
	RayCounts random = {0, 0, 0};
	for (int i = 0; i < 4 && ok && failed == 0; ++i)
	{
		failed = RandomCrossings(r[i].tris, r[i].count, 250000, 200 + (uint64_t)i, &random);
	}
	FreeMeshes(r, 4);
	ENSURE(ok && failed == 0);

	PrintCounts("mesh vertices (exact)", &vertices);
	PrintCounts("mesh edge midpoints (exact)", &edges);
	PrintCounts("fan vertices (exact)", &fanVertices);
	PrintCounts("fan spoke midpoints (exact)", &fanEdges);
	PrintCounts("random inside -> outside", &random);
	RUN_SUBTEST(EnsureTight(&vertices));
	RUN_SUBTEST(EnsureTight(&edges));
	RUN_SUBTEST(EnsureTight(&fanVertices));
	RUN_SUBTEST(EnsureTight(&fanEdges));
	RUN_SUBTEST(EnsureTight(&random));
	return 0;
}
