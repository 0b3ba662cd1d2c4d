// test_dispatch.c — runtime CPU dispatch (src/collide/dispatch.h): the AVX2 copies of the swept-sphere tests
// and of the BVH walk give the default copies' answers, byte for byte, on the same random queries.
// The reference is the default copy itself, run in the same process with the AVX2 copy turned off.
#include "collide_internal.h"
#include "test.h"

#include "dispatch.h"

#include "blobsim/bvh.h"
#include "blobsim/rng.h"
#include "procedural.h"

#include <stdlib.h>
#include <string.h>

// A sweep that starts near the unit cube (the soup's and the heightfield's home): radius 0.001-0.1,
// length up to 0.5 in a random direction; a tenth of them along a random axis (parallel cases).
static bsSweepInput RandomSweep(bsRng* rng, double height)
{
	bsSweepInput in;
	in.c1 = (bsVec3){bsRng_Uniform(rng), height + bsRng_Range(rng, -0.1, 0.2), bsRng_Uniform(rng)};
	bsVec3 d = bsRng_UnitVector(rng);
	if (bsRng_Below(rng, 10) == 0)
	{
		int axis = (int)bsRng_Below(rng, 3);
		d = (bsVec3){axis == 0 ? 1.0 : 0.0, axis == 1 ? -1.0 : 0.0, axis == 2 ? 1.0 : 0.0};
	}
	double len = bsRng_Range(rng, 0.0, 0.5);
	in.c2 = (bsVec3){in.c1.x + len * d.x, in.c1.y + len * d.y, in.c1.z + len * d.z};
	in.radius = bsRng_Range(rng, 0.001, 0.1);
	return in;
}

// One per-triangle test, both copies: the same return value and the same hit bytes (prefilled
// alike, so bytes a test leaves alone compare equal too).
typedef bool (*bsTriangleTestFn)(const bsTriangle*, const bsSweep*, double, bsTriangleHit*);

static bool CylinderBefore(const bsTriangle* tri, const bsSweep* s, double tmax, bsTriangleHit* hit)
{
	(void)tmax;
	return bsCylinderTriangle(tri, s, hit);
}

static int SameTriangleTest(bsTriangleTestFn fn, const bsTriangle* tri, const bsSweep* s, double tmax,
	int* hits)
{
	bsTriangleHit a, b;
	memset(&a, 0xA5, sizeof a);
	memset(&b, 0xA5, sizeof b);
	bsDispatch_SetMode(bs_dispatchDefault);
	bool ra = fn(tri, s, tmax, &a);
	bsDispatch_SetMode(bs_dispatchBest);
	bool rb = fn(tri, s, tmax, &b);
	ENSURE(ra == rb);
	ENSURE(memcmp(&a, &b, sizeof a) == 0);
	*hits += ra ? 1 : 0;
	return 0;
}

// Random triangle/sweep pairs through bsExactTriangle, bsKarabassiTriangle and bsCylinderTriangle.
static int TrianglesMatch(void)
{
	bsTriangle* tris = NULL;
	uint32_t count = 0;
	ENSURE(bsMakeTriangleSoup(15, 2000, &tris, &count) == bs_ok);
	bsRng rng = bsMakeRng(1502);
	bsTriangleTestFn fns[3] = {bsExactTriangle, bsKarabassiTriangle, CylinderBefore};
	int hits[3] = {0, 0, 0};
	for (int q = 0; q < 200000; ++q)
	{
		bsSweepInput in = RandomSweep(&rng, bsRng_Uniform(&rng));
		bsSweep s;
		ENSURE(bsMakeSweep(&in, &s) == bs_ok);
		const bsTriangle* tri = tris + bsRng_Below(&rng, count);
		double tmax = bsRng_Below(&rng, 4) == 0 ? bsRng_Uniform(&rng) : 2.0;
		for (int f = 0; f < 3; ++f)
		{
			RUN_SUBTEST(SameTriangleTest(fns[f], tri, &s, tmax, hits + f));
		}
	}
	free(tris);
	// The pairs reach the tests' bodies, not only their box rejections.
	ENSURE(hits[0] > 1000 && hits[1] > 1000 && hits[2] > 1000);
	return 0;
}

// Random sweeps and closest-point queries over a heightfield with boxes through the BVH, both
// copies: every output byte and the sweeps' statistics.
static int BvhSweepsMatch(void)
{
	bsTriangle* tris = NULL;
	uint32_t count = 0;
	ENSURE(bsMakeHeightfieldScene(9, 48, 40, &tris, &count) == bs_ok);
	bsBvh bvh;
	ENSURE(bsBvh_Build(&bvh, tris, count, NULL) == bs_ok);
	bsRng rng = bsMakeRng(1503);
	int hits = 0, nearHits = 0;
	for (int q = 0; q < 10000; ++q)
	{
		bsSweepInput in = RandomSweep(&rng, 0.0);
		for (int m = 0; m < bs_methodCount; ++m)
		{
			bsSweepOutput a, b;
			bsQueryStats sa = {0, 0, 0, 0}, sb = {0, 0, 0, 0};
			memset(&a, 0xA5, sizeof a);
			memset(&b, 0x5A, sizeof b);
			bsDispatch_SetMode(bs_dispatchDefault);
			bsResult ra = bsBvh_Sweep(&bvh, (bsMethod)m, &in, &a, &sa);
			bsDispatch_SetMode(bs_dispatchBest);
			bsResult rb = bsBvh_Sweep(&bvh, (bsMethod)m, &in, &b, &sb);
			ENSURE(ra == bs_ok && rb == bs_ok);
			ENSURE(memcmp(&a, &b, sizeof a) == 0);
			ENSURE(memcmp(&sa, &sb, sizeof sa) == 0);
			hits += a.hit;
		}
		// The nearest-point walk (also the sweeps' contact refinement), from the start centre.
		bsClosestPointInput near = {in.c1, 10.0 * in.radius};
		bsClosestPointOutput a, b;
		memset(&a, 0xA5, sizeof a);
		memset(&b, 0x5A, sizeof b);
		bsDispatch_SetMode(bs_dispatchDefault);
		bsResult ra = bsBvh_ClosestPoint(&bvh, &near, &a, NULL);
		bsDispatch_SetMode(bs_dispatchBest);
		bsResult rb = bsBvh_ClosestPoint(&bvh, &near, &b, NULL);
		ENSURE(ra == bs_ok && rb == bs_ok);
		ENSURE(memcmp(&a, &b, sizeof a) == 0);
		nearHits += a.hit ? 1 : 0;
	}
	bsBvh_Destroy(&bvh);
	free(tris);
	ENSURE(hits > 5000 && nearHits > 1000);
	return 0;
}

int DispatchTest(void)
{
	if (!bsDispatch_HasAvx2())
	{
		printf("dispatch: skipped: no separate AVX2 copy here (a CPU without AVX2, a non-x86 build or "
			   "one already targeting AVX2), the default copy is the only one\n");
		return 0;
	}
	RUN_SUBTEST(TrianglesMatch());
	RUN_SUBTEST(BvhSweepsMatch());
	bsDispatch_SetMode(bs_dispatchBest);
	return 0;
}
