// test_mesh_candidates.c — the move phase's candidate triangles kept between substeps
// (src/step/mesh_candidates.h) never miss a contact: on a small randomized scene (a bumpy heightfield
// with boxes and a soup of random triangles) particles of mixed radii take slow, fast and very fast
// sweeps, and every answer is the brute-force loop over every triangle's (bsSweepList) and the BVH
// walk's, bit for bit, for the exact and karabassi methods; most answers came from the kept
// candidates, and many were contacts. Every sweep the move phase would skip (bsMeshCache_Clear: an
// entry of no triangle that holds it) is a miss by brute force and leaves the entry as it was. A granular pour into a box mesh gives the same bytes at 1, 2
// and 3 threads, and with the candidates off (the mesh behind a far plane: only the first collider
// keeps them).
#include "mesh_candidates.h"
#include "world_internal.h"
#include "procedural.h"
#include "blobsim/bvh.h"
#include "blobsim/rng.h"
#include "blobsim/step.h"
#include "test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum
{
	bs_testParticles = 120,
	bs_testRounds = 150,
};

// A step for particle k: mostly slow (a few hundredths of a radius), some fast (a few radii), a few
// very fast (across the scene).
static bsVec3 RandomStep(bsRng* rng, double r)
{
	double u = bsRng_Range(rng, 0.0, 1.0);
	double length = u < 0.7 ? bsRng_Range(rng, 0.0, 0.05) * r : u < 0.95 ? bsRng_Range(rng, 0.5, 4.0) * r
		: bsRng_Range(rng, 0.1, 0.6);
	return bsScale(length, bsRng_UnitVector(rng));
}

// Inside [0, 1] x [-0.2, 1] x [0, 1], reflected at its faces.
static double Fold(double x, double lo, double hi)
{
	return x < lo ? lo + (lo - x) : x > hi ? hi - (x - hi) : x;
}

static int CandidatesAgainstBruteForce(bsMethod method, int threads)
{
	bsTriangle *field = NULL, *soup = NULL;
	uint32_t fieldCount = 0, soupCount = 0;
	ENSURE(bsMakeHeightfieldScene(21, 12, 6, &field, &fieldCount) == bs_ok);
	ENSURE(bsMakeTriangleSoup(22, 60, &soup, &soupCount) == bs_ok);
	uint32_t count = fieldCount + soupCount;
	bsTriangle* tris = malloc(count * sizeof(bsTriangle));
	ENSURE(tris != NULL);
	memcpy(tris, field, fieldCount * sizeof(bsTriangle));
	memcpy(tris + fieldCount, soup, soupCount * sizeof(bsTriangle));
	bsBvh bvh;
	ENSURE(bsBvh_Build(&bvh, tris, count, NULL) == bs_ok);
	bsWorldDef wd = bsDefaultWorldDef();
	wd.threads = threads;
	bsWorld* world = bsWorld_Create(&wd);
	ENSURE(world != NULL && bsWorld_AddMesh(world, &bvh) == bs_ok);
	ENSURE(bsMeshCache_Prepare(&world->meshCache, world, bs_testParticles, true));

	bsRng rng = bsMakeRng(23);
	bsVec3 x[bs_testParticles];
	double radius[bs_testParticles];
	for (int k = 0; k < bs_testParticles; ++k)
	{
		x[k] = bsV3(bsRng_Range(&rng, 0, 1), bsRng_Range(&rng, -0.1, 0.5), bsRng_Range(&rng, 0, 1));
		radius[k] = bsRng_Range(&rng, 0.005, 0.04);
	}
	uint64_t hits = 0, kept = 0, queries = 0, cleared = 0;
	for (int round = 0; round < bs_testRounds; ++round)
	{
		for (int k = 0; k < bs_testParticles; ++k)
		{
			bsVec3 to = bsAdd(x[k], RandomStep(&rng, radius[k]));
			to = bsV3(Fold(to.x, 0.0, 1.0), Fold(to.y, -0.2, 1.0), Fold(to.z, 0.0, 1.0));
			bsSweepInput in = {x[k], to, radius[k]};
			bsSweep s;
			ENSURE(bsMakeSweep(&in, &s) == bs_ok);
			bsSweepOutput fromCache, fromWalk, fromList;
			bsQueryStats qs = {0, 0, 0, 0};
			bsMeshCandidates before = world->meshCache.particles[k];
			bsQueryStats skip = {0, 0, 0, 0};
			bool clear = bsMeshCache_Clear(world, method, (size_t)k, x[k], to, radius[k], &skip);
			bsMeshCache_Sweep(world, method, &s, 0.0, (size_t)k, &fromCache, &qs);
			const bsMeshCandidates* after = world->meshCache.particles + k;
			bsQueryStats walk = {0, 0, 0, 0};
			bsWorld_SweepWindow(world, method, &s, 0.0, 1.0, &fromWalk, &walk);
			ENSURE(bsSweepList(method, tris, count, &in, &fromList) == bs_ok);
			ENSURE(memcmp(&fromCache, &fromWalk, sizeof(bsSweepOutput)) == 0);
			ENSURE(memcmp(&fromCache, &fromList, sizeof(bsSweepOutput)) == 0);
			queries += 1;
			// A sweep the move phase skips (its entry holds no triangle) is a miss by brute force,
			// counted as one query, and the entry is kept as it was.
			if (clear)
			{
				ENSURE(!fromList.hit && skip.queries == 1 && skip.trianglesTested == 0);
				ENSURE(memcmp(&before, after, sizeof(before)) == 0 && after->count == 0);
				cleared += 1;
			}
			else
			{
				ENSURE(skip.queries == 0);
			}
			// Answered from kept candidates: the entry was not made again and holds few enough.
			kept += memcmp(&before, after, sizeof(before)) == 0 && after->count <= BS_MESH_CANDIDATES;
			hits += fromList.hit;
			// On to where the sweep stopped (a contact: its centre), as the move phase goes on.
			x[k] = fromList.hit ? fromList.center : to;
		}
	}
	printf("  %s: %llu sweeps, %llu contacts, %llu from kept candidates, %llu skipped as clear\n",
		bsMethodName(method), (unsigned long long)queries, (unsigned long long)hits, (unsigned long long)kept,
		(unsigned long long)cleared);
	ENSURE(hits > queries / 20);
	ENSURE(kept > queries / 3);
	ENSURE(cleared > queries / 20);
	bsWorld_Destroy(world);
	bsBvh_Destroy(&bvh);
	free(tris);
	free(field);
	free(soup);
	return 0;
}

// 400 granular particles dropped into a box mesh (inward, 4 x 4 cells a face) for 30 steps; the
// particles' bytes after it.
static int PourIntoBox(int threads, bool farPlaneFirst, bsParticles* out, size_t* entries)
{
	bsTriangle* box = NULL;
	uint32_t count = 0;
	ENSURE(bsMakeBoxMesh(bsV3(-0.1, 0.0, -0.1), bsV3(0.1, 0.5, 0.1), 4, true, &box, &count) == bs_ok);
	bsBvh bvh;
	ENSURE(bsBvh_Build(&bvh, box, count, NULL) == bs_ok);
	bsWorldDef wd = bsDefaultWorldDef();
	wd.threads = threads;
	bsWorld* world = bsWorld_Create(&wd);
	bsPlane far;
	bsMakePlane(bsV3(0.0, -100.0, 0.0), bsV3(0.0, 1.0, 0.0), &far);
	ENSURE(world != NULL && (!farPlaneFirst || bsWorld_AddPlanes(world, &far, 1) == bs_ok));
	ENSURE(bsWorld_AddMesh(world, &bvh) == bs_ok);
	size_t n = 400;
	bsParticles p = {0};
	ENSURE(bsParticles_Alloc(&p, n) == bs_ok);
	bsRng rng = bsMakeRng(31);
	for (size_t i = 0; i < n; ++i)
	{
		p.position[i] = bsV3(-0.08 + 0.02 * (double)(i % 9), 0.02 + 0.022 * (double)(i / 81),
			-0.08 + 0.02 * (double)(i / 9 % 9));
		p.position[i] = bsAdd(p.position[i], bsScale(0.002, bsRng_UnitVector(&rng)));
		p.velocity[i] = bsScale(0.5, bsRng_UnitVector(&rng));
		p.radius[i] = bsRng_Range(&rng, 0.007, 0.009);
	}
	bsStepDef def = bsDefaultStepDef();
	def.method = bs_methodExact;
	def.response = bs_responseSlide;
	def.friction = 0.3;
	def.gravity = bsV3(0.0, -9.81, 0.0);
	def.interaction.type = bs_interactionGranular;
	def.interaction.contactTime = 0.002;
	def.dt = 0.004;
	def.substeps = 0;
	for (int step = 0; step < 30; ++step)
	{
		ENSURE(bsWorld_Step(world, &def, &p, NULL) == bs_ok);
	}
	*entries = world->meshCache.count;
	*out = p;
	bsWorld_Destroy(world);
	bsBvh_Destroy(&bvh);
	free(box);
	return 0;
}

static int PourSameBytes(void)
{
	bsParticles one, other;
	size_t entries = 0, none = 0;
	RUN_SUBTEST(PourIntoBox(1, false, &one, &entries));
	ENSURE(entries == one.count);  // the candidates were on
	// 2 and 3 threads with the candidates, then 2 without them.
	const int threads[3] = {2, 3, 2};
	for (int k = 0; k < 3; ++k)
	{
		size_t e = 0;
		RUN_SUBTEST(PourIntoBox(threads[k], k == 2, &other, &e));
		ENSURE(k == 2 ? e == none : e == one.count);
		ENSURE(memcmp(one.position, other.position, one.count * sizeof(bsVec3)) == 0);
		ENSURE(memcmp(one.velocity, other.velocity, one.count * sizeof(bsVec3)) == 0);
		ENSURE(memcmp(one.state, other.state, one.count) == 0);
		bsParticles_Free(&other);
	}
	// The particles reached the walls and the floor: every one is in the box, and many are low.
	size_t low = 0;
	for (size_t i = 0; i < one.count; ++i)
	{
		bsVec3 x = one.position[i];
		ENSURE(fabs(x.x) < 0.1 && fabs(x.z) < 0.1 && x.y > 0.0);
		low += x.y < 0.05;
	}
	ENSURE(low > 50);
	bsParticles_Free(&one);
	return 0;
}

int MeshCandidatesTest(void)
{
	RUN_SUBTEST(PourSameBytes());
	RUN_SUBTEST(CandidatesAgainstBruteForce(bs_methodExact, 1));
	RUN_SUBTEST(CandidatesAgainstBruteForce(bs_methodKarabassi, 2));
	return 0;
}
