// rng.h — a small seeded generator (xoshiro256**, seeded through splitmix64). Same seed, same stream,
// on every platform: the tests, the benchmark and the emitters depend on it.
#pragma once

#include "blobsim/vec3.h"

#include <stdint.h>

typedef struct bsRng
{
	uint64_t s[4];
} bsRng;

static inline uint64_t bsSplitMix64(uint64_t* x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static inline bsRng bsMakeRng(uint64_t seed)
{
	bsRng r;
	for (int i = 0; i < 4; ++i)
	{
		r.s[i] = bsSplitMix64(&seed);
	}
	return r;
}

static inline uint64_t bsRotl64(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline uint64_t bsRng_Next(bsRng* r)
{
	uint64_t* s = r->s;
	uint64_t result = bsRotl64(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = bsRotl64(s[3], 45);
	return result;
}

// Uniform in [0, 1): 53 random bits.
static inline double bsRng_Uniform(bsRng* r)
{
	return (double)(bsRng_Next(r) >> 11) * (1.0 / 9007199254740992.0);
}

// Uniform in [lo, hi).
static inline double bsRng_Range(bsRng* r, double lo, double hi)
{
	return lo + (hi - lo) * bsRng_Uniform(r);
}

// Uniform integer in [0, n), n > 0 (multiply-shift; the bias is below 2^-32 for n < 2^32).
static inline uint32_t bsRng_Below(bsRng* r, uint32_t n)
{
	return (uint32_t)(((bsRng_Next(r) >> 32) * (uint64_t)n) >> 32);
}

// A uniformly distributed unit vector: rejection from the cube into the unit ball, then normalised.
static inline bsVec3 bsRng_UnitVector(bsRng* r)
{
	for (;;)
	{
		bsVec3 v = bsV3(bsRng_Range(r, -1.0, 1.0), bsRng_Range(r, -1.0, 1.0), bsRng_Range(r, -1.0, 1.0));
		double l2 = bsLengthSquared(v);
		if (l2 > 1e-6 && l2 <= 1.0)
		{
			return bsScale(1.0 / sqrt(l2), v);
		}
	}
}
