// radial.h — a radial force (an explosion, a point force generator): an acceleration along the line
// from a centre through the particle, outwards for a positive strength, inwards (an attractor) for a
// negative one, with a falloff with distance, a reach and a time window. Ilmonen, Takala & Laitinen's
// Figure 8 (WSCG 2006) has one: "a force generator that pushes particles away from the center of the
// explosion".
//
// The step applies it in its forces phase (src/step/force_radial.c, bs_radialForce) through
// bsRadial_Acceleration, each particle from its own position alone, so the outcome is the same for
// any thread count. It is an acceleration (units/s^2), like gravity: every particle feels the same
// push whatever its size.
#pragma once

#include "blobsim/vec3.h"

#include <stdbool.h>

typedef enum bsFalloff
{
	bs_falloffConstant = 0,  // |a| = strength within the radius
	bs_falloffLinear,        // |a| = strength (1 - r / radius): from strength at the centre to 0 at the radius
	bs_falloffInverseSquare, // |a| = strength / (1 + (r / softening)^2): strength at the centre, half at
	                         // the softening radius, then as strength softening^2 / r^2
	bs_falloffCount
} bsFalloff;

const char* bsFalloffName(bsFalloff falloff);

typedef struct bsRadialDef
{
	bsVec3 center;       // scene units [0, 0, 0]
	double strength;     // the acceleration at the centre, units/s^2, any; 0: off [0]
	bsFalloff falloff;   // [constant]
	double radius;       // nothing acts beyond this distance from the centre, > 0, may be infinite
	                     // (linear: finite) [infinity]
	double softening;    // inverse square: the distance at which the push is half its strength, > 0 [1]
	double start;        // the window in which it acts: from `start` seconds, any [0] ...
	double duration;     // ... for `duration` seconds, > 0, may be infinite [infinity]
} bsRadialDef;

// Off (strength 0), constant falloff, unlimited reach, acting from time 0 for ever.
bsRadialDef bsDefaultRadialDef(void);

// False for a setting out of range: center, strength, softening or start not finite, radius, softening
// or duration not > 0 (or NaN), a linear falloff with an infinite radius, an unknown falloff.
// bsWorld_Step refuses such a bsStepDef.radial (bs_errInvalidArgument).
bool bsRadialDef_IsValid(const bsRadialDef* def);

// True when the force acts at some time of [t, t + h): strength not 0 and the window overlaps it.
bool bsRadial_Acts(const bsRadialDef* def, double t, double h);

// The acceleration of a particle at `position` over the substep [t, t + h), h > 0: the falloff's push
// along (position - center) / r, scaled by the part of the substep inside the time window, so that
// the velocity it adds over a window is strength x duration (at a fixed distance) however the window
// falls across the substeps: a window shorter than a substep is a kick. Zero at the centre itself
// (r = 0: no direction) and beyond the radius (r > radius).
bsVec3 bsRadial_Acceleration(const bsRadialDef* def, bsVec3 position, double t, double h);
