// noise.h — smooth seeded noise for the forces that vary in space and time (force_wind.c's gusts):
// a pure function of (seed, channel, coordinates), so every particle and every thread count reads the
// same values.
#pragma once

#include <stdbool.h>
#include <stdint.h>

// 1D value noise in [-1, 1]: at each integer n the value 2 r - 1, r a uniform [0, 1) number hashed from
// (seed, channel, n) by splitmix64; between integers the two values blended by the quintic fade
// 6u^5 - 15u^4 + 10u^3 (smooth: its first and second derivatives are 0 at the integers, so the noise
// is C2). A different channel gives an independent noise.
double bsValueNoise(uint64_t seed, uint64_t channel, double x);

// 3D gradient noise (Perlin's: at each lattice point one of the 12 gradients (±1, ±1, 0) and its
// turns, hashed from (seed, channel, slice, point); between points the 8 corners' linear ramps blended
// by the quintic fade), about in [-1, 1], 0 at the lattice points. Its first and second derivatives
// are exact (the fade's derivatives, not differences): gradient[i] = dn/dp_i and, when hessian is
// not NULL, hessian[i][j] = d2n/dp_i dp_j (symmetric: the same sums in either order). A different
// channel or slice gives an independent noise.
typedef struct bsNoiseSample
{
	double value;
	double gradient[3];
	double hessian[3][3];
} bsNoiseSample;

void bsGradientNoise(uint64_t seed, uint64_t channel, int64_t slice, const double p[3], bool hessian,
	bsNoiseSample* out);
