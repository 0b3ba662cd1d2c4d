// world_internal.h — the world's insides, shared by world.c, step.c and the collider modules.
//
// A collider kind is a module with one bsColliderClass (collider_mesh.c, collider_plane.c) and one
// line in world.c's table. Its sweep tests the prepared sweep against its primitives and replaces
// *out when it finds a contact strictly nearer than out's (any contact when out is a miss), so
// earlier colliders keep ties.
#pragma once

#include "neighbour_grid.h"

#include "blobsim/base.h"
#include "blobsim/step.h"
#include "blobsim/world.h"

typedef struct bsCollider
{
	const void* shape;  // the kind's data (a bsBvh, an array of bsPlane)
	uint32_t count;     // primitives in it, where the kind needs it
	uint8_t kind;       // bsColliderKind
} bsCollider;

typedef struct bsColliderClass
{
	const char* name;
	// True when it replaced *out (the world then names the collider in it). Adds nodes and
	// triangles visited to stats (never queries: the world counts those).
	bool (*sweep)(const bsCollider* collider, bsMethod method, const bsSweep* sweep, bsSweepOutput* out,
		bsQueryStats* stats);
	// A moving kind (collider_body.c) also takes the part [u0, u1] of the substep the sweep spans;
	// NULL for the static kinds.
	bool (*sweepMoving)(const bsCollider* collider, bsMethod method, const bsSweep* sweep, double u0,
		double u1, bsSweepOutput* out, bsQueryStats* stats);
} bsColliderClass;

extern const bsColliderClass bs_meshCollider;
extern const bsColliderClass bs_planeCollider;
extern const bsColliderClass bs_stuckCollider;
extern const bsColliderClass bs_bodyCollider;

// Sleeping particles that moving ones touched in a move phase, one list per worker: a worker never
// writes another particle's state; the step wakes them all after the phase (sleep.h).
typedef struct bsWakeList
{
	uint32_t* particles;
	size_t count, capacity;
} bsWakeList;

// One worker's share of a phase: its own slot, padded so workers never share a cache line.
typedef struct bsStepWorker
{
	bsStepStats stats;
	bsResult error;
	bsWakeList wakes;
	char padding[64];
} bsStepWorker;

// An emitter of the world and how many of its particles it has emitted.
typedef struct bsWorldEmitter
{
	bsEmitterDef def;
	uint64_t born;
} bsWorldEmitter;

// Particles [first, first + count), emitted together by one emitter, that leave the simulation at the
// end of the first step that ends at or after `expires`. A lifetime costs this per emitter and step,
// nothing per particle.
typedef struct bsBirth
{
	size_t first, count;
	double expires;
} bsBirth;

// One contact's tangential spring (step.h: tangentialStiffness), kept by each particle of the
// pair for the other: the partner's index and the tangential displacement (floats: 16 bytes).
typedef struct bsContactSpring
{
	uint32_t partner;  // UINT32_MAX: the end of a particle's list
	float xi[3];
} bsContactSpring;

// Springs a particle keeps (its first contacts in the neighbour order; more have viscous friction).
#define BS_CONTACT_SPRINGS 8

struct bsWorld
{
	bsPool* pool;
	bsStepWorker* workers;  // one per pool thread
	bsRng rng;              // the emitters' stream
	bsCollider colliders[BS_WORLD_MAX_COLLIDERS];
	int colliderCount;
	size_t meshBytes;       // bytes of the meshes' BVHs (bsBvh_Bytes), summed
	bsWorldEmitter* emitters;
	int emitterCount;
	double time;            // the start of the next step, seconds (the sum of the steps' dt)
	bsBirth* births;        // emitted particles with a finite lifetime, still in the simulation
	size_t birthCount, birthCapacity;
	int failedEmitter;      // the last emit phase's failure, -1 when none
	size_t failedIndex;
	uint32_t* order;        // the move phase's particle order (morton.h), kept between steps
	size_t orderCapacity;
	struct bsStuckGrid* stuck;  // the stuck collider's grid (bsWorld_AddStuckParticles), or NULL
	bsVec3* restVelocity;   // sleep (sleep.h): each particle's velocity at the start of the step
	uint32_t* calm;         // sleep: steps in a row each particle has been calm
	size_t restCapacity;
	bsNeighbourGrid grid;   // the interaction phase's, rebuilt every substep, kept for its memory
	struct bsWorldBodies* bodies;  // the moving bodies (collider_body.h), NULL when none
	bsContactSpring* springs;  // BS_CONTACT_SPRINGS a particle, with a tangential stiffness, else NULL
	size_t springCapacity;     // particles they have room for
	struct bsWorldDynamics* dynamics;  // the dynamic bodies' rigid states (body_dynamics.h), NULL until needed
	bsStepProfile profile;  // the last step's phase times (bsWorld_GetProfile)
};

// bsWorld_Sweep for a sweep already prepared (the step builds it once per contact).
void bsWorld_SweepPrepared(const bsWorld* world, bsMethod method, const bsSweep* sweep,
	bsSweepOutput* out, bsQueryStats* stats);

// The same for a sweep over the part [u0, u1] of the current substep (moving bodies are where they are
// then; bsWorld_SweepPrepared is [0, 1]).
void bsWorld_SweepWindow(const bsWorld* world, bsMethod method, const bsSweep* sweep, double u0, double u1,
	bsSweepOutput* out, bsQueryStats* stats);
