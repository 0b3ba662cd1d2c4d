// noise.c — seeded value noise (noise.h).
#include "noise.h"

#include "blobsim/rng.h"

#include <math.h>
#include <string.h>

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

// The fade and its first two derivatives at u.
static void bsFadeDerivatives(double u, double d[3])
{
	d[0] = bsFade(u);
	d[1] = 30.0 * u * u * (u * (u - 2.0) + 1.0);
	d[2] = 60.0 * u * (u * (2.0 * u - 3.0) + 1.0);
}

// The gradient at a lattice point: one of Perlin's 12 edge directions.
static void bsLatticeGradient(uint64_t seed, uint64_t channel, int64_t slice, const int64_t c[3], double g[3])
{
	static const signed char dirs[12][3] = {{1, 1, 0}, {-1, 1, 0}, {1, -1, 0}, {-1, -1, 0}, {1, 0, 1}, {-1, 0, 1},
		{1, 0, -1}, {-1, 0, -1}, {0, 1, 1}, {0, -1, 1}, {0, 1, -1}, {0, -1, -1}};
	uint64_t x = seed ^ (channel * 0xd1b54a32d192ed03ull);
	uint64_t h = bsSplitMix64(&x);
	for (int i = 0; i < 3; ++i)
	{
		x = h ^ (uint64_t)c[i];
		h = bsSplitMix64(&x);
	}
	x = h ^ (uint64_t)slice;
	h = bsSplitMix64(&x);
	const signed char* d = dirs[(h >> 32) % 12u];
	for (int i = 0; i < 3; ++i)
	{
		g[i] = (double)d[i];
	}
}

void bsGradientNoise(uint64_t seed, uint64_t channel, int64_t slice, const double p[3], bool hessian,
	bsNoiseSample* out)
{
	memset(out, 0, sizeof(*out));
	int64_t base[3];
	double f[3];
	double fade[3][3];  // fade[i]: the fade of axis i and its two derivatives
	for (int i = 0; i < 3; ++i)
	{
		if (!isfinite(p[i]) || fabs(p[i]) > 0x1.0p52)
		{
			return;
		}
		double fl = floor(p[i]);
		base[i] = (int64_t)fl;
		f[i] = p[i] - fl;
		bsFadeDerivatives(f[i], fade[i]);
	}
	for (int corner = 0; corner < 8; ++corner)
	{
		int64_t c[3];
		double w[3][3];  // w[i]: the corner's weight along axis i and its two derivatives
		double d[3];     // f - the corner's offset
		for (int i = 0; i < 3; ++i)
		{
			int bit = (corner >> i) & 1;
			c[i] = base[i] + bit;
			d[i] = f[i] - (double)bit;
			for (int k = 0; k < 3; ++k)
			{
				w[i][k] = bit ? fade[i][k] : (k == 0 ? 1.0 - fade[i][0] : -fade[i][k]);
			}
		}
		double g[3];
		bsLatticeGradient(seed, channel, slice, c, g);
		double ramp = g[0] * d[0] + g[1] * d[1] + g[2] * d[2];
		double weight = w[0][0] * w[1][0] * w[2][0];
		double dw[3] = {w[0][1] * w[1][0] * w[2][0], w[0][0] * w[1][1] * w[2][0], w[0][0] * w[1][0] * w[2][1]};
		out->value += weight * ramp;
		for (int i = 0; i < 3; ++i)
		{
			out->gradient[i] += dw[i] * ramp + weight * g[i];
		}
		if (!hessian)
		{
			continue;
		}
		for (int i = 0; i < 3; ++i)
		{
			for (int j = i; j < 3; ++j)
			{
				// d2W/dp_i dp_j: the product of the three axes' weights, differentiated along i and j.
				double ddw = 1.0;
				for (int k = 0; k < 3; ++k)
				{
					ddw *= w[k][(k == i) + (k == j)];
				}
				out->hessian[i][j] += ddw * ramp + (dw[i] * g[j] + dw[j] * g[i]);
			}
		}
	}
	for (int i = 0; i < 3; ++i)
	{
		for (int j = 0; j < i; ++j)
		{
			out->hessian[i][j] = out->hessian[j][i];
		}
	}
}
