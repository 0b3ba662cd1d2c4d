// noise.c — seeded value noise (noise.h).
#include "noise.h"

#include "blobsim/rng.h"

#include <math.h>

// A uniform [0, 1) number from (seed, channel, n): splitmix64 of each word folded into the state.
static double bsHashUnit(uint64_t seed, uint64_t channel, int64_t n)
{
	uint64_t x = seed;
	uint64_t h = bsSplitMix64(&x);
	x = h ^ (channel * 0xd1b54a32d192ed03ull);
	h = bsSplitMix64(&x);
	x = h ^ (uint64_t)n;
	h = bsSplitMix64(&x);
	return (double)(h >> 11) * 0x1.0p-53;
}

static double bsFade(double u)
{
	return u * u * u * (u * (u * 6.0 - 15.0) + 10.0);
}

double bsValueNoise(uint64_t seed, uint64_t channel, double x)
{
	if (!isfinite(x) || fabs(x) > 0x1.0p52)
	{
		return 0.0;
	}
	double f = floor(x);
	int64_t n = (int64_t)f;
	double a = 2.0 * bsHashUnit(seed, channel, n) - 1.0;
	double b = 2.0 * bsHashUnit(seed, channel, n + 1) - 1.0;
	return a + bsFade(x - f) * (b - a);
}
