// float_bounds.h — float bounds that contain double geometry: the BVH's boxes are floats rounded
// outwards from the triangles' doubles, by the build (bvh.c) and the refit (bvh_refit.c) alike, so a
// refit box is the box a build would make.
#pragma once

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

// The next float above (up) or below finite f: nextafterf's answer without its call (every triangle
// of a build takes up to six).
static inline float bsFloatStep(float f, bool up)
{
	if (f == 0.0f)
	{
		return up ? FLT_TRUE_MIN : -FLT_TRUE_MIN;
	}
	uint32_t bits;
	memcpy(&bits, &f, sizeof bits);
	// Up from a positive float, or down from a negative one, is one step away from zero.
	bits = (f > 0.0f) == up ? bits + 1u : bits - 1u;
	memcpy(&f, &bits, sizeof f);
	return f;
}

// The largest float <= x (-inf below the float range).
static inline float bsFloatDown(double x)
{
	if (x >= (double)FLT_MAX)
	{
		return FLT_MAX;
	}
	if (x < -(double)FLT_MAX)
	{
		return -INFINITY;
	}
	float f = (float)x;
	if ((double)f > x)
	{
		f = bsFloatStep(f, false);
	}
	return f;
}

// The smallest float >= x (+inf above the float range).
static inline float bsFloatUp(double x)
{
	if (x <= -(double)FLT_MAX)
	{
		return -FLT_MAX;
	}
	if (x > (double)FLT_MAX)
	{
		return INFINITY;
	}
	float f = (float)x;
	if ((double)f < x)
	{
		f = bsFloatStep(f, true);
	}
	return f;
}

