// neighbour_grid.c — the uniform grid of the free particles (neighbour_grid.h).
#include "neighbour_grid.h"

#include "array.h"

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

// --- bounds: the free particles' box, largest radius and count ---

typedef struct bsGridBounds
{
	bsVec3 lo, hi;
	double radius, smallest;
	double speed2;       // the largest squared speed of a free particle
	size_t count;
	double fixedRadius;  // the largest radius of a particle in a fixed state (BuildWith)
	size_t fixedCount;   // particles in a fixed state, anywhere
	char padding[64];
} bsGridBounds;

typedef struct bsBoundsJob
{
	const bsParticles* particles;
	bsGridBounds* workers;
	unsigned fixedStates;
	bool speeds;  // find the largest speed too (only a build with a travel time needs it)
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
			if (job->speeds)
			{
				local.speed2 = bsHigher(local.speed2, bsDot(p->velocity[i], p->velocity[i]));
			}
			local.count += 1;
		}
		else if ((job->fixedStates >> p->state[i]) & 1u)
		{
			local.fixedRadius = bsHigher(local.fixedRadius, p->radius[i]);
			local.fixedCount += 1;
		}
	}
	*b = local;
}

// Min, max and a count give the same answer in any order, so the workers' shares combine exactly.
static bool bsGrid_Bounds(const bsParticles* p, unsigned fixedStates, bool speeds, bsPool* pool, bsGridBounds* out)
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
		workers[w].speed2 = 0.0;
		workers[w].count = 0;
		workers[w].fixedRadius = 0.0;
		workers[w].fixedCount = 0;
	}
	bsBoundsJob job = {p, workers, fixedStates, speeds};
	bsGrid_For(pool, p->count, bsBounds_Range, &job);
	*out = workers[0];
	for (int w = 1; w < threads; ++w)
	{
		out->lo = bsMin(out->lo, workers[w].lo);
		out->hi = bsMax(out->hi, workers[w].hi);
		out->radius = fmax(out->radius, workers[w].radius);
		out->smallest = fmin(out->smallest, workers[w].smallest);
		out->speed2 = fmax(out->speed2, workers[w].speed2);
		out->count += workers[w].count;
		out->fixedRadius = fmax(out->fixedRadius, workers[w].fixedRadius);
		out->fixedCount += workers[w].fixedCount;
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
	bsVec3 lo, hi;  // with fixed neighbours: the box they must lie in (the free box grown by a cell)
} bsGridJob;

// A particle in a fixed state that a free one can reach: inside the free particles' box grown by a cell.
static bool bsGrid_TakesFixed(const bsGridJob* job, uint8_t state, bsVec3 x)
{
	return ((job->grid->fixedStates >> state) & 1u) && x.x >= job->lo.x && x.y >= job->lo.y && x.z >= job->lo.z &&
		x.x <= job->hi.x && x.y <= job->hi.y && x.z <= job->hi.z;
}

static void bsBucket_Range(void* context, size_t begin, size_t end, int worker)
{
	(void)worker;
	bsGridJob* job = context;
	const bsParticles* p = job->particles;
	for (size_t i = begin; i < end; ++i)
	{
		bool in = p->state[i] == bs_particleFree || bsGrid_TakesFixed(job, p->state[i], p->position[i]);
		job->grid->bucketOf[i] = in ? bsGrid_Bucket(job->grid, p->position[i]) : UINT32_MAX;
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
		if (g->fixedStates != 0)
		{
			// A fixed neighbour does not move, whatever velocity its slot kept.
			g->fixed[s] = p->state[i] != bs_particleFree;
			g->velocity[s] = g->fixed[s] ? bsV3(0.0, 0.0, 0.0) : g->velocity[s];
		}
	}
}

// A stable counting sort of the particles in the grid by bucket: start[] counts, then prefix sums
// (bsGrid_Count, which returns the slots), then each particle in index order takes the next slot of
// its bucket (bsGrid_Sort).
static size_t bsGrid_Count(bsNeighbourGrid* g, size_t particleCount, size_t buckets)
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
	return g->start[buckets];
}

static void bsGrid_Sort(bsNeighbourGrid* g, size_t particleCount, size_t buckets)
{
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
	if (!BS_ARRAY_RESERVE(g->bucketOf, g->particleCapacity, particles) ||
		!BS_ARRAY_RESERVE(g->start, g->bucketCapacity, buckets + 1))
	{
		return false;
	}
	if (g->fixedStates != 0 && !BS_ARRAY_RESERVE(g->fixed, g->fixedCapacity, slots))
	{
		return false;
	}
	if (g->slotCapacity >= slots)
	{
		return true;
	}
	// The four slot arrays grow together, to one capacity.
	size_t capacity = bsArray_NextCapacity(g->slotCapacity, slots);
	bool grown = BS_ARRAY_RESIZE(g->index, capacity) && BS_ARRAY_RESIZE(g->position, capacity) &&
		BS_ARRAY_RESIZE(g->velocity, capacity) && BS_ARRAY_RESIZE(g->radius, capacity);
	g->slotCapacity = grown ? capacity : g->slotCapacity;
	return grown;
}

bsResult bsNeighbourGrid_Build(bsNeighbourGrid* grid, const bsParticles* particles, double reach, bsPool* pool)
{
	return bsNeighbourGrid_BuildWith(grid, particles, reach, 0.0, 0u, pool);
}

bsResult bsNeighbourGrid_BuildWith(bsNeighbourGrid* grid, const bsParticles* particles, double reach,
	double travel, unsigned fixedStates, bsPool* pool)
{
	return bsNeighbourGrid_BuildSkin(grid, particles, reach, travel, fixedStates, 0.0, pool);
}

bsResult bsNeighbourGrid_BuildSkin(bsNeighbourGrid* grid, const bsParticles* particles, double reach,
	double travel, unsigned fixedStates, double skin, bsPool* pool)
{
	grid->builds += 1;
	grid->count = 0;
	grid->fixedCount = 0;
	grid->fixedStates = 0;
	if (particles->count >= UINT32_MAX)
	{
		return bs_errTooLarge;
	}
	if (!(reach >= 1.0) || !isfinite(reach) || !(travel >= 0.0) || !isfinite(travel) || !(skin >= 0.0) ||
		!isfinite(skin))
	{
		return bs_errInvalidArgument;
	}
	bsGridBounds bounds;
	if (!bsGrid_Bounds(particles, fixedStates & ~(1u << bs_particleFree), travel > 0.0, pool, &bounds))
	{
		return bs_errOutOfMemory;
	}
	// No particle in a fixed state: the free particles' grid exactly, so that turning the fixed
	// neighbours on changes nothing until something sticks or sleeps.
	grid->fixedStates = bounds.fixedCount > 0 ? fixedStates & ~(1u << bs_particleFree) : 0u;
	grid->largestRadius = bounds.radius;
	grid->smallestRadius = bounds.smallest;
	grid->largestSpeed = sqrt(bounds.speed2);
	grid->approach = 2.0 * travel * grid->largestSpeed;
	double largest = grid->fixedStates != 0 ? fmax(bounds.radius, bounds.fixedRadius) : bounds.radius;
	grid->cell = fmax(reach * 2.0 * largest, 2.0 * largest + grid->approach) + skin * largest;
	grid->slotRadius = largest;
	grid->inverseCell = 1.0 / grid->cell;
	bsGridJob job = {grid, particles, bounds.lo, bounds.hi};
	if (grid->fixedStates != 0)
	{
		bsVec3 margin = bsV3(grid->cell, grid->cell, grid->cell);
		job.lo = bsSub(bounds.lo, margin);
		job.hi = bsAdd(bounds.hi, margin);
	}
	grid->origin = job.lo;
	if (bounds.count == 0)
	{
		grid->dims[0] = grid->dims[1] = grid->dims[2] = 3;
		return bs_ok;
	}
	bsGrid_Dims(grid, job.lo, job.hi, bounds.count);
	size_t buckets = (size_t)grid->dims[0] * (size_t)grid->dims[1] * (size_t)grid->dims[2];
	if (!bsGrid_Reserve(grid, particles->count, 0, buckets))
	{
		bsNeighbourGrid_Free(grid);
		return bs_errOutOfMemory;
	}
	bsGrid_For(pool, particles->count, bsBucket_Range, &job);
	size_t slots = bsGrid_Count(grid, particles->count, buckets);
	if (!bsGrid_Reserve(grid, particles->count, slots, buckets))
	{
		bsNeighbourGrid_Free(grid);
		return bs_errOutOfMemory;
	}
	bsGrid_Sort(grid, particles->count, buckets);
	grid->count = (uint32_t)slots;
	grid->fixedCount = (uint32_t)(slots - bounds.count);
	bsGrid_For(pool, slots, bsCopy_Range, &job);
	return bs_ok;
}

void bsNeighbourGrid_Refresh(bsNeighbourGrid* grid, const bsParticles* particles, double largestSpeed,
	double approach, bsPool* pool)
{
	bsGridJob job = {grid, particles, grid->origin, grid->origin};
	bsGrid_For(pool, grid->count, bsCopy_Range, &job);
	grid->largestSpeed = largestSpeed;
	grid->approach = approach;
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
		g->slotCapacity * (sizeof(uint32_t) + 2 * sizeof(bsVec3) + sizeof(double)) + g->fixedCapacity;
}

void bsNeighbourGrid_Free(bsNeighbourGrid* g)
{
	free(g->start);
	free(g->index);
	free(g->bucketOf);
	free(g->position);
	free(g->velocity);
	free(g->radius);
	free(g->fixed);
	memset(g, 0, sizeof(*g));
}
