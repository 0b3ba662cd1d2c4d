// stuck_grid.c — the hash grid of stuck and sleeping particles (stuck_grid.h).
//
// Slots hold the spheres (centre, radius, particle, cell, the next slot of the chain); a bucket heads
// the chain of the slots whose cells hash to it; freed slots are chained for reuse. A particle's slot
// is found through slotOf, so removing one walks only its chain.
#include "stuck_grid.h"

#include "array.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BS_NONE UINT32_MAX
#define BS_CELL_LIMIT 1073741824.0  // |cell coordinate| < 2^30: beyond, a sphere is kept in `far`

struct bsStuckGrid
{
	double cell, inverse;  // edge and 1 / edge; 0 until the first sphere when chosen automatically
	double maxRadius;      // the largest radius kept so far (it never shrinks: a bound is enough)
	bsVec3* center;
	double* radius;
	uint32_t* particle;    // BS_NONE for a free slot
	uint32_t* next;
	int32_t (*key)[3];
	uint32_t slotCount, slotCapacity, freeHead, live;
	uint32_t* buckets;     // bucketMask + 1 chains
	uint32_t bucketMask;
	uint32_t far;          // the chain of spheres outside the range of cell coordinates
	uint32_t* slotOf;      // per particle index, its slot or BS_NONE
	size_t slotOfCount;
};

bsStuckGrid* bsStuckGrid_Create(double cell)
{
	bsStuckGrid* g = calloc(1, sizeof(bsStuckGrid));
	if (g == NULL)
	{
		return NULL;
	}
	g->cell = cell > 0.0 && isfinite(cell) ? cell : 0.0;
	g->inverse = g->cell > 0.0 ? 1.0 / g->cell : 0.0;
	g->freeHead = BS_NONE;
	g->far = BS_NONE;
	g->buckets = malloc(64 * sizeof(uint32_t));
	if (g->buckets == NULL)
	{
		free(g);
		return NULL;
	}
	memset(g->buckets, 0xff, 64 * sizeof(uint32_t));
	g->bucketMask = 63;
	return g;
}

void bsStuckGrid_Destroy(bsStuckGrid* g)
{
	if (g == NULL)
	{
		return;
	}
	free(g->center);
	free(g->radius);
	free(g->particle);
	free(g->next);
	free(g->key);
	free(g->buckets);
	free(g->slotOf);
	free(g);
}

void bsStuckGrid_Shape(const bsStuckGrid* g, double* cell, double* maxRadius)
{
	*cell = g->cell;
	*maxRadius = g->maxRadius;
}

bool bsStuckGrid_SetShape(bsStuckGrid* g, double cell, double maxRadius)
{
	bool cellOk = cell == 0.0 || (cell > 0.0 && isfinite(cell) && isfinite(1.0 / cell));
	if (g->live > 0 || !cellOk || !(maxRadius >= 0.0) || !isfinite(maxRadius))
	{
		return false;
	}
	g->cell = cell;
	g->inverse = cell > 0.0 ? 1.0 / cell : 0.0;
	g->maxRadius = maxRadius;
	return true;
}

uint32_t bsStuckGrid_Count(const bsStuckGrid* g)
{
	return g->live;
}

bool bsStuckGrid_Holds(const bsStuckGrid* g, uint32_t particle)
{
	return particle < g->slotOfCount && g->slotOf[particle] != BS_NONE;
}

static uint32_t bsCellHash(const int32_t k[3])
{
	uint32_t h = (uint32_t)k[0] * 0x8da6b343u ^ (uint32_t)k[1] * 0xd8163841u ^ (uint32_t)k[2] * 0xcb1ab31fu;
	return h ^ (h >> 15);
}

// The cell of x, false when a coordinate is out of range (or NaN).
static bool bsCellOf(const bsStuckGrid* g, bsVec3 x, int32_t k[3])
{
	double c[3] = {floor(x.x * g->inverse), floor(x.y * g->inverse), floor(x.z * g->inverse)};
	for (int a = 0; a < 3; ++a)
	{
		if (!(fabs(c[a]) < BS_CELL_LIMIT))
		{
			return false;
		}
		k[a] = (int32_t)c[a];
	}
	return true;
}

// The head of the chain slot s belongs to.
static uint32_t* bsChainOf(bsStuckGrid* g, uint32_t s, bool inFar)
{
	return inFar ? &g->far : g->buckets + (bsCellHash(g->key[s]) & g->bucketMask);
}

static void bsLink(bsStuckGrid* g, uint32_t s)
{
	int32_t k[3];
	bool inFar = !bsCellOf(g, g->center[s], k);
	memcpy(g->key[s], k, sizeof(k));
	uint32_t* head = bsChainOf(g, s, inFar);
	g->next[s] = *head;
	*head = s;
}

// Doubles the buckets and relinks every sphere (in slot order).
static bsResult bsRehash(bsStuckGrid* g)
{
	uint32_t count = 2 * (g->bucketMask + 1);
	uint32_t* grown = malloc((size_t)count * sizeof(uint32_t));
	if (grown == NULL)
	{
		return bs_errOutOfMemory;
	}
	free(g->buckets);
	g->buckets = grown;
	memset(g->buckets, 0xff, (size_t)count * sizeof(uint32_t));
	g->bucketMask = count - 1;
	g->far = BS_NONE;
	for (uint32_t s = 0; s < g->slotCount; ++s)
	{
		if (g->particle[s] != BS_NONE)
		{
			bsLink(g, s);
		}
	}
	return bs_ok;
}

static bsResult bsReserveSlot(bsStuckGrid* g)
{
	if (g->freeHead != BS_NONE || g->slotCount < g->slotCapacity)
	{
		return bs_ok;
	}
	if (g->slotCapacity >= UINT32_MAX / 2)
	{
		return bs_errTooLarge;
	}
	// The five slot arrays grow together, to one capacity (below UINT32_MAX, from the test above).
	size_t capacity = bsArray_NextCapacity(g->slotCapacity, (size_t)g->slotCount + 1);
	bool ok = BS_ARRAY_RESIZE(g->center, capacity) && BS_ARRAY_RESIZE(g->radius, capacity) &&
		BS_ARRAY_RESIZE(g->particle, capacity) && BS_ARRAY_RESIZE(g->next, capacity) &&
		BS_ARRAY_RESIZE(g->key, capacity);
	if (!ok)
	{
		return bs_errOutOfMemory;
	}
	g->slotCapacity = (uint32_t)capacity;
	return bs_ok;
}

static bsResult bsInsert(bsStuckGrid* g, uint32_t particle, bsVec3 center, double radius)
{
	if (g->live > g->bucketMask)
	{
		bsResult r = bsRehash(g);
		if (r != bs_ok)
		{
			return r;
		}
	}
	bsResult r = bsReserveSlot(g);
	if (r != bs_ok)
	{
		return r;
	}
	if (g->cell == 0.0)
	{
		g->cell = 4.0 * radius;
		g->inverse = 1.0 / g->cell;
	}
	uint32_t s = g->freeHead;
	if (s != BS_NONE)
	{
		g->freeHead = g->next[s];
	}
	else
	{
		s = g->slotCount++;
	}
	g->center[s] = center;
	g->radius[s] = radius;
	g->particle[s] = particle;
	g->maxRadius = fmax(g->maxRadius, radius);
	bsLink(g, s);
	g->slotOf[particle] = s;
	g->live += 1;
	return bs_ok;
}

static void bsRemove(bsStuckGrid* g, uint32_t s)
{
	int32_t k[3];
	uint32_t* link = bsChainOf(g, s, !bsCellOf(g, g->center[s], k));
	while (*link != s)
	{
		link = g->next + *link;
	}
	*link = g->next[s];
	g->slotOf[g->particle[s]] = BS_NONE;
	g->particle[s] = BS_NONE;
	g->next[s] = g->freeHead;
	g->freeHead = s;
	g->live -= 1;
}

static bool bsIsResident(uint8_t state)
{
	return state == bs_particleStuck || state == bs_particleSleeping;
}

void bsStuckGrid_Release(bsStuckGrid* g, uint32_t particle)
{
	if (particle < g->slotOfCount && g->slotOf[particle] != BS_NONE)
	{
		bsRemove(g, g->slotOf[particle]);
	}
}

bsResult bsStuckGrid_Sync(bsStuckGrid* g, const bsParticles* p)
{
	if (p->count >= BS_NONE)
	{
		return bs_errTooLarge;
	}
	for (uint32_t s = 0; s < g->slotCount; ++s)
	{
		uint32_t i = g->particle[s];
		if (i != BS_NONE && (i >= p->count || !bsIsResident(p->state[i])))
		{
			bsRemove(g, s);
		}
	}
	if (g->slotOfCount < p->count)
	{
		size_t capacity = bsArray_NextCapacity(g->slotOfCount, p->count);
		if (!BS_ARRAY_RESIZE(g->slotOf, capacity))
		{
			return bs_errOutOfMemory;
		}
		memset(g->slotOf + g->slotOfCount, 0xff, (capacity - g->slotOfCount) * sizeof(uint32_t));
		g->slotOfCount = capacity;
	}
	for (size_t i = 0; i < p->count; ++i)
	{
		if (bsIsResident(p->state[i]) && g->slotOf[i] == BS_NONE)
		{
			bsResult r = bsInsert(g, (uint32_t)i, p->position[i], p->radius[i]);
			if (r != bs_ok)
			{
				return r;
			}
		}
	}
	return bs_ok;
}

// The best contact so far of a query: least t, then least particle index.
typedef struct bsStuckBest
{
	const bsSweep* sweep;
	double movingRadius;
	double tmax;
	bool found;
	bsTriangleHit hit;
	uint32_t slot;
} bsStuckBest;

static void bsTestSlot(const bsStuckGrid* g, bsStuckBest* best, uint32_t s)
{
	bsTriangleHit hit;
	// Up to tmax, and to the best t itself so that an equal t with a lower index can still win.
	double bound = best->found ? nextafter(best->hit.t, INFINITY) : best->tmax;
	if (!bsSphereSweep(best->sweep, best->movingRadius, g->center[s], g->radius[s], bound, &hit))
	{
		return;
	}
	if (!best->found || hit.t < best->hit.t || g->particle[s] < g->particle[best->slot])
	{
		best->found = true;
		best->hit = hit;
		best->slot = s;
	}
}

static void bsTestChain(const bsStuckGrid* g, bsStuckBest* best, uint32_t s, const int32_t* key)
{
	for (; s != BS_NONE; s = g->next[s])
	{
		if (key == NULL || memcmp(g->key[s], key, sizeof(g->key[s])) == 0)
		{
			bsTestSlot(g, best, s);
		}
	}
}

bool bsStuckGrid_Sweep(const bsStuckGrid* g, const bsSweep* sweep, double movingRadius, double tmax,
	bsTriangleHit* hit, uint32_t* particle, bsVec3* center, double* radius)
{
	if (g->live == 0)
	{
		return false;
	}
	bsStuckBest best = {sweep, movingRadius, tmax, false, {0.0, 0, 0, 0}, 0};
	// The cells any sphere touching the sweep can have its centre in: the sweep's bounds grown by the
	// largest radius (the bounds hold the sweep's radius already; the ray's 0 is within them).
	bsVec3 grow = bsV3(g->maxRadius, g->maxRadius, g->maxRadius);
	int32_t lo[3], hi[3];
	bool ranged = bsCellOf(g, bsSub(sweep->boxMin, grow), lo) && bsCellOf(g, bsAdd(sweep->boxMax, grow), hi);
	double cells = ranged ? (double)(hi[0] - lo[0] + 1) * (double)(hi[1] - lo[1] + 1) * (double)(hi[2] - lo[2] + 1)
		: (double)INFINITY;
	if (!(cells <= 64.0 || cells <= (double)g->live))
	{
		for (uint32_t s = 0; s < g->slotCount; ++s)
		{
			if (g->particle[s] != BS_NONE)
			{
				bsTestSlot(g, &best, s);
			}
		}
	}
	else
	{
		bsTestChain(g, &best, g->far, NULL);
		for (int32_t x = lo[0]; x <= hi[0]; ++x)
		{
			for (int32_t y = lo[1]; y <= hi[1]; ++y)
			{
				for (int32_t z = lo[2]; z <= hi[2]; ++z)
				{
					int32_t key[3] = {x, y, z};
					bsTestChain(g, &best, g->buckets[bsCellHash(key) & g->bucketMask], key);
				}
			}
		}
	}
	if (!best.found)
	{
		return false;
	}
	*hit = best.hit;
	*particle = g->particle[best.slot];
	*center = g->center[best.slot];
	*radius = g->radius[best.slot];
	return true;
}
