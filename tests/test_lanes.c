// test_lanes.c — the exact sweep test four triangles at a time (bsExactTriangle4, src/collide/exact.c)
// against the scalar test it copies, bsExactTriangle: the same yes or no and the same bits of t,
// test, branch and feature in every lane, in both dispatch copies (default and AVX2), on random
// triangles, on degenerate ones (slivers, zero-area records, a normal that is NaN) and on sweeps
// built to touch an edge or a vertex exactly, to move parallel to a plane or an edge, or not to move;
// then whole BVH sweeps with the lanes on and off (the normal, the winning triangle among ties).
// The million cases of the reference suite (test_reference.c) run the same comparison too.
#include "collide_internal.h"
#include "dispatch.h"
#include "test.h"

#include "blobsim/bvh.h"
#include "blobsim/rng.h"
#include "procedural.h"

#include <stdlib.h>
#include <string.h>

#if BS_EXACT4

typedef struct LaneCounts
{
	long groups;  // groups whose lanes ran (at least one past the box test)
	long lanes;   // lanes past the box test
	long hits;
} LaneCounts;

static bool SameHit(const bsTriangleHit* a, const bsTriangleHit* b)
{
	return memcmp(&a->t, &b->t, sizeof a->t) == 0 && a->test == b->test && a->branch == b->branch &&
		a->feature == b->feature;
}

// tris[0, count) against s with tmax[i], in the dispatch copy set now: the lanes (every lane past
// the box test, even a lone one) and the dispatching entry give the scalar answers.
static int LanesMatchOnce(const bsTriangle* tris, uint32_t count, const bsSweep* s, const double tmax[4],
	LaneCounts* n)
{
	bsTriangleHit want[4];
	unsigned wantMask = 0, live = 0;
	memset(want, 0xA5, sizeof want);
	for (uint32_t i = 0; i < count; ++i)
	{
		wantMask |= bsExactTriangle(tris + i, s, tmax[i], want + i) ? 1u << i : 0u;
		live |= bsSweep_BoxOverlaps(s, tris + i) ? 1u << i : 0u;
	}
	const bsTriangle* lanes[4] = {tris, tris + 1, tris + 2, tris + 3};
	bsTriangleHit got[4];
	memset(got, 0x5A, sizeof got);
	unsigned gotMask = bsExactTriangle4(lanes, count, s, tmax, got);
	ENSURE(gotMask == wantMask);
	for (uint32_t i = 0; i < count; ++i)
	{
		ENSURE(!((wantMask >> i) & 1u) || SameHit(want + i, got + i));
	}
	if (live == 0)
	{
		return 0;
	}
	memset(got, 0x5A, sizeof got);
	gotMask = bsExactTriangle4Lanes(lanes, count, live, s, tmax, got);
	ENSURE(gotMask == wantMask);
	for (uint32_t i = 0; i < count; ++i)
	{
		ENSURE(!((wantMask >> i) & 1u) || SameHit(want + i, got + i));
	}
	n->groups += 1;
	n->lanes += __builtin_popcount(live);
	n->hits += __builtin_popcount(wantMask);
	return 0;
}

// Both dispatch copies.
static int LanesMatch(const bsTriangle* tris, uint32_t count, const bsSweep* s, const double tmax[4],
	LaneCounts* n)
{
	bsDispatch_SetMode(bs_dispatchDefault);
	RUN_SUBTEST(LanesMatchOnce(tris, count, s, tmax, n));
	bsDispatch_SetMode(bs_dispatchBest);
	if (bsDispatch_HasAvx2())
	{
		LaneCounts ignored = {0, 0, 0};
		RUN_SUBTEST(LanesMatchOnce(tris, count, s, tmax, &ignored));
	}
	return 0;
}

// The same group under several bounds: none (2), the scalar test's own t (which must now be
// excluded), the next double above it (included) and a random one.
static int LanesMatchBounds(bsRng* rng, const bsTriangle* tris, uint32_t count, const bsSweepInput* in,
	LaneCounts* n)
{
	bsSweep s;
	if (bsMakeSweep(in, &s) != bs_ok)
	{
		return 0;
	}
	double free4[4] = {2.0, 2.0, 2.0, 2.0};
	RUN_SUBTEST(LanesMatch(tris, count, &s, free4, n));
	double own[4], above[4], mixed[4];
	for (uint32_t i = 0; i < 4; ++i)
	{
		bsTriangleHit h;
		double t = i < count && bsExactTriangle(tris + i, &s, 2.0, &h) ? h.t : 0.5;
		own[i] = t;
		above[i] = nextafter(t, 2.0);
		mixed[i] = bsRng_Below(rng, 2) == 0 ? t : bsRng_Uniform(rng);
	}
	RUN_SUBTEST(LanesMatch(tris, count, &s, own, n));
	RUN_SUBTEST(LanesMatch(tris, count, &s, above, n));
	RUN_SUBTEST(LanesMatch(tris, count, &s, mixed, n));
	return 0;
}

// A sweep near the unit cube: radius 0.001-0.3, length up to 0.5, a tenth along an axis, a tenth
// not moving.
static bsSweepInput RandomSweep(bsRng* rng)
{
	bsSweepInput in;
	in.c1 = bsV3(bsRng_Uniform(rng), bsRng_Uniform(rng), bsRng_Uniform(rng));
	bsVec3 d = bsRng_UnitVector(rng);
	uint32_t kind = bsRng_Below(rng, 10);
	if (kind == 0)
	{
		int axis = (int)bsRng_Below(rng, 3);
		d = bsV3(axis == 0 ? 1.0 : 0.0, axis == 1 ? -1.0 : 0.0, axis == 2 ? 1.0 : 0.0);
	}
	double len = kind == 1 ? 0.0 : bsRng_Range(rng, 0.0, 0.5);
	in.c2 = bsMulAdd(in.c1, len, d);
	in.radius = bsRng_Range(rng, 0.001, 0.3);
	return in;
}

// Random soups: groups of 1-4 triangles, one sweep each.
static int RandomGroups(void)
{
	bsTriangle* tris = NULL;
	uint32_t count = 0;
	ENSURE(bsMakeTriangleSoup(28, 4000, &tris, &count) == bs_ok);
	bsRng rng = bsMakeRng(2804);
	LaneCounts n = {0, 0, 0};
	for (int q = 0; q < 60000; ++q)
	{
		uint32_t k = 1 + bsRng_Below(&rng, 4);
		uint32_t first = bsRng_Below(&rng, count - 4);
		bsSweepInput in = RandomSweep(&rng);
		RUN_SUBTEST(LanesMatchBounds(&rng, tris + first, k, &in, &n));
	}
	free(tris);
	printf("  random: %ld groups, %ld lanes, %ld hits\n", n.groups, n.lanes, n.hits);
	ENSURE(n.groups > 20000 && n.lanes > 40000 && n.hits > 20000);
	return 0;
}

// A fan of four triangles around the origin in z = 0 sharing edges and a vertex: a sweep that meets
// a shared edge or the shared vertex ties between them.
static void MakeFan(bsTriangle fan[4])
{
	bsVec3 o = bsV3(0, 0, 0);
	bsVec3 rim[4] = {bsV3(1, 0, 0), bsV3(0, 1, 0), bsV3(-1, 0, 0), bsV3(0, -1, 0)};
	for (int i = 0; i < 4; ++i)
	{
		bsMakeTriangle(o, rim[i], rim[(i + 1) % 4], fan + i);
	}
}

// Sweeps built to touch the fan exactly: along -z onto a face, sideways onto a rim vertex or edge
// (first contact at t = 0.5 in exact arithmetic), parallel to the plane at heights R and R +- an
// ulp, along an edge, grazing an edge, and not moving.
static int DegenerateTouches(void)
{
	bsTriangle fan[4];
	MakeFan(fan);
	bsRng rng = bsMakeRng(2805);
	LaneCounts n = {0, 0, 0};
	const double radii[4] = {0.25, 0.5, 1.0, 1e-9};
	for (int r = 0; r < 4; ++r)
	{
		double R = radii[r];
		bsSweepInput cases[] = {
			{bsV3(0, 0, 3 * R), bsV3(0, 0, R), R},                       // onto the shared vertex
			{bsV3(0.25, 0.25, 2 * R), bsV3(0.25, 0.25, 0), R},           // onto a face
			{bsV3(0.5, 0, 2 * R), bsV3(0.5, 0, 0), R},                   // onto a shared edge
			{bsV3(1 + 2 * R, 0, 0), bsV3(1, 0, 0), R},                   // sideways onto a rim vertex
			{bsV3(0.5 + R, 0.5 + R, 0), bsV3(0.5 - R, 0.5 - R, 0), R},   // in the plane across a rim edge
			{bsV3(-2, 0.25, R), bsV3(2, 0.25, R), R},                    // parallel at height R
			{bsV3(-2, 0.25, nextafter(R, 0)), bsV3(2, 0.25, nextafter(R, 0)), R},
			{bsV3(-2, 0.25, nextafter(R, 9)), bsV3(2, 0.25, nextafter(R, 9)), R},
			{bsV3(-2, 0, R), bsV3(2, 0, R), R},                          // along a shared edge, above it
			{bsV3(-2, 0, 0), bsV3(2, 0, 0), R},                          // along a shared edge, in it
			{bsV3(2, -1 - R, 0), bsV3(-2, -1 - R, 0), R},               // grazing the rim vertex
			{bsV3(0.2, 0.1, R), bsV3(0.2, 0.1, R), R},                   // not moving, touching
			{bsV3(0.2, 0.1, 2 * R), bsV3(0.2, 0.1, 2 * R), R},           // not moving, clear
			{bsV3(0.3, 0.3, 0.5 * R), bsV3(0.3, 0.3, -3 * R), R},        // starting in contact
		};
		for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c)
		{
			// Every window of the fan, so each triangle takes each lane.
			for (uint32_t first = 0; first < 4; ++first)
			{
				bsTriangle lanes[4];
				for (uint32_t i = 0; i < 4; ++i)
				{
					lanes[i] = fan[(first + i) % 4];
				}
				for (uint32_t k = 2; k <= 4; ++k)
				{
					RUN_SUBTEST(LanesMatchBounds(&rng, lanes, k, cases + c, &n));
				}
			}
		}
	}
	printf("  touches: %ld groups, %ld lanes, %ld hits\n", n.groups, n.lanes, n.hits);
	ENSURE(n.hits > 500);
	return 0;
}

// Slivers (aspect 1e-7 to 1e-3) and records bsMakeTriangle would refuse (zero area, a NaN or zero
// normal: the lanes must still round and compare as the scalar test does), under random sweeps
// aimed near them.
static int DegenerateTriangles(void)
{
	bsRng rng = bsMakeRng(2806);
	LaneCounts n = {0, 0, 0};
	for (int q = 0; q < 20000; ++q)
	{
		bsTriangle lanes[4];
		for (int i = 0; i < 4; ++i)
		{
			bsVec3 a = bsV3(bsRng_Uniform(&rng), bsRng_Uniform(&rng), bsRng_Uniform(&rng));
			bsVec3 e = bsScale(bsRng_Range(&rng, 0.2, 1.0), bsRng_UnitVector(&rng));
			bsVec3 side = bsScale(pow(10.0, bsRng_Range(&rng, -7.0, -3.0)), bsRng_UnitVector(&rng));
			bsVec3 b = bsAdd(a, e);
			bsVec3 c = bsAdd(bsMulAdd(a, bsRng_Uniform(&rng), e), side);
			uint32_t kind = bsRng_Below(&rng, 4);
			if (kind == 0 || bsMakeTriangle(a, b, c, lanes + i) != bs_ok)
			{
				// A zero-area record: collinear vertices with a made-up normal.
				lanes[i].p1 = a;
				lanes[i].p2 = b;
				lanes[i].p3 = bsMulAdd(a, 0.5, e);
				uint32_t normal = bsRng_Below(&rng, 3);
				lanes[i].n = normal == 0 ? bsRng_UnitVector(&rng)
					: normal == 1 ? bsV3(0, 0, 0) : bsV3(NAN, NAN, NAN);
				lanes[i].delta = -bsDot(lanes[i].n, a);
			}
		}
		bsSweepInput in = RandomSweep(&rng);
		// Aim at a point of the first triangle half the time.
		if (bsRng_Below(&rng, 2) == 0)
		{
			bsVec3 target = bsMulAdd(lanes[0].p1, bsRng_Uniform(&rng), bsSub(lanes[0].p2, lanes[0].p1));
			in.c2 = bsMulAdd(target, bsRng_Range(&rng, -0.5, 0.5) * in.radius, bsRng_UnitVector(&rng));
		}
		RUN_SUBTEST(LanesMatchBounds(&rng, lanes, 1 + bsRng_Below(&rng, 4), &in, &n));
	}
	printf("  degenerate: %ld groups, %ld lanes, %ld hits\n", n.groups, n.lanes, n.hits);
	ENSURE(n.groups > 5000 && n.hits > 2000);
	return 0;
}

// Whole sweeps through the BVH, lanes off then on, in both dispatch copies: every output byte and
// the statistics. The scene holds every triangle twice (ties: the lower caller's index must win, as
// one at a time), in trees with leaves of up to 4 and of up to 12 triangles (groups of 4 and a rest);
// and bsBvh_SweepLeaves on the step cache's candidates, every triangle near the sweep.
static int BvhSweepsMatch(void)
{
	bsTriangle* base = NULL;
	uint32_t baseCount = 0;
	ENSURE(bsMakeHeightfieldScene(28, 32, 30, &base, &baseCount) == bs_ok);
	uint32_t count = 2 * baseCount;
	bsTriangle* tris = malloc(count * sizeof *tris);
	ENSURE(tris != NULL);
	memcpy(tris, base, baseCount * sizeof *tris);
	memcpy(tris + baseCount, base, baseCount * sizeof *tris);
	free(base);
	int hits = 0;
	long candidates = 0;
	for (int leaf = 4; leaf <= 12; leaf += 8)
	{
		bsBvhOptions options = bsDefaultBvhOptions();
		options.maxLeafSize = leaf;
		options.traversalCost = leaf == 4 ? 1.0 : 8.0;  // large leaves pay
		bsBvh bvh;
		ENSURE(bsBvh_Build(&bvh, tris, count, &options) == bs_ok);
		bsRng rng = bsMakeRng(2807 + (uint64_t)leaf);
		for (int q = 0; q < 6000; ++q)
		{
			bsSweepInput in = RandomSweep(&rng);
			in.c1.y = bsRng_Range(&rng, -0.1, 0.3);
			in.radius *= 0.3;
			for (int mode = 0; mode < 2; ++mode)
			{
				bsDispatch_SetMode(mode == 0 ? bs_dispatchDefault : bs_dispatchBest);
				bsSweepOutput a, b;
				bsQueryStats sa = {0, 0, 0, 0}, sb = {0, 0, 0, 0};
				memset(&a, 0xA5, sizeof a);
				memset(&b, 0x5A, sizeof b);
				bsDispatch_SetLanes(false);
				bsResult ra = bsBvh_Sweep(&bvh, bs_methodExact, &in, &a, &sa);
				bsDispatch_SetLanes(true);
				bsResult rb = bsBvh_Sweep(&bvh, bs_methodExact, &in, &b, &sb);
				ENSURE(ra == bs_ok && rb == bs_ok);
				ENSURE(memcmp(&a, &b, sizeof a) == 0);
				ENSURE(memcmp(&sa, &sb, sizeof sa) == 0);
				hits += a.hit;
				// The candidate list of the step's cache (the first 48 triangles near the sweep, tree order).
				// A tenth of the motion: a near-leaves walk over most of the scene is slow.
				bsSweepInput shortIn = {in.c1, bsLerp(in.c1, in.c2, 0.1), in.radius};
				double reach = shortIn.radius + bsDistance(shortIn.c1, shortIn.c2);
				bsSweep s;
				ENSURE(bsMakeSweep(&shortIn, &s) == bs_ok);
				uint32_t leaves[48];
				uint32_t n = bsBvh_NearLeaves(&bvh, in.c1, reach, leaves, 48);
				n = n < 48 ? n : 48;
				candidates += n;
				memset(&a, 0xA5, sizeof a);
				memset(&b, 0x5A, sizeof b);
				bsDispatch_SetLanes(false);
				bsBvh_SweepLeaves(&bvh, bs_methodExact, &s, leaves, n, &a, NULL);
				bsDispatch_SetLanes(true);
				bsBvh_SweepLeaves(&bvh, bs_methodExact, &s, leaves, n, &b, NULL);
				ENSURE(memcmp(&a, &b, sizeof a) == 0);
			}
		}
		bsBvh_Destroy(&bvh);
	}
	free(tris);
	bsDispatch_SetMode(bs_dispatchBest);
	printf("  bvh: %d hits, %ld candidates\n", hits, candidates);
	ENSURE(hits > 3000 && candidates > 20000);
	return 0;
}

int LanesTest(void)
{
	bool lanes = bsDispatch_Lanes();
	RUN_SUBTEST(RandomGroups());
	RUN_SUBTEST(DegenerateTouches());
	RUN_SUBTEST(DegenerateTriangles());
	RUN_SUBTEST(BvhSweepsMatch());
	bsDispatch_SetLanes(lanes);
	return 0;
}

#else

int LanesTest(void)
{
	printf("lanes: skipped: this build has no 4-lane sweep test (not x86-64), the scalar test only\n");
	return 0;
}

#endif
