// dispatch.h — runtime CPU dispatch: a portable build (no -march) still runs the swept-sphere
// tests and the BVH sweep's walk as AVX2 code where the CPU has it.
//
// Each hot function is written once as an always-inline body and compiled twice: a default copy
// and a target("avx2") copy, picked per call by bsDispatch_Avx2(). AVX2 only, never FMA: the
// build's -std=c11 means -ffp-contract=off, and without "fma" in the target no multiply-add can be
// formed, so both copies round every operation alike and give the same answers, bit for bit
// (tests/test_dispatch.c checks it). A build that already targets AVX2 (-march=native on such a
// CPU) or a compiler or CPU family without the attribute compiles the default copy only.
#ifndef BLOBSIM_DISPATCH_H
#define BLOBSIM_DISPATCH_H

#include <stdbool.h>

#if defined(__GNUC__) && defined(__x86_64__) && !defined(__AVX2__)
#define BS_DISPATCH_AVX2 1
#define BS_TARGET_AVX2 __attribute__((target("avx2")))
#define BS_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define BS_DISPATCH_AVX2 0
#define BS_ALWAYS_INLINE inline
#endif

// Which copy runs: the CPU's best (the default), or the default copy forced (tests only).
typedef enum bsDispatchMode
{
	bs_dispatchBest,
	bs_dispatchDefault,
} bsDispatchMode;

#if BS_DISPATCH_AVX2
extern bool bs_dispatchAvx2;

// Read in every dispatched call: one load and a well predicted branch.
static inline bool bsDispatch_Avx2(void)
{
	return bs_dispatchAvx2;
}
#endif

// Whether the BVH's exact sweeps test a leaf's triangles four at a time (bsExactTriangle4) or one at a
// time: four where the build has the lanes (x86-64), unless the environment variable
// BLOBSIM_SCALAR_SWEEP is 1 when the program starts (the scalar path, to compare; the answers are the
// same) or bsDispatch_SetLanes says otherwise.
extern bool bs_dispatchLanes;

static inline bool bsDispatch_Lanes(void)
{
	return bs_dispatchLanes;
}

// Turns the lanes on (where built) or off. Not thread-safe: call while no query is running.
void bsDispatch_SetLanes(bool on);

// Whether this build and CPU have an AVX2 copy at all.
bool bsDispatch_HasAvx2(void);

// Sets which copy runs. Not thread-safe: call while no query is running.
void bsDispatch_SetMode(bsDispatchMode mode);

#endif
