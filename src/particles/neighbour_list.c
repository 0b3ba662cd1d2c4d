// neighbour_list.c — Verlet neighbour lists with a skin (neighbour_list.h).
#include "neighbour_list.h"

#include "array.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum
{
	bs_listGrain = 2048,  // particles or slots per chunk of the parallel passes
};

static void bsList_For(bsPool* pool, size_t count, bsRangeFn* fn, void* context)
{
	if (pool != NULL)
	{
		bsPool_For(pool, count, bs_listGrain, fn, context);
	}
	else if (count > 0)
	{
		fn(context, 0, count, 0);
	}
}

static inline double bsListHigher(double a, double b)
{
	return b > a ? b : a;
}

// --- the check: how far the particles moved since the build, and whether any changed its state ---

typedef struct bsListCheck
{
	double moved2;  // the largest squared distance from the anchor, of a particle in the grid's states
	double speed2;  // the largest squared speed of a free particle
	double extent;  // the largest |coordinate| of those particles
	bool changed;   // a particle's state differs from the build's
	char padding[64];
} bsListCheck;

typedef struct bsCheckJob
{
	const bsNeighbourList* list;
	const bsParticles* particles;
	unsigned states;  // free and the fixed states
	bsListCheck* workers;
} bsCheckJob;

static void bsCheck_Range(void* context, size_t begin, size_t end, int worker)
{
	bsCheckJob* job = context;
	const bsParticles* p = job->particles;
	const bsNeighbourList* list = job->list;
	bsListCheck local = job->workers[worker];
	for (size_t i = begin; i < end; ++i)
	{
		uint8_t state = p->state[i];
		local.changed |= state != list->state[i];
		if (!((job->states >> state) & 1u))
		{
			continue;
		}
		bsVec3 x = p->position[i];
		bsVec3 d = bsSub(x, list->anchor[i]);
		local.moved2 = bsListHigher(local.moved2, bsDot(d, d));
		local.extent = bsListHigher(local.extent, bsMaxAbs(x));
		if (state == bs_particleFree)
		{
			local.speed2 = bsListHigher(local.speed2, bsDot(p->velocity[i], p->velocity[i]));
		}
	}
	job->workers[worker] = local;
}

// Max and or give the same answer in any order: the workers' shares combine exactly.
static bool bsList_Check(const bsNeighbourList* list, const bsParticles* p, unsigned fixedStates, bsPool* pool,
	bsListCheck* out)
{
	int threads = pool != NULL ? bsPool_ThreadCount(pool) : 1;
	bsListCheck* workers = calloc((size_t)threads, sizeof(bsListCheck));
	if (workers == NULL)
	{
		return false;
	}
	bsCheckJob job = {list, p, fixedStates | (1u << bs_particleFree), workers};
	bsList_For(pool, p->count, bsCheck_Range, &job);
	*out = workers[0];
	for (int w = 1; w < threads; ++w)
	{
		out->moved2 = fmax(out->moved2, workers[w].moved2);
		out->speed2 = fmax(out->speed2, workers[w].speed2);
		out->extent = fmax(out->extent, workers[w].extent);
		out->changed |= workers[w].changed;
	}
	free(workers);
	return true;
}

// The list still holds every pair within reach (neighbour_list.h): nothing changed but positions and
// speeds, and 2 D + max(0, A_t - A_b) <= skin - slack.
static bool bsList_StillValid(const bsNeighbourList* list, const bsNeighbourGrid* grid, const bsParticles* p,
	const bsNeighbourListDef* def, const bsListCheck* check, double approach)
{
	if (!list->valid || list->gridBuild != grid->builds || list->particleCount != p->count ||
		list->reach != def->reach || list->fixedStates != def->fixedStates ||
		check->changed)
	{
		return false;
	}
	double slack = 1e-9 * grid->slotRadius + 1e-12 * check->extent;
	double grown = approach > list->approach ? approach - list->approach : 0.0;
	return 2.0 * sqrt(check->moved2) + grown <= list->skin - slack;
}

// --- the build ---

typedef struct bsListJob
{
	bsNeighbourList* list;
	const bsNeighbourGrid* grid;
	double reach;
	bool fill;  // false: count each slot's neighbours into start[s + 1]; true: write them
} bsListJob;

// Slot s's neighbours in ascending particle index (insertion sort: a few to a few tens).
static void bsList_Sort(uint32_t* entry, uint32_t count, const uint32_t* index)
{
	for (uint32_t k = 1; k < count; ++k)
	{
		uint32_t t = entry[k];
		uint32_t key = index[t];
		uint32_t m = k;
		for (; m > 0 && index[entry[m - 1]] > key; --m)
		{
			entry[m] = entry[m - 1];
		}
		entry[m] = t;
	}
}

// Counts (fill false) or writes (fill true) slot s's neighbours: the slots within cut(s, t).
static uint32_t bsList_Slot(const bsListJob* job, uint32_t s, uint32_t* out)
{
	const bsNeighbourGrid* g = job->grid;
	const bsNeighbourList* list = job->list;
	if (g->fixedStates != 0 && g->fixed[s])
	{
		return 0;  // a fixed slot gathers nothing (it is not integrated)
	}
	bsVec3 xs = g->position[s];
	double rs = g->radius[s];
	double bound = fmax(job->reach * (rs + g->slotRadius), rs + g->slotRadius + list->approach) + list->skin;
	double bound2 = bound * bound;
	bsNeighbourRanges ranges;
	bsNeighbourGrid_Ranges(g, s, &ranges);
	uint32_t n = 0;
	for (int r = 0; r < ranges.count; ++r)
	{
		for (uint32_t t = ranges.begin[r]; t < ranges.end[r]; ++t)
		{
			bsVec3 x = bsSub(g->position[t], xs);
			double d2 = bsDot(x, x);
			if (!(d2 < bound2) || t == s)
			{
				continue;
			}
			double sum = rs + g->radius[t];
			double cut = fmax(job->reach * sum, sum + list->approach) + list->skin;
			if (d2 < cut * cut)
			{
				if (out != NULL)
				{
					out[n] = t;
				}
				n += 1;
			}
		}
	}
	if (out != NULL)
	{
		bsList_Sort(out, n, g->index);
	}
	return n;
}

static void bsList_Range(void* context, size_t begin, size_t end, int worker)
{
	(void)worker;
	bsListJob* job = context;
	bsNeighbourList* list = job->list;
	for (size_t s = begin; s < end; ++s)
	{
		if (job->fill)
		{
			bsList_Slot(job, (uint32_t)s, list->entry + list->start[s]);
		}
		else
		{
			list->start[s + 1] = bsList_Slot(job, (uint32_t)s, NULL);
		}
	}
}

typedef struct bsAnchorJob
{
	bsNeighbourList* list;
	const bsParticles* particles;
} bsAnchorJob;

static void bsAnchor_Range(void* context, size_t begin, size_t end, int worker)
{
	(void)worker;
	bsAnchorJob* job = context;
	memcpy(job->list->anchor + begin, job->particles->position + begin, (end - begin) * sizeof(bsVec3));
	memcpy(job->list->state + begin, job->particles->state + begin, end - begin);
}

static bsResult bsList_Build(bsNeighbourList* list, bsNeighbourGrid* grid, const bsParticles* p,
	const bsNeighbourListDef* def, bsPool* pool)
{
	bsResult r = bsNeighbourGrid_BuildSkin(grid, p, def->reach, def->travel, def->fixedStates, def->skin, pool);
	if (r != bs_ok)
	{
		return r;
	}
	if (!BS_ARRAY_RESERVE(list->start, list->startCapacity, (size_t)grid->count + 1) ||
		!BS_ARRAY_RESERVE(list->anchor, list->particleCapacity, p->count) ||
		!BS_ARRAY_RESIZE(list->state, list->particleCapacity))
	{
		return bs_errOutOfMemory;
	}
	list->skin = def->skin * grid->slotRadius;
	list->approach = grid->approach;
	bsListJob job = {list, grid, def->reach, false};
	list->start[0] = 0;
	bsList_For(pool, grid->count, bsList_Range, &job);
	size_t total = 0;
	for (uint32_t s = 0; s < grid->count; ++s)
	{
		total += list->start[s + 1];
		if (total > UINT32_MAX)
		{
			return bs_errTooLarge;
		}
		list->start[s + 1] = (uint32_t)total;
	}
	if (!BS_ARRAY_RESERVE(list->entry, list->entryCapacity, total))
	{
		return bs_errOutOfMemory;
	}
	job.fill = true;
	bsList_For(pool, grid->count, bsList_Range, &job);
	bsAnchorJob anchors = {list, p};
	bsList_For(pool, p->count, bsAnchor_Range, &anchors);
	list->count = grid->count;
	list->entryCount = total;
	list->reach = def->reach;
	list->fixedStates = def->fixedStates;
	list->gridBuild = grid->builds;
	list->particleCount = p->count;
	list->valid = true;
	return bs_ok;
}

bsResult bsNeighbourList_Update(bsNeighbourList* list, bsNeighbourGrid* grid, const bsParticles* p,
	const bsNeighbourListDef* def, bsPool* pool, bool* built)
{
	if (built != NULL)
	{
		*built = true;
	}
	if (!(def->skin >= 0.0) || !isfinite(def->skin))
	{
		return bs_errInvalidArgument;
	}
	bsListCheck check;
	if (list->valid && list->particleCount == p->count)
	{
		if (!bsList_Check(list, p, def->fixedStates, pool, &check))
		{
			list->valid = false;
			return bs_errOutOfMemory;
		}
		// The approach a build would take now (bsNeighbourGrid_BuildWith: the same arithmetic).
		double speed = sqrt(check.speed2);
		double approach = 2.0 * def->travel * speed;
		if (bsList_StillValid(list, grid, p, def, &check, approach))
		{
			bsNeighbourGrid_Refresh(grid, p, speed, approach, pool);
			list->reuses += 1;
			if (built != NULL)
			{
				*built = false;
			}
			return bs_ok;
		}
	}
	list->valid = false;
	list->builds += 1;
	return bsList_Build(list, grid, p, def, pool);
}

size_t bsNeighbourList_Bytes(const bsNeighbourList* list)
{
	return list->startCapacity * sizeof(uint32_t) + list->entryCapacity * sizeof(uint32_t) +
		list->particleCapacity * (sizeof(bsVec3) + 1);
}

void bsNeighbourList_Free(bsNeighbourList* list)
{
	free(list->start);
	free(list->entry);
	free(list->anchor);
	free(list->state);
	memset(list, 0, sizeof(*list));
}
