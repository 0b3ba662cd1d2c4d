// world_internal.h — the world's insides, shared by world.c, step.c and the collider modules.
//
// A collider kind is a module with one bsColliderClass (collider_mesh.c, collider_plane.c,
// collider_stuck.c, collider_body.c), its value in bsColliderKind (blobsim/collide.h) and one line in
// world.c's table (docs/architecture.md: "Adding a collider"). Its sweep tests the prepared sweep
// against its primitives and replaces *out when it finds a contact strictly nearer than out's (any
// contact when out is a miss), so earlier colliders keep ties. Its contact hooks are the whole of
// what the move phase (step.c) does differently for it: step.c has no branch on a collider's kind.
#pragma once

#include "neighbour_grid.h"
#include "neighbour_list.h"
#include "mesh_candidates.h"

#include "blobsim/base.h"
#include "blobsim/step.h"
#include "blobsim/world.h"

typedef struct bsCollider
{
	const void* shape;  // the kind's data (a bsBvh, an array of bsPlane)
	uint32_t count;     // primitives in it, where the kind needs it
	uint8_t kind;       // bsColliderKind
} bsCollider;

typedef struct bsContactContext bsContactContext;

// A collider's point nearest a fluid particle (bsColliderClass.nearest).
typedef struct bsWallPoint
{
	double distance;  // from the particle to the surface
	bsVec3 normal;    // unit, from the surface to the particle
	bsVec3 velocity;  // the surface's there
} bsWallPoint;

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

	// The response to a contact, each NULL where the kind has none (a static surface that keeps
	// nothing). `contact` is a hit of this collider (its index, point, normal and primitive).
	// A particle of velocity v met the collider (the stuck kind wakes a sleeper hit hard). Called for
	// every contact, before the particle sticks, slides or bounces. False when out of memory.
	bool (*touch)(const bsContactContext* context, const bsSweepOutput* contact, bsVec3 v);
	// Particle `particle` stuck to it at x, at fraction u of the substep (the body kind carries it from
	// the next substep on). False when out of memory. NULL: it stays where it stuck.
	bool (*stick)(const bsContactContext* context, const bsSweepOutput* contact, uint32_t particle, bsVec3 x,
		double u);
	// The velocity of its surface at `point` at fraction u of the substep: a sliding or bouncing
	// particle responds to its velocity relative to the surface (it pushes and carries). NULL: at rest.
	bsVec3 (*surfaceVelocity)(const bsCollider* collider, bsVec3 point, double u);
	// Where its surface takes the point x (at fraction u of the substep) by the substep's end: a
	// particle pressed on by it with no contact left moves with it, so it is not run over. NULL: the
	// particle waits where it is.
	bsVec3 (*ride)(const bsCollider* collider, bsVec3 x, double u);
	// The walls it puts within maxDistance of x, where it is at the start of the substep, for the
	// fluid (interaction_fluid.c): each a plane through its nearest point, at most `capacity` of them
	// into out (bsMeshWalls: one per distinct face plane near x, else the nearest point). Returns how
	// many. NULL: it is no wall to a fluid (the stuck particles).
	int (*walls)(const bsCollider* collider, bsVec3 x, double maxDistance, bsWallPoint* out, int capacity);
	// A contact with it changed particle `particle`'s velocity by dv while its centre was at x; `seq`
	// numbers the particle's contacts in the substep. A kind that the particles push back (a dynamic
	// body with two-way coupling, body_coupling.h) records the exchange on the worker's push list.
	// False when out of memory. NULL: nothing pushes it (a static surface).
	bool (*push)(const bsContactContext* context, const bsSweepOutput* contact, uint32_t particle, int seq,
		bsVec3 x, bsVec3 dv);
} bsColliderClass;

// The most walls a collider gives a fluid particle.
#define BS_WALLS_MAX 6

// The walls a triangle mesh puts within maxDistance of x (in the mesh's frame): each face whose
// closest point to x is inside it (not on an edge or a vertex) is a wall, faces whose normals lie
// within about 25 degrees of each other counted once (the nearer: the facets of a curved surface, the
// triangles of a flat one); with no such face, the nearest point of an edge or vertex is one wall (a
// convex edge or corner). So a concave corner of a box gives its two or three faces, a convex edge
// one wall. At rest (velocity 0). Returns how many (<= capacity).
int bsMeshWalls(const bsBvh* bvh, bsVec3 x, double maxDistance, bsWallPoint* out, int capacity);

// The kinds' classes, indexed by bsColliderKind (world.c).
extern const bsColliderClass* const bs_colliderClasses[bs_colliderKindCount];

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

// A particle's velocity change dv by a contact with a body the particles push back (two-way
// coupling, body_coupling.h), its centre at `at` then: the body takes -m dv there. The pushes of a
// phase are summed per body in the order of (particle, seq), whichever worker recorded them.
typedef struct bsPush
{
	uint32_t particle;
	uint16_t seq;       // the particle's contacts in the phase, in order
	uint16_t collider;  // the body's
	bsVec3 dv;
	bsVec3 at;
} bsPush;

typedef struct bsPushList
{
	bsPush* items;
	size_t count, capacity;
} bsPushList;

// One worker's share of a phase: its own slot, padded so workers never share a cache line.
typedef struct bsStepWorker
{
	bsStepStats stats;
	bsResult error;
	bsWakeList wakes;
	bsPushList pushes;  // the move phase's pushes on two-way bodies (bsColliderClass.push)
	char padding[64];
} bsStepWorker;

// What a collider's contact hooks see of the move phase: the worker moving a particle (its own lists:
// the sleepers it woke, the particles it stuck to a body) and the particles, read only.
struct bsContactContext
{
	const bsWorld* world;
	bsStepWorker* worker;
	const bsParticles* particles;
	double wakeSpeed;  // a sleeper hit faster than this wakes
};

// An emitter of the world and how many of its particles it has emitted.
typedef struct bsWorldEmitter
{
	bsEmitterDef def;
	uint64_t born;
	const bsBody* body;  // a surface emitter on this body (bsWorld_AddBodyEmitter), else NULL
	double poseTime;     // with a body: the time of the pose its particles are born on (the emit
	                     // phase's start: bsWorldEmitter_EmitOnBody)
	bsVec3* weights;     // the body's deformation weights at a birth time (owned), NULL when none
	int weightCount;
	double* sources;     // a trail (bs_emitterTrail): each particle's births so far as a source, not
	                     // rounded (the rate's integral over the steps it was a source), else NULL
	size_t sourceCount, sourceCapacity;  // slots with an accumulator (the set's count at the last
	                                     // emit phase), room
} bsWorldEmitter;

// A particle's first impact of a step on a mesh, a plane or a body, faster than a resting contact (a
// splash's: emitter.h, bsTrail.onContact): its time (NaN: none this step), its centre then, the
// contact's normal, its velocity as it came in and its speed along -normal relative to the surface.
typedef struct bsSplash
{
	double time;
	bsVec3 point, normal, velocity;
	double speed;
} bsSplash;

// A step's window for the trails: [now, until], done as substeps of h seconds under the step's gravity,
// in the world whose walls the particles are kept clear of (bsWorld_ClearWay).
typedef struct bsTrailWindow
{
	double now, until, h;
	bsVec3 gravity;
	const struct bsWorld* world;
} bsTrailWindow;

// The particles trail emitter em's sources give birth to in the window (emitter.h: bsTrail), appended
// to p: source after source in index order (free particles of its source species there before its
// own), each source's in birth order, from rng. Each is born where its source is at its birth time on
// the path the move phase gives a particle in free flight under gravity, and starts the step where
// that integrator brings it to its birth point at its birth time (emitter_trail.c). *failed: the
// index, among those appended, of a particle that fails its check.
bsResult bsWorldEmitter_EmitTrail(bsWorldEmitter* em, const bsTrailWindow* window, bsRng* rng, bsParticles* p,
	size_t* failed);

// The particles splash em (bsTrail.onContact) gives at the contacts of the step's move phase,
// splashes[0 .. count) (bsSplash): source after source in index order, each contact's in order, from
// rng, each placed and moving as the move phase would have it at the window's end from its birth at
// its contact (bsTrail_Drift's path). *failed as bsWorldEmitter_EmitTrail's.
bsResult bsWorldEmitter_EmitSplash(const bsWorldEmitter* em, const bsTrailWindow* window, const bsSplash* splashes,
	size_t count, bsRng* rng, bsParticles* p, size_t* failed);

// Particles [first, first + count) of a surface emitter on a moving body (emitter_body.c), each on
// the body's surface posed at `now` (the emit phase's start), moving with it; as bsEmitterDef_EmitRange.
bsResult bsWorldEmitter_EmitOnBody(bsWorldEmitter* emitter, double now, uint64_t first, uint64_t count, bsRng* rng,
	bsParticles* particles, size_t* failed);

// Particles [first, first + count), emitted together by one emitter, that leave the simulation at the
// end of the first step that ends at or after `expires`. A lifetime costs this per emitter and step,
// nothing per particle.
typedef struct bsBirth
{
	size_t first, count;
	double expires;
} bsBirth;

// The emit phases' batches, for the particles' ages: particles [first, the next batch's first) joined
// the set at `time`, the start of the step that emitted them. One a step that emits, nothing a particle.
typedef struct bsBornBatch
{
	size_t first;
	double time;
} bsBornBatch;

// One contact's tangential spring (step.h: tangentialStiffness), kept by each particle of the
// pair for the other: the partner's index and the tangential displacement (floats: 16 bytes).
typedef struct bsContactSpring
{
	uint32_t partner;  // UINT32_MAX: the end of a particle's list
	float xi[3];
} bsContactSpring;

// One contact's rolling spring (step.h: rolling_model epsd2), beside its bsContactSpring: the rolling
// torque M per unit relative mass (on the particle: -M).
typedef struct bsRollingSpring
{
	float torque[3];
} bsRollingSpring;

// Springs a particle keeps (its first contacts in the neighbour order; more have viscous friction).
#define BS_CONTACT_SPRINGS 8

struct bsWorld
{
	bsPool* pool;
	bsStepWorker* workers;  // one per pool thread
	bsRng rng;              // the emitters' stream
	bsCollider* colliders;  // grown as they are added, at most BS_WORLD_MAX_COLLIDERS
	int colliderCount, colliderCapacity;
	size_t meshBytes;       // bytes of the meshes' BVHs (bsBvh_Bytes), summed
	bsWorldEmitter* emitters;
	int emitterCount;
	size_t emitterCapacity;
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
	bsNeighbourGrid grid;   // the interaction phase's, kept for its memory (and the pair kinds' lists)
	bsNeighbourList pairs;  // the pair kinds' neighbour lists over grid, kept while valid (neighbour_list.h)
	bsMeshCache meshCache;  // each particle's candidate triangles of the first mesh (mesh_candidates.h)
	struct bsWorldBodies* bodies;  // the moving bodies (collider_body.h), NULL when none
	bsContactSpring* springs;  // BS_CONTACT_SPRINGS a particle, with a tangential stiffness, else NULL
	size_t springCapacity;     // particles they have room for
	bsRollingSpring* rolling;  // BS_CONTACT_SPRINGS a particle, beside springs, with epsd2, else NULL
	size_t rollingCapacity;    // particles they have room for
	float* bondAge;            // BS_CONTACT_SPRINGS a particle, beside springs, with sintered bonds, else NULL
	size_t bondCapacity;       // particles they have room for
	float* wallAge;            // with bonds to walls (step.h: wall_bond): each particle's rest on the walls, s; else NULL
	size_t wallAgeCapacity;    // particles it has room for
	bsVec3* spinBefore;        // with rotation: the spins before the interaction phase (the gather's)
	size_t spinCapacity;
	struct bsWorldDynamics* dynamics;  // the dynamic bodies' rigid states (body_dynamics.h), NULL until needed
	struct bsFluid* fluid;  // the fluid interaction's solver state (src/fluid/fluid.h), NULL until needed
	bsStepProfile profile;  // the last step's phase times (bsWorld_GetProfile)
	bsBornBatch* batches;   // every emission's batch, in order (bsWorld_BirthTime)
	size_t batchCount, batchCapacity;
	bsSubstepObserver* observer;  // bsWorld_SetSubstepObserver's, NULL: none (the program's, not saved)
	void* observerContext;
	bsSplash* splashes;     // with a splash (bsTrail.onContact): each particle's first impact of the
	size_t splashCapacity;  // step, written by its own worker in the move phase, used after it
};

// bsWorld_Sweep for a sweep already prepared (the step builds it once per contact).
void bsWorld_SweepPrepared(const bsWorld* world, bsMethod method, const bsSweep* sweep,
	bsSweepOutput* out, bsQueryStats* stats);

// Just clear of the contact's surface: its point, out along the normal by the radius (0 for ray) and
// a skin, so that the next sweep does not start in contact with the same surface.
static inline bsVec3 bsClearOf(const bsSweepOutput* out, double placed, double radius)
{
	double skin = 1e-6 * radius + 1e-9 * (1.0 + bsMaxAbs(out->point));
	return bsMulAdd(out->point, placed + skin, out->normal);
}

// Where a newborn particle of `radius` set from `from` (its birth point, clear of every wall) to `to`
// (its start, set back along its path to the step's start, or on to the step's end) may be put: `to`
// when the straight way from `from` meets no static mesh or plane (the exact sweep), else just clear of
// the first surface on the way. Set back from a birth point near a wall, a particle leaving the wall
// would otherwise start behind it. Moving bodies are not swept here (their poses within the step are
// the move phase's).
bsVec3 bsWorld_ClearWay(const bsWorld* world, bsVec3 from, bsVec3 to, double radius);

// The colliders from `first` on (in order) tested against the sweep over [u0, u1] of the substep, each
// replacing out only with a strictly nearer contact (bsWorld_SweepWindow's loop after its first mesh).
void bsWorld_SweepColliders(const bsWorld* world, int first, bsMethod method, const bsSweep* sweep, double u0,
	double u1, bsSweepOutput* out, bsQueryStats* stats);

// The same for a sweep over the part [u0, u1] of the current substep (moving bodies are where they are
// then; bsWorld_SweepPrepared is [0, 1]).
void bsWorld_SweepWindow(const bsWorld* world, bsMethod method, const bsSweep* sweep, double u0, double u1,
	bsSweepOutput* out, bsQueryStats* stats);
