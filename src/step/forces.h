// forces.h — the forces phase of a step: each free particle's velocity for the move that follows,
// from the forces acting on it.
//
// A force is a module with one bsForceClass and one line in forces.c's table. It gives an
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
} bsForceClass;

#define BS_MAX_FORCES 16

// The forces active in one substep, in table order: the uniform ones already added up.
typedef struct bsForces
{
	const bsForceClass* active[BS_MAX_FORCES];  // those that depend on the particle
	int count;
	bsVec3 uniformAcceleration;
	double uniformRate;
} bsForces;

void bsForces_Prepare(const bsForceContext* context, bsForces* forces);

// Sets the velocity of every free particle in [begin, end) for a move of context->h seconds.
void bsForces_Apply(const bsForces* forces, const bsForceContext* context, bsParticles* particles, size_t begin,
	size_t end);
