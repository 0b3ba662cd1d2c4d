#include "blobsim/parallel.h"

#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

// Upper bound on the threads one call starts: beyond this, more threads only cost memory.
#define BS_MAX_THREADS 256

int bsCoreCount(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	if (n < 1)
	{
		return 1;
	}
	return n > BS_MAX_THREADS ? BS_MAX_THREADS : (int)n;
}

int bsResolveThreads(int requested, size_t count)
{
	int threads = requested <= 0 ? bsCoreCount() : requested;
	if (threads > BS_MAX_THREADS)
	{
		threads = BS_MAX_THREADS;
	}
	if ((size_t)threads > count)
	{
		threads = (int)count;
	}
	return threads < 1 ? 1 : threads;
}

// Shared by all workers of one call. Chunks are handed out by index through an atomic counter;
// chunk c always covers [c * grain, min((c + 1) * grain, count)), whichever worker takes it.
typedef struct bsParallelJob
{
	bsRangeFn* fn;
	void* context;
	size_t count;
	size_t grain;
	size_t chunks;
	atomic_size_t next;
} bsParallelJob;

typedef struct bsParallelWorker
{
	bsParallelJob* job;
	int worker;
} bsParallelWorker;

static void bsParallelJob_Run(bsParallelJob* job, int worker)
{
	for (;;)
	{
		// Counts at most chunks + threads: no overflow.
		size_t chunk = atomic_fetch_add_explicit(&job->next, 1, memory_order_relaxed);
		if (chunk >= job->chunks)
		{
			return;
		}
		size_t begin = chunk * job->grain;
		size_t end = job->count - begin > job->grain ? begin + job->grain : job->count;
		job->fn(job->context, begin, end, worker);
	}
}

static void* bsParallelWorker_Main(void* arg)
{
	bsParallelWorker* w = arg;
	bsParallelJob_Run(w->job, w->worker);
	return NULL;
}

int bsParallelFor(int threads, size_t count, size_t grain, bsRangeFn* fn, void* context)
{
	if (count == 0 || fn == NULL)
	{
		return 0;
	}
	if (grain < 1)
	{
		grain = 1;
	}
	bsParallelJob job;
	job.fn = fn;
	job.context = context;
	job.count = count;
	job.grain = grain;
	job.chunks = count / grain + (count % grain != 0);
	atomic_init(&job.next, 0);

	threads = bsResolveThreads(threads, job.chunks);
	if (threads == 1)
	{
		bsParallelJob_Run(&job, 0);
		return 0;
	}

	pthread_t handles[BS_MAX_THREADS];
	bsParallelWorker workers[BS_MAX_THREADS];
	int started = 0;
	for (int i = 1; i < threads; ++i)
	{
		workers[i].job = &job;
		workers[i].worker = i;
		if (pthread_create(&handles[i], NULL, bsParallelWorker_Main, &workers[i]) != 0)
		{
			// Run on the threads that did start: the chunks are the same, so are the results.
			break;
		}
		++started;
	}
	bsParallelJob_Run(&job, 0);
	for (int i = 1; i <= started; ++i)
	{
		pthread_join(handles[i], NULL);
	}
	return started > 0 ? 0 : -1;
}
