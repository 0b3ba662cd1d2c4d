// reference.h — an independent reference for the collision core, written apart from src/: slow,
// simple and careful. It uses only a triangle's three vertices (its own normal, never the stored one),
// vec3.h and libm; nothing from collide.h and neither bsTriangle_ClosestPoint nor bsTriangle_Contains.
#pragma once

#include "blobsim/triangle.h"
#include "blobsim/vec3.h"

#include <stdbool.h>

// Euclidean distance from q to the closed triangle p1 p2 p3 (double precision; the normal comes from
// an fma-accurate cross product of the two shortest edges, so slivers keep their accuracy).
double refPointTriangleDistance(bsVec3 p1, bsVec3 p2, bsVec3 p3, bsVec3 q);

// The point of the closed triangle nearest q, found the same way (projection when q projects inside,
// else the nearest of the three edge points).
bsVec3 refClosestPoint(bsVec3 p1, bsVec3 p2, bsVec3 p3, bsVec3 q);

// First contact of the sphere of radius R moving from c1 to c2, found from f(t) = dist(C(t), T)
// (convex in t) by golden-section search for its minimum and bisection for f(t) = R.
typedef struct refContact
{
	bool hit;        // min over [0, 1] of f <= R
	double t;        // first t with f(t) <= R (0 when f(0) <= R); 1 on a miss
	double minDist;  // min over [0, 1] of f: the closest approach
	double tMin;     // where that minimum is reached
	double dist0;    // f(0): the distance at the start
} refContact;

refContact refFirstContact(const bsTriangle* tri, bsVec3 c1, bsVec3 c2, double radius);

// The segment c1 -> c2 against the closed triangle (radius ignored), with how much a rounding error
// could matter: borderline cases (an endpoint on the plane, a crossing on the boundary, a grazing
// segment whose crossing point is ill-conditioned) are not `robust`. A segment lying exactly in the
// plane (the triangle and both end points share one coordinate exactly, as in axis-aligned scenes) is
// decided in the plane: robust when it passes 1e-9 of the longest edge inside or outside.
typedef struct refRay
{
	bool hit;        // the segment crosses the triangle's plane inside the closed triangle
	double t;        // crossing parameter when hit
	double margin;   // distance of the crossing point from the boundary / longest edge; -1 when the
	                 // segment does not cross the plane
	double tErr;     // estimated uncertainty of the crossing parameter (0 when it does not cross)
	bool robust;     // the hit/miss answer is beyond rounding doubt
} refRay;

refRay refRayHit(const bsTriangle* tri, bsVec3 c1, bsVec3 c2);

// Crossings of the ray from p along a fixed skew direction (no mesh of the tests has an edge along it)
// with the count triangles, Moeller-Trumbore: odd is inside a watertight mesh.
int refRayCrossings(const bsTriangle* tris, uint32_t count, bsVec3 p);
