// parallel.h — a fork-join parallel for over pthreads. Work is cut into fixed chunks by index, so
// what each index computes never depends on the thread count.
#pragma once

#include <pthread.h>
#include <stddef.h>

// pthread_create for a thread that never takes the process's termination signals (SIGINT, SIGTERM,
// SIGHUP, SIGQUIT): they stay with the threads that did not block them — the program's main thread,
// whose handlers remove temporary files and whose commit of a run's outputs blocks them while it
// renames (io/output_set.c). Without this a signal arriving during the renames could run the
// handler on a worker and exit halfway. Every thread blobsim starts is made with it.
int bsThread_Create(pthread_t* thread, void* (*fn)(void*), void* arg);

// Called for [begin, end) by worker `worker` (0 .. threads-1).
typedef void bsRangeFn(void* context, size_t begin, size_t end, int worker);

// Number of online cores (at least 1).
int bsCoreCount(void);

// Resolves a requested thread count: <= 0 means all cores; never more than `count` items need.
int bsResolveThreads(int requested, size_t count);

// Runs fn over [0, count) in chunks of `grain` items (>= 1) on `threads` threads (resolved with
// bsResolveThreads; the caller's thread is worker 0). Returns 0, or -1 when no thread could be
// started (the work is then done on the caller's thread alone, so the result is the same).
int bsParallelFor(int threads, size_t count, size_t grain, bsRangeFn* fn, void* context);

// A pool of worker threads created once (per run) and reused by every parallel phase of every step,
// so a step of several phases does not start threads each time. bsPool_For cuts the work into the
// same fixed chunks as bsParallelFor: what each index computes never depends on the thread count.
// One caller at a time (the pool is not re-entrant); the caller's thread works as worker 0.
typedef struct bsPool bsPool;

// Starts threads - 1 workers (threads resolved with bsResolveThreads(threads, SIZE_MAX)). When some
// cannot be started the pool keeps those that did (the results are the same). NULL when out of
// memory.
bsPool* bsPool_Create(int threads);

// Stops and joins the workers. NULL is fine.
void bsPool_Destroy(bsPool* pool);

// Threads that work on a bsPool_For (workers started + the caller), >= 1.
int bsPool_ThreadCount(const bsPool* pool);

// Runs fn over [0, count) in chunks of grain items on the pool's threads and returns when all are
// done; worker indices are 0 .. bsPool_ThreadCount - 1.
void bsPool_For(bsPool* pool, size_t count, size_t grain, bsRangeFn* fn, void* context);
