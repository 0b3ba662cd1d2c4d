#include "blobsim/base.h"
#include "blobsim/bvh.h"
#include "morton.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// Queries per chunk handed to a worker: small enough to balance, large enough to amortise the
// atomic counter.
#define BS_BATCH_GRAIN 64

// How many queries ahead the batch prefetches inputs and outputs.
#define BS_BATCH_PREFETCH 8

// One worker's tallies, padded to a cache line so workers do not share one.
typedef struct bsBatchWorker
{
	bsQueryStats stats;
	size_t errorIndex;  // first failing query this worker answered; SIZE_MAX when none
	bsResult error;
	char padding[64 - (sizeof(bsQueryStats) + sizeof(size_t) + sizeof(bsResult)) % 64];
} bsBatchWorker;

typedef struct bsBatchContext
{
	const bsBvh* bvh;
	bsMethod method;
	const bsSweepInput* inputs;
	bsSweepOutput* outputs;
	const uint32_t* order;  // queries in the order they are answered; NULL for 0, 1, 2, ...
	bsBatchWorker* workers;
} bsBatchContext;

static void bsBatchWorker_Reset(bsBatchWorker* w)
{
	memset(w, 0, sizeof *w);
	w->errorIndex = SIZE_MAX;
	w->error = bs_ok;
}

static void bsBatch_Range(void* context, size_t begin, size_t end, int worker)
{
	bsBatchContext* c = context;
	bsBatchWorker* w = c->workers + worker;
	for (size_t k = begin; k < end; ++k)
	{
		size_t i = c->order != NULL ? c->order[k] : k;
#if defined(__GNUC__)
		// In Morton order the inputs and outputs are scattered: fetch a few queries ahead so their
		// cache misses overlap with this query's work. A hint only; it changes no result.
		if (c->order != NULL && k + BS_BATCH_PREFETCH < end)
		{
			size_t ahead = c->order[k + BS_BATCH_PREFETCH];
			__builtin_prefetch(c->inputs + ahead, 0);
			__builtin_prefetch(c->outputs + ahead, 1);
			__builtin_prefetch((const char*)(c->outputs + ahead) + sizeof(bsSweepOutput) - 1, 1);
		}
#endif
		// bsBvh_Sweep zeroes the output before filling it: padding bytes are deterministic too.
		bsResult r = bsBvh_Sweep(c->bvh, c->method, c->inputs + i, c->outputs + i, &w->stats);
		if (r != bs_ok && i < w->errorIndex)
		{
			w->errorIndex = i;
			w->error = r;
		}
	}
}

// Answering queries in Morton order of their start points (morton.h). Returns NULL (input order)
// for small batches or when memory is short.
static uint32_t* bsBatchOrder(const bsBvh* bvh, const bsSweepInput* inputs, size_t count)
{
	if (count < 1024 || bvh == NULL || bvh->nodeCount == 0)
	{
		return NULL;
	}
	uint32_t* order = malloc(count * sizeof(uint32_t));
	const bsBvhNode* root = bvh->nodes;
	bsVec3 lo = bsV3((double)root->min[0], (double)root->min[1], (double)root->min[2]);
	bsVec3 hi = bsV3((double)root->max[0], (double)root->max[1], (double)root->max[2]);
	if (order != NULL && !bsMortonOrder(lo, hi, &inputs[0].c1, sizeof(bsSweepInput), count, order))
	{
		free(order);
		order = NULL;
	}
	return order;
}

bsResult bsBvh_SweepBatch(const bsBvh* bvh, bsMethod method, const bsSweepInput* inputs,
	bsSweepOutput* outputs, size_t count, int threads, bsQueryStats* stats)
{
	if (count == 0)
	{
		return bs_ok;
	}
	if (inputs == NULL || outputs == NULL)
	{
		return bs_errInvalidArgument;
	}

	int n = bsResolveThreads(threads, count);
	bsBatchWorker single;
	bsBatchWorker* workers = n > 1 ? malloc((size_t)n * sizeof(bsBatchWorker)) : NULL;
	if (workers == NULL)
	{
		// One thread (or no memory for more): the same chunks on the caller's thread.
		n = 1;
		workers = &single;
	}
	for (int i = 0; i < n; ++i)
	{
		bsBatchWorker_Reset(workers + i);
	}

	bsBatchContext context;
	context.bvh = bvh;
	context.method = method;
	context.inputs = inputs;
	context.outputs = outputs;
	context.order = bsBatchOrder(bvh, inputs, count);
	context.workers = workers;
	// A failure to start threads still does all the work on this one: the result is the same.
	(void)bsParallelFor(n, count, BS_BATCH_GRAIN, bsBatch_Range, &context);
	free((void*)context.order);

	// Integer sums after the join: the same totals whichever worker answered which query.
	bsQueryStats total;
	memset(&total, 0, sizeof total);
	size_t errorIndex = SIZE_MAX;
	bsResult error = bs_ok;
	for (int i = 0; i < n; ++i)
	{
		total.queries += workers[i].stats.queries;
		total.nodesVisited += workers[i].stats.nodesVisited;
		total.trianglesTested += workers[i].stats.trianglesTested;
		total.hits += workers[i].stats.hits;
		if (workers[i].errorIndex < errorIndex)
		{
			errorIndex = workers[i].errorIndex;
			error = workers[i].error;
		}
	}
	if (workers != &single)
	{
		free(workers);
	}
	if (stats != NULL)
	{
		stats->queries += total.queries;
		stats->nodesVisited += total.nodesVisited;
		stats->trianglesTested += total.trianglesTested;
		stats->hits += total.hits;
	}
	return error;
}
