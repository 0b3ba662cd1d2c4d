// test_batch.c — bsBvh_SweepBatch and the parallel for under it: outputs byte-identical for every
// thread count and equal to bsBvh_Sweep query by query, invalid inputs answered with a miss and
// reported by the first failing index.
#include "test.h"

#include "blobsim/base.h"
#include "blobsim/bvh.h"
#include "procedural.h"
#include "blobsim/rng.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// --- The parallel for itself ---

typedef struct MarkJob
{
	uint8_t* marks;
	int threads;
	int badWorker;
	size_t grain;
	int badChunk;
} MarkJob;

static void MarkRange(void* context, size_t begin, size_t end, int worker)
{
	MarkJob* job = context;
	if (worker < 0 || worker >= job->threads)
	{
		job->badWorker = 1;  // racy write of a constant: only ever set, read after the join
	}
	// Chunks are aligned on multiples of grain and at most grain long.
	if (begin % job->grain != 0 || end - begin > job->grain || end <= begin)
	{
		job->badChunk = 1;
	}
	for (size_t i = begin; i < end; ++i)
	{
		job->marks[i] += 1;  // each index belongs to one chunk: no two workers write it
	}
}

static void NeverCalled(void* context, size_t begin, size_t end, int worker)
{
	(void)begin;
	(void)end;
	(void)worker;
	*(int*)context = 1;
}

static int ParallelForTest(void)
{
	ENSURE(bsCoreCount() >= 1);
	ENSURE(bsResolveThreads(0, 1000) == (bsCoreCount() < 1000 ? bsCoreCount() : 1000));
	ENSURE(bsResolveThreads(-3, 1) == 1);
	ENSURE(bsResolveThreads(8, 3) == 3);
	ENSURE(bsResolveThreads(8, 0) == 1);
	ENSURE(bsResolveThreads(5, 100) == 5);

	int called = 0;
	ENSURE(bsParallelFor(4, 0, 16, NeverCalled, &called) == 0);
	ENSURE(called == 0);

	const size_t count = 10007;
	uint8_t* marks = malloc(count);
	ENSURE(marks != NULL);
	int threadCounts[] = {1, 2, 3, 8, 0};
	size_t grains[] = {1, 7, 64, 20000};
	for (size_t g = 0; g < sizeof(grains) / sizeof(grains[0]); ++g)
	{
		for (size_t t = 0; t < sizeof(threadCounts) / sizeof(threadCounts[0]); ++t)
		{
			memset(marks, 0, count);
			MarkJob job = {marks, bsResolveThreads(threadCounts[t], count), 0, grains[g], 0};
			int rc = bsParallelFor(threadCounts[t], count, grains[g], MarkRange, &job);
			ENSURE(rc == 0 || rc == -1);
			ENSURE(job.badWorker == 0 && job.badChunk == 0);
			for (size_t i = 0; i < count; ++i)
			{
				if (marks[i] != 1)
				{
					fprintf(stderr, "index %zu ran %d times (grain %zu, threads %d)\n", i, marks[i],
						grains[g], threadCounts[t]);
					free(marks);
					ENSURE(false);
				}
			}
		}
	}
	free(marks);
	return 0;
}

// --- The batch ---

// Short sweeps just above the surface, long ones, zero-length ones and straight down (snow).
static void MakeQueries(const bsTriangle* tris, uint32_t count, uint64_t seed, bsSweepInput* q,
	size_t n)
{
	bsRng rng = bsMakeRng(seed);
	for (size_t i = 0; i < n; ++i)
	{
		double r = 0.002 * pow(25.0, bsRng_Uniform(&rng));
		const bsTriangle* t = tris + bsRng_Below(&rng, count);
		double u = bsRng_Uniform(&rng), v = bsRng_Uniform(&rng);
		if (u + v > 1.0)
		{
			u = 1.0 - u;
			v = 1.0 - v;
		}
		bsVec3 p = bsAdd(t->p1,
			bsAdd(bsScale(u, bsSub(t->p2, t->p1)), bsScale(v, bsSub(t->p3, t->p1))));
		bsVec3 c1, c2;
		switch (i % 4)
		{
			case 0:
				c1 = bsMulAdd(p, r * (1.0 + 0.1 * bsRng_Uniform(&rng)), t->n);
				c2 = bsMulAdd(c1, 0.05 * bsRng_Uniform(&rng), bsRng_UnitVector(&rng));
				break;
			case 1:
				c1 = bsV3(bsRng_Range(&rng, -0.2, 1.2), bsRng_Range(&rng, -0.3, 0.5),
					bsRng_Range(&rng, -0.2, 1.2));
				c2 = bsV3(bsRng_Range(&rng, -0.2, 1.2), bsRng_Range(&rng, -0.3, 0.5),
					bsRng_Range(&rng, -0.2, 1.2));
				break;
			case 2:
				c1 = bsMulAdd(p, 2.0 * r * bsRng_Uniform(&rng), t->n);
				c2 = c1;
				break;
			default:
				c1 = bsV3(p.x, 0.4, p.z);
				c2 = bsV3(p.x, -0.4, p.z);
				break;
		}
		q[i].c1 = c1;
		q[i].c2 = c2;
		q[i].radius = r;
	}
}

static bool SameStats(const bsQueryStats* a, const bsQueryStats* b)
{
	return a->queries == b->queries && a->nodesVisited == b->nodesVisited &&
		a->trianglesTested == b->trianglesTested && a->hits == b->hits;
}

typedef struct BadInput
{
	size_t index;
	bsResult expected;
} BadInput;

static int BatchQueriesTest(void)
{
	bsTriangle* tris = NULL;
	uint32_t count = 0;
	ENSURE(bsMakeHeightfieldScene(21, 40, 20, &tris, &count) == bs_ok);
	bsBvh bvh;
	ENSURE(bsBvh_Build(&bvh, tris, count, NULL) == bs_ok);

	const size_t n = 20000;
	bsSweepInput* inputs = malloc(n * sizeof(bsSweepInput));
	bsSweepOutput* reference = malloc(n * sizeof(bsSweepOutput));
	bsSweepOutput* outputs = malloc(n * sizeof(bsSweepOutput));
	ENSURE(inputs != NULL && reference != NULL && outputs != NULL);
	MakeQueries(tris, count, 22, inputs, n);

	// Invalid inputs scattered through the batch; the first by index decides the result.
	BadInput bad[] = {
		{37, bs_errNegativeRadius},
		{1000, bs_errNonFinite},
		{5001, bs_errNonFinite},
		{7777, bs_errNonFinite},
		{12345, bs_errNegativeRadius},
		{19999, bs_errNonFinite},
	};
	inputs[37].radius = -0.01;
	inputs[1000].c1.x = (double)NAN;
	inputs[5001].c2.z = (double)INFINITY;
	inputs[7777].radius = (double)NAN;
	inputs[12345].radius = -1e-300;
	inputs[19999].radius = (double)INFINITY;
	const size_t badCount = sizeof(bad) / sizeof(bad[0]);

	for (int m = 0; m < bs_methodCount; ++m)
	{
		bsMethod method = (bsMethod)m;
		// Different garbage before each run: every byte of the outputs must be written.
		memset(reference, 0xCD, n * sizeof(bsSweepOutput));
		bsQueryStats refStats = {0, 0, 0, 0};
		ENSURE(bsBvh_SweepBatch(&bvh, method, inputs, reference, n, 1, &refStats) ==
			bs_errNegativeRadius);
		ENSURE(refStats.queries == n);

		int threadCounts[] = {2, 3, 8, 0, -1};
		for (size_t t = 0; t < sizeof(threadCounts) / sizeof(threadCounts[0]); ++t)
		{
			memset(outputs, 0x3C + (int)t, n * sizeof(bsSweepOutput));
			bsQueryStats stats = {0, 0, 0, 0};
			ENSURE(bsBvh_SweepBatch(&bvh, method, inputs, outputs, n, threadCounts[t], &stats) ==
				bs_errNegativeRadius);
			ENSURE(memcmp(outputs, reference, n * sizeof(bsSweepOutput)) == 0);
			ENSURE(SameStats(&stats, &refStats));
		}

		// Query by query: bsBvh_Sweep gives the same bytes, and its stats add up to the batch's.
		bsQueryStats single = {0, 0, 0, 0};
		size_t nextBad = 0;
		for (size_t i = 0; i < n; ++i)
		{
			bsSweepOutput out;
			memset(&out, 0x99, sizeof out);
			bsResult r = bsBvh_Sweep(&bvh, method, inputs + i, &out, &single);
			ENSURE(memcmp(&out, reference + i, sizeof out) == 0);
			if (nextBad < badCount && bad[nextBad].index == i)
			{
				ENSURE(r == bad[nextBad].expected);
				// A miss that stays put: t = 1, centre C2 (or C1 when C2 is not finite).
				ENSURE(out.hit == 0 && out.t == 1.0 && out.triangle == BS_NO_TRIANGLE);
				bsVec3 stay = bsIsValidVec3(inputs[i].c2) ? inputs[i].c2 : inputs[i].c1;
				ENSURE(memcmp(&out.center, &stay, sizeof stay) == 0);
				ENSURE(bsIsValidVec3(out.point) && bsIsValidVec3(out.normal));
				++nextBad;
			}
			else
			{
				ENSURE(r == bs_ok);
				ENSURE(out.hit == 0 || out.triangle < count);
			}
		}
		ENSURE(nextBad == badCount);
		ENSURE(SameStats(&single, &refStats));
		printf("  batch %-9s %zu queries: %5.1f%% hit, %.1f nodes and %.1f triangles per query, "
			"identical for 1, 2, 3, 8 and all threads\n",
			bsMethodName(method), n, 100.0 * (double)refStats.hits / (double)n,
			(double)refStats.nodesVisited / (double)n, (double)refStats.trianglesTested / (double)n);
	}

	// The first error by index wins, whatever its kind.
	inputs[20].radius = -1.0;
	inputs[10].c2.y = (double)NAN;
	ENSURE(bsBvh_SweepBatch(&bvh, bs_methodExact, inputs, outputs, n, 0, NULL) == bs_errNonFinite);
	ENSURE(outputs[10].hit == 0 && outputs[20].hit == 0 && outputs[10].t == 1.0);
	// All valid: ok.
	ENSURE(bsBvh_SweepBatch(&bvh, bs_methodExact, inputs + 38, outputs, 900, 3, NULL) == bs_ok);

	// Count 0 works (even without arrays) and adds nothing.
	bsQueryStats stats = {1, 2, 3, 4};
	ENSURE(bsBvh_SweepBatch(&bvh, bs_methodExact, NULL, NULL, 0, 4, &stats) == bs_ok);
	ENSURE(stats.queries == 1 && stats.nodesVisited == 2 && stats.trianglesTested == 3 &&
		stats.hits == 4);
	ENSURE(bsBvh_SweepBatch(&bvh, bs_methodExact, inputs, outputs, 0, 0, NULL) == bs_ok);
	// Bad arguments.
	ENSURE(bsBvh_SweepBatch(&bvh, bs_methodExact, NULL, outputs, 5, 1, NULL) ==
		bs_errInvalidArgument);
	ENSURE(bsBvh_SweepBatch(&bvh, bs_methodExact, inputs, NULL, 5, 1, NULL) ==
		bs_errInvalidArgument);
	ENSURE(bsBvh_SweepBatch(&bvh, bs_methodCount, inputs + 38, outputs, 100, 2, NULL) ==
		bs_errInvalidArgument);
	ENSURE(outputs[99].hit == 0 && outputs[99].t == 1.0 && outputs[99].triangle == BS_NO_TRIANGLE);
	ENSURE(bsBvh_SweepBatch(NULL, bs_methodExact, inputs + 38, outputs, 100, 2, NULL) ==
		bs_errInvalidArgument);
	bsBvh_Destroy(&bvh);

	// An empty BVH: every query misses, on any thread count.
	ENSURE(bsBvh_Build(&bvh, tris, 0, NULL) == bs_ok);
	stats = (bsQueryStats){0, 0, 0, 0};
	ENSURE(bsBvh_SweepBatch(&bvh, bs_methodKarabassi, inputs + 38, outputs, 900, 2, &stats) ==
		bs_ok);
	ENSURE(stats.queries == 900 && stats.hits == 0 && stats.nodesVisited == 0);
	for (size_t i = 0; i < 900; ++i)
	{
		ENSURE(outputs[i].hit == 0 && outputs[i].t == 1.0);
		ENSURE(memcmp(&outputs[i].center, &inputs[38 + i].c2, sizeof(bsVec3)) == 0);
	}
	bsBvh_Destroy(&bvh);

	free(inputs);
	free(reference);
	free(outputs);
	free(tris);
	return 0;
}

// Workers record whether the termination signals are blocked in their thread (worker 0 is the
// caller's thread, which keeps its own mask).
typedef struct SignalJob
{
	atomic_int workers;  // chunks run by a started thread
	atomic_int open;     // of those, chunks whose thread could take SIGINT, SIGTERM, SIGHUP or SIGQUIT
} SignalJob;

static void SignalRange(void* context, size_t begin, size_t end, int worker)
{
	(void)begin;
	(void)end;
	SignalJob* job = context;
	if (worker == 0)
	{
		// The caller's thread waits (up to 5 s) until a started thread has run a chunk, so that the
		// caller cannot take every chunk itself on a busy machine.
		for (int k = 0; k < 5000 && atomic_load(&job->workers) == 0; ++k)
		{
			struct timespec ms = {0, 1000000};
			nanosleep(&ms, NULL);
		}
		return;
	}
	sigset_t mask;
	pthread_sigmask(SIG_BLOCK, NULL, &mask);
	atomic_fetch_add(&job->workers, 1);
	if (!sigismember(&mask, SIGINT) || !sigismember(&mask, SIGTERM) || !sigismember(&mask, SIGHUP) ||
		!sigismember(&mask, SIGQUIT))
	{
		atomic_fetch_add(&job->open, 1);
	}
}

// The threads blobsim starts never take a termination signal (base.h: bsThread_Create), while the
// caller's mask is left as it was: the signal reaches the main thread, whose output commit blocks
// it.
static int WorkerSignalsTest(void)
{
	SignalJob job;
	atomic_init(&job.workers, 0);
	atomic_init(&job.open, 0);
	ENSURE(bsParallelFor(4, 4096, 1, SignalRange, &job) == 0);
	ENSURE(atomic_load(&job.workers) > 0);
	atomic_store(&job.workers, 0);
	bsPool* pool = bsPool_Create(4);
	ENSURE(pool != NULL);
	bsPool_For(pool, 4096, 1, SignalRange, &job);
	bsPool_Destroy(pool);
	ENSURE(atomic_load(&job.workers) > 0);
	ENSURE(atomic_load(&job.open) == 0);
	sigset_t mask;
	pthread_sigmask(SIG_BLOCK, NULL, &mask);
	ENSURE(!sigismember(&mask, SIGINT) && !sigismember(&mask, SIGTERM));
	return 0;
}

int BatchTest(void)
{
	RUN_SUBTEST(ParallelForTest());
	RUN_SUBTEST(WorkerSignalsTest());
	RUN_SUBTEST(BatchQueriesTest());
	return 0;
}
