// bench_particles.c — the particle-system part of `blobsim bench`: N particles packed in a box with
// granular interaction, timed with 1 and 2 threads.
//
// The particles start on a jittered cubic lattice of spacing 1.9 r (radii r [0.9, 1.1]) on the floor
// of a box of planes, so each touches its six lattice neighbours: the state of a settled pile without
// the minutes of simulation that settling a million particles would take. One step is one substep
// of t_c / 50 (as the substep rule asks). Each thread count gets its own world and its own copy of
// the same start; the steps are timed one by one and the median counts. The grid's build is timed
// apart (the same build the step does), and the same steps without interaction give the ratio.
#include "bench_particles.h"

#include "neighbour_grid.h"
#include "world_internal.h"

#include "blobsim/base.h"
#include "blobsim/collide.h"
#include "blobsim/rng.h"
#include "blobsim/step.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum
{
	bs_benchParticleSteps = 5,  // timed steps per thread count
};

static const double bs_benchRadius = 0.01;

// The lattice of count particles: a cube of side n = ceil(count^(1/3)) cells, filled layer by layer
// from the floor, in a box just wider than it.
static bsResult bsBenchPack(size_t count, uint64_t seed, bsParticles* p, double* halfWidth)
{
	bsResult r = bsParticles_Alloc(p, count);
	if (r != bs_ok)
	{
		return r;
	}
	size_t n = (size_t)ceil(cbrt((double)count));
	double spacing = 1.9 * bs_benchRadius;
	*halfWidth = 0.5 * (double)n * spacing + 2.0 * bs_benchRadius;
	bsRng rng = bsMakeRng(seed);
	for (size_t i = 0; i < count; ++i)
	{
		size_t x = i % n, z = i / n % n, y = i / (n * n);
		double jitter = 0.02 * bs_benchRadius;
		p->position[i] = bsV3(-*halfWidth + 2.0 * bs_benchRadius + ((double)x + 0.5) * spacing + bsRng_Range(&rng, -jitter, jitter),
			bs_benchRadius * 1.1 + (double)y * spacing,
			-*halfWidth + 2.0 * bs_benchRadius + ((double)z + 0.5) * spacing + bsRng_Range(&rng, -jitter, jitter));
		p->radius[i] = bs_benchRadius * bsRng_Range(&rng, 0.9, 1.1);
		p->velocity[i] = bsV3(0.0, 0.0, 0.0);
		p->state[i] = bs_particleFree;
	}
	return bs_ok;
}

bsResult bsBenchCopyParticles(const bsParticles* from, bsParticles* to)
{
	bsResult r = bsParticles_Alloc(to, from->count);
	if (r == bs_ok)
	{
		memcpy(to->position, from->position, from->count * sizeof(bsVec3));
		memcpy(to->velocity, from->velocity, from->count * sizeof(bsVec3));
		memcpy(to->radius, from->radius, from->count * sizeof(double));
		memcpy(to->state, from->state, from->count);
	}
	return r;
}

static int bsCompareDoubles(const void* a, const void* b)
{
	double x = *(const double*)a, y = *(const double*)b;
	return (x > y) - (x < y);
}

static double bsMedian(double* values, int count)
{
	qsort(values, (size_t)count, sizeof(double), bsCompareDoubles);
	return values[count / 2];
}

typedef struct bsParticleTiming
{
	double stepSeconds;    // median
	double cpuSeconds;     // median CPU seconds of a step, all threads
	double gridSeconds;    // median grid build
	uint64_t pairs;        // of the last step: neighbours within reach, both ways
	uint64_t contacts;     // of the last step: overlapping pairs, both ways
	size_t gridBytes;
	size_t listBytes;      // the world's neighbour lists (neighbour_list.h)
	double entries;        // list entries a particle
	uint64_t hash;         // of the final positions and velocities
} bsParticleTiming;

static uint64_t bsHashParticles(const bsParticles* p)
{
	uint64_t h = bsFnv1a(BS_FNV1A_BASIS, p->position, p->count * sizeof(bsVec3));
	return bsFnv1a(h, p->velocity, p->count * sizeof(bsVec3));
}

// Steps a copy of start with threads threads (interaction as def says) and times it.
static bsResult bsTimeParticles(const bsParticles* start, const bsStepDef* def, const bsPlane* planes, int threads,
	bsParticleTiming* out)
{
	bsParticles p = {0};
	bsWorldDef wd = bsDefaultWorldDef();
	wd.threads = threads;
	bsWorld* world = bsWorld_Create(&wd);
	bsPool* pool = bsPool_Create(threads);
	bsResult r = world == NULL || pool == NULL ? bs_errOutOfMemory : bsBenchCopyParticles(start, &p);
	r = r == bs_ok ? bsWorld_AddPlanes(world, planes, 5) : r;
	double steps[bs_benchParticleSteps], grids[bs_benchParticleSteps], cpus[bs_benchParticleSteps];
	bsNeighbourGrid grid;
	memset(&grid, 0, sizeof(grid));
	memset(out, 0, sizeof(*out));
	double reach = bsInteractionDef_Reach(&def->interaction);
	for (int k = -1; r == bs_ok && k < bs_benchParticleSteps; ++k)
	{
		// The grid alone, as the step builds it (k = -1 warms both up: the arrays grow once).
		double t0 = bsNow();
		r = bsNeighbourGrid_Build(&grid, &p, reach, pool);
		double t1 = bsNow(), c1 = bsCpuNow();
		bsStepStats stats;
		memset(&stats, 0, sizeof(stats));
		r = r == bs_ok ? bsWorld_Step(world, def, &p, &stats) : r;
		double t2 = bsNow(), c2 = bsCpuNow();
		if (k >= 0)
		{
			grids[k] = t1 - t0;
			steps[k] = t2 - t1;
			cpus[k] = c2 - c1;
		}
		out->pairs = stats.pairs;
		out->contacts = stats.contactPairs;
	}
	if (r == bs_ok)
	{
		out->stepSeconds = bsMedian(steps, bs_benchParticleSteps);
		out->cpuSeconds = bsMedian(cpus, bs_benchParticleSteps);
		out->gridSeconds = bsMedian(grids, bs_benchParticleSteps);
		out->gridBytes = bsNeighbourGrid_Bytes(&world->grid);
		out->listBytes = bsNeighbourList_Bytes(&world->pairs);
		out->entries = (double)world->pairs.entryCount / (double)p.count;
		out->hash = bsHashParticles(&p);
	}
	bsNeighbourGrid_Free(&grid);
	bsPool_Destroy(pool);
	bsWorld_Destroy(world);
	bsParticles_Free(&p);
	return r;
}

int bsBenchParticles(long long count, uint64_t seed, uint64_t* checksum)
{
	printf("\nparticle system: %lld particles packed in a box (lattice 1.9 r, r %g +-10%%), granular "
		"interaction (defaults: e 0.5, t_c 0.005 s, mu 0.5), one substep of t_c / 50 a step, median of %d "
		"steps\n", count, bs_benchRadius, bs_benchParticleSteps);
	fflush(stdout);
	bsParticles start = {0};
	double w = 0.0;
	if (bsBenchPack((size_t)count, seed, &start, &w) != bs_ok)
	{
		fprintf(stderr, "blobsim bench: out of memory for %lld particles\n", count);
		return 1;
	}
	bsPlane planes[5];
	bsMakePlane(bsV3(0, 0, 0), bsV3(0, 1, 0), planes + 0);
	bsMakePlane(bsV3(-w, 0, 0), bsV3(1, 0, 0), planes + 1);
	bsMakePlane(bsV3(w, 0, 0), bsV3(-1, 0, 0), planes + 2);
	bsMakePlane(bsV3(0, 0, -w), bsV3(0, 0, 1), planes + 3);
	bsMakePlane(bsV3(0, 0, w), bsV3(0, 0, -1), planes + 4);
	bsStepDef def = bsDefaultStepDef();
	def.gravity = bsV3(0.0, -9.81, 0.0);
	def.method = bs_methodExact;
	def.response = bs_responseSlide;
	def.interaction.type = bs_interactionGranular;
	def.dt = def.interaction.contactTime / BS_SUBSTEPS_PER_PERIOD;
	def.substeps = 1;
	bsStepDef none = def;
	none.interaction.type = bs_interactionNone;

	printf("  (wall ms; cpu ms: CPU time of all threads, which a loaded machine does not inflate)\n");
	printf("  %-8s %10s %10s %10s %14s %14s %12s %8s\n", "threads", "ms/step", "cpu ms", "grid ms",
		"pairs/particle", "contacts/s", "no-inter ms", "ratio");
	int status = 0;
	uint64_t hashes[2] = {0, 0};
	size_t gridBytes = 0, listBytes = 0;
	double entries = 0.0;
	for (int threads = 1; threads <= 2 && status == 0; ++threads)
	{
		bsParticleTiming with, without;
		if (bsTimeParticles(&start, &def, planes, threads, &with) != bs_ok ||
			bsTimeParticles(&start, &none, planes, threads, &without) != bs_ok)
		{
			fprintf(stderr, "blobsim bench: the particle system failed (out of memory?)\n");
			status = 1;
			break;
		}
		hashes[threads - 1] = with.hash;
		gridBytes = with.gridBytes;
		listBytes = with.listBytes;
		entries = with.entries;
		// contacts are counted from both sides: pairs = contacts / 2.
		printf("  %-8d %10.1f %10.1f %10.1f %14.2f %14.3g %12.1f %8.1f\n", threads, 1e3 * with.stepSeconds,
			1e3 * with.cpuSeconds, 1e3 * with.gridSeconds, (double)with.pairs / (double)count,
			0.5 * (double)with.contacts / with.stepSeconds, 1e3 * without.stepSeconds,
			with.stepSeconds / without.stepSeconds);
	}
	if (status == 0)
	{
		printf("  memory: %.1f bytes a particle (57 the particle arrays + %.1f the neighbour grid + %.1f the "
			"neighbour lists, %.1f entries a particle)\n", 57.0 + (double)(gridBytes + listBytes) / (double)count,
			(double)gridBytes / (double)count, (double)listBytes / (double)count, entries);
		printf("  same bytes at 1 and 2 threads: %s\n", hashes[0] == hashes[1] ? "yes" : "NO");
		*checksum ^= hashes[0];
		status = hashes[0] == hashes[1] ? 0 : 1;
	}
	bsParticles_Free(&start);
	return status;
}
