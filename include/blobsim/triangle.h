// triangle.h — the environment's primitive, stored as the paper stores it: vertices P1, P2, P3, the unit
// normal N = (α, β, γ) and the plane constant δ of αx + βy + γz + δ = 0, precomputed once per mesh.
#pragma once

#include "blobsim/base.h"
#include "blobsim/vec3.h"

#include <stdint.h>

// Make one with bsMakeTriangle: the tests and the BVH's culls rely on n and delta being the vertices'
// own plane to rounding (a hand-filled triangle whose stored plane is tilted off its vertices gets
// answers that differ between the list loop and the BVH).
typedef struct bsTriangle
{
	bsVec3 p1, p2, p3;
	bsVec3 n;      // unit normal, (p2 - p1) x (p3 - p1) normalised: counter-clockwise seen from +n
	double delta;  // plane constant: n . x + delta = 0 on the plane
} bsTriangle;

_Static_assert(sizeof(bsTriangle) == 13 * sizeof(double), "bsTriangle is 13 packed doubles");

// Where on a triangle a closest point lies.
typedef enum bsFeature
{
	bs_featureFace = 0,
	bs_featureEdge,    // index 0: p1p2, 1: p2p3, 2: p3p1
	bs_featureVertex,  // index 0: p1, 1: p2, 2: p3
} bsFeature;

// Builds a triangle. Fails with bs_errNonFinite on a NaN/inf coordinate and with
// bs_errDegenerateTriangle when the vertices are collinear (the area is below 1e-14 of the
// longest edge squared, so no normal can be trusted).
bsResult bsMakeTriangle(bsVec3 p1, bsVec3 p2, bsVec3 p3, bsTriangle* out);

// Signed distance of q from the triangle's plane: n . q + delta.
static inline double bsTriangle_PlaneDistance(const bsTriangle* t, bsVec3 q)
{
	return bsDot(t->n, q) + t->delta;
}

// The edge function of the edge a -> b (two consecutive vertices of t) at q: ((b - a) x (q - a)) . n,
// >= 0 when q, on the plane, lies on the triangle's side of the edge's line.
static inline double bsTriangle_EdgeFunction(const bsTriangle* t, bsVec3 a, bsVec3 b, bsVec3 q)
{
	return bsDot(bsCross(bsSub(b, a), bsSub(q, a)), t->n);
}

// Is q, assumed on the triangle's plane, inside the closed triangle? Edge-function test.
static inline bool bsTriangle_Contains(const bsTriangle* t, bsVec3 q)
{
	return bsTriangle_EdgeFunction(t, t->p1, t->p2, q) >= 0.0 &&
		bsTriangle_EdgeFunction(t, t->p2, t->p3, q) >= 0.0 &&
		bsTriangle_EdgeFunction(t, t->p3, t->p1, q) >= 0.0;
}

// Axis-aligned bounds.
static inline bsVec3 bsTriangle_Min(const bsTriangle* t)
{
	return bsMin(t->p1, bsMin(t->p2, t->p3));
}

static inline bsVec3 bsTriangle_Max(const bsTriangle* t)
{
	return bsMax(t->p1, bsMax(t->p2, t->p3));
}

// Closest point of the closed triangle to q (Voronoi regions, Ericson §5.1.5). Reports the feature
// the point lies on and its index when feature/index are not NULL.
bsVec3 bsTriangle_ClosestPoint(const bsTriangle* t, bsVec3 q, bsFeature* feature, int* index);

// The unit normal at `point`, the triangle's point closest to q (on `feature`, as
// bsTriangle_ClosestPoint reports it), pointing towards q: on the face, the face normal on q's side
// (the same vector over the whole face); on an edge or a vertex, (q - point) / |q - point|. Returns
// false and leaves *normal alone when q is on the surface, where no side can be told: for a face its
// plane distance, for an edge or vertex its distance, is at most 1e-12 (1 + max |q_i|).
bool bsTriangle_NormalTowards(const bsTriangle* t, bsVec3 q, bsVec3 point, bsFeature feature,
	bsVec3* normal);
