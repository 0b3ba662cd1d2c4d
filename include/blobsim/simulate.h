// simulate.h — one time step for every particle: move under velocity and forces, ask the environment
// for the first contact along the way, respond, and continue with the rest of the step.
//
// Integration is symplectic Euler: v += g dt, then linear air drag v *= exp(-drag dt), then the
// particle sweeps from x to x + v dt. No particle-particle forces (as in the paper).
#pragma once

#include "blobsim/bvh.h"
#include "blobsim/particles.h"
#include "blobsim/plane.h"

typedef enum bsResponse
{
	bs_responseStick = 0,  // stop for good at the contact, as slime does (the paper's behaviour)
	bs_responseSlide,      // keep the tangential part of the motion for the rest of the step
	bs_responseBounce,     // reflect the normal part, scaled by the restitution
	bs_responseCount
} bsResponse;

const char* bsResponseName(bsResponse response);
bool bsParseResponse(const char* name, bsResponse* response);

// What the particles move through: a triangle BVH (may be NULL) and analytic planes.
typedef struct bsWorld
{
	const bsBvh* bvh;
	const bsPlane* planes;
	uint32_t planeCount;
} bsWorld;

typedef struct bsStepSettings
{
	double dt;            // step length, seconds
	bsVec3 gravity;       // acceleration
	double drag;          // linear air drag per second (dv/dt = g - drag v), >= 0
	bsMethod method;      // collision method
	bsResponse response;
	double restitution;   // bounce: the normal speed kept, 0..1
	double friction;      // slide and bounce: tangential speed lost per contact, as a fraction of the
	                      // normal speed removed (Coulomb); 0..1
	int maxContacts;      // contacts handled per particle and step, >= 1; then it waits for the next
	bool bounded;         // particles leaving [boundsMin, boundsMax] are marked escaped
	bsVec3 boundsMin;
	bsVec3 boundsMax;
	int threads;          // <= 0: all cores
} bsStepSettings;

// What a step did, summed over particles (integers: the same for any thread count).
typedef struct bsStepStats
{
	uint64_t contacts[bs_testCount][bs_branchCount];  // by sub-test and branch
	uint64_t queries;          // sweeps asked of the world
	uint64_t nodesVisited;
	uint64_t trianglesTested;
	uint64_t stuck;            // particles stopped for good in this step
	uint64_t escaped;          // particles that left the bounds in this step
	uint64_t contactLimit;     // particles that used every contact of the step
} bsStepStats;

// The nearest contact of one sweep with the world: the BVH's triangles and the planes. Triangle
// contacts report their triangle index, plane contacts BS_NO_TRIANGLE with test bs_testPlane.
bsResult bsWorld_Sweep(const bsWorld* world, bsMethod method, const bsSweepInput* input,
	bsSweepOutput* out, bsQueryStats* stats);

// Advances every free particle by one step. Each particle's result depends only on its own state,
// so the outcome is byte-identical for any thread count. stats (may be NULL) is added to.
bsResult bsSimulate_Step(const bsWorld* world, const bsStepSettings* settings,
	bsParticles* particles, bsStepStats* stats);

void bsStepStats_Add(bsStepStats* total, const bsStepStats* add);
