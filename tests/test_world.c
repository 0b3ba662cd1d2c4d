// test_world.c — the world and the machinery of the step: the persistent worker pool, colliders of
// several kinds and their tie rule (against the list loop over all triangles), particles that grow and
// the check every particle passes, emission in the emit phase, and substeps.
#include "morton.h"
#include "procedural.h"
#include "blobsim/base.h"
#include "blobsim/rng.h"
#include "blobsim/step.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

// --- the pool ---

typedef struct MarkJob
{
	uint8_t* marks;
	int threads;
	int badWorker;
} MarkJob;

static void MarkRange(void* context, size_t begin, size_t end, int worker)
{
	MarkJob* job = context;
	if (worker < 0 || worker >= job->threads)
	{
		job->badWorker = 1;
	}
	for (size_t i = begin; i < end; ++i)
	{
		job->marks[i] += 1;
	}
}

static int Pool(void)
{
	// Every index exactly once, for any thread count and grain, call after call on one pool.
	const int threadCounts[] = {1, 2, 3, 8};
	const size_t counts[] = {0, 1, 255, 1000, 100003};
	const size_t grains[] = {1, 7, 256};
	uint8_t* marks = malloc(100003);
	ENSURE(marks != NULL);
	for (size_t t = 0; t < sizeof(threadCounts) / sizeof(threadCounts[0]); ++t)
	{
		bsPool* pool = bsPool_Create(threadCounts[t]);
		ENSURE(pool != NULL && bsPool_ThreadCount(pool) == threadCounts[t]);
		for (int repeat = 0; repeat < 20; ++repeat)
		{
			for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); ++c)
			{
				size_t grain = grains[(repeat + c) % 3];
				memset(marks, 0, 100003);
				MarkJob job = {marks, threadCounts[t], 0};
				bsPool_For(pool, counts[c], grain, MarkRange, &job);
				ENSURE(job.badWorker == 0);
				for (size_t i = 0; i < counts[c]; ++i)
				{
					ENSURE(marks[i] == 1);
				}
			}
		}
		bsPool_Destroy(pool);
	}
	bsPool_Destroy(NULL);
	free(marks);
	return 0;
}

// --- colliders ---

static bsWorld* NewWorld(int threads)
{
	bsWorldDef def = bsDefaultWorldDef();
	def.threads = threads;
	return bsWorld_Create(&def);
}

static int TiesAcrossKinds(void)
{
	// A big triangle in the plane y = 0 and the plane y = 0 itself: a sphere falling onto both touches
	// them at the same t with exact and ray (karabassi's estimate on a triangle is later than the
	// plane's exact time). The collider added first wins; a nearer one wins whatever the order.
	bsTriangle tri;
	ENSURE(bsMakeTriangle(bsV3(-10, 0, -10), bsV3(0, 0, 10), bsV3(10, 0, -10), &tri) == bs_ok);
	bsBvh bvh;
	ENSURE(bsBvh_Build(&bvh, &tri, 1, NULL) == bs_ok);
	bsPlane planes[2];
	ENSURE(bsMakePlane(bsV3(0, -5, 0), bsV3(0, 1, 0), planes + 0) == bs_ok);  // never nearest
	ENSURE(bsMakePlane(bsV3(0, 0, 0), bsV3(0, 1, 0), planes + 1) == bs_ok);
	bsSweepInput in = {bsV3(0.5, 1, 0.25), bsV3(0.5, -1, 0.25), 0.1};
	for (int m = bs_methodExact; m <= bs_methodRay; ++m)
	{
		bsWorld* meshFirst = NewWorld(1);
		bsWorld* planesFirst = NewWorld(1);
		ENSURE(meshFirst != NULL && planesFirst != NULL);
		ENSURE(bsWorld_AddMesh(meshFirst, &bvh) == bs_ok && bsWorld_AddPlanes(meshFirst, planes, 2) == bs_ok);
		ENSURE(bsWorld_AddPlanes(planesFirst, planes, 2) == bs_ok && bsWorld_AddMesh(planesFirst, &bvh) == bs_ok);
		bsSweepOutput a, b;
		ENSURE(bsWorld_Sweep(meshFirst, (bsMethod)m, &in, &a, NULL) == bs_ok);
		ENSURE(bsWorld_Sweep(planesFirst, (bsMethod)m, &in, &b, NULL) == bs_ok);
		ENSURE(a.hit && b.hit && a.t == b.t);
		ENSURE(a.kind == bs_colliderMesh && a.collider == 0 && a.triangle == 0);
		ENSURE(b.kind == bs_colliderPlane && b.collider == 0 && b.triangle == 1 && b.test == bs_testPlane);
		// The plane at y = 0.5 is nearer: it wins from either place.
		bsPlane high;
		ENSURE(bsMakePlane(bsV3(0, 0.5, 0), bsV3(0, 1, 0), &high) == bs_ok);
		ENSURE(bsWorld_AddPlanes(meshFirst, &high, 1) == bs_ok);
		ENSURE(bsWorld_Sweep(meshFirst, (bsMethod)m, &in, &a, NULL) == bs_ok);
		ENSURE(a.hit && a.t < b.t && a.kind == bs_colliderPlane && a.collider == 2 && a.triangle == 0);
		bsWorld_Destroy(meshFirst);
		bsWorld_Destroy(planesFirst);
	}
	// Adding more colliders than the world holds is an error, not an overflow.
	bsWorld* full = NewWorld(1);
	ENSURE(full != NULL);
	for (int k = 0; k < BS_WORLD_MAX_COLLIDERS; ++k)
	{
		ENSURE(bsWorld_AddPlanes(full, planes, 1) == bs_ok);
	}
	ENSURE(bsWorld_AddPlanes(full, planes, 1) == bs_errTooLarge);
	ENSURE(bsWorld_AddMesh(full, NULL) == bs_errInvalidArgument);
	bsWorld_Destroy(full);
	bsBvh_Destroy(&bvh);
	return 0;
}

static int MeshesAgainstList(void)
{
	// The heightfield split into two meshes, each with its own BVH: the world answers exactly as the
	// list loop over all triangles (the first mesh's triangles come first, so its ties win), and a
	// world of the whole mesh answers byte for byte as its BVH does.
	bsTriangle* tris;
	uint32_t count;
	ENSURE(bsMakeHeightfieldScene(5, 30, 20, &tris, &count) == bs_ok);
	uint32_t half = count / 2;
	bsBvh whole, first, second;
	ENSURE(bsBvh_Build(&whole, tris, count, NULL) == bs_ok);
	ENSURE(bsBvh_Build(&first, tris, half, NULL) == bs_ok);
	ENSURE(bsBvh_Build(&second, tris + half, count - half, NULL) == bs_ok);
	bsWorld* split = NewWorld(1);
	bsWorld* one = NewWorld(1);
	ENSURE(split != NULL && one != NULL);
	ENSURE(bsWorld_AddMesh(split, &first) == bs_ok && bsWorld_AddMesh(split, &second) == bs_ok);
	ENSURE(bsWorld_AddMesh(one, &whole) == bs_ok);
	bsRng rng = bsMakeRng(17);
	int hits = 0;
	for (int q = 0; q < 20000; ++q)
	{
		bsVec3 c1 = bsV3(bsRng_Uniform(&rng), bsRng_Range(&rng, 0.0, 0.4), bsRng_Uniform(&rng));
		bsVec3 c2 = bsAdd(c1, bsV3(bsRng_Range(&rng, -0.1, 0.1), bsRng_Range(&rng, -0.4, 0.0),
			bsRng_Range(&rng, -0.1, 0.1)));
		bsSweepInput in = {c1, c2, bsRng_Range(&rng, 0.002, 0.03)};
		bsMethod method = (bsMethod)(q % bs_methodCount);
		bsSweepOutput list, world, bvhOut, oneOut;
		ENSURE(bsSweepList(method, tris, count, &in, &list) == bs_ok);
		ENSURE(bsWorld_Sweep(split, method, &in, &world, NULL) == bs_ok);
		ENSURE(bsBvh_Sweep(&whole, method, &in, &bvhOut, NULL) == bs_ok);
		ENSURE(bsWorld_Sweep(one, method, &in, &oneOut, NULL) == bs_ok);
		ENSURE(memcmp(&bvhOut, &oneOut, sizeof(bvhOut)) == 0);
		ENSURE(world.hit == list.hit && world.t == list.t);
		if (list.hit)
		{
			uint32_t index = world.triangle + (world.collider == 1 ? half : 0);
			ENSURE(world.kind == bs_colliderMesh && index == list.triangle);
			ENSURE(memcmp(&world.center, &list.center, sizeof(bsVec3)) == 0);
			// A karabassi (or starting exact) contact off a face takes its point and normal from
			// the nearest point of its own mesh (bsSweep_RefinesContact), which a split can change.
			bool refined = method == bs_methodKarabassi || (method == bs_methodExact && list.t == 0.0);
			ENSURE(refined || memcmp(&world.normal, &list.normal, sizeof(bsVec3)) == 0);
			hits += 1;
		}
	}
	ENSURE(hits > 2000);
	bsWorld_Destroy(split);
	bsWorld_Destroy(one);
	bsBvh_Destroy(&whole);
	bsBvh_Destroy(&first);
	bsBvh_Destroy(&second);
	free(tris);
	return 0;
}

// --- particles ---

static int ParticleCheck(void)
{
	bsParticles p;
	memset(&p, 0, sizeof(p));
	bsParticleDef good = {bsV3(1, 2, 3), bsV3(0, -1, 0), 0.5, bs_particleFree, {0, 0, 0}};
	ENSURE(bsParticleDef_Check(&good) == bs_particleOk);
	bsParticleDef bad = good;
	bad.radius = 0.0;
	ENSURE(bsParticleDef_Check(&bad) == bs_particleBadRadius);
	ENSURE(bsParticles_Append(&p, &bad) == bs_errInvalidArgument && p.count == 0);
	char text[128];
	bsParticleFault_Describe(bs_particleBadRadius, &bad, text, sizeof(text));
	ENSURE(strcmp(text, "radius 0 is not positive") == 0);
	bad.radius = -1.0;
	ENSURE(bsParticleDef_Check(&bad) == bs_particleBadRadius);
	bad.radius = (double)NAN;
	ENSURE(bsParticleDef_Check(&bad) == bs_particleBadRadius);
	bad.radius = (double)INFINITY;
	ENSURE(bsParticleDef_Check(&bad) == bs_particleBadRadius);
	bad = good;
	bad.position.y = (double)INFINITY;
	ENSURE(bsParticleDef_Check(&bad) == bs_particleBadPosition);
	ENSURE(bsParticles_Append(&p, &bad) == bs_errNonFinite);
	bad = good;
	bad.velocity.z = (double)NAN;
	ENSURE(bsParticleDef_Check(&bad) == bs_particleBadVelocity);
	bad = good;
	bad.state = bs_particleStateCount;
	ENSURE(bsParticleDef_Check(&bad) == bs_particleBadState);
	ENSURE(p.count == 0);

	// Growing keeps what is there.
	for (int i = 0; i < 10000; ++i)
	{
		bsParticleDef d = good;
		d.position.x = i;
		d.radius = 1.0 + i;
		d.state = (uint8_t)(i % 3);
		ENSURE(bsParticles_Append(&p, &d) == bs_ok);
	}
	ENSURE(p.count == 10000 && p.capacity >= 10000);
	for (int i = 0; i < 10000; ++i)
	{
		ENSURE(p.position[i].x == i && p.radius[i] == 1.0 + i && p.state[i] == i % 3);
	}
	ENSURE(bsParticles_Reserve(&p, 5) == bs_ok && p.capacity >= 10000);
	bsParticles_Free(&p);
	ENSURE(p.count == 0 && p.capacity == 0 && p.position == NULL);
	return 0;
}

// --- the emit phase ---

static int Emission(void)
{
	// A jittered grid with a radius spread, a random box and a list, emitted by the first step of a
	// world with no motion: the same particles as drawing them by hand from one stream in order.
	bsEmitterDef grid = bsDefaultEmitterDef();
	grid.shape = (bsEmitter){bs_emitterGrid, {0, 0, 0}, {1, 1, 1}, {4, 3, 2}, 0.5, {{0, 0, 0}, {0, 1, 0}, 0, 0, 0, 0}, {NULL, NULL, 0, 0, 0, 0, 0, false, NULL}, {0, 0.5, 0, false, 0, 0, 0, 0, 0}};
	grid.radius = 0.1;
	grid.radiusSpread = 0.3;
	grid.velocity = bsV3(0, 0, 0);
	bsEmitterDef random = grid;
	random.shape = (bsEmitter){bs_emitterRandom, {-1, -1, -1}, {0, 0, 0}, {50, 0, 0}, 0.0, {{0, 0, 0}, {0, 1, 0}, 0, 0, 0, 0}, {NULL, NULL, 0, 0, 0, 0, 0, false, NULL}, {0, 0.5, 0, false, 0, 0, 0, 0, 0}};
	random.radiusSpread = 0.0;
	bsParticleDef listed[3] = {
		{bsV3(5, 5, 5), bsV3(0, 0, 0), 0.2, bs_particleFree, {0, 0, 0}},
		{bsV3(6, 5, 5), bsV3(0, 0, 0), 0.3, bs_particleStuck, {0, 0, 0}},
		{bsV3(7, 5, 5), bsV3(0, 0, 0), 0.4, bs_particleFree, {0, 0, 0}},
	};
	bsEmitterDef list = bsDefaultEmitterDef();
	list.shape.type = bs_emitterList;
	list.list = listed;
	list.listCount = 3;

	bsWorldDef def = bsDefaultWorldDef();
	def.seed = 42;
	def.threads = 2;
	bsWorld* world = bsWorld_Create(&def);
	ENSURE(world != NULL);
	ENSURE(bsWorld_AddEmitter(world, &grid) == bs_ok && bsWorld_AddEmitter(world, &random) == bs_ok &&
		bsWorld_AddEmitter(world, &list) == bs_ok);
	ENSURE(bsWorld_PendingParticles(world) == 24 + 50 + 3);
	bsParticles p;
	memset(&p, 0, sizeof(p));
	bsStepDef step = bsDefaultStepDef();
	bsStepStats stats;
	memset(&stats, 0, sizeof(stats));
	ENSURE(bsWorld_Step(world, &step, &p, &stats) == bs_ok);
	ENSURE(p.count == 77 && stats.emitted == 77 && bsWorld_PendingParticles(world) == 0);

	bsRng rng = bsMakeRng(42);
	bsVec3 expected[74];
	bsEmitter_Emit(&grid.shape, &rng, expected);
	double radii[24];
	for (int i = 0; i < 24; ++i)
	{
		radii[i] = 0.1 * (1.0 + 0.3 * (2.0 * bsRng_Uniform(&rng) - 1.0));
	}
	bsEmitter_Emit(&random.shape, &rng, expected + 24);
	ENSURE(memcmp(p.position, expected, sizeof(expected)) == 0);
	ENSURE(memcmp(p.radius, radii, sizeof(radii)) == 0);
	for (int i = 24; i < 74; ++i)
	{
		ENSURE(p.radius[i] == 0.1 && p.state[i] == bs_particleFree);
	}
	for (int i = 0; i < 3; ++i)
	{
		ENSURE(memcmp(p.position + 74 + i, &listed[i].position, sizeof(bsVec3)) == 0);
		ENSURE(p.radius[74 + i] == listed[i].radius && p.state[74 + i] == listed[i].state);
	}
	// Nothing more to emit: the next step adds none.
	memset(&stats, 0, sizeof(stats));
	ENSURE(bsWorld_Step(world, &step, &p, &stats) == bs_ok && p.count == 77 && stats.emitted == 0);

	// A listed particle that fails its check stops the step and is named.
	listed[1].radius = 0.0;
	ENSURE(bsWorld_AddEmitter(world, &list) == bs_ok);
	ENSURE(bsWorld_Step(world, &step, &p, NULL) == bs_errInvalidArgument);
	int emitter;
	size_t index;
	ENSURE(bsWorld_EmitFailure(world, &emitter, &index) && emitter == 3 && index == 1);
	bsParticles_Free(&p);
	bsWorld_Destroy(world);
	return 0;
}

// --- emission over time ---

// A surface of two triangles (a unit square in the plane y = 0, facing +y) and its table.
static bsSurface SquareSurface(bsTriangle* t, double* cumulative)
{
	bsMakeTriangle(bsV3(0, 0, 0), bsV3(0, 0, 1), bsV3(1, 0, 1), t);
	bsMakeTriangle(bsV3(0, 0, 0), bsV3(1, 0, 1), bsV3(1, 0, 0), t + 1);
	bsSurface_Accumulate(t, 2, NULL, cumulative);
	return (bsSurface){t, cumulative, 2, 0.001, 0.3, 0.5, 1.0, false, NULL};
}

// The particles a random or surface emitter of `rate` from start to stop emits, step after step of
// dt: every window of consecutive steps holds rate x (its overlap with [start, stop]) particles
// within 1, and the total is floor(rate (stop - start)), the births at start + k / rate, k = 1, 2, ...
static int RateWindows(void)
{
	const double rates[] = {7.3, 100.0, 0.9, 1000.0 / 3.0, 2500.0};
	const double dts[] = {0.1, 0.013, 1.0 / 60.0, 0.25, 0.001};
	enum { steps = 400 };
	bsTriangle square[2];
	double areas[2];
	bsSurface surface = SquareSurface(square, areas);
	for (int ri = 0; ri < 5; ++ri)
	{
		for (int di = 0; di < 10; ++di)
		{
			double rate = rates[ri], dt = dts[di % 5];
			double start = 0.37 * dt * 7.0, stop = start + 0.6137 * dt * steps;  // no birth on a boundary
			bsEmitterDef def = bsDefaultEmitterDef();
			def.shape = (bsEmitter){bs_emitterRandom, {0, 0, 0}, {1, 1, 1}, {0, 0, 0}, 0.0, {{0, 0, 0}, {0, 1, 0}, 0, 0, 0, 0}, {NULL, NULL, 0, 0, 0, 0, 0, false, NULL}, {0, 0.5, 0, false, 0, 0, 0, 0, 0}};
			if (di >= 5)
			{
				def.shape.type = bs_emitterSurface;
				def.shape.surface = surface;
			}
			def.radius = 0.01;
			def.start = start;
			def.stop = stop;
			def.rate = rate;
			bsWorld* world = NewWorld(2);
			ENSURE(world != NULL && bsWorld_AddEmitter(world, &def) == bs_ok);
			uint64_t total = (uint64_t)floor(rate * (stop - start));
			ENSURE(bsWorld_PendingParticles(world) == total);
			bsStepDef step = bsDefaultStepDef();
			step.dt = dt;
			bsParticles p;
			memset(&p, 0, sizeof(p));
			uint64_t cumulative[steps + 1] = {0};
			for (int k = 0; k < steps; ++k)
			{
				bsStepStats stats;
				memset(&stats, 0, sizeof(stats));
				ENSURE(bsWorld_Step(world, &step, &p, &stats) == bs_ok);
				cumulative[k + 1] = cumulative[k] + stats.emitted;
				ENSURE(p.count == cumulative[k + 1]);
			}
			ENSURE(cumulative[steps] == total && bsWorld_PendingParticles(world) == 0);
			for (int a = 0; a < steps; ++a)
			{
				for (int b = a + 1; b <= steps; ++b)
				{
					double overlap = fmax(0.0, fmin(b * dt, stop) - fmax(a * dt, start));
					double count = (double)(cumulative[b] - cumulative[a]);
					ENSURE(fabs(count - rate * overlap) <= 1.0 + 1e-9);
				}
			}
			bsParticles_Free(&p);
			bsWorld_Destroy(world);
		}
	}
	return 0;
}

// Particles of a rate emitter with a lifetime of 0.25 s, stepped by 0.1 s: a particle emitted in the
// step that starts at j dt has lived 0.1, 0.2, 0.3 s at the ends of steps j, j + 1, j + 2, so it
// leaves (escaped) at the end of step j + 2, and not before.
static int Lifetime(void)
{
	bsEmitterDef def = bsDefaultEmitterDef();
	def.shape = (bsEmitter){bs_emitterRandom, {0, 0, 0}, {1, 1, 1}, {0, 0, 0}, 0.0, {{0, 0, 0}, {0, 1, 0}, 0, 0, 0, 0}, {NULL, NULL, 0, 0, 0, 0, 0, false, NULL}, {0, 0.5, 0, false, 0, 0, 0, 0, 0}};
	def.radius = 0.01;
	def.rate = 30.0;
	def.stop = 1.0;
	def.lifetime = 0.25;
	bsWorld* world = NewWorld(1);
	ENSURE(world != NULL && bsWorld_AddEmitter(world, &def) == bs_ok);
	bsStepDef step = bsDefaultStepDef();
	step.dt = 0.1;
	bsParticles p;
	memset(&p, 0, sizeof(p));
	int bornIn[64];
	uint64_t expiredTotal = 0;
	for (int k = 0; k < 15; ++k)
	{
		size_t before = p.count;
		bsStepStats stats;
		memset(&stats, 0, sizeof(stats));
		ENSURE(bsWorld_Step(world, &step, &p, &stats) == bs_ok && p.count <= 64);
		for (size_t i = before; i < p.count; ++i)
		{
			bornIn[i] = k;
		}
		expiredTotal += stats.expired;
		uint64_t escaped = 0;
		for (size_t i = 0; i < p.count; ++i)
		{
			bool gone = k >= bornIn[i] + 2;
			ENSURE((p.state[i] == bs_particleEscaped) == gone);
			escaped += gone;
		}
		ENSURE(expiredTotal == escaped);
	}
	ENSURE(p.count == 30 && expiredTotal == 30);
	ENSURE_SMALL(bsWorld_Time(world) - 1.5, 1e-12);
	bsParticles_Free(&p);
	bsWorld_Destroy(world);
	return 0;
}

// Emission over time on 1, 2 and 3 threads: a nozzle with a radius spread and a jittered grid by
// rate, a random box at once later, a surface by rate, falling and bouncing on a floor, with a lifetime: every array
// byte for byte the same.
static int RateThreads(void)
{
	bsPlane floor;
	ENSURE(bsMakePlane(bsV3(0, 0, 0), bsV3(0, 1, 0), &floor) == bs_ok);
	bsEmitterDef nozzle = bsDefaultEmitterDef();
	nozzle.shape.type = bs_emitterNozzle;
	nozzle.shape.nozzle = (bsNozzle){{0, 2, 0}, {0, -1, 0}, 0.2, 0.5, 0.5, 2.0};
	nozzle.radius = 0.02;
	nozzle.radiusSpread = 0.3;
	nozzle.rate = 2000.0;
	nozzle.stop = 0.7;
	nozzle.lifetime = 0.6;
	bsEmitterDef grid = bsDefaultEmitterDef();
	grid.shape = (bsEmitter){bs_emitterGrid, {-1, 1, -1}, {1, 1.5, 1}, {10, 2, 10}, 0.7, {{0, 0, 0}, {0, 1, 0}, 0, 0, 0, 0}, {NULL, NULL, 0, 0, 0, 0, 0, false, NULL}, {0, 0.5, 0, false, 0, 0, 0, 0, 0}};
	grid.radius = 0.03;
	grid.rate = 900.0;
	grid.start = 0.1;
	grid.stop = 0.9;
	bsEmitterDef random = grid;
	random.shape.type = bs_emitterRandom;
	random.shape.count[0] = 300;
	random.rate = 0.0;
	random.start = 0.35;
	bsTriangle square[2];
	double cumulative[2];
	bsEmitterDef surface = bsDefaultEmitterDef();
	surface.shape.type = bs_emitterSurface;
	surface.shape.surface = SquareSurface(square, cumulative);
	surface.radius = 0.02;
	surface.radiusSpread = 0.2;
	surface.rate = 500.0;
	surface.start = 0.2;
	surface.stop = 1.0;
	bsParticles p[3];
	for (int t = 0; t < 3; ++t)
	{
		bsWorld* world = NewWorld(t + 1);
		ENSURE(world != NULL && bsWorld_AddPlanes(world, &floor, 1) == bs_ok);
		ENSURE(bsWorld_AddEmitter(world, &nozzle) == bs_ok && bsWorld_AddEmitter(world, &grid) == bs_ok &&
			bsWorld_AddEmitter(world, &random) == bs_ok && bsWorld_AddEmitter(world, &surface) == bs_ok);
		bsStepDef step = bsDefaultStepDef();
		step.dt = 0.02;
		step.gravity = bsV3(0, -9.81, 0);
		step.response = bs_responseBounce;
		memset(p + t, 0, sizeof(bsParticles));
		for (int k = 0; k < 60; ++k)
		{
			ENSURE(bsWorld_Step(world, &step, p + t, NULL) == bs_ok);
		}
		bsWorld_Destroy(world);
	}
	ENSURE(p[0].count == 1400 + 720 + 300 + 400);
	for (int t = 1; t < 3; ++t)
	{
		size_t n = p[0].count;
		ENSURE(p[t].count == n);
		ENSURE(memcmp(p[0].position, p[t].position, n * sizeof(bsVec3)) == 0);
		ENSURE(memcmp(p[0].velocity, p[t].velocity, n * sizeof(bsVec3)) == 0);
		ENSURE(memcmp(p[0].radius, p[t].radius, n * sizeof(double)) == 0);
		ENSURE(memcmp(p[0].state, p[t].state, n) == 0);
		ENSURE(memcmp(p[0].id, p[t].id, n * sizeof(uint32_t)) == 0);
	}
	// Ids in birth order across emitters and steps: the set's arrays are appended to only, so the
	// particle in slot i was the i-th born.
	for (size_t i = 0; i < p[0].count; ++i)
	{
		ENSURE(p[0].id[i] == i);
	}
	for (int t = 0; t < 3; ++t)
	{
		bsParticles_Free(p + t);
	}
	return 0;
}

// Timings and nozzles out of range are refused when added.
static int BadEmitters(void)
{
	bsWorld* world = NewWorld(1);
	ENSURE(world != NULL);
	bsEmitterDef def = bsDefaultEmitterDef();
	def.rate = 5.0;  // no stop
	ENSURE(bsWorld_AddEmitter(world, &def) == bs_errInvalidArgument);
	def.stop = -1.0;
	ENSURE(bsWorld_AddEmitter(world, &def) == bs_errInvalidArgument);
	def.stop = 1.0;
	def.lifetime = 0.0;
	ENSURE(bsWorld_AddEmitter(world, &def) == bs_errInvalidArgument);
	def.lifetime = 1.0;
	def.start = NAN;
	ENSURE(bsWorld_AddEmitter(world, &def) == bs_errInvalidArgument);
	def.start = 0.0;
	ENSURE(bsWorld_AddEmitter(world, &def) == bs_ok);
	def.shape.count[1] = 0;  // a grid by rate with no cell to cycle through
	ENSURE(bsWorld_AddEmitter(world, &def) == bs_errInvalidArgument);
	def.shape.count[1] = 1;
	def.shape.type = bs_emitterNozzle;
	def.shape.nozzle.direction = bsV3(0, 2, 0);  // not unit
	ENSURE(bsWorld_AddEmitter(world, &def) == bs_errInvalidArgument);
	def.shape.nozzle.direction = bsV3(0, 1, 0);
	def.shape.nozzle.speedMin = 2.0;
	def.shape.nozzle.speedMax = 1.0;
	ENSURE(bsWorld_AddEmitter(world, &def) == bs_errInvalidArgument);
	bsWorld_Destroy(world);
	return 0;
}

// --- substeps ---

static int Substeps(void)
{
	// A step of 4 substeps is bit for bit 4 steps of a quarter of the time: bouncing on a floor plane
	// under gravity and drag.
	bsPlane floor;
	ENSURE(bsMakePlane(bsV3(0, 0, 0), bsV3(0, 1, 0), &floor) == bs_ok);
	bsWorld* a = NewWorld(1);
	bsWorld* b = NewWorld(2);
	ENSURE(a != NULL && b != NULL);
	ENSURE(bsWorld_AddPlanes(a, &floor, 1) == bs_ok && bsWorld_AddPlanes(b, &floor, 1) == bs_ok);
	bsParticles pa, pb;
	size_t n = 500;
	ENSURE(bsParticles_Alloc(&pa, n) == bs_ok && bsParticles_Alloc(&pb, n) == bs_ok);
	bsRng rng = bsMakeRng(3);
	for (size_t i = 0; i < n; ++i)
	{
		pa.position[i] = pb.position[i] = bsV3(bsRng_Uniform(&rng), bsRng_Range(&rng, 0.1, 2.0), 0);
		pa.velocity[i] = pb.velocity[i] = bsV3(bsRng_Range(&rng, -1, 1), bsRng_Range(&rng, -3, 3), 0);
		pa.radius[i] = pb.radius[i] = 0.05;
	}
	bsStepDef whole = bsDefaultStepDef();
	whole.dt = 0.1;
	whole.substeps = 4;
	whole.gravity = bsV3(0, -9.81, 0);
	whole.drag = 0.2;
	whole.method = bs_methodExact;
	whole.response = bs_responseBounce;
	whole.restitution = 0.8;
	bsStepDef quarter = whole;
	quarter.dt = whole.dt / 4;
	quarter.substeps = 1;
	for (int k = 0; k < 20; ++k)
	{
		ENSURE(bsWorld_Step(a, &whole, &pa, NULL) == bs_ok);
		for (int j = 0; j < 4; ++j)
		{
			ENSURE(bsWorld_Step(b, &quarter, &pb, NULL) == bs_ok);
		}
	}
	ENSURE(memcmp(pa.position, pb.position, n * sizeof(bsVec3)) == 0);
	ENSURE(memcmp(pa.velocity, pb.velocity, n * sizeof(bsVec3)) == 0);
	for (size_t i = 0; i < n; ++i)
	{
		ENSURE(pa.position[i].y >= 0.05);
	}
	bsParticles_Free(&pa);
	bsParticles_Free(&pb);
	bsWorld_Destroy(a);
	bsWorld_Destroy(b);
	return 0;
}

// --- the move phase's order ---

static int MortonOrder(void)
{
	// A permutation; cells of one level of the curve come in Z order; one cell keeps index order.
	bsVec3 points[8] = {
		{1, 1, 1}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0, 0, 0}, {(double)NAN, 0, 0}, {5, -5, 0},
	};
	uint32_t order[8];
	ENSURE(bsMortonOrder(bsV3(0, 0, 0), bsV3(1, 1, 1), points, sizeof(bsVec3), 8, order));
	// Codes: x is bit 0, y bit 1, z bit 2 at every level; NaN and below clamp to 0, above to 1023.
	const uint32_t expected[8] = {1, 5, 6, 2, 7, 3, 4, 0};
	ENSURE(memcmp(order, expected, sizeof(order)) == 0);
	return 0;
}

static int OrderChangesNothing(void)
{
	// On a mesh large enough for the move phase to sort (over 8 MiB of BVH), randomly ordered rain
	// ends exactly where each particle ends when it moves alone.
	bsTriangle* tris;
	uint32_t count;
	ENSURE(bsMakeHeightfieldScene(9, 170, 40, &tris, &count) == bs_ok);
	bsBvh bvh;
	ENSURE(bsBvh_Build(&bvh, tris, count, NULL) == bs_ok);
	ENSURE(bsBvh_Bytes(&bvh) > (8u << 20));
	bsWorld* world = NewWorld(2);
	ENSURE(world != NULL && bsWorld_AddMesh(world, &bvh) == bs_ok);
	size_t n = 3000;
	bsParticles together, alone, one;
	ENSURE(bsParticles_Alloc(&together, n) == bs_ok && bsParticles_Alloc(&alone, n) == bs_ok &&
		bsParticles_Alloc(&one, 1) == bs_ok);
	bsRng rng = bsMakeRng(23);
	for (size_t i = 0; i < n; ++i)
	{
		together.position[i] = bsV3(bsRng_Uniform(&rng), bsRng_Range(&rng, 0.0, 0.4), bsRng_Uniform(&rng));
		together.velocity[i] = bsV3(bsRng_Range(&rng, -1, 1), bsRng_Range(&rng, -3, 0), bsRng_Range(&rng, -1, 1));
		together.radius[i] = bsRng_Range(&rng, 0.002, 0.01);
	}
	bsStepDef def = bsDefaultStepDef();
	def.dt = 0.05;
	def.gravity = bsV3(0, -9.81, 0);
	def.method = bs_methodExact;
	def.response = bs_responseBounce;
	// Each particle alone (too few to sort), from the same start.
	for (size_t i = 0; i < n; ++i)
	{
		one.position[0] = together.position[i];
		one.velocity[0] = together.velocity[i];
		one.radius[0] = together.radius[i];
		one.state[0] = bs_particleFree;
		for (int k = 0; k < 3; ++k)
		{
			ENSURE(bsWorld_Step(world, &def, &one, NULL) == bs_ok);
		}
		alone.position[i] = one.position[0];
		alone.velocity[i] = one.velocity[0];
	}
	for (int k = 0; k < 3; ++k)
	{
		ENSURE(bsWorld_Step(world, &def, &together, NULL) == bs_ok);
	}
	ENSURE(memcmp(together.position, alone.position, n * sizeof(bsVec3)) == 0);
	ENSURE(memcmp(together.velocity, alone.velocity, n * sizeof(bsVec3)) == 0);
	bsParticles_Free(&alone);
	bsParticles_Free(&one);
	bsParticles_Free(&together);
	bsWorld_Destroy(world);
	bsBvh_Destroy(&bvh);
	free(tris);
	return 0;
}

int WorldTest(void)
{
	RUN_SUBTEST(Pool());
	RUN_SUBTEST(TiesAcrossKinds());
	RUN_SUBTEST(MeshesAgainstList());
	RUN_SUBTEST(ParticleCheck());
	RUN_SUBTEST(Emission());
	RUN_SUBTEST(RateWindows());
	RUN_SUBTEST(Lifetime());
	RUN_SUBTEST(RateThreads());
	RUN_SUBTEST(BadEmitters());
	RUN_SUBTEST(Substeps());
	RUN_SUBTEST(MortonOrder());
	RUN_SUBTEST(OrderChangesNothing());
	return 0;
}
