#include "blobsim/base.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

// Upper bound on the threads one call starts: beyond this, more threads only cost memory.
#define BS_MAX_THREADS 256

int bsThread_Create(pthread_t* thread, void* (*fn)(void*), void* arg)
{
	// The new thread inherits the creator's mask: block the signals around the call, then restore.
	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGQUIT);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	int rc = pthread_create(thread, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}

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
		if (bsThread_Create(&handles[i], bsParallelWorker_Main, &workers[i]) != 0)
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

// --- The persistent pool ---

typedef struct bsPoolWorker
{
	struct bsPool* pool;
	int worker;
} bsPoolWorker;

// Workers sleep on `wake` until `generation` changes, run the job, and count themselves out in
// `finished`; the caller sleeps on `done` until every worker has.
struct bsPool
{
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_cond_t done;
	bsParallelJob* job;   // the current job; read by workers after a generation change
	uint64_t generation;  // bumped per job (and to stop)
	int finished;         // workers done with the current generation
	bool stop;
	int workers;          // started, not counting the caller
	pthread_t handles[BS_MAX_THREADS];
	bsPoolWorker slots[BS_MAX_THREADS];
};

static void* bsPool_Main(void* arg)
{
	bsPoolWorker* self = arg;
	bsPool* pool = self->pool;
	uint64_t seen = 0;
	for (;;)
	{
		pthread_mutex_lock(&pool->lock);
		while (pool->generation == seen && !pool->stop)
		{
			pthread_cond_wait(&pool->wake, &pool->lock);
		}
		if (pool->stop)
		{
			pthread_mutex_unlock(&pool->lock);
			return NULL;
		}
		seen = pool->generation;
		bsParallelJob* job = pool->job;
		pthread_mutex_unlock(&pool->lock);

		bsParallelJob_Run(job, self->worker);

		pthread_mutex_lock(&pool->lock);
		pool->finished += 1;
		if (pool->finished == pool->workers)
		{
			pthread_cond_signal(&pool->done);
		}
		pthread_mutex_unlock(&pool->lock);
	}
}

bsPool* bsPool_Create(int threads)
{
	bsPool* pool = calloc(1, sizeof(bsPool));
	if (pool == NULL)
	{
		return NULL;
	}
	if (pthread_mutex_init(&pool->lock, NULL) != 0)
	{
		free(pool);
		return NULL;
	}
	pthread_cond_init(&pool->wake, NULL);
	pthread_cond_init(&pool->done, NULL);
	threads = bsResolveThreads(threads, SIZE_MAX);
	for (int i = 1; i < threads; ++i)
	{
		bsPoolWorker* slot = pool->slots + pool->workers;
		slot->pool = pool;
		slot->worker = i;
		if (bsThread_Create(&pool->handles[pool->workers], bsPool_Main, slot) != 0)
		{
			break;  // fewer threads: the chunks, and so the results, are the same
		}
		pool->workers += 1;
	}
	return pool;
}

void bsPool_Destroy(bsPool* pool)
{
	if (pool == NULL)
	{
		return;
	}
	pthread_mutex_lock(&pool->lock);
	pool->stop = true;
	pthread_cond_broadcast(&pool->wake);
	pthread_mutex_unlock(&pool->lock);
	for (int i = 0; i < pool->workers; ++i)
	{
		pthread_join(pool->handles[i], NULL);
	}
	pthread_cond_destroy(&pool->wake);
	pthread_cond_destroy(&pool->done);
	pthread_mutex_destroy(&pool->lock);
	free(pool);
}

int bsPool_ThreadCount(const bsPool* pool)
{
	return pool->workers + 1;
}

void bsPool_For(bsPool* pool, size_t count, size_t grain, bsRangeFn* fn, void* context)
{
	if (count == 0 || fn == NULL)
	{
		return;
	}
	bsParallelJob job;
	job.fn = fn;
	job.context = context;
	job.count = count;
	job.grain = grain < 1 ? 1 : grain;
	job.chunks = count / job.grain + (count % job.grain != 0);
	atomic_init(&job.next, 0);
	if (pool->workers == 0 || job.chunks == 1)
	{
		bsParallelJob_Run(&job, 0);
		return;
	}
	pthread_mutex_lock(&pool->lock);
	pool->job = &job;
	pool->finished = 0;
	pool->generation += 1;
	pthread_cond_broadcast(&pool->wake);
	pthread_mutex_unlock(&pool->lock);

	bsParallelJob_Run(&job, 0);

	pthread_mutex_lock(&pool->lock);
	while (pool->finished < pool->workers)
	{
		pthread_cond_wait(&pool->done, &pool->lock);
	}
	pool->job = NULL;
	pthread_mutex_unlock(&pool->lock);
}
