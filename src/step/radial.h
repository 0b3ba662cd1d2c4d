// radial.h — how a radial force (step.h: bsRadialDef) acts on a particle, for the step's forces
// phase (src/step/force_radial.c, bs_radialForce) and the tests: through bsRadial_Acceleration, each particle
// from its own position alone, so the outcome is the same for any thread count.
#pragma once

#include "blobsim/step.h"
#include "blobsim/vec3.h"

#include <stdbool.h>

// True when the force acts at some time of [t, t + h): strength not 0 and the window overlaps it.
bool bsRadial_Acts(const bsRadialDef* def, double t, double h);

// The acceleration of a particle at `position` over the substep [t, t + h), h > 0: the falloff's push
// along (position - center) / r, scaled by the part of the substep inside the time window, so that
// the velocity it adds over a window is strength x duration (at a fixed distance) however the window
// falls across the substeps: a window shorter than a substep is a kick. Zero at the centre itself
// (r = 0: no direction) and beyond the radius (r > radius).
bsVec3 bsRadial_Acceleration(const bsRadialDef* def, bsVec3 position, double t, double h);

// The centre and strength at time t: the keys' values when keyed (count > 0), else center and strength.
bsVec3 bsRadial_Center(const bsRadialDef* def, double t);
double bsRadial_Strength(const bsRadialDef* def, double t);
