// bench_fluid.c — the fluid part of `blobsim bench` (issue 24: time a 1/24-s frame and bytes a
// particle, water and slime, 1 and 2 threads).
//
// The scene is a dam break: a column of n x 2n x n/2 particles of radius 5 mm (configs/dam-break.json's)
// at the rest spacing 2r, at rest on the floor against the left wall of a box of five planes four
// columns wide, as tests/test_fluid.c builds its blocks. Its settings come from the material presets
// through the config reader (particles.material, app/config/config_fluid.c), the step's from the
// dam-break figure's: exact sweeps, slide, no friction, substeps by the fluid's own rule. Each thread
// count steps its own world from the same start for `frames` frames of 1/24 s, each frame timed; the
// median frame counts, and the final states must be the same bytes at 1 and 2 threads. The memory is
// the world's arrays after the last frame: the particles', the neighbour grid's and the solver's.
#include "bench_fluid.h"

#include "bench_particles.h"

#include "config.h"
#include "fluid.h"
#include "neighbour_grid.h"
#include "world_internal.h"

#include "blobsim/base.h"
#include "blobsim/collide.h"
#include "blobsim/step.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum
{
	bs_benchFluidMaxFrames = 64,
};

static const double bs_benchFluidRadius = 0.005;

// The particle arrays' bytes a particle (particles.h: position, velocity, radius, state, id).
#define BS_BENCH_PARTICLE_BYTES (2 * sizeof(bsVec3) + sizeof(double) + sizeof(uint8_t) + sizeof(uint32_t))

typedef struct bsFluidScene
{
	int n[3];          // the column's particles along x, y, z
	bsPlane planes[5];
	bsParticles start;
	bsStepDef def;
} bsFluidScene;

typedef struct bsFluidTiming
{
	double seconds[bs_benchFluidMaxFrames];  // wall, a frame
	double cpu[bs_benchFluidMaxFrames];      // CPU of all threads, a frame
	uint64_t substeps[bs_benchFluidMaxFrames];
	bsStepStats total;                       // summed over the frames (maxima for the errors)
	size_t gridBytes, particleBytes;
	bsFluidBytes fluid;
	uint64_t hash;
} bsFluidTiming;

// The step def of a material preset: the fluid's settings through the config reader, the rest as
// the dam-break figure's.
static bool bsFluidScene_Def(const char* material, bsStepDef* def)
{
	char text[512];
	snprintf(text, sizeof text,
		"{\"environment\": {\"planes\": [{}]}, \"particles\": {\"radius\": %.17g, \"material\": \"%s\", \"emitters\": []}, \"motion\": {\"dt\": %.17g, \"gravity\": "
		"[0, -9.81, 0], \"max_substeps\": 100000}, \"collision\": {\"method\": \"exact\", \"response\": "
		"\"slide\", \"friction\": 0}}", bs_benchFluidRadius, material, 1.0 / 24.0);
	bsConfig config;
	bsConfigError error;
	if (bsConfig_Parse(text, strlen(text), NULL, &config, &error) != bs_ok)
	{
		fprintf(stderr, "blobsim bench: the %s preset: %s\n", material, error.message);
		return false;
	}
	*def = config.step;
	bsConfig_Free(&config);
	return true;
}

// The column of about count particles (n x 2n x n/2) on the floor against the box's left wall.
static bsResult bsFluidScene_Init(bsFluidScene* s, long long count)
{
	int n = (int)lround(cbrt((double)count));
	n = n < 2 ? 2 : n;
	s->n[0] = n;
	s->n[1] = 2 * n;
	s->n[2] = n / 2;
	size_t total = (size_t)s->n[0] * (size_t)s->n[1] * (size_t)s->n[2];
	bsResult r = bsParticles_Alloc(&s->start, total);
	double r0 = bs_benchFluidRadius;
	for (size_t i = 0; r == bs_ok && i < total; ++i)
	{
		size_t x = i % (size_t)s->n[0], y = i / (size_t)s->n[0] % (size_t)s->n[1];
		size_t z = i / ((size_t)s->n[0] * (size_t)s->n[1]);
		s->start.position[i] = bsV3((2.0 * (double)x + 1.0) * r0, (2.0 * (double)y + 1.0) * r0,
			(2.0 * (double)z + 1.0) * r0);
		s->start.radius[i] = r0;
		s->start.state[i] = bs_particleFree;
	}
	double width = 4.0 * 2.0 * r0 * s->n[0], depth = 2.0 * r0 * s->n[2];
	bsMakePlane(bsV3(0, 0, 0), bsV3(0, 1, 0), s->planes + 0);
	bsMakePlane(bsV3(0, 0, 0), bsV3(1, 0, 0), s->planes + 1);
	bsMakePlane(bsV3(width, 0, 0), bsV3(-1, 0, 0), s->planes + 2);
	bsMakePlane(bsV3(0, 0, 0), bsV3(0, 0, 1), s->planes + 3);
	bsMakePlane(bsV3(0, 0, depth), bsV3(0, 0, -1), s->planes + 4);
	return r;
}

// Steps a copy of the scene's start `frames` frames with `threads` threads, each frame timed.
static bsResult bsTimeFluid(const bsFluidScene* s, int threads, int frames, bsFluidTiming* out)
{
	memset(out, 0, sizeof(*out));
	bsParticles p = {0};
	bsWorldDef wd = bsDefaultWorldDef();
	wd.threads = threads;
	bsWorld* world = bsWorld_Create(&wd);
	bsResult r = world == NULL ? bs_errOutOfMemory : bsBenchCopyParticles(&s->start, &p);
	r = r == bs_ok ? bsWorld_AddPlanes(world, s->planes, 5) : r;
	for (int k = 0; r == bs_ok && k < frames; ++k)
	{
		bsStepStats stats;
		memset(&stats, 0, sizeof(stats));
		double t0 = bsNow(), c0 = bsCpuNow();
		r = bsWorld_Step(world, &s->def, &p, &stats);
		out->seconds[k] = bsNow() - t0;
		out->cpu[k] = bsCpuNow() - c0;
		out->substeps[k] = stats.fluidSubsteps;
		bsStepStats_Add(&out->total, &stats);
	}
	if (r == bs_ok)
	{
		out->particleBytes = p.capacity * BS_BENCH_PARTICLE_BYTES;
		out->gridBytes = bsNeighbourGrid_Bytes(&world->grid);
		if (world->fluid != NULL)
		{
			out->fluid = bsFluid_ByteParts(world->fluid);
		}
		out->hash = bsFnv1a(bsFnv1a(BS_FNV1A_BASIS, p.position, p.count * sizeof(bsVec3)), p.velocity,
			p.count * sizeof(bsVec3));
	}
	bsWorld_Destroy(world);
	bsParticles_Free(&p);
	return r;
}

static int bsCompareSeconds(const void* a, const void* b)
{
	double x = *(const double*)a, y = *(const double*)b;
	return (x > y) - (x < y);
}

static double bsMedianOf(const double* values, int count)
{
	double sorted[bs_benchFluidMaxFrames];
	memcpy(sorted, values, (size_t)count * sizeof(double));
	qsort(sorted, (size_t)count, sizeof(double), bsCompareSeconds);
	return count % 2 == 1 ? sorted[count / 2] : 0.5 * (sorted[count / 2 - 1] + sorted[count / 2]);
}

static void bsPrintFluidRow(int threads, int frames, size_t count, const bsFluidTiming* t)
{
	double substeps = (double)t->total.fluidSubsteps;
	double per = substeps > 0.0 ? 1.0 / substeps : 0.0;
	double cpu = 0.0;
	for (int k = 0; k < frames; ++k)
	{
		cpu += t->cpu[k];
	}
	printf("  %-8d %9.3f %9.3f %9.1f %8.1f %8.1f %8.1f %8" PRIu64 " %7.1f %9.2g %9.2f  ", threads,
		bsMedianOf(t->seconds, frames), bsMedianOf(t->cpu, frames), substeps / frames,
		(double)t->total.divergenceIterations * per, (double)t->total.densityIterations * per,
		(double)t->total.viscosityIterations * per, t->total.unconverged, (double)t->total.pairs * per / (double)count,
		t->total.densityErrorMean, 1e6 * cpu * per / (double)count);
	for (int k = 0; k < frames; ++k)
	{
		printf("%s%.3f/%.3f/%" PRIu64, k == 0 ? "" : " ", t->seconds[k], t->cpu[k], t->substeps[k]);
	}
	printf("\n");
}

static void bsPrintFluidMemory(size_t count, const bsFluidTiming* t)
{
	double n = (double)count;
	const bsFluidBytes* f = &t->fluid;
	size_t solver = f->lists + f->slots + f->walls + f->particles + f->chunks;
	printf("  memory: %.1f bytes a particle = particles %.1f + neighbour grid %.1f + solver %.1f (neighbour "
		"lists and pair factors %.1f, by-slot arrays %.1f, wall records %.1f, warm starts %.1f, chunks %.1f)\n",
		(double)(t->particleBytes + t->gridBytes + solver) / n, (double)t->particleBytes / n,
		(double)t->gridBytes / n, (double)solver / n, (double)f->lists / n, (double)f->slots / n,
		(double)f->walls / n, (double)f->particles / n, (double)f->chunks / n);
}

static int bsBenchFluidMaterial(long long count, int frames, const char* material, uint64_t* checksum)
{
	bsFluidScene s;
	memset(&s, 0, sizeof(s));
	if (!bsFluidScene_Def(material, &s.def) || bsFluidScene_Init(&s, count) != bs_ok)
	{
		fprintf(stderr, "blobsim bench: the fluid part failed to set up %s (out of memory?)\n", material);
		bsParticles_Free(&s.start);
		return 1;
	}
	const bsFluidDef* f = &s.def.interaction.fluid;
	printf("\nfluid, %s: %zu particles, a dam-break column %d x %d x %d (r %g m, spacing 2r) against the "
		"left wall of a box of 5 planes 4 columns wide; preset %s (rho %g, nu %g m^2/s, gamma %g, beta %g); "
		"%d frames of 1/24 s from rest, the median frame\n", material, s.start.count, s.n[0], s.n[1], s.n[2],
		bs_benchFluidRadius, material, s.def.interaction.density, f->kinematicViscosity, f->surfaceTension,
		f->adhesion, frames);
	printf("  (s/frame: wall, the median frame; cpu s: CPU of all threads, the median frame; substeps a frame; "
		"iterations a substep; unconv.: solves stopped at their limit; pairs: listed neighbours a particle; "
		"err: largest mean compression; us/ps: CPU microseconds a particle a substep, all frames; each "
		"frame: wall s/CPU s/substeps)\n");
	printf("  %-8s %9s %9s %9s %8s %8s %8s %8s %7s %9s %9s  %s\n", "threads", "s/frame", "cpu s", "substeps",
		"div it", "dens it", "visc it", "unconv.", "pairs", "err", "us/ps", "frames");
	fflush(stdout);
	uint64_t hashes[2] = {0, 0};
	int status = 0;
	for (int threads = 1; threads <= 2 && status == 0; ++threads)
	{
		bsFluidTiming t;
		if (bsTimeFluid(&s, threads, frames, &t) != bs_ok)
		{
			fprintf(stderr, "blobsim bench: the fluid part failed (out of memory?)\n");
			status = 1;
			break;
		}
		bsPrintFluidRow(threads, frames, s.start.count, &t);
		if (threads == 2)
		{
			bsPrintFluidMemory(s.start.count, &t);
		}
		fflush(stdout);
		hashes[threads - 1] = t.hash;
	}
	if (status == 0)
	{
		printf("  same bytes at 1 and 2 threads: %s\n", hashes[0] == hashes[1] ? "yes" : "NO");
		*checksum ^= hashes[0];
		status = hashes[0] == hashes[1] ? 0 : 1;
	}
	bsParticles_Free(&s.start);
	return status;
}

int bsBenchFluid(long long count, int frames, unsigned materials, uint64_t* checksum)
{
	frames = frames < 1 ? 1 : (frames > bs_benchFluidMaxFrames ? bs_benchFluidMaxFrames : frames);
	int status = 0;
	if ((materials & bs_benchFluidWater) != 0)
	{
		status = bsBenchFluidMaterial(count, frames, "water", checksum);
	}
	if ((materials & bs_benchFluidSlime) != 0 && status == 0)
	{
		status = bsBenchFluidMaterial(count, frames, "slime", checksum);
	}
	return status;
}
