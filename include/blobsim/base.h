// base.h — what every part of blobsim shares: result codes, clocks, the one hash, threads.
//
// Box2D's base.h holds the same kind of thing (b2GetTicks, b2Hash): small utilities a program uses
// beside the engine (a timer for its report, a hash of its inputs, its own worker threads) and the
// engine uses itself.
#pragma once

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

// --- Results ---

// Error codes shared by every module. Functions that can fail on bad input return one.

typedef enum bsResult
{
	bs_ok = 0,
	bs_errNonFinite,           // a NaN or infinite coordinate or radius
	bs_errNegativeRadius,      // a sphere radius below zero
	bs_errDegenerateTriangle,  // a triangle with zero area (collinear or coincident vertices)
	bs_errInvalidArgument,     // a count, pointer or option out of range
	bs_errOutOfMemory,         // an allocation failed or its size would overflow
	bs_errTooLarge,            // more triangles or particles than the index type can hold
	bs_errUnstable,            // a step would need more substeps than allowed
	bs_resultCount
} bsResult;

// A short human-readable description, never NULL.
const char* bsResultString(bsResult result);

// --- Clocks ---

// Wall-clock timing for the benchmark and the reports.

// Seconds on a monotonic clock (CLOCK_MONOTONIC): only differences are meaningful. Never goes back,
// unaffected by changes to the system time.
double bsNow(void);

// Seconds of CPU time used by the whole process so far (all threads: CLOCK_PROCESS_CPUTIME_ID), for
// benchmarks on a shared machine, where the wall clock says more about the load than the code.
double bsCpuNow(void);

// --- Hashing ---

// FNV-1a 64, the one hash of files, meshes, cache keys and benchmark checksums.

#define BS_FNV1A_BASIS 14695981039346656037ull  // the offset basis: the hash of no bytes

// h with size more bytes of data hashed in (start from BS_FNV1A_BASIS).
static inline uint64_t bsFnv1a(uint64_t h, const void* data, size_t size)
{
	const unsigned char* p = (const unsigned char*)data;
	for (size_t i = 0; i < size; ++i)
	{
		h = (h ^ p[i]) * 1099511628211ull;
	}
	return h;
}

// h with v's 8 bytes hashed in, least significant first whatever the machine.
static inline uint64_t bsFnv1a_U64(uint64_t h, uint64_t v)
{
	for (int i = 0; i < 8; ++i)
	{
		h = (h ^ ((v >> (8 * i)) & 0xffu)) * 1099511628211ull;
	}
	return h;
}

// --- Threads ---

// A fork-join parallel for over pthreads. Work is cut into fixed chunks by index, so
// what each index computes never depends on the thread count.

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
