// forces.h — the forces phase of a step: each free particle's velocity for the move that follows,
// from the forces acting on it.
//
// A force is a class in its own file, src/step/force_NAME.c, that defines one
// `const bsForceClass bs_NAMEForce`, and one line in BS_FORCE_LIST below. It gives an
// acceleration (added up over the forces, then v += a dt) and/or a linear damping rate (added up,
// then v *= exp(-rate dt), the exact solution of dv/dt = -rate v). The phase writes only velocities,
// each particle its own: a force may read any particle's position and its own particle's velocity,
// so a particle's result does not depend on the thread count. (A force that needs other particles'
// velocities needs a copy of them taken before the phase; none does yet.)
#pragma once

#include "blobsim/step.h"

typedef struct bsForceContext
{
	const bsStepDef* def;
	const bsParticles* particles;
	double time;  // the substep's start, seconds (the world's time plus the substeps before it)
	double h;     // the substep's length, seconds
	const struct bsWorld* world;  // for the forces that read the bodies (NULL: none)
} bsForceContext;

typedef struct bsForceClass
{
	const char* name;
	bool (*active)(const bsForceContext* context);  // acts in this substep
	bool uniform;                          // the same for every particle: asked once per phase
	// Adds particle i's acceleration to *a (NULL: none).
	void (*accelerate)(const bsForceContext* context, size_t i, bsVec3* a);
	// Adds particle i's damping rate per second to *rate (NULL: none).
	void (*damp)(const bsForceContext* context, size_t i, double* rate);
	// Changes the velocity of the free particles in [begin, end) for a move of context->h seconds after the
	// accelerations and damping of every force are applied to them (NULL: none): for rules that are
	// not a sum of accelerations, such as the field's impact (a reflection) and surface flow (a turn).
	// Called in table order, once per range, so that what a range shares (a grid's scale) is worked
	// out once; each particle's result must still depend on that particle alone.
	void (*adjust)(const bsForceContext* context, bsParticles* particles, size_t begin, size_t end);
	// Sets the force's settings in a bsStepDef to their defaults, on bsDefaultStepDef's zeroed def
	// (NULL: zero is the default).
	void (*setDefaults)(bsStepDef* def);
	// The force's settings in def are in range (NULL: any value is); bsWorld_Step refuses a def
	// for which one is not.
	bool (*isValid)(const bsStepDef* def);
} bsForceClass;

// The forces, in the order they are added up (so the order of every sum: a force's place here is
// part of the results): a new force is its file and one line here. Each line declares the class and
// puts it in forces.c's table.
#define BS_FORCE_LIST(X) \
	X(bs_gravityForce)   \
	X(bs_dragForce)      \
	X(bs_radialForce)    \
	X(bs_windForce)      \
	X(bs_turbulenceForce) \
	X(bs_vortexForce)    \
	X(bs_buoyancyForce)  \
	X(bs_fieldForce)     \
	X(bs_bodyFieldForce)

// The exact solution of dv/dt = rate (target - v) over a substep with e = exp(-rate h): the drags
// towards a moving air or flow (wind, turbulence, vortex) apply it in their adjust.
static inline bsVec3 bsForce_Relax(bsVec3 v, bsVec3 target, double e)
{
	return bsMulAdd(target, e, bsSub(v, target));
}

#define BS_FORCE_DECLARE(name) extern const bsForceClass name;
BS_FORCE_LIST(BS_FORCE_DECLARE)
#undef BS_FORCE_DECLARE

#define BS_MAX_FORCES 16

// The forces active in one substep, in table order: the uniform ones already added up.
typedef struct bsForces
{
	const bsForceClass* active[BS_MAX_FORCES];  // those that depend on the particle
	int count;
	bsVec3 uniformAcceleration;
	double uniformRate;
} bsForces;

// Sets every force's settings in def to their defaults (bsDefaultStepDef).
void bsForces_SetDefaults(bsStepDef* def);

// Every force's settings in def are in range.
bool bsForces_AreValid(const bsStepDef* def);

void bsForces_Prepare(const bsForceContext* context, bsForces* forces);

// Sets the velocity of every free particle in [begin, end) for a move of context->h seconds.
void bsForces_Apply(const bsForces* forces, const bsForceContext* context, bsParticles* particles, size_t begin,
	size_t end);
