// world.h — what particles move through and what moves them: colliders of several kinds, emitters,
// and a pool of worker threads created once for every step of a run (step.h steps it).
//
//     bsWorldDef def = bsDefaultWorldDef();
//     def.threads = 2;
//     bsWorld* world = bsWorld_Create(&def);
//     bsWorld_AddMesh(world, &bvh);
//     bsWorld_AddPlanes(world, planes, planeCount);
//     bsWorld_AddEmitter(world, &emitterDef);
//     for (...) bsWorld_Step(world, &stepDef, &particles, &stats);
//     bsWorld_Destroy(world);
//
// Colliders and emitter lists are borrowed: they must outlive the world (or, for a list, its
// emission). Every collider gets an id in the order added; of contacts at the same time, the lowest
// id wins, then the lowest primitive index within it (as the list loop of one mesh does), so answers
// never depend on the order of a walk or on the thread count.
#pragma once

#include "blobsim/bvh.h"
#include "blobsim/collide.h"
#include "blobsim/emitter.h"

#include <stdint.h>

#define BS_WORLD_MAX_COLLIDERS (1 << 20)
#define BS_WORLD_MAX_EMITTERS 1024

typedef struct bsWorldDef
{
	int threads;    // worker threads of the pool, <= 0: all cores [0]
	uint64_t seed;  // the emitters' random stream [1]
} bsWorldDef;

bsWorldDef bsDefaultWorldDef(void);

typedef struct bsWorld bsWorld;
typedef struct bsBody bsBody;  // body.h

// NULL when out of memory.
bsWorld* bsWorld_Create(const bsWorldDef* def);

// Stops the pool and frees the world (not what it borrowed). NULL is fine.
void bsWorld_Destroy(bsWorld* world);

// Threads the step runs on (>= 1).
int bsWorld_ThreadCount(const bsWorld* world);

// Adds a static triangle mesh (its BVH, borrowed: it must not change while the world uses it, since
// the step keeps each particle's candidate triangles of the first mesh between substeps).
// bs_errTooLarge past BS_WORLD_MAX_COLLIDERS.
bsResult bsWorld_AddMesh(bsWorld* world, const bsBvh* bvh);

// Adds count analytic planes as one collider (a contact's index is the plane's).
bsResult bsWorld_AddPlanes(bsWorld* world, const bsPlane* planes, uint32_t count);

// Adds a moving body (body.h, borrowed) as a collider: particles sweep against it where its motion
// puts it during each substep, and it pushes and carries them (docs/bodies.md). The world keeps a BVH
// of its shape (refit every substep when the shape changes). A dynamic body is moved by the world
// (its chord set every substep: body.h), so it is not const. bs_errOutOfMemory, bs_errTooLarge.
bsResult bsWorld_AddBody(bsWorld* world, bsBody* body);

// A body's shape at the world's time (bsWorld_Time): its triangles in the body's own frame, scaled and
// deformed (body.h; bsBody_Pose at that time places them), the ones the particles collide with. A
// triangle the deformation makes degenerate keeps its last shape. count triangles in the body's
// order, valid until the next step; NULL (count 0) for a body not in the world.
const bsTriangle* bsWorld_BodyShape(const bsWorld* world, const bsBody* body, uint32_t* count);

// Settings for the dynamic bodies (body.h bsBodyDynamicsDef, copied; default
// bsDefaultBodyDynamicsDef()). Before the first step. bs_errInvalidArgument for a setting out of range.
typedef struct bsBodyDynamicsDef bsBodyDynamicsDef;
bsResult bsWorld_SetBodyDynamics(bsWorld* world, const bsBodyDynamicsDef* def);

// The sensor particles of every body pair the sensors have queried (method sensors), world positions
// after the last query: writes at most capacity of them (side[i]: 0 on the pair's first body, 1 on
// its second; side may be NULL) and returns how many there are.
size_t bsWorld_SensorParticles(const bsWorld* world, bsVec3* positions, uint8_t* side, size_t capacity);

// The dynamic bodies' total linear momentum and kinetic energy now (statistics and tests).
bsVec3 bsWorld_BodyMomentum(const bsWorld* world, double* kineticEnergy);

// The dynamic bodies' total angular momentum about the world origin now (tests of two-way coupling).
bsVec3 bsWorld_BodyAngularMomentum(const bsWorld* world);

// Makes the particles that are stuck or sleeping colliders, for every particle the world steps
// (accumulation: snow on snow). They are kept in a hash grid of cells of edge `cell` (<= 0: 4 x the
// radius of the first one), updated before each move phase from the particles' states in index
// order. A contact's index is the particle's. The world assumes the caller keeps its particles in
// place between steps (as emission does). bs_errInvalidArgument when already added, bs_errTooLarge past
// BS_WORLD_MAX_COLLIDERS, bs_errOutOfMemory.
bsResult bsWorld_AddStuckParticles(bsWorld* world, double cell);

// Adds an emitter; its particles appear in the emit phase of the steps whose windows hold their
// births (emitter.h). The def is copied (a list stays borrowed). bs_errInvalidArgument for a timing
// or a nozzle or surface out of range (emitter.h), bs_errTooLarge past BS_WORLD_MAX_EMITTERS.
bsResult bsWorld_AddEmitter(bsWorld* world, const bsEmitterDef* def);

// Adds a surface emitter on a moving body already in the world (bsWorld_AddBody; keyframed or
// deforming, not dynamic): def's surface is the body's rest mesh (its triangles bsBody_Triangles',
// all of them, with def's weights and turn flags). Each particle's triangle and point are drawn on the
// rest mesh (by rest area); the particle is born at its birth time (bsEmitterDef_BirthTime) on that
// point of the body's surface as posed then (scale, deformation, keys: the colliding shape), radius +
// gap off the posed face, its velocity its own about the posed normal plus the surface point's (a
// central difference of 1e-5 s). bs_errInvalidArgument for another shape, a motion (the body moves
// the emitter), a body not in the world or dynamic, as bsWorld_AddEmitter otherwise.
bsResult bsWorld_AddBodyEmitter(bsWorld* world, const bsEmitterDef* def, const bsBody* body);

// Particles the emitters added so far will still make (for sizing the particle arrays).
uint64_t bsWorld_PendingParticles(const bsWorld* world);

// The time at the start of the next step: the sum of the steps' dt so far, seconds.
double bsWorld_Time(const bsWorld* world);

// Called by bsWorld_Step on the calling thread, in order: once after the emit phase (done 0) and after
// each substep's move phase (done 1 .. substeps), with the particles as they are then, so a program
// can record the simulation's own positions between steps (the run's motion blur). It must not change
// the particles. The observer is the program's, not the world's state: a checkpoint does not hold it.
typedef void bsSubstepObserver(void* context, int done, int substeps, const bsParticles* particles);

// Sets (or with NULL clears) the substep observer and its context.
void bsWorld_SetSubstepObserver(bsWorld* world, bsSubstepObserver* observer, void* context);

// The time particle `particle` (an index of the particles the world steps) joined the set: the start of
// the step whose emit phase added it (bsWorld_Emit: the time it was called), so its age is
// bsWorld_Time - this; 0 for particles the caller put there before any emission. A lookup among the
// emissions (one record per step that emits), nothing stored per particle.
double bsWorld_BirthTime(const bsWorld* world, size_t particle);

// The nearest contact of one sweep with every collider. out->collider, out->kind and
// out->triangle name what was hit. bs_errInvalidArgument (and a miss) for an invalid input or
// method. stats (may be NULL) counts one query, and the nodes and triangles visited.
bsResult bsWorld_Sweep(const bsWorld* world, bsMethod method, const bsSweepInput* input,
	bsSweepOutput* out, bsQueryStats* stats);
