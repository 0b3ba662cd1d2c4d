// collider_body.h — the moving bodies of a world (collider_body.c): each body's pose and shape over
// the current substep, the sweep taken into the body's frame, and the particles stuck to a body, which
// ride with it. The response to a contact (the surface's velocity, sticking, riding) is
// bs_bodyCollider's contact hooks (world_internal.h).
#pragma once

#include "world_internal.h"

#include "blobsim/body.h"
#include "blobsim/checkpoint.h"

typedef struct bsWorldBodies bsWorldBodies;

// Adds a body to *bodies (created on first use); *state is the collider's shape. bs_errOutOfMemory.
bsResult bsWorldBodies_Add(bsWorldBodies** bodies, bsBody* body, const void** state);

// The bodies in the order added, for the dynamics (body_dynamics.c): the body, and the BVH of its
// shape as of the end of the last substep (the start of the next), in its shape frame.
int bsWorldBodies_Count(const bsWorldBodies* bodies);
bsBody* bsWorldBodies_Body(const bsWorldBodies* bodies, int k);
const bsBvh* bsWorldBodies_Shape(const bsWorldBodies* bodies, int k);
// The triangles of that shape in the body's own order (its rest mesh's, deformed and scaled).
const bsTriangle* bsWorldBodies_ShapeTriangles(const bsWorldBodies* bodies, int k);
void bsWorldBodies_Destroy(bsWorldBodies* bodies);

// The substeps a step of dt needs so that no body turns by more than its maxAngle in one (>= 1).
double bsWorldBodies_Substeps(const bsWorldBodies* bodies, double dt);

// Moves every body to the substep [t0, t1] (after the dynamic bodies' step, body_dynamics.h, has set
// their chords over it): poses at both ends, the shape at t1 (BVH refit), then the
// particles stuck to a body to where it carries them by t1 (velocity: that displacement / (t1 - t0)),
// released from the stuck grid (the step's sync puts them back where they are now).
// bs_errNonFinite when a shape cannot be refit.
bsResult bsWorldBodies_Begin(bsWorld* world, double t0, double t1, bsParticles* particles);

// True when a particle at rest at x, of radius r, could meet a body during this substep (a cheap
// bounds test: the step checks resting particles against bodies only then).
bool bsWorldBodies_Near(const bsWorld* world, bsVec3 x, double radius);

// Is the particle stuck to a body (riding with it)?
bool bsWorldBodies_IsCarried(const bsWorld* world, uint32_t particle);

// The nearest contact of a particle at rest (s: from x to x) with the bodies only, over the substep.
bool bsWorldBodies_SweepResting(const bsWorld* world, bsMethod method, const bsSweep* s, bsSweepOutput* out,
	bsQueryStats* stats);

// The nearest contact of the exact sweep s with the bodies, each held still where it is at `time` (in
// the current substep; at its nearer end outside it, the only poses and shape held), replacing out
// only with a strictly nearer one: bsWorld_ClearWay's. A sweep that starts touching a body and leaves
// it, or that starts inside a body (its winding number), meets nothing of that body.
bool bsWorldBodies_SweepAt(const bsWorld* world, const bsSweep* s, double time, bsSweepOutput* out,
	bsQueryStats* stats);

// Where the body that is collider `collider` takes world point x from time `from` to time `to`: a rigid
// shape by its poses then (bsBody_Pose: exact for a keyed body, a dynamic one's within its last
// chord); a changing one as its surface carries the point within the current substep (times outside it
// at its nearer end).
bsVec3 bsWorldBodies_Follow(const bsWorld* world, int collider, bsVec3 x, double from, double to);

// Appends a push (world_internal.h) to a list. False when out of memory.
bool bsPushList_Add(bsPushList* list, bsPush push);

// The index (in the order added) of the body that collider is when the particles push it back (a
// dynamic body with two-way coupling), else -1.
int bsWorldBodies_PushedBody(const bsWorld* world, int collider);

// After a move phase: the workers' recorded sticks join the carried particles (in worker order).
bsResult bsWorldBodies_Gather(bsWorld* world);


// Checkpoints (checkpoint.h): every changing shape as it is (the triangles a deformation made
// degenerate keep their last shape) and the particles stuck to bodies. The load takes the world at its
// restored time (poses, BVHs and bounds from it) and the restored particles; false with the reason.
bsResult bsWorldBodies_SaveState(const bsWorldBodies* bodies, bsBytes* out);
bool bsWorldBodies_LoadState(bsWorld* world, const bsParticles* particles, bsByteReader* in, char* err,
	size_t errlen);
