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
// itself keeps none of these (the BVH's node boxes already do the job for its leaves), so it costs
// nothing where a caller does not store them.
#pragma once

#include "blobsim/collide.h"
#include "blobsim/triangle.h"
#include "blobsim/vec3.h"

#include <math.h>
#include <stdalign.h>
#include <stdbool.h>

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

// The largest float <= x and the smallest float >= x, for finite x (float overflow goes to
// -FLT_MAX / FLT_MAX or beyond them to infinity, on the right side either way).
static inline float bsFloatDown(double x)
{
	float f = (float)x;
	return (double)f > x ? nextafterf(f, -INFINITY) : f;
}

static inline float bsFloatUp(double x)
{
	float f = (float)x;
	return (double)f < x ? nextafterf(f, INFINITY) : f;
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
