// radial.h — how a radial force (step.h: bsRadialDef) acts on a particle, for the step's forces
// phase (src/step/force_radial.c, bs_radialForce) and the tests: through bsRadial_Acceleration, each particle
// from its own position alone, so the outcome is the same for any thread count.
#pragma once

#include "blobsim/body.h"
#include "blobsim/step.h"
#include "blobsim/vec3.h"

struct bsWorld;

#include <stdbool.h>

// True when the force acts at some time of [t, t + h): strength not 0 and the window overlaps it.
bool bsRadial_Acts(const bsRadialDef* def, double t, double h);

// The acceleration of a particle at `position` over the substep [t, t + h), h > 0: the falloff's push
// along (position - center) / r, scaled by the part of the substep inside the time window, so that
// the velocity it adds over a window is strength x duration (at a fixed distance) however the window
// falls across the substeps: a window shorter than a substep is a kick. Zero at the centre itself
// (r = 0: no direction) and beyond the radius (r > radius).
bsVec3 bsRadial_Acceleration(const bsRadialDef* def, bsVec3 position, double t, double h);

// The same about a given centre (the substep's: bsRadial_SubstepCenter).
bsVec3 bsRadial_AccelerationFrom(const bsRadialDef* def, bsVec3 center, bsVec3 position, double t, double h);

// The centre the step uses over the substep [t, t + h): following a body (def->follow), the body's
// pose at t applied to the offset (bsRadial_BodyCenter: the pose the step already has then, the
// end of a dynamic body's last chord); else bsRadial_Center at the substep's middle. False, *center
// untouched: it follows a body that world (NULL: none) does not have.
bool bsRadial_SubstepCenter(const bsRadialDef* def, const struct bsWorld* world, double t, double h, bsVec3* center);

// The centre of a force that follows body at time t: pose(t)(scale(t) * center), center the offset in
// the body's own frame (body.h: a rest point's map, without the deformation).
bsVec3 bsRadial_BodyCenter(const bsRadialDef* def, const bsBody* body, double t);

// The centre and strength at time t: the keys' values when keyed (count > 0), else center and strength.
bsVec3 bsRadial_Center(const bsRadialDef* def, double t);
double bsRadial_Strength(const bsRadialDef* def, double t);
