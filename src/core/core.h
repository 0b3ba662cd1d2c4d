// core.h — the chores every part of blobsim shares: π, the element count of an array, the cold-path
// attribute, assertions. Private: not part of the API (include/blobsim/), but visible to every layer
// above the engine too (io/, shared/, app/, bench/, the tests), since src/core is the bottom of them
// all. Growable arrays are in array.h beside it.
#pragma once

#include <assert.h>
#include <stdint.h>

// π, written once. The literal rounds to the same double as M_PI (which C11 does not define), so
// every expression spelled with it gives the bits it gave with the digits written out.
#define BS_PI 3.14159265358979323846

// The number of elements of an array (not a pointer), as an int.
#define BS_COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

// The body of a test after its cheap rejection: kept out of line so that the rejection, which most
// calls end at, runs without the body's register saves and stack frame.
#if defined(__GNUC__)
#define BS_COLD_PATH __attribute__((noinline))
#else
#define BS_COLD_PATH
#endif

// The finaliser of MurmurHash3: every input bit reaches every output bit, so the low bits that pick a
// hash table's slot depend on the whole 64-bit state.
static inline uint64_t bsMurmurMix(uint64_t h)
{
	h ^= h >> 33;
	h *= UINT64_C(0xff51afd7ed558ccd);
	h ^= h >> 33;
	h *= UINT64_C(0xc4ceb9fe1a85ec53);
	h ^= h >> 33;
	return h;
}

// BS_ASSERT(condition): an invariant the code relies on, checked in debug builds and compiled out
// with NDEBUG (release builds), as assert. Compiled out it still names the condition's variables
// (in an unevaluated sizeof), so a variable only an assertion reads is not "unused" under -Werror.
#if defined(NDEBUG)
#define BS_ASSERT(condition) ((void)sizeof(!(condition)))
#else
#define BS_ASSERT(condition) assert(condition)
#endif
