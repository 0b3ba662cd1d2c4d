// mesh_distance.h — the exact closest pair of points between two triangle meshes, each placed in the
// world by a rigid transform: the separation that Senin et al.'s sensor particles estimate (sensor.h),
// and the "exact check" their nearby faces get.
//
// Triangle against triangle: the smallest of the six vertex-to-triangle distances
// (bsTriangle_ClosestPoint) and the nine edge-to-edge distances (segment-segment closest points,
// Ericson §5.1.9); when an edge of one pierces the other triangle the distance is 0 at the piercing
// point. This is exact: the closest pair of two disjoint triangles always has a vertex of one or a
// pair of edges, and two intersecting triangles always have an edge of one through the other.
//
// Mesh against mesh: both meshes' BVHs (bvh.h, built over their local-frame triangles) walked
// together, branch and bound. The work is done in A's frame: B's node boxes are taken there as the
// axis-aligned box around the rotated box (centre by the relative transform, half-extents by the
// absolute rotation matrix), which contains it, so the box-box distance is a lower bound; a node pair
// whose bound is not below the best distance so far is skipped (the bound is also the larger with the
// boxes' bounding spheres, which rotation does not loosen; a triangle pair's own boxes are checked
// before the exact test); the larger node of a pair is opened,
// the nearer child pair first. The answer's distance is the minimum over all triangle pairs (ties:
// the first pair the walk meets, the same on every run).
#pragma once

#include "blobsim/bvh.h"
#include "blobsim/quat.h"

#include <stdint.h>

// Squared distance between two closed triangles, with the closest points (either may be NULL). For
// intersecting triangles 0, both points at one point of the intersection.
double bsTriangle_TriangleDistance2(const bsTriangle* a, const bsTriangle* b, bsVec3* pointA,
	bsVec3* pointB);

// A triangle's axis-aligned box, for the cheap rejection of triangle pairs (plain comparisons: fmin
// and fmax are library calls at -O2).
typedef struct bsTriangleBox
{
	bsVec3 lo, hi;
} bsTriangleBox;

static inline double bsMin3(double a, double b, double c)
{
	double m = a < b ? a : b;
	return m < c ? m : c;
}

static inline double bsMax3(double a, double b, double c)
{
	double m = a > b ? a : b;
	return m > c ? m : c;
}

static inline bsTriangleBox bsTriangle_Box(const bsTriangle* t)
{
	bsTriangleBox b = {
		{bsMin3(t->p1.x, t->p2.x, t->p3.x), bsMin3(t->p1.y, t->p2.y, t->p3.y), bsMin3(t->p1.z, t->p2.z, t->p3.z)},
		{bsMax3(t->p1.x, t->p2.x, t->p3.x), bsMax3(t->p1.y, t->p2.y, t->p3.y), bsMax3(t->p1.z, t->p2.z, t->p3.z)},
	};
	return b;
}

// Squared distance between two boxes, shrunk by a relative 1e-12 for rounding: for two triangles'
// boxes, a lower bound of bsTriangle_TriangleDistance2.
static inline double bsTriangleBox_Distance2(const bsTriangleBox* a, const bsTriangleBox* b)
{
	double gx = bsMax3(a->lo.x - b->hi.x, b->lo.x - a->hi.x, 0.0);
	double gy = bsMax3(a->lo.y - b->hi.y, b->lo.y - a->hi.y, 0.0);
	double gz = bsMax3(a->lo.z - b->hi.z, b->lo.z - a->hi.z, 0.0);
	return (gx * gx + gy * gy + gz * gz) * (1.0 - 1e-12);
}

typedef struct bsMeshDistanceInput
{
	const bsBvh* bvhA;    // A's triangles in A's local frame
	bsTransform poseA;    // A's local frame to the world
	const bsBvh* bvhB;
	bsTransform poseB;
	double maxDistance;   // only pairs at distance <= maxDistance count (>= 0; HUGE_VAL: all)
	uint32_t hintA;       // warm start: a triangle pair likely to be close, in leaf order (the last
	uint32_t hintB;       // answer's leafA, leafB), tested first so the walk prunes from the start;
	                      // BS_NO_TRIANGLE (either): none. The answer's distance does not depend on it.
} bsMeshDistanceInput;

typedef struct bsMeshDistanceOutput
{
	double distance;      // HUGE_VAL on a miss
	bsVec3 pointA;        // world point of A's surface
	bsVec3 pointB;        // world point of B's surface (= pointA when they intersect)
	uint32_t triangleA;   // caller's triangle indices (BS_NO_TRIANGLE on a miss)
	uint32_t triangleB;
	uint32_t leafA;       // the same triangles in leaf order (BS_NO_TRIANGLE on a miss): the next hint
	uint32_t leafB;
	uint64_t nodePairs;   // node pairs popped by the walk (statistics)
	uint64_t trianglePairs;  // triangle pairs tested
	uint8_t hit;          // 1 when some pair is within maxDistance
} bsMeshDistanceOutput;

// bs_errInvalidArgument for a NULL pointer or a negative/NaN maxDistance, bs_errNonFinite for a
// non-finite pose; either leaves a miss in *out. An empty mesh gives a miss.
bsResult bsMeshDistance(const bsMeshDistanceInput* input, bsMeshDistanceOutput* out);
