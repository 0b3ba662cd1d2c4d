// sphere.h — a moving sphere against a static one: the dynamic sphere/sphere test of Real-Time
// Rendering (3rd ed., section 16.18.2), the companion of the sphere/plane test (plane.h). Stuck and
// sleeping particles are such spheres (the stuck collider of world.h).
#pragma once

#include "blobsim/collide.h"

// First contact of the sweep's sphere, of radius `movingRadius` (the sweep's radius, or 0 for a point
// as the ray method has it), with the static sphere (center, radius), for t < tmax (pass 2.0 for no
// bound). Contact means |C(t) - center| <= movingRadius + radius (closed: a graze is a contact).
// t = 0 when the spheres overlap at C1 (branch start), as the triangle tests report a sweep that
// starts in contact; otherwise the exact entry time (branch face). hit->test is bs_testSphere.
//
// Solved along the sweep's unit axis in length units, so that no product of a tiny or huge motion
// with itself under- or overflows, and with no cancellation: the distance h of the centre from the
// line gives the half chord sqrt((R - h)(R + h)), and the entry distance is
// (|m| - R)(|m| + R) / (-m.u + half chord), m = C1 - center, R the sum of the radii.
bool bsSphereSweep(const bsSweep* sweep, double movingRadius, bsVec3 center, double radius, double tmax,
	bsTriangleHit* hit);
