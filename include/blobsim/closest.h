// closest.h — the point of a triangle mesh nearest a query point: the question a response asks to
// push a sphere clear of every surface, and a distance field asks per grid point.
//
// Over a plain triangle list here (brute force); over the BVH in bvh.h (bsBvh_ClosestPoint), with
// the same answer bit for bit. The distance to a triangle is |q - c| with c its closest point
// (bsTriangle_ClosestPoint); the nearest triangle wins, the lowest caller's index among triangles at
// the same distance (the same double), so the answer does not depend on any tree.
#pragma once

#include "blobsim/collide.h"

#include <stddef.h>
#include <stdint.h>

typedef struct bsClosestPointInput
{
	bsVec3 point;        // the query point
	double maxDistance;  // only triangles at distance <= maxDistance count; >= 0; HUGE_VAL: all
} bsClosestPointInput;

typedef struct bsClosestPointOutput
{
	bsVec3 point;        // the mesh's point nearest the query (on the reported triangle)
	bsVec3 normal;       // unit, from the surface towards the query point (see below); zero on a miss
	double distance;     // |query - point|; HUGE_VAL (infinity) on a miss
	uint32_t triangle;   // the caller's index of the nearest triangle, BS_NO_TRIANGLE on a miss
	uint8_t hit;         // 1 when a triangle is within maxDistance
	uint8_t feature;     // bsFeature of the closest point: face, edge or vertex
	uint8_t index;       // the edge (0: p1p2, 1: p2p3, 2: p3p1) or vertex (0..2) index
	uint8_t onSurface;   // 1 when the query point is on the surface (the normal is the stored one)
} bsClosestPointOutput;

// The normal, by where the closest point lies: on the face (the query projects inside the
// triangle), the triangle's face normal on the query's side; on an edge or vertex, the direction
// from the closest point to the query. When the query point is on the surface (the plane distance,
// for a face, or the distance, for an edge or vertex, is at most 1e-12 (1 + max |q_i|)) no side can
// be told: the triangle's stored normal, and onSurface = 1.

// Squared distance from q to the closed triangle (one triangle of a query; the BVH and the list
// loop both use it, so their answers agree to the bit).
static inline double bsTriangle_Distance2(const bsTriangle* t, bsVec3 q)
{
	return bsDistanceSquared(q, bsTriangle_ClosestPoint(t, q, NULL, NULL));
}

// Checks the input: bs_errNonFinite for a NaN/inf point or one whose squared length overflows
// (beyond ~1e154), bs_errInvalidArgument for a NaN or negative maxDistance.
bsResult bsClosestPointInput_Check(const bsClosestPointInput* input);

// Does a triangle at squared distance d2 and caller's index i beat the best so far (bestD2, best
// index; found false when there is none yet), within maxDistance?
static inline bool bsClosestPoint_Better(double d2, uint32_t i, bool found, double bestD2,
	uint32_t bestIndex, double maxDistance)
{
	if (found && !(d2 < bestD2 || (d2 == bestD2 && i < bestIndex)))
	{
		return false;
	}
	return sqrt(d2) <= maxDistance;
}

// Fills out for triangle `tri` (caller's index `index`) as the nearest to q.
void bsClosestPoint_Finish(const bsTriangle* tri, uint32_t index, bsVec3 q, bsClosestPointOutput* out);

// Fills out for a query with no triangle within maxDistance (point q, or the origin when q is not
// finite).
void bsClosestPoint_Miss(bsVec3 q, bsClosestPointOutput* out);

// Brute force over a triangle list. On an invalid input returns the error of
// bsClosestPointInput_Check and fills out with a miss. Every byte of out is written.
bsResult bsClosestPointList(const bsTriangle* tris, uint32_t count, const bsClosestPointInput* input,
	bsClosestPointOutput* out);

// Replaces a sweep's contact point and normal by the mesh's point nearest its stop centre (a
// bsClosestPointList / bsBvh_ClosestPoint answer within the hit triangle's distance, so never
// farther than it): the normal from that point, or, when the centre is on the surface there, the
// face normal on the side the motion comes from. The other fields (t, centre, triangle, test)
// still describe the hit.
void bsSweep_UseMeshContact(const bsSweep* sweep, const bsClosestPointOutput* contact,
	bsSweepOutput* out);
