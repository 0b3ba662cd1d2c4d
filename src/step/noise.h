// noise.h — smooth seeded noise for the forces that vary in space and time (force_wind.c's gusts):
// a pure function of (seed, channel, coordinates), so every particle and every thread count reads the
// same values.
#pragma once

#include <stdint.h>

// 1D value noise in [-1, 1]: at each integer n the value 2 r - 1, r a uniform [0, 1) number hashed from
// (seed, channel, n) by splitmix64; between integers the two values blended by the quintic fade
// 6u^5 - 15u^4 + 10u^3 (smooth: its first and second derivatives are 0 at the integers, so the noise
// is C2). A different channel gives an independent noise.
double bsValueNoise(uint64_t seed, uint64_t channel, double x);
