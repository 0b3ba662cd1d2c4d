// plane.h — analytic planes of the environment (an infinite floor, say), swept against with the
// dynamic sphere/plane test of Real-Time Rendering (3rd ed., section 16.18.1).
#pragma once

#include "blobsim/collide.h"

typedef struct bsPlane
{
	bsVec3 n;  // unit normal
	double d;  // n . x + d = 0 on the plane
} bsPlane;

// The plane through `point` with normal `normal` (normalised). Fails with bs_errNonFinite on
// NaN/inf and bs_errInvalidArgument on a zero normal.
bsResult bsMakePlane(bsVec3 point, bsVec3 normal, bsPlane* out);

// First contact of the sweep with the (two-sided) plane, t < tmax. For the sphere methods
// (karabassi and exact alike: the paper's tests are for triangles) the exact time: t = 0 when the
// sphere starts within R of the plane, else RTR's eq. 16.61, t = (s_c - r) / (s_c - s_e) on the side
// it starts from. For ray the radius is ignored. hit->test is bs_testPlane, branch start or face.
bool bsPlaneSweep(const bsPlane* plane, const bsSweep* sweep, bsMethod method, double tmax,
	bsTriangleHit* hit);
