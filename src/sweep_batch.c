#include "bvh.h"
#include "parallel.h"

#include <stdlib.h>
#include <string.h>

// Queries per chunk handed to a worker: small enough to balance, large enough to amortise the
// atomic counter.
#define BS_BATCH_GRAIN 64

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
	for (size_t i = begin; i < end; ++i)
	{
		// bsBvh_Sweep zeroes the output before filling it: padding bytes are deterministic too.
		bsResult r = bsBvh_Sweep(c->bvh, c->method, c->inputs + i, c->outputs + i, &w->stats);
		if (r != bs_ok && i < w->errorIndex)
		{
			w->errorIndex = i;
			w->error = r;
		}
	}
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
	context.workers = workers;
	// A failure to start threads still does all the work on this one: the result is the same.
	(void)bsParallelFor(n, count, BS_BATCH_GRAIN, bsBatch_Range, &context);

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
