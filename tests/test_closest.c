// test_closest.c — the closest point of a mesh to a point: the BVH's walk against the brute force
// (bsClosestPointList) byte for byte, and the brute force against the independent reference
// (reference.h, which never calls bsTriangle_ClosestPoint): distances, points, ties to the lowest
// index, maxDistance cut-offs, normals, empty and invalid queries.
#include "test.h"

#include "procedural.h"
#include "reference.h"

#include "blobsim/bvh.h"
#include "blobsim/collide.h"
#include "blobsim/rng.h"

#include <stdlib.h>
#include <string.h>

typedef struct Bounds
{
	bsVec3 lo, hi;
	double size;  // the longest side
} Bounds;

static Bounds MeshBounds(const bsTriangle* tris, uint32_t count)
{
	Bounds b = {tris[0].p1, tris[0].p1, 0.0};
	for (uint32_t i = 0; i < count; ++i)
	{
		b.lo = bsMin(b.lo, bsTriangle_Min(tris + i));
		b.hi = bsMax(b.hi, bsTriangle_Max(tris + i));
	}
	bsVec3 d = bsSub(b.hi, b.lo);
	b.size = fmax(d.x, fmax(d.y, d.z));
	return b;
}

// A query point of a random kind: anywhere around the mesh, on its surface, just off a vertex, or
// far away.
static bsVec3 QueryPoint(const bsTriangle* tris, uint32_t count, Bounds b, bsRng* rng)
{
	const bsTriangle* t = tris + bsRng_Below(rng, count);
	switch (bsRng_Below(rng, 8))
	{
		case 0:
		case 1:
			return bsRandomPointOn(t, rng);
		case 2:
			return bsMulAdd(t->p1, b.size * 1e-6 * bsRng_Uniform(rng), bsRng_UnitVector(rng));
		case 3:
			return bsMulAdd(bsRandomPointOn(t, rng), b.size * 0.01 * bsRng_Uniform(rng), t->n);
		case 4:
			return bsMulAdd(b.lo, b.size * pow(10.0, bsRng_Range(rng, 1.0, 6.0)), bsRng_UnitVector(rng));
		default:
		{
			double m = 0.2 * b.size;
			return bsV3(bsRng_Range(rng, b.lo.x - m, b.hi.x + m), bsRng_Range(rng, b.lo.y - m, b.hi.y + m),
				bsRng_Range(rng, b.lo.z - m, b.hi.z + m));
		}
	}
}

// The reference's distance from q to the whole mesh.
static double RefMeshDistance(const bsTriangle* tris, uint32_t count, bsVec3 q)
{
	double best = HUGE_VAL;
	for (uint32_t i = 0; i < count; ++i)
	{
		best = fmin(best, refPointTriangleDistance(tris[i].p1, tris[i].p2, tris[i].p3, q));
	}
	return best;
}

// What every answer must satisfy, against the reference.
static int CheckAnswer(const bsTriangle* tris, uint32_t count, const bsClosestPointInput* in,
	const bsClosestPointOutput* out, double scale)
{
	bsVec3 q = in->point;
	if (!out->hit)
	{
		ENSURE(out->triangle == BS_NO_TRIANGLE && out->distance == HUGE_VAL);
		return 0;
	}
	ENSURE(out->triangle < count);
	const bsTriangle* t = tris + out->triangle;
	double tol = 1e-12 * (scale + bsMaxAbs(q));
	ENSURE(out->distance <= in->maxDistance);
	ENSURE(out->distance == sqrt(bsDistanceSquared(q, out->point)));
	// On the reported triangle, and its point nearest q.
	ENSURE(refPointTriangleDistance(t->p1, t->p2, t->p3, out->point) <= tol);
	ENSURE(bsDistance(out->point, refClosestPoint(t->p1, t->p2, t->p3, q)) <= 1e-9 * (scale + bsMaxAbs(q)));
	ENSURE(fabs(out->distance - refPointTriangleDistance(t->p1, t->p2, t->p3, q)) <= tol);
	// The normal: unit, from the surface towards q; the face normal on a face.
	ENSURE_SMALL(bsLength(out->normal) - 1.0, 1e-12);
	if (out->onSurface)
	{
		ENSURE(out->normal.x == t->n.x && out->normal.y == t->n.y && out->normal.z == t->n.z);
		ENSURE(out->distance <= tol);
	}
	else
	{
		ENSURE(bsDot(out->normal, bsSub(q, out->point)) >= out->distance * (1.0 - 1e-9) - tol);
		if (out->feature == bs_featureFace)
		{
			bsVec3 n = bsDot(out->normal, t->n) > 0.0 ? t->n : bsNeg(t->n);
			ENSURE(out->normal.x == n.x && out->normal.y == n.y && out->normal.z == n.z);
		}
	}
	return 0;
}

// One query through the BVH and the list: identical bytes, and a sound answer.
static int CompareOne(const bsBvh* bvh, const bsTriangle* tris, uint32_t count,
	const bsClosestPointInput* in, double scale, bsQueryStats* stats, bsClosestPointOutput* outList)
{
	bsClosestPointOutput a, b;
	memset(&a, 0xab, sizeof a);
	memset(&b, 0xcd, sizeof b);
	ENSURE(bsClosestPointList(tris, count, in, &a) == bs_ok);
	ENSURE(bsBvh_ClosestPoint(bvh, in, &b, stats) == bs_ok);
	if (memcmp(&a, &b, sizeof a) != 0)
	{
		fprintf(stderr, "closest point differs at q = (%.17g, %.17g, %.17g), max %.17g:\n"
			"  list: hit %d tri %u d %.17g\n  bvh:  hit %d tri %u d %.17g\n", in->point.x, in->point.y,
			in->point.z, in->maxDistance, a.hit, a.triangle, a.distance, b.hit, b.triangle, b.distance);
		return 1;
	}
	RUN_SUBTEST(CheckAnswer(tris, count, in, &a, scale));
	*outList = a;
	return 0;
}

// n random queries over one mesh and tree; every 64th also against the reference's distance to
// the whole mesh. Cut-offs: none, random, zero, exactly the distance (kept: closed) and just below
// it (nothing left).
static int CompareMesh(const char* name, const bsTriangle* tris, uint32_t count,
	const bsBvhOptions* options, long n, uint64_t seed)
{
	bsBvh bvh;
	ENSURE(bsBvh_Build(&bvh, tris, count, options) == bs_ok);
	Bounds b = MeshBounds(tris, count);
	bsRng rng = bsMakeRng(seed);
	bsQueryStats stats = {0, 0, 0, 0};
	int failed = 0;
	long referenced = 0;
	for (long i = 0; i < n && failed == 0; ++i)
	{
		bsClosestPointInput in = {QueryPoint(tris, count, b, &rng), HUGE_VAL};
		uint32_t kind = bsRng_Below(&rng, 10);
		if (kind == 0)
		{
			in.maxDistance = 0.0;
		}
		else if (kind <= 3)
		{
			in.maxDistance = b.size * 0.1 * bsRng_Uniform(&rng);
		}
		bsClosestPointOutput out;
		failed = CompareOne(&bvh, tris, count, &in, b.size, &stats, &out);
		if (failed == 0 && out.hit && kind == 9)
		{
			// Cut-off exactly at the distance keeps the triangle; just below it, nothing is left.
			bsClosestPointOutput at, below;
			bsClosestPointInput cut = {in.point, out.distance};
			failed = CompareOne(&bvh, tris, count, &cut, b.size, &stats, &at);
			failed = failed || !(at.hit && at.triangle == out.triangle && at.distance == out.distance);
			cut.maxDistance = nextafter(out.distance, 0.0);
			failed = failed || (out.distance > 0.0 &&
				(CompareOne(&bvh, tris, count, &cut, b.size, &stats, &below) != 0 || below.hit));
			if (failed)
			{
				fprintf(stderr, "cut-off at the distance %.17g wrong\n", out.distance);
			}
		}
		if (failed == 0 && (i & 63) == 0)
		{
			double ref = RefMeshDistance(tris, count, in.point);
			double tol = 1e-12 * (b.size + bsMaxAbs(in.point));
			++referenced;
			if (out.hit ? !(fabs(out.distance - ref) <= tol) : !(ref > in.maxDistance - tol))
			{
				fprintf(stderr, "distance %.17g (hit %d), reference %.17g\n", out.distance, out.hit, ref);
				failed = 1;
			}
		}
	}
	printf("  closest %-22s %6u triangles, %7ld queries (%ld against the reference): %.1f nodes, "
		"%.1f triangles per query\n", name, count, (long)stats.queries, referenced,
		(double)stats.nodesVisited / (double)stats.queries,
		(double)stats.trianglesTested / (double)stats.queries);
	bsBvh_Destroy(&bvh);
	ENSURE(failed == 0);
	return 0;
}

// Empty meshes, invalid inputs, NULLs: a miss with every field defined, and the right error.
static int SpecialTest(void)
{
	bsBvh empty;
	ENSURE(bsBvh_Build(&empty, NULL, 0, NULL) == bs_ok);
	bsClosestPointInput in = {bsV3(1.0, 2.0, 3.0), HUGE_VAL};
	bsClosestPointOutput out;
	bsQueryStats stats = {0, 0, 0, 0};
	ENSURE(bsBvh_ClosestPoint(&empty, &in, &out, &stats) == bs_ok);
	ENSURE(out.hit == 0 && out.triangle == BS_NO_TRIANGLE && out.distance == HUGE_VAL);
	ENSURE(out.point.x == 1.0 && out.point.y == 2.0 && out.point.z == 3.0);
	ENSURE(stats.queries == 1 && stats.hits == 0 && stats.trianglesTested == 0);
	ENSURE(bsClosestPointList(NULL, 0, &in, &out) == bs_ok && out.hit == 0);

	bsTriangle tri;
	ENSURE(bsMakeTriangle(bsV3(0, 0, 0), bsV3(1, 0, 0), bsV3(0, 1, 0), &tri) == bs_ok);
	bsBvh one;
	ENSURE(bsBvh_Build(&one, &tri, 1, NULL) == bs_ok);
	bsClosestPointInput bad[3] = {{bsV3(NAN, 0, 0), 1.0}, {bsV3(0, 0, 1e200), 1.0},
		{bsV3(0, 0, 1), -1.0}};
	bsResult expected[3] = {bs_errNonFinite, bs_errNonFinite, bs_errInvalidArgument};
	for (int i = 0; i < 3; ++i)
	{
		ENSURE(bsBvh_ClosestPoint(&one, bad + i, &out, NULL) == expected[i]);
		ENSURE(out.hit == 0 && out.triangle == BS_NO_TRIANGLE);
		ENSURE(bsIsValidVec3(out.point));
		ENSURE(bsClosestPointList(&tri, 1, bad + i, &out) == expected[i]);
	}
	bad[0].maxDistance = NAN;
	bad[0].point = bsV3(0, 0, 1);
	ENSURE(bsBvh_ClosestPoint(&one, bad, &out, NULL) == bs_errInvalidArgument);
	ENSURE(bsBvh_ClosestPoint(NULL, &in, &out, NULL) == bs_errInvalidArgument && out.hit == 0);
	ENSURE(bsBvh_ClosestPoint(&one, NULL, &out, NULL) == bs_errInvalidArgument && out.hit == 0);
	ENSURE(bsBvh_ClosestPoint(&one, &in, NULL, NULL) == bs_errInvalidArgument);

	// A point on the triangle: distance 0, the stored normal; above it: the face normal.
	in.point = bsV3(0.25, 0.25, 0.0);
	ENSURE(bsBvh_ClosestPoint(&one, &in, &out, NULL) == bs_ok);
	ENSURE(out.hit == 1 && out.distance == 0.0 && out.onSurface == 1 && out.normal.z == 1.0);
	in.point = bsV3(0.25, 0.25, -2.0);
	ENSURE(bsBvh_ClosestPoint(&one, &in, &out, NULL) == bs_ok);
	ENSURE(out.distance == 2.0 && out.normal.z == -1.0 && out.feature == bs_featureFace);
	// Off a vertex: along the direction to it.
	in.point = bsV3(-3.0, -4.0, 0.0);
	ENSURE(bsBvh_ClosestPoint(&one, &in, &out, NULL) == bs_ok);
	ENSURE(out.distance == 5.0 && out.feature == bs_featureVertex && out.index == 0);
	ENSURE_SMALL(out.normal.x + 0.6, 1e-15);
	ENSURE_SMALL(out.normal.y + 0.8, 1e-15);
	bsBvh_Destroy(&one);
	bsBvh_Destroy(&empty);
	return 0;
}

// Ties: above a vertex of a flat grid face every triangle around it is at the same distance, and
// the lowest caller's index wins, however the triangles are ordered. The normal is the face's.
static int TieTest(void)
{
	bsTriangle* tris = NULL;
	uint32_t count = 0;
	ENSURE(bsMakeBoxMesh(bsV3(0, 0, 0), bsV3(1, 1, 1), 4, false, &tris, &count) == bs_ok);
	bsRng rng = bsMakeRng(99);
	for (int round = 0; round < 20; ++round)
	{
		// A random order of the same triangles.
		for (uint32_t i = count - 1; i > 0; --i)
		{
			uint32_t j = bsRng_Below(&rng, i + 1);
			bsTriangle t = tris[i];
			tris[i] = tris[j];
			tris[j] = t;
		}
		bsBvh bvh;
		ENSURE(bsBvh_Build(&bvh, tris, count, NULL) == bs_ok);
		// Above the grid vertex (0.5, 1, 0.25) of the top face y = 1.
		bsVec3 v = bsV3(0.5, 1.0, 0.25);
		uint32_t lowest = BS_NO_TRIANGLE;
		for (uint32_t i = 0; i < count && lowest == BS_NO_TRIANGLE; ++i)
		{
			const bsVec3* p = &tris[i].p1;
			for (int k = 0; k < 3; ++k)
			{
				lowest = p[k].x == v.x && p[k].y == v.y && p[k].z == v.z ? i : lowest;
			}
		}
		bsClosestPointInput in = {bsV3(0.5, 1.25, 0.25), HUGE_VAL};
		bsClosestPointOutput out;
		bsQueryStats stats = {0, 0, 0, 0};
		int failed = CompareOne(&bvh, tris, count, &in, 1.0, &stats, &out);
		bsBvh_Destroy(&bvh);
		ENSURE(failed == 0);
		ENSURE(out.triangle == lowest && out.distance == 0.25);
		ENSURE(out.normal.x == 0.0 && out.normal.y == 1.0 && out.normal.z == 0.0);
	}
	free(tris);
	return 0;
}

int ClosestTest(void)
{
	RUN_SUBTEST(SpecialTest());
	RUN_SUBTEST(TieTest());

	bsTriangle* tris = NULL;
	uint32_t count = 0;
	// The main scene: a 30 x 30 heightfield with 10 boxes (1,920 triangles), 100,000 queries.
	ENSURE(bsMakeHeightfieldScene(21, 30, 10, &tris, &count) == bs_ok);
	RUN_SUBTEST(CompareMesh("heightfield+boxes", tris, count, NULL, 100000, 1));
	bsBvhOptions fine = bsDefaultBvhOptions();
	fine.maxLeafSize = 1;
	fine.bins = 2;
	RUN_SUBTEST(CompareMesh("same, other tree", tris, count, &fine, 5000, 2));
	free(tris);

	ENSURE(bsMakeTriangleSoup(22, 1000, &tris, &count) == bs_ok);
	RUN_SUBTEST(CompareMesh("soup", tris, count, NULL, 10000, 3));
	free(tris);

	ENSURE(bsMakeBoxMesh(bsV3(-1, -1, -1), bsV3(1, 1, 1), 8, true, &tris, &count) == bs_ok);
	RUN_SUBTEST(CompareMesh("grid box", tris, count, NULL, 10000, 4));
	free(tris);

	// An icosphere twice over: every triangle has an exact duplicate, so every answer is a tie.
	ENSURE(bsMakeIcosphere(3, 1.0, 0.0, false, &tris, &count) == bs_ok);
	bsTriangle* twice = malloc(2 * (size_t)count * sizeof(bsTriangle));
	ENSURE(twice != NULL);
	memcpy(twice, tris, count * sizeof(bsTriangle));
	memcpy(twice + count, tris, count * sizeof(bsTriangle));
	free(tris);
	int failed = CompareMesh("icosphere twice", twice, 2 * count, NULL, 5000, 5);
	free(twice);
	ENSURE(failed == 0);

	// Far from the origin and tiny.
	ENSURE(bsMakeIcosphere(2, 1e-3, 0.0, false, &tris, &count) == bs_ok);
	for (uint32_t i = 0; i < count; ++i)
	{
		bsVec3 o = bsV3(1e6, -2e6, 5e5);
		bsTriangle t = tris[i];
		ENSURE(bsMakeTriangle(bsAdd(t.p1, o), bsAdd(t.p2, o), bsAdd(t.p3, o), tris + i) == bs_ok);
	}
	RUN_SUBTEST(CompareMesh("icosphere at 1e6", tris, count, NULL, 5000, 6));
	free(tris);
	return 0;
}
