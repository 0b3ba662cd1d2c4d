// neighbour_grid.c — the uniform grid of the free particles (neighbour_grid.h).
#include "blobsim/neighbour_grid.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum
{
	bs_gridGrain = 4096,     // particles per chunk of the grid's parallel passes
	bs_gridMaxCell = 1 << 30  // cell coordinates are clamped here (|a - b| never grows by clamping)
};

static void bsGrid_For(bsPool* pool, size_t count, bsRangeFn* fn, void* context)
{
	if (pool != NULL)
	{
		bsPool_For(pool, count, bs_gridGrain, fn, context);
	}
	else if (count > 0)
	{
		fn(context, 0, count, 0);
	}
}

// Grows *array to hold count elements of size bytes; false (array kept) when out of memory.
static bool bsGrow(void** array, size_t* capacity, size_t count, size_t size)
{
	if (*capacity >= count)
	{
		return true;
	}
	if (count > SIZE_MAX / size)
	{
		return false;
	}
	void* grown = realloc(*array, count * size);
	if (grown == NULL)
	{
		return false;
	}
	*array = grown;
	*capacity = count;
	return true;
}

// --- bounds: the free particles' box, largest radius and count ---

typedef struct bsGridBounds
{
	bsVec3 lo, hi;
	double radius, smallest;
	size_t count;
	char padding[64];
} bsGridBounds;

typedef struct bsBoundsJob
{
	const bsParticles* particles;
	bsGridBounds* workers;
} bsBoundsJob;

// Plain comparisons, which the compiler inlines (fmin and fmax are calls into libm, a tenth of the
// build's time); positions and radii are finite (bsParticleDef_Check), so NaN rules do not matter.
static inline double bsLower(double a, double b)
{
	return b < a ? b : a;
}

static inline double bsHigher(double a, double b)
{
	return b > a ? b : a;
}

static void bsBounds_Range(void* context, size_t begin, size_t end, int worker)
{
	bsBoundsJob* job = context;
	const bsParticles* p = job->particles;
	bsGridBounds* b = job->workers + worker;
	bsGridBounds local = *b;
	for (size_t i = begin; i < end; ++i)
	{
		if (p->state[i] == bs_particleFree)
		{
			bsVec3 x = p->position[i];
			local.lo = bsV3(bsLower(local.lo.x, x.x), bsLower(local.lo.y, x.y), bsLower(local.lo.z, x.z));
			local.hi = bsV3(bsHigher(local.hi.x, x.x), bsHigher(local.hi.y, x.y), bsHigher(local.hi.z, x.z));
			local.radius = bsHigher(local.radius, p->radius[i]);
			local.smallest = bsLower(local.smallest, p->radius[i]);
			local.count += 1;
		}
	}
	*b = local;
}

// Min, max and a count give the same answer in any order, so the workers' shares combine exactly.
static bool bsGrid_Bounds(const bsParticles* p, bsPool* pool, bsGridBounds* out)
{
	int threads = pool != NULL ? bsPool_ThreadCount(pool) : 1;
	bsGridBounds* workers = malloc((size_t)threads * sizeof(bsGridBounds));
	if (workers == NULL)
	{
		return false;
	}
	for (int w = 0; w < threads; ++w)
	{
		workers[w].lo = bsV3(INFINITY, INFINITY, INFINITY);
		workers[w].hi = bsNeg(workers[w].lo);
		workers[w].radius = 0.0;
		workers[w].smallest = INFINITY;
		workers[w].count = 0;
	}
	bsBoundsJob job = {p, workers};
	bsGrid_For(pool, p->count, bsBounds_Range, &job);
	*out = workers[0];
	for (int w = 1; w < threads; ++w)
	{
		out->lo = bsMin(out->lo, workers[w].lo);
		out->hi = bsMax(out->hi, workers[w].hi);
		out->radius = fmax(out->radius, workers[w].radius);
		out->smallest = fmin(out->smallest, workers[w].smallest);
		out->count += workers[w].count;
	}
	free(workers);
	return true;
}

// --- the cells ---

// Cells along one axis from the box's extent, clamped (a huge box of tiny particles wraps anyway).
static double bsCellsAlong(double extent, double cell)
{
	double n = floor(extent / cell) + 1.0;
	return isfinite(n) && n < (double)bs_gridMaxCell ? n : (double)bs_gridMaxCell;
}

// Buckets per axis: the box's cells, each at least 3, their product at most max(27, 2 count) (the
// largest axis halved until it fits, so a flat or long set keeps its shape).
static void bsGrid_Dims(bsNeighbourGrid* g, bsVec3 lo, bsVec3 hi, size_t count)
{
	double n[3] = {bsCellsAlong(hi.x - lo.x, g->cell), bsCellsAlong(hi.y - lo.y, g->cell),
		bsCellsAlong(hi.z - lo.z, g->cell)};
	double budget = fmax(27.0, 2.0 * (double)count);
	for (int a = 0; a < 3; ++a)
	{
		n[a] = fmax(3.0, n[a]);
	}
	while (n[0] * n[1] * n[2] > budget)
	{
		int a = n[0] >= n[1] && n[0] >= n[2] ? 0 : n[1] >= n[2] ? 1 : 2;
		n[a] = fmax(3.0, ceil(n[a] / 2.0));
	}
	for (int a = 0; a < 3; ++a)
	{
		g->dims[a] = (int)n[a];
	}
}

// The cell coordinate of x along one axis: >= 0 for a free particle (the origin is their lowest
// corner), clamped above.
static int64_t bsCellOf(double x, double origin, double inverseCell)
{
	double c = floor((x - origin) * inverseCell);
	return c > 0.0 ? (c < (double)bs_gridMaxCell ? (int64_t)c : bs_gridMaxCell) : 0;
}

static void bsGrid_BucketCoords(const bsNeighbourGrid* g, bsVec3 x, int b[3])
{
	double inverse = g->inverseCell;
	b[0] = (int)((uint32_t)bsCellOf(x.x, g->origin.x, inverse) % (uint32_t)g->dims[0]);
	b[1] = (int)((uint32_t)bsCellOf(x.y, g->origin.y, inverse) % (uint32_t)g->dims[1]);
	b[2] = (int)((uint32_t)bsCellOf(x.z, g->origin.z, inverse) % (uint32_t)g->dims[2]);
}

static uint32_t bsGrid_Bucket(const bsNeighbourGrid* g, bsVec3 x)
{
	int b[3];
	bsGrid_BucketCoords(g, x, b);
	return (uint32_t)(((size_t)b[2] * (size_t)g->dims[1] + (size_t)b[1]) * (size_t)g->dims[0] + (size_t)b[0]);
}

typedef struct bsGridJob
{
	bsNeighbourGrid* grid;
	const bsParticles* particles;
} bsGridJob;

static void bsBucket_Range(void* context, size_t begin, size_t end, int worker)
{
	(void)worker;
	bsGridJob* job = context;
	const bsParticles* p = job->particles;
	for (size_t i = begin; i < end; ++i)
	{
		job->grid->bucketOf[i] = p->state[i] == bs_particleFree ? bsGrid_Bucket(job->grid, p->position[i]) : UINT32_MAX;
	}
}

static void bsCopy_Range(void* context, size_t begin, size_t end, int worker)
{
	(void)worker;
	bsGridJob* job = context;
	bsNeighbourGrid* g = job->grid;
	const bsParticles* p = job->particles;
	for (size_t s = begin; s < end; ++s)
	{
		uint32_t i = g->index[s];
		g->position[s] = p->position[i];
		g->velocity[s] = p->velocity[i];
		g->radius[s] = p->radius[i];
	}
}

// A stable counting sort of the free particles by bucket: start[] counts, then prefix sums, then
// each particle in index order takes the next slot of its bucket.
static void bsGrid_Sort(bsNeighbourGrid* g, size_t particleCount, size_t buckets)
{
	memset(g->start, 0, (buckets + 1) * sizeof(uint32_t));
	for (size_t i = 0; i < particleCount; ++i)
	{
		if (g->bucketOf[i] != UINT32_MAX)
		{
			g->start[g->bucketOf[i] + 1] += 1;
		}
	}
	for (size_t b = 0; b < buckets; ++b)
	{
		g->start[b + 1] += g->start[b];
	}
	// start[b] is used as bucket b's cursor, which leaves it at the start of bucket b + 1; the
	// shift afterwards puts every start back.
	for (size_t i = 0; i < particleCount; ++i)
	{
		uint32_t b = g->bucketOf[i];
		if (b != UINT32_MAX)
		{
			g->index[g->start[b]++] = (uint32_t)i;
		}
	}
	memmove(g->start + 1, g->start, buckets * sizeof(uint32_t));
	g->start[0] = 0;
}

// Every array large enough; on failure the caller frees the grid (a partly grown one is no use).
static bool bsGrid_Reserve(bsNeighbourGrid* g, size_t particles, size_t slots, size_t buckets)
{
	if (!bsGrow((void**)&g->bucketOf, &g->particleCapacity, particles, sizeof(uint32_t)) ||
		!bsGrow((void**)&g->start, &g->bucketCapacity, buckets + 1, sizeof(uint32_t)))
	{
		return false;
	}
	if (g->slotCapacity >= slots)
	{
		return true;
	}
	// The four slot arrays grow together: each from the same capacity to the same count.
	size_t c[4] = {g->slotCapacity, g->slotCapacity, g->slotCapacity, g->slotCapacity};
	bool grown = bsGrow((void**)&g->index, c, slots, sizeof(uint32_t)) &&
		bsGrow((void**)&g->position, c + 1, slots, sizeof(bsVec3)) &&
		bsGrow((void**)&g->velocity, c + 2, slots, sizeof(bsVec3)) &&
		bsGrow((void**)&g->radius, c + 3, slots, sizeof(double));
	g->slotCapacity = grown ? slots : g->slotCapacity;
	return grown;
}

bsResult bsNeighbourGrid_Build(bsNeighbourGrid* grid, const bsParticles* particles, double reach, bsPool* pool)
{
	grid->count = 0;
	if (particles->count >= UINT32_MAX)
	{
		return bs_errTooLarge;
	}
	if (!(reach >= 1.0) || !isfinite(reach))
	{
		return bs_errInvalidArgument;
	}
	bsGridBounds bounds;
	if (!bsGrid_Bounds(particles, pool, &bounds))
	{
		return bs_errOutOfMemory;
	}
	grid->largestRadius = bounds.radius;
	grid->smallestRadius = bounds.smallest;
	grid->cell = reach * 2.0 * bounds.radius;
	grid->inverseCell = 1.0 / grid->cell;
	grid->origin = bounds.lo;
	if (bounds.count == 0)
	{
		grid->dims[0] = grid->dims[1] = grid->dims[2] = 3;
		return bs_ok;
	}
	bsGrid_Dims(grid, bounds.lo, bounds.hi, bounds.count);
	size_t buckets = (size_t)grid->dims[0] * (size_t)grid->dims[1] * (size_t)grid->dims[2];
	if (!bsGrid_Reserve(grid, particles->count, bounds.count, buckets))
	{
		bsNeighbourGrid_Free(grid);
		return bs_errOutOfMemory;
	}
	bsGridJob job = {grid, particles};
	bsGrid_For(pool, particles->count, bsBucket_Range, &job);
	bsGrid_Sort(grid, particles->count, buckets);
	grid->count = (uint32_t)bounds.count;
	bsGrid_For(pool, bounds.count, bsCopy_Range, &job);
	return bs_ok;
}

void bsNeighbourGrid_Ranges(const bsNeighbourGrid* g, uint32_t slot, bsNeighbourRanges* ranges)
{
	int b[3];
	bsGrid_BucketCoords(g, g->position[slot], b);
	int nx = g->dims[0], ny = g->dims[1], nz = g->dims[2];
	// A row's three buckets are contiguous unless the row wraps at this cell.
	bool contiguous = b[0] >= 1 && b[0] + 1 < nx;
	ranges->count = 0;
	for (int dz = -1; dz <= 1; ++dz)
	{
		size_t z = (size_t)((b[2] + dz + nz) % nz);
		for (int dy = -1; dy <= 1; ++dy)
		{
			size_t row = (z * (size_t)ny + (size_t)((b[1] + dy + ny) % ny)) * (size_t)nx;
			if (contiguous)
			{
				ranges->begin[ranges->count] = g->start[row + (size_t)b[0] - 1];
				ranges->end[ranges->count] = g->start[row + (size_t)b[0] + 2];
				ranges->count += 1;
				continue;
			}
			for (int dx = -1; dx <= 1; ++dx)
			{
				size_t bucket = row + (size_t)((b[0] + dx + nx) % nx);
				ranges->begin[ranges->count] = g->start[bucket];
				ranges->end[ranges->count] = g->start[bucket + 1];
				ranges->count += 1;
			}
		}
	}
}

size_t bsNeighbourGrid_Bytes(const bsNeighbourGrid* g)
{
	return g->bucketCapacity * sizeof(uint32_t) + g->particleCapacity * sizeof(uint32_t) +
		g->slotCapacity * (sizeof(uint32_t) + 2 * sizeof(bsVec3) + sizeof(double));
}

void bsNeighbourGrid_Free(bsNeighbourGrid* g)
{
	free(g->start);
	free(g->index);
	free(g->bucketOf);
	free(g->position);
	free(g->velocity);
	free(g->radius);
	memset(g, 0, sizeof(*g));
}
