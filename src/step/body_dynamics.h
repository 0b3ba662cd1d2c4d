// body_dynamics.h — the world's dynamic bodies (body.h bs_motionDynamic, docs/bodies.md): their rigid
// states (rigid.h), the contacts of each substep (static planes and meshes by rigid.h's generators,
// body pairs by the exact mesh distance or the sensor particles) and the rigid step.
#pragma once

#include "world_internal.h"

typedef struct bsWorldDynamics bsWorldDynamics;

void bsWorldDynamics_Destroy(bsWorldDynamics* dynamics);

// Advances the dynamic bodies over the substep [t0, t1] (nothing when there are none or t1 <= t0):
// contacts from the poses at t0, one bsRigid_Step of t1 - t0, and each body's chord set to its poses
// at t0 and t1. Sequential, in the order the bodies were added: the same at any thread count.
// bs_errOutOfMemory, or rigid.h's and sensor.h's failures.
bsResult bsWorldDynamics_Step(bsWorld* world, double t0, double t1);

// Two-way coupling (docs/bodies.md): count pushes of a phase (world_internal.h: a particle's velocity
// change by a body the particles push back) join the pending ones. bs_errOutOfMemory.
bsResult bsWorldDynamics_AddPushes(bsWorld* world, const bsPush* pushes, size_t count);

// The pending pushes and those on the workers' lists (the move phase's), sorted by (particle, seq),
// summed per body in that order and applied to its momentum and angular momentum: a particle of
// radius r and mass m (bsStep_ParticleMass: its species' density or the interaction's) whose velocity
// changed by dv at x gives its body the impulse -m dv at x. A sleeping body takes pushes as the static environment
// does, until their sum would move it faster than the sleep speed: then it wakes and takes them. The
// lists are emptied. bs_errOutOfMemory.
bsResult bsWorldDynamics_ApplyPushes(bsWorld* world, const bsStepDef* def, const bsParticles* particles);
