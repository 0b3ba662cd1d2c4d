// bench_field.c — the lookup rate of the distance/normal field (bench_field.h).
#include "bench_field.h"

#include "procedural.h"

#include "blobsim/distance_grid.h"
#include "blobsim/field.h"
#include "blobsim/hash.h"
#include "blobsim/particles.h"
#include "blobsim/step.h"
#include "blobsim/timer.h"
#include "blobsim/world.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum
{
	bs_benchFieldSteps = 5,  // steps timed, the best kept
};

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

// Positions uniform in the cube [-1.4, 1.4]^3 around the unit sphere (a splitmix64 stream), falling at
// 2 units/s; sorted: in the grid's cell order (x fastest), so that neighbours in memory are
// neighbours in space, as a coherent stream's particles are; else in random order (a cache miss a
// lookup once the grid outgrows the cache).
static void bsFieldScatter(bsParticles* p, uint64_t seed, const bsDistanceGrid* g, bool sorted)
{
	uint64_t s = seed;
	for (size_t i = 0; i < p->count; ++i)
	{
		double u[3];
		for (int k = 0; k < 3; ++k)
		{
			uint64_t z = (s += 0x9e3779b97f4a7c15ull);
			z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
			z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
			u[k] = (double)((z ^ (z >> 31)) >> 11) * 0x1.0p-53 * 2.8 - 1.4;
		}
		p->position[i] = bsV3(u[0], u[1], u[2]);
		p->velocity[i] = bsV3(0.0, -2.0, 0.0);
		p->radius[i] = 0.01;
	}
	if (sorted)
	{
		bs_sortGrid = g;
		qsort(p->position, p->count, sizeof(bsVec3), bsFieldCompareCells);
	}
}

static uint64_t bsFieldHash(uint64_t h, const bsParticles* p)
{
	return bsFnv1a(h, p->velocity, p->count * sizeof(bsVec3));
}

// The rule alone: the best of the runs' CPU seconds for one pass over the particles.
static double bsFieldTimeRule(const bsDistanceGrid* g, const bsFieldDef* def, bsParticles* p)
{
	double best = 1e300;
	for (int k = 0; k < bs_benchFieldSteps; ++k)
	{
		double c0 = bsCpuNow();
		for (size_t i = 0; i < p->count; ++i)
		{
			bsField_Apply(g, def, p->position[i], 1e-3, &p->velocity[i]);
		}
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

int bsBenchField(long long count, uint64_t seed, uint64_t* checksum)
{
	bsTriangle* tris = NULL;
	uint32_t triCount = 0;
	bsDistanceGridDef gdef = bsDefaultDistanceGridDef();
	bsDistanceGrid grid;
	memset(&grid, 0, sizeof grid);
	if (bsMakeIcosphere(4, 1.0, 0.0, false, &tris, &triCount) != bs_ok ||
		bsDistanceGrid_Build(&grid, tris, triCount, &gdef, NULL) != bs_ok)
	{
		free(tris);
		fprintf(stderr, "blobsim bench: cannot build the field's grid\n");
		return 1;
	}
	free(tris);
	printf("\ndistance/normal field: %lld particles in the cube [-1.4, 1.4]^3 around a unit sphere "
		"(%u triangles, %d x %d x %d grid), impact (beta 0.5, L 0.02), best of %d passes, CPU time of one "
		"thread\n", count, triCount, grid.nx, grid.ny, grid.nz, bs_benchFieldSteps);
	printf("  %-10s %-8s %22s %22s\n", "lookup", "order", "rule M steps/s/core", "step M steps/s/core");
	bsWorldDef wd = bsDefaultWorldDef();
	wd.threads = 1;
	bsWorld* world = bsWorld_Create(&wd);
	bsParticles p = {0};
	bool ok = world != NULL && bsParticles_Alloc(&p, (size_t)count) == bs_ok;
	for (int run = 0; ok && run < 4; ++run)
	{
		int trilinear = run & 1;
		bool sorted = run >= 2;
		bsStepDef def = bsDefaultStepDef();
		def.dt = 1e-3;
		def.gravity = bsV3(0.0, -9.81, 0.0);
		def.fieldGrid = &grid;
		def.field.threshold = 0.02;
		def.field.restitution = 0.5;
		def.field.trilinear = trilinear == 1;
		bsFieldScatter(&p, seed, &grid, sorted);
		double rule = bsFieldTimeRule(&grid, &def.field, &p);
		bsFieldScatter(&p, seed, &grid, sorted);
		double step = bsFieldTimeStep(world, &def, &p, &ok);
		*checksum = bsFieldHash(*checksum, &p);
		printf("  %-10s %-8s %22.1f %22.1f\n", trilinear ? "trilinear" : "nearest", sorted ? "cells" : "random",
			1e-6 * (double)count / rule,
			1e-6 * (double)count / step);
	}
	fflush(stdout);
	bsParticles_Free(&p);
	bsWorld_Destroy(world);
	bsDistanceGrid_Free(&grid);
	if (!ok)
	{
		fprintf(stderr, "blobsim bench: the field part failed (out of memory)\n");
	}
	return ok ? 0 : 1;
}
