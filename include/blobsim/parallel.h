// parallel.h — a fork-join parallel for over pthreads. Work is cut into fixed chunks by index, so
// what each index computes never depends on the thread count.
#pragma once

#include <stddef.h>

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
