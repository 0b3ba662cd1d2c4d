// boxf.h — single-precision bounds rounded outward, a rejection read before the 104-byte triangle
// and the 184-byte sweep.
//
// bsKarabassiTriangle and bsExactTriangle start with the double bounding-box test of the capsule
// against the triangle (bsSweep_BoxOverlaps), which most random pairs end at. That test reads the
// triangle's three vertices and the sweep's box: two or three cache lines per pair. A caller that
// tests many scattered pairs (Table 1 of `blobsim bench`) can keep a 32-byte bsBoxf per triangle and
// per sweep beside them, and ask bsBoxf_Overlaps first: one line (two boxes share it) per side.
//
// The boxes contain the double bounds (the lower corner is rounded down, the upper one up), so when
// two of them are disjoint the double bounds are too and the tests would answer "no contact" at
// their first step: calling a test only when bsBoxf_Overlaps says yes changes no answer. The engine
// keeps no bsBoxf (the BVH's node boxes already do the job for its leaves), so they cost nothing
// where a caller does not store them; its build and refit round their float node boxes outward with
// the same bsFloatDown / bsFloatUp, so a refit box is the box a build would make.
#pragma once

#include "blobsim/collide.h"
#include "blobsim/triangle.h"
#include "blobsim/vec3.h"

#include <float.h>
#include <math.h>
#include <stdalign.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

// lo[0..2], hi[0..2] in x, y, z order; the fourth lanes are zero in both, so the four-lane
// comparison below never fails on them. 32 bytes, aligned so that a box never straddles two lines.
typedef struct bsBoxf
{
	alignas(16) float lo[4];
	float hi[4];
} bsBoxf;

_Static_assert(sizeof(bsBoxf) == 32, "two bsBoxf per cache line");

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

// The float box containing [lo, hi].
static inline bsBoxf bsMakeBoxf(bsVec3 lo, bsVec3 hi)
{
	bsBoxf b = {{bsFloatDown(lo.x), bsFloatDown(lo.y), bsFloatDown(lo.z), 0.0f},
		{bsFloatUp(hi.x), bsFloatUp(hi.y), bsFloatUp(hi.z), 0.0f}};
	return b;
}

// Contains the triangle's vertices.
static inline bsBoxf bsTriangle_Boxf(const bsTriangle* t)
{
	return bsMakeBoxf(bsTriangle_Min(t), bsTriangle_Max(t));
}

// Contains the sweep's box (the capsule's bounds, bsSweep.boxMin / boxMax).
static inline bsBoxf bsSweep_Boxf(const bsSweep* s)
{
	return bsMakeBoxf(s->boxMin, s->boxMax);
}

// False when the boxes are disjoint; then bsSweep_BoxOverlaps is false for any triangle and sweep
// whose boxes these are (a strict gap between the float bounds is a strict gap between the doubles
// they contain), and so are bsKarabassiTriangle and bsExactTriangle.
#if defined(__SSE2__)
static inline bool bsBoxf_Overlaps(const bsBoxf* a, const bsBoxf* b)
{
	__m128 out = _mm_or_ps(_mm_cmplt_ps(_mm_load_ps(a->hi), _mm_load_ps(b->lo)),
		_mm_cmpgt_ps(_mm_load_ps(a->lo), _mm_load_ps(b->hi)));
	return _mm_movemask_ps(out) == 0;
}
#else
static inline bool bsBoxf_Overlaps(const bsBoxf* a, const bsBoxf* b)
{
	bool out = (a->hi[0] < b->lo[0]) | (a->hi[1] < b->lo[1]) | (a->hi[2] < b->lo[2]);
	out |= (a->lo[0] > b->hi[0]) | (a->lo[1] > b->hi[1]) | (a->lo[2] > b->hi[2]);
	return !out;
}
#endif
