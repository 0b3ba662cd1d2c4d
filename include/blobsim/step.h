// step.h — one time step of every particle, a fixed sequence of phases run on the world's pool:
//
//     emit       the particles born in [t, t + dt) are appended (in emitter order, one random stream)
//     per substep (dt / substeps, substeps given or planned by interaction.h's rule):
//       interact the free particles' velocities from the forces between them (interaction.h), read
//                from a copy of the state before the substep (only with an interaction)
//       forces   each free particle's velocity from the forces (forces.c: gravity, air drag, the
//                radial force, then the distance/normal field's rules), read from the state before
//                the substep only
//       move     each free particle sweeps from x to x + v dt against every collider, responds to
//                each contact (stick, slide, bounce) and goes on with the rest of the substep; with
//                the stuck collider (world.h), stuck and sleeping particles are colliders, gathered
//                into its grid before the phase, and the sleeping ones touched wake after it
//     statistics the workers' counts summed in worker order (integers: any order gives the same)
//     sleep      with sleepSteps > 0, a free particle calm for that many steps in a row falls asleep
//     expire     particles whose lifetime is up by t + dt leave (state escaped); t += dt
//
// Every phase writes only the slots of the particles it owns, and every particle's result depends
// only on the state before the phase, so the outcome is byte-identical for any thread count.
//
// Integration is symplectic Euler: v += a dt (a the sum of the forces), then linear air drag
// v *= exp(-drag dt) (exact for dv/dt = -drag v), then the sweep. With interaction none (the
// default) particles ignore each other, as in the paper; the interaction adds its velocity change
// before the forces.
#pragma once

#include "blobsim/field.h"
#include "blobsim/interaction.h"
#include "blobsim/particles.h"
#include "blobsim/radial.h"
#include "blobsim/world.h"

typedef enum bsResponse
{
	bs_responseStick = 0,  // stop for good at the contact, as slime does (the paper's behaviour)
	bs_responseSlide,      // keep the tangential part of the motion for the rest of the step
	bs_responseBounce,     // reflect the normal part, scaled by the restitution
	bs_responseCount
} bsResponse;

const char* bsResponseName(bsResponse response);
bool bsParseResponse(const char* name, bsResponse* response);

#define BS_MAX_CONTACTS 64  // the largest maxContacts
#define BS_MAX_RADIALS 8    // the most radial forces a step holds

// Every setting of a step; bsDefaultStepDef() gives each its default (in brackets).
typedef struct bsStepDef
{
	double dt;            // step length, seconds, > 0 [1]
	int substeps;         // the step is done as this many substeps of dt / substeps, >= 1; 0: as
	                      // many as the interaction's rule asks (bsInteraction_PlanSubsteps) [1]
	int maxSubsteps;      // with substeps 0, a step that needs more fails with bs_errUnstable [1000]
	bsVec3 gravity;       // acceleration [0, 0, 0]
	double drag;          // linear air drag per second (dv/dt = g - drag v), >= 0 [0]
	bsMethod method;      // collision method [karabassi]
	bsResponse response;  // [stick]
	double restitution;   // bounce: the normal speed kept, 0..1 [0.5]
	double friction;      // slide and bounce: tangential speed lost per contact, as a fraction of the
	                      // normal speed removed (Coulomb); 0..1 [0]
	int maxContacts;      // contacts handled per particle and substep, 1..BS_MAX_CONTACTS; then it
	                      // waits for the next [4]
	bool bounded;         // particles leaving [boundsMin, boundsMax] are marked escaped [false]
	bsVec3 boundsMin;
	bsVec3 boundsMax;
	// Rest: a free particle that is calm (|v| <= sleepSpeed at the end of a step and
	// |v_end - v_start| / dt <= sleepAcceleration over it) for sleepSteps steps in a row falls asleep
	// (bs_particleSleeping, velocity 0): it is no longer integrated until a moving particle touches it
	// (a contact with the stuck collider, world.h) approaching faster than wakeSpeed along the contact
	// normal, which wakes it after that move phase. A resting contact (an approach no faster than the
	// speed gravity adds in two substeps, which the response treats as inelastic) never wakes one.
	// With an interaction, sleepers are fixed neighbours of the interaction phase (interaction.h),
	// which wakes them by the same rule when a free particle touches one. Without one, free
	// particles pass through each other, so a woken particle lets the one that woke it sink into it:
	// for piles, a wakeSpeed above the landing speeds keeps the sleepers asleep.
	int sleepSteps;            // >= 0, 0: never [0]
	double sleepSpeed;         // >= 0 [0]
	double sleepAcceleration;  // >= 0 [0]
	double wakeSpeed;          // >= 0 [0: any approaching contact wakes]
	bsInteractionDef interaction;  // forces between particles [none]
	// The distance/normal grid's effects (field.h: spring, impact, drag, surface flow), applied in the
	// forces phase after the other forces, each particle from its own position and velocity and the
	// grid alone. NULL: none [NULL]. The step borrows the grid: it must outlive the step.
	const bsDistanceGrid* fieldGrid;
	// Its compressed tree (field.h): when not NULL the rules look it up instead of fieldGrid
	// (which may then be NULL) [NULL].
	const bsGridTree* fieldTree;
	bsFieldDef field;              // the rules [bsDefaultFieldDef(): all off]
	// Pushes away from (or towards) points in time windows (radial.h: explosions), applied in the
	// forces phase with gravity, each particle from its own position; radial[0] .. radial[radialCount
	// - 1] are added in that order [radialCount 0: none; each entry bsDefaultRadialDef()].
	bsRadialDef radial[BS_MAX_RADIALS];
	int radialCount;
} bsStepDef;

bsStepDef bsDefaultStepDef(void);

// What a step did, summed over particles (integers: the same for any thread count).
typedef struct bsStepStats
{
	uint64_t contacts[bs_testCount][bs_branchCount];  // by sub-test and branch
	uint64_t queries;          // sweeps asked of the world
	uint64_t nodesVisited;
	uint64_t trianglesTested;
	uint64_t emitted;          // particles the emit phase added
	uint64_t stuck;            // particles stopped for good in this step
	uint64_t escaped;          // particles that left the bounds in this step
	uint64_t expired;          // particles whose lifetime ended in this step (now escaped too)
	uint64_t contactLimit;     // particles that used every contact of a substep
	uint64_t fellAsleep;       // particles that fell asleep at the end of this step
	uint64_t woken;            // sleeping particles a moving one touched in this step
	uint64_t substeps;         // substeps done
	uint64_t pairs;            // interaction: (particle, neighbour within reach) pairs, both ways
	uint64_t contactPairs;     // of those, pairs in contact (overlapping), both ways
} bsStepStats;

// Advances the world and the particles by one step. stats (may be NULL) is added to. Fails with
// bs_errInvalidArgument for a setting out of range, bs_errUnstable when substeps is 0 and the step
// would need more than maxSubsteps (the particles then are as emitted, not moved), bs_errOutOfMemory when the particles cannot
// grow, or an emitter's error (bsEmitterDef_Emit: a particle that fails its check).
bsResult bsWorld_Step(bsWorld* world, const bsStepDef* def, bsParticles* particles,
	bsStepStats* stats);

// Every particle the emitters will still make, at once (the emit phase of bsWorld_Step appends only
// those born in its window), born at the world's time. stats (may be NULL) counts them. Errors as for
// bsWorld_Step.
bsResult bsWorld_Emit(bsWorld* world, bsParticles* particles, bsStepStats* stats);

// After a failed emit phase: the emitter (in the order added) and the index within it of the
// particle that failed its check, for the caller's message. False when the last step's emission
// did not fail.
bool bsWorld_EmitFailure(const bsWorld* world, int* emitter, size_t* index);

void bsStepStats_Add(bsStepStats* total, const bsStepStats* add);

// Seconds the last step spent in each of its phases, on the monotonic clock (timer.h): one clock read
// per phase and substep, none per particle. The phases follow each other, so they add up to at most
// the step's wall time. Unlike bsStepStats they depend on the machine and its load: report them, never
// compare them (they change no other result).
typedef struct bsStepProfile
{
	double emit;         // the emit phase, and the sleep bookkeeping before the substeps
	double plan;         // choosing the substeps
	double interaction;  // the particle interaction (neighbour grid, contact forces) and its wakes
	double forces;       // gravity, drag and the field
	double colliders;    // the moving bodies' poses and dynamics, the stuck particles' collider grid
	double move;         // the sweeps against the colliders (with their Morton order) and their wakes
	double sleep;        // the end-of-step sleep test
	double expire;       // lifetimes
} bsStepProfile;

// The phases' times of the last bsWorld_Step (all zero before the first).
bsStepProfile bsWorld_GetProfile(const bsWorld* world);

void bsStepProfile_Add(bsStepProfile* total, const bsStepProfile* add);

// The sum of the phases' times.
double bsStepProfile_Total(const bsStepProfile* profile);
