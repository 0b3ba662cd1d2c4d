// bench_field.c — the lookup rate of the distance/normal field and the paper's Table 1 (bench_field.h).
#include "bench_field.h"
#include "core.h"

#include "procedural.h"

#include "blobsim/base.h"
#include "blobsim/bvh.h"
#include "blobsim/field.h"
#include "blobsim/particles.h"
#include "blobsim/step.h"
#include "blobsim/world.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum
{
	bs_benchFieldSteps = 5,  // steps timed, the best kept
};

// A splitmix64 stream of doubles in [0, 1).
static double bsFieldUniform(uint64_t* s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return (double)((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
}

// The grid's cell index of a position, the key of the coherent order.
static const bsDistanceGrid* bs_sortGrid;

static size_t bsFieldCellIndex(bsVec3 x)
{
	const bsGridCell* c = bsDistanceGrid_Nearest(bs_sortGrid, x);
	return c == NULL ? 0 : (size_t)(c - bs_sortGrid->cells);
}

static int bsFieldCompareCells(const void* a, const void* b)
{
	size_t ka = bsFieldCellIndex(*(const bsVec3*)a), kb = bsFieldCellIndex(*(const bsVec3*)b);
	return ka < kb ? -1 : ka > kb;
}

// Positions uniform in the box [lo, hi] (a splitmix64 stream), velocity v; sorted: in the grid's
// cell order (x fastest), so that neighbours in memory are neighbours in space, as a coherent
// stream's particles are; else in random order (a cache miss a lookup once the grid outgrows the
// cache).
static void bsFieldScatter(bsParticles* p, uint64_t seed, bsVec3 lo, bsVec3 hi, bsVec3 v, const bsDistanceGrid* g,
	bool sorted)
{
	uint64_t s = seed;
	for (size_t i = 0; i < p->count; ++i)
	{
		double u[3];
		for (int k = 0; k < 3; ++k)
		{
			u[k] = bsFieldUniform(&s);
		}
		p->position[i] = bsV3(lo.x + u[0] * (hi.x - lo.x), lo.y + u[1] * (hi.y - lo.y), lo.z + u[2] * (hi.z - lo.z));
		p->velocity[i] = v;
		p->radius[i] = 0.002;
		p->state[i] = bs_particleFree;
	}
	if (sorted)
	{
		bs_sortGrid = g;
		qsort(p->position, p->count, sizeof(bsVec3), bsFieldCompareCells);
	}
}

static uint64_t bsFieldHash(uint64_t h, const bsParticles* p)
{
	h = bsFnv1a(h, p->position, p->count * sizeof(bsVec3));
	return bsFnv1a(h, p->velocity, p->count * sizeof(bsVec3));
}

// The rule alone, as the forces phase runs it (bsField_ApplyRange over all particles): the best of
// the runs' CPU seconds for one pass.
static double bsFieldTimeRule(const bsStepDef* def, bsParticles* p)
{
	double best = 1e300;
	for (int k = 0; k < bs_benchFieldSteps; ++k)
	{
		double c0 = bsCpuNow();
		bsField_ApplyRange(def->fieldGrid, def->fieldTree, &def->field, def->dt, p->position, p->velocity, NULL, 0,
			p->count);
		double c = bsCpuNow() - c0;
		best = c < best ? c : best;
	}
	return best;
}

// Through the step on one thread: the best CPU seconds of a step.
static double bsFieldTimeStep(bsWorld* world, const bsStepDef* def, bsParticles* p, bool* ok)
{
	double best = 1e300;
	for (int k = 0; k < bs_benchFieldSteps; ++k)
	{
		double c0 = bsCpuNow();
		*ok = *ok && bsWorld_Step(world, def, p, NULL) == bs_ok;
		double c = bsCpuNow() - c0;
		best = c < best ? c : best;
	}
	return best;
}

// Part 1: the lookup rate around a unit sphere, dense and compressed, nearest and trilinear, in
// random and in cell order, on a resolution^3 grid whose margin grows with it (4 cells at 64), so
// that every resolution covers the same box. The final states of the dense rows and of the
// compressed rows are also hashed apart and printed: a change to the tree must leave the dense
// rows' hash alone.
static bool bsBenchFieldRate(long long count, uint64_t seed, int resolution, uint64_t* checksum)
{
	bsTriangle* tris = NULL;
	uint32_t triCount = 0;
	bsDistanceGridDef gdef = bsDefaultDistanceGridDef();
	gdef.resolution = resolution;
	gdef.margin = (resolution + 8) / 16;
	bsGridTreeDef tdef = bsDefaultGridTreeDef();
	bsDistanceGrid grid;
	bsGridTree tree;
	bsGridTreeStats ts;
	uint64_t kindHash[2] = {0xcbf29ce484222325ull, 0xcbf29ce484222325ull};
	memset(&grid, 0, sizeof grid);
	memset(&tree, 0, sizeof tree);
	bool ok = bsMakeIcosphere(4, 1.0, 0.0, false, &tris, &triCount) == bs_ok &&
		bsDistanceGrid_Build(&grid, tris, triCount, &gdef, NULL) == bs_ok &&
		bsGridTree_Build(&tree, &grid, &tdef, &ts) == bs_ok;
	free(tris);
	bsWorldDef wd = bsDefaultWorldDef();
	wd.threads = 1;
	bsWorld* world = ok ? bsWorld_Create(&wd) : NULL;
	bsParticles p = {0};
	ok = world != NULL && bsParticles_Alloc(&p, (size_t)count) == bs_ok;
	if (ok)
	{
		printf("\ndistance/normal field: %lld particles in the cube [-1.4, 1.4]^3 around a unit sphere (%u triangles, "
			"%d x %d x %d grid: dense %.2f MB, compressed %.2f MB, blocks of %d, %u of %u planes), impact (beta 0.5, "
			"L 0.02), best of %d passes, CPU time of one thread\n", count, triCount, grid.nx, grid.ny, grid.nz,
			1e-6 * (double)ts.denseBytes, 1e-6 * (double)ts.treeBytes, tdef.blockSize, ts.planes, ts.blocks,
			bs_benchFieldSteps);
		printf("  %-10s %-10s %-8s %22s %22s\n", "grid", "lookup", "order", "rule M steps/s/core",
			"step M steps/s/core");
	}
	for (int run = 0; ok && run < 8; ++run)
	{
		bool trilinear = (run & 1) != 0, compressed = (run & 2) != 0, sorted = run >= 4;
		bsStepDef def = bsDefaultStepDef();
		def.dt = 1e-3;
		def.gravity = bsV3(0.0, -9.81, 0.0);
		def.fieldGrid = compressed ? NULL : &grid;
		def.fieldTree = compressed ? &tree : NULL;
		def.field.threshold = 0.02;
		def.field.restitution = 0.5;
		def.field.trilinear = trilinear;
		bsVec3 lo = bsV3(-1.4, -1.4, -1.4), hi = bsV3(1.4, 1.4, 1.4), v = bsV3(0.0, -2.0, 0.0);
		bsFieldScatter(&p, seed, lo, hi, v, &grid, sorted);
		double rule = bsFieldTimeRule(&def, &p);
		bsFieldScatter(&p, seed, lo, hi, v, &grid, sorted);
		double step = bsFieldTimeStep(world, &def, &p, &ok);
		*checksum = bsFieldHash(*checksum, &p);
		kindHash[compressed] = bsFieldHash(kindHash[compressed], &p);
		printf("  %-10s %-10s %-8s %22.1f %22.1f\n", compressed ? "compressed" : "dense",
			trilinear ? "trilinear" : "nearest", sorted ? "cells" : "random", 1e-6 * (double)count / rule,
			1e-6 * (double)count / step);
	}
	if (ok)
	{
		printf("  final states: dense rows %016" PRIx64 ", compressed rows %016" PRIx64 "\n", kindHash[0], kindHash[1]);
	}
	fflush(stdout);
	bsParticles_Free(&p);
	bsWorld_Destroy(world);
	bsGridTree_Free(&tree);
	bsDistanceGrid_Free(&grid);
	return ok;
}

// ---- part 2: the paper's Table 1 ----

// The scene of Table 1, about 12,000 triangles: a heightfield of 56 x 56 cells with 40 boxes (the
// benchmark's BVH scene, smaller) and a sphere of 5,120 triangles, radius 0.2, resting on it.
static bsResult bsTable1Scene(uint64_t seed, bsTriangle** tris, uint32_t* count)
{
	bsTriangle* ground = NULL;
	bsTriangle* ball = NULL;
	uint32_t nGround = 0, nBall = 0;
	bsResult r = bsMakeHeightfieldScene(seed, 56, 40, &ground, &nGround);
	r = r == bs_ok ? bsMakeIcosphere(4, 0.2, 0.0, false, &ball, &nBall) : r;
	bsTriangle* all = r == bs_ok ? malloc((size_t)(nGround + nBall) * sizeof *all) : NULL;
	r = r == bs_ok && all == NULL ? bs_errOutOfMemory : r;
	if (r == bs_ok)
	{
		memcpy(all, ground, nGround * sizeof *all);
		bsVec3 centre = bsV3(0.5, 0.25, 0.5);
		for (uint32_t i = 0; i < nBall && r == bs_ok; ++i)
		{
			const bsTriangle* t = ball + i;
			r = bsMakeTriangle(bsAdd(t->p1, centre), bsAdd(t->p2, centre), bsAdd(t->p3, centre), all + nGround + i);
		}
	}
	free(ground);
	free(ball);
	if (r != bs_ok)
	{
		free(all);
		all = NULL;
	}
	*tris = all;
	*count = r == bs_ok ? nGround + nBall : 0;
	return r;
}

typedef struct bsTable1
{
	bsTriangle* tris;
	uint32_t triCount;
	bsDistanceGrid grid;
	bsGridTree tree;
	bsGridTreeStats treeStats;
	bsBvh bvh;
} bsTable1;

typedef enum bsTable1System
{
	bs_table1None,
	bs_table1Compressed,
	bs_table1Dense,
	bs_table1Bvh,
	bs_table1Count
} bsTable1System;

static const char* const bs_table1Names[bs_table1Count] = {"none", "compressed grid", "dense grid",
	"swept-sphere BVH"};

// The paper's FPS of Table 1 (800 particles, 1.5 GHz PC, Opcode's AABB tree for the last).
static const int bs_table1PaperFps[bs_table1Count] = {1800, 1250, 950, 450};
static const char* const bs_table1PaperMemory[bs_table1Count] = {"none", "670 kB", "3.7 MB", "not known"};

enum
{
	bs_table1Steps = 50,  // 0.5 s of fall, impact and bounces
};

// Particles close to the objects: uniform above the ground (heights within +-0.15) up to 0.5, outside
// the sphere, falling at 1 unit/s.
static void bsTable1Scatter(bsParticles* p, uint64_t seed)
{
	uint64_t s = seed;
	for (size_t i = 0; i < p->count; ++i)
	{
		bsVec3 x;
		do
		{
			x = bsV3(0.02 + 0.96 * bsFieldUniform(&s), 0.16 + 0.34 * bsFieldUniform(&s), 0.02 + 0.96 * bsFieldUniform(&s));
		} while (bsDistance(x, bsV3(0.5, 0.25, 0.5)) < 0.21);
		p->position[i] = x;
		p->velocity[i] = bsV3(0.0, -1.0, 0.0);
		p->radius[i] = 0.002;
		p->state[i] = bs_particleFree;
	}
}

// CPU seconds per step of count particles with one system on one thread: `repeats` runs of
// bs_table1Steps steps from the same start; the final state is folded into *checksum.
static double bsTable1Time(const bsTable1* t, bsTable1System system, long long count, int repeats, uint64_t seed,
	uint64_t* checksum, bool* ok)
{
	bsWorldDef wd = bsDefaultWorldDef();
	wd.threads = 1;
	bsWorld* world = bsWorld_Create(&wd);
	bsParticles p = {0};
	*ok = *ok && world != NULL && bsParticles_Alloc(&p, (size_t)count) == bs_ok &&
		(system != bs_table1Bvh || bsWorld_AddMesh(world, &t->bvh) == bs_ok);
	bsStepDef def = bsDefaultStepDef();
	def.dt = 1.0 / 100.0;
	def.gravity = bsV3(0.0, -9.81, 0.0);
	def.response = bs_responseBounce;
	def.restitution = 0.5;
	def.fieldGrid = system == bs_table1Dense ? &t->grid : NULL;
	def.fieldTree = system == bs_table1Compressed ? &t->tree : NULL;
	def.field.threshold = 0.01;
	def.field.restitution = 0.5;
	double seconds = 0.0;
	for (int r = 0; r < repeats && *ok; ++r)
	{
		bsTable1Scatter(&p, seed);
		double c0 = bsCpuNow();
		for (int s = 0; s < bs_table1Steps && *ok; ++s)
		{
			*ok = bsWorld_Step(world, &def, &p, NULL) == bs_ok;
		}
		seconds += bsCpuNow() - c0;
	}
	*checksum = *ok ? bsFieldHash(*checksum, &p) : *checksum;
	bsParticles_Free(&p);
	bsWorld_Destroy(world);
	return seconds / ((double)repeats * bs_table1Steps);
}

static uint64_t bsTable1Memory(const bsTable1* t, bsTable1System system)
{
	return system == bs_table1Compressed ? t->treeStats.treeBytes
		: system == bs_table1Dense ? t->treeStats.denseBytes
		: system == bs_table1Bvh ? (uint64_t)bsBvh_Bytes(&t->bvh) : 0u;
}

static void bsTable1Rows(const bsTable1* t, long long count, uint64_t seed, uint64_t* checksum, bool* ok)
{
	// About 4 million particle-steps a system, at least one run.
	long long runs = 4000000 / ((count > 0 ? count : 1) * bs_table1Steps);
	int repeats = runs < 1 ? 1 : (int)runs;
	printf("  %lld particles, %d run%s of %d steps of 0.01 s:\n", count, repeats, repeats == 1 ? "" : "s", bs_table1Steps);
	printf("    %-17s %12s %12s %12s %12s %10s %12s\n", "system", "ms/step", "steps/s", "loss ms", "ns/particle",
		"memory", "paper fps");
	double none = 0.0;
	for (int s = 0; s < bs_table1Count && *ok; ++s)
	{
		double sec = bsTable1Time(t, (bsTable1System)s, count, repeats, seed, checksum, ok);
		none = s == bs_table1None ? sec : none;
		printf("    %-17s %12.4f %12.0f %12.4f %12.1f %9.2fM %12d\n", bs_table1Names[s], 1e3 * sec, 1.0 / sec,
			1e3 * (sec - none), 1e9 * (sec - none) / (double)count, 1e-6 * (double)bsTable1Memory(t, (bsTable1System)s),
			bs_table1PaperFps[s]);
	}
	fflush(stdout);
}

static bool bsBenchTable1(long long count, uint64_t seed, uint64_t* checksum)
{
	bsTable1 t;
	memset(&t, 0, sizeof t);
	bsDistanceGridDef gdef = bsDefaultDistanceGridDef();
	// Beyond 0.1 the rules cannot act: the threshold 0.01 plus the fastest fall's 0.04 a step.
	bsGridTreeDef tdef = bsDefaultGridTreeDef();
	tdef.farDistance = 0.1;
	bool ok = bsTable1Scene(seed, &t.tris, &t.triCount) == bs_ok &&
		bsDistanceGrid_Build(&t.grid, t.tris, t.triCount, &gdef, NULL) == bs_ok &&
		bsGridTree_Build(&t.tree, &t.grid, &tdef, &t.treeStats) == bs_ok &&
		bsBvh_Build(&t.bvh, t.tris, t.triCount, NULL) == bs_ok;
	if (ok)
	{
		printf("\nTable 1 (Ilmonen et al. 2006): %u triangles (a heightfield with 40 boxes and a sphere), %d x %d x %d "
			"grid (compressed: blocks of %d, %u of %u planes, %u of them beyond %g, errors %.3f cells, %.1f deg), gravity, impact beta 0.5 "
			"L 0.01 (the grids) or bounce 0.5 (the BVH), CPU time of one thread; the paper's FPS for 800 particles; "
			"its memory: %s, %s, %s\n", t.triCount, t.grid.nx, t.grid.ny, t.grid.nz, tdef.blockSize, t.treeStats.planes,
			t.treeStats.blocks, t.treeStats.farPlanes, tdef.farDistance, t.treeStats.maxDistanceError / t.grid.cellSize,
			t.treeStats.maxAngle * (180.0 / BS_PI),
			bs_table1PaperMemory[1], bs_table1PaperMemory[2], bs_table1PaperMemory[3]);
		bsTable1Rows(&t, 800, seed, checksum, &ok);
		bsTable1Rows(&t, count, seed, checksum, &ok);
	}
	bsBvh_Destroy(&t.bvh);
	bsGridTree_Free(&t.tree);
	bsDistanceGrid_Free(&t.grid);
	free(t.tris);
	return ok;
}

int bsBenchField(long long count, uint64_t seed, int gridResolution, uint64_t* checksum)
{
	bool ok = bsBenchFieldRate(count, seed, gridResolution, checksum) && bsBenchTable1(count, seed, checksum);
	if (!ok)
	{
		fprintf(stderr, "blobsim bench: the field part failed (out of memory)\n");
	}
	return ok ? 0 : 1;
}
