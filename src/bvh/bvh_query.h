// bvh_query.h — what the BVH's walks share (bvh.c, and the ray-only 8-wide tree, ray_bvh.c): the
// float segment of the slab tests, the best contact so far with the list loop's tie rule, and the
// ray queries' input check, leaf test and answer, so every walk gives the same answers bit for bit.
#ifndef BLOBSIM_BVH_QUERY_H
#define BLOBSIM_BVH_QUERY_H

#include "collide_internal.h"
#include "ray_test.h"

#include "blobsim/bvh.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

// Beyond this magnitude the float slab test cannot be trusted: such queries scan every triangle.
#define BS_BVH_FLOAT_LIMIT 1e30

// The sweep in float for the slab tests: origin, safe inverse direction, and how far every box is
// grown (the radius plus the rounding pad).
typedef struct bsBvhRay
{
	float o[3];
	float inv[3];
	float grow;
} bsBvhRay;

// The float segment of the slab tests for a sweep of the given radius whose coordinates are at most
// `reach` in magnitude (both at most BS_BVH_FLOAT_LIMIT), against boxes grown by boxPad.
static inline bsBvhRay bsMakeBvhRayPadded(float boxPad, bsVec3 c1, bsVec3 motion, double radius,
	double reach)
{
	bsBvhRay ray;
	double o[3] = {c1.x, c1.y, c1.z};
	double d[3] = {motion.x, motion.y, motion.z};
	for (int a = 0; a < 3; ++a)
	{
		ray.o[a] = (float)o[a];
		float df = (float)d[a];
		// A (nearly) zero component would give inf and then 0 * inf = NaN: use a large
		// finite inverse instead. The motion ignored (< 1e-30) is covered by the pad.
		ray.inv[a] = fabsf(df) < 1e-30f ? copysignf(1e30f, df) : 1.0f / df;
	}
	// The pad covers the rounding of the box arithmetic (boxPad: the tree's own pad), of the query converted
	// to float (relative 1e-6 of its magnitude) and the ignored tiny motion (1e-29).
	float pad = boxPad + (float)(1e-6 * (radius + reach)) + 1e-29f;
	ray.grow = (float)radius + pad;
	return ray;
}


// The same for the boxes of bvh.
static inline bsBvhRay bsMakeBvhRay(const bsBvh* bvh, bsVec3 c1, bsVec3 motion, double radius, double reach)
{
	return bsMakeBvhRayPadded(bvh->pad, c1, motion, radius, reach);
}

// The nearest contact so far. Among contacts at the same t the triangle with the lowest caller's
// index wins, as in the list loop, so the answer does not depend on the order of the walk.
typedef struct bsBvhBest
{
	bsTriangleHit hit;
	uint32_t k;      // leaf-order index
	uint32_t index;  // caller's index
	bool found;
} bsBvhBest;

// nextafter(t, INFINITY) for a contact's t in [0, 1], without the call into libm: the next bit
// pattern above a positive finite double (karabassi's end sphere gives t = 1), zero through
// nextafter.
static inline double bsNextUp(double t)
{
	if (!(t > 0.0) || !(t <= 1.0))
	{
		return nextafter(t, INFINITY);
	}
	uint64_t bits;
	memcpy(&bits, &t, sizeof bits);
	bits += 1u;
	memcpy(&t, &bits, sizeof t);
	return t;
}

// The bound a triangle's test is run with: only contacts nearer than the best count, or as near for
// a lower caller's index (the kernels report t < tmax and their t does not depend on tmax).
static inline double bsBvhBest_Bound(const bsBvhBest* best, uint32_t index)
{
	if (!best->found)
	{
		return 2.0;
	}
	return index < best->index ? bsNextUp(best->hit.t) : best->hit.t;
}

// Keeps contact h of triangle k (leaf order; index the caller's) when it beats the best. Returns
// whether it did.
static inline bool bsBvhBest_Offer(bsBvhBest* best, const bsTriangleHit* h, uint32_t k, uint32_t index)
{
	if (best->found && !(h->t < best->hit.t || (h->t == best->hit.t && index < best->index)))
	{
		return false;
	}
	best->hit = *h;
	best->k = k;
	best->index = index;
	best->found = true;
	return true;
}

// Triangles [first, first + count) (leaf order of tris, the caller's indices in triIndex, their open
// edges in open) against the segment, with the segment's frame made once per query: the list loop's
// ray test, the same answers but for a crossing exactly on an open edge, which the tree's triangle
// takes. Returns true when the best contact changed.
static BS_COLD_PATH bool bsRay_TestRange(const bsTriangle* tris, const uint32_t* triIndex,
	const uint8_t* open, bsRayFrame* frame, uint32_t first, uint32_t count, bsBvhBest* best)
{
	bool changed = false;
	for (uint32_t k = first; k < first + count; ++k)
	{
		uint32_t index = triIndex[k];
		bsTriangleHit h;
		if (bsRay_Triangle(tris + k, frame, bsBvhBest_Bound(best, index), open[k], &h))
		{
			changed |= bsBvhBest_Offer(best, &h, k, index);
		}
	}
	return changed;
}

// The larger magnitude of the segment's coordinates: whether the float walk can be trusted.
static inline double bsRayFrame_Reach(const bsRayFrame* frame)
{
	double reach = bsMaxAbsFinite(frame->c1);
	double reach2 = bsMaxAbsFinite(frame->c2);
	return reach > reach2 ? reach : reach2;
}

// The start of a ray query (bsBvh_Ray, bsRayBvh_Ray): out is filled with a miss (every byte written),
// then the input is checked as bsMakeSweep checks it for the ray method (finite coordinates, a
// finite squared length) and the segment's frame made. Returns the input's error, or bs_ok.
static inline bsResult bsRayQuery_Begin(bool haveTree, const bsRayInput* input, bsRayOutput* out,
	bsRayFrame* frame)
{
	if (out == NULL)
	{
		return bs_errInvalidArgument;
	}
	memset(out, 0, sizeof *out);
	out->t = 1.0;
	out->triangle = BS_NO_TRIANGLE;
	if (!haveTree || input == NULL)
	{
		return bs_errInvalidArgument;
	}
	if (!bsIsValidVec3(input->c1) || !bsIsValidVec3(input->c2))
	{
		return bs_errNonFinite;
	}
	bsMakeRayFrame(frame, input->c1, input->c2);
	if (!isfinite(bsLengthSquared(frame->d)))
	{
		return bs_errNonFinite;
	}
	return bs_ok;
}

// The answer of a ray query from its best contact (tris in leaf order).
static inline void bsRayQuery_Finish(const bsTriangle* tris, const bsRayFrame* frame,
	const bsBvhBest* best, bsRayOutput* out)
{
	if (best->found)
	{
		const bsTriangle* tri = tris + best->k;
		out->t = best->hit.t;
		// bsSweep_Finish's facing normal for a centre on the plane.
		out->normal = bsDot(tri->n, frame->d) > 0.0 ? bsNeg(tri->n) : tri->n;
		out->triangle = best->index;
		out->hit = 1;
	}
}

#endif
